"""Reference (float64 numpy) implementations of the reduction operators."""
from __future__ import annotations

import numpy as np

OPS = {}
