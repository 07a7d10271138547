"""Reference (float64 numpy) implementations of the quantization operators."""
from __future__ import annotations

import numpy as np

OPS = {}
