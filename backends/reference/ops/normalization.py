"""Reference (float64 numpy) implementations of the normalization operators."""
from __future__ import annotations

import numpy as np

OPS = {}
