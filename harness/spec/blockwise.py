"""The spec's "blockwise expand" (quantizeLinear, dequantizeLinear): each
element of a scale or zero point repeated along each axis up to the input's
shape. Used by the reference ops and by the verdict (which elements of a
quantization op's output share their operands: harness/verdict/tolerance.py)."""
from __future__ import annotations

import numpy as np


def blockwise_expand(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Repeat each element along each axis up to ``shape`` (the spec's
    blockwiseExpand: [1,2,3] to 6 elements gives [1,1,2,2,3,3])."""
    for axis, (size_from, size_to) in enumerate(zip(values.shape, shape)):
        values = np.repeat(values, size_to // size_from, axis=axis)
    return values
