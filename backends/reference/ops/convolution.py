"""Reference (float64 numpy) implementations of the convolution operators."""
from __future__ import annotations

import numpy as np

OPS = {}
