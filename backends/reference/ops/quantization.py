"""Reference implementations of quantizeLinear and dequantizeLinear
(spec #api-mlgraphbuilder-quantizelinear, -dequantizelinear).

    dequantizeLinear: output = (input - zeroPoint) * scale
    quantizeLinear:   output = clamp(roundEven(input / scale) + zeroPoint,
                                     zeroPoint type's min, zeroPoint type's max)

with scale and zeroPoint blockwise-expanded to the input's shape (every
element repeated input.shape[axis] / scale.shape[axis] times along each axis).
The spec's quantizeLinear text shows the clamp for "uint8" (0, 255); its
emulation clamps to [0, 255] whatever the type, which only fits uint8: the
clamp here saturates to the output type's own range, as the description says.

Differences from ONNX (cross-checked in tests/test_quantization_reference.py):
ONNX takes a scalar or 1-D scale with an ``axis`` attribute (per-axis) or a
same-rank scale blocked along ONE axis (``block_size``, opset 21); WebNN's
scale always has the input's rank and may be blocked along several axes at
once. ONNX QuantizeLinear has no int32/uint32 outputs (WebNN allows them) and
computes in float32 with np.rint (round half to even, as WebNN's roundEven).
ONNX zero points are optional (default 0, uint8); WebNN's are required.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from webnn_harness.backends.reference.ops.base import ImplementationDefined
from webnn_harness.spec.blockwise import blockwise_expand


def _bad_scale(scale: np.ndarray) -> np.ndarray:
    # Spec: scale "Values must be positive and nonzero, or else the behavior is
    # implementation-defined". NaN is not positive either.
    return ~(scale > 0)


def dequantizeLinear(input, scale, zeroPoint):
    scale = blockwise_expand(scale, input.shape)
    # Integer subtraction in int64 is exact for every allowed type (|diff| < 2^33);
    # the float64 product is exact while |diff| <= 2^29 (29 + 24 bits <= 53),
    # so the caller's rounding is the only rounding for the corpus' values.
    difference = input.astype(np.int64) - blockwise_expand(zeroPoint, input.shape).astype(np.int64)
    output = difference.astype(np.float64) * scale
    undefined = _bad_scale(scale)
    if undefined.any():
        return ImplementationDefined(output, undefined, "dequantizeLinear: scale is not positive (spec: implementation-defined)")
    return output


def _quantize(quotient: np.ndarray, zero_point: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """roundEven(quotient) + zeroPoint, saturated to [lo, hi], in float64 (exact
    for every value that does not saturate: integers below 2^53)."""
    return np.clip(np.rint(quotient) + zero_point, lo, hi)


def _division_type(input: np.ndarray, scale: np.ndarray) -> np.dtype:
    """The float type the division is done in (the input's data type). The
    reference receives float64 arrays, so it is inferred: float16 when every
    input and scale value is a float16 value (always true for float16 operands;
    for float32 operands it only widens the tie window, a conservative choice)."""
    both = np.concatenate([input.ravel(), scale.ravel()])
    finite = both[np.isfinite(both)]
    is_half = np.array_equal(finite.astype(np.float16).astype(np.float64), finite)
    return np.dtype(np.float16) if is_half else np.dtype(np.float32)


def _ambiguous_rounding(input, scale, quotient, zero_point, info: ml_dtypes.iinfo) -> np.ndarray:
    """Elements where a conforming implementation dividing in the operand's
    float type may legitimately land on another integer than the exact
    quotient does. The spec's emulation is roundEven(div(input, scale)) with
    div done in float32/float16, whose result can sit on (or across) a .5 tie
    that the exact quotient does not. Candidates: the correctly rounded typed
    quotient and its two neighbours (a division off by 1 ULP); where the typed
    quotient is exact (e.g. scale a power of two) every implementation agrees,
    so deliberate ties like 2.5 stay judged.

    For 32-bit outputs the emulation also adds zeroPoint and clamps in the
    float type, where integers beyond 2^(mantissa bits + 1), the 32-bit bounds
    and infinities are inexact: those elements are implementation-defined too.
    """
    dtype = _division_type(input, scale)
    # float64 -> float16/32 of a quotient of such values is correctly rounded
    # (53 >= 2p + 2, so the double rounding is innocuous).
    typed = quotient.astype(dtype)
    exact = typed.astype(np.float64) * scale == input
    expected = _quantize(quotient, zero_point, info.min, info.max)
    ambiguous = np.zeros(quotient.shape, bool)
    for candidate in (np.nextafter(typed, dtype.type(-np.inf)), typed, np.nextafter(typed, dtype.type(np.inf))):
        ambiguous |= _quantize(candidate.astype(np.float64), zero_point, info.min, info.max) != expected
    ambiguous &= ~exact
    if info.bits >= 32:
        limit = 2.0 ** (np.finfo(dtype).nmant + 1)
        ambiguous |= (np.abs(np.rint(quotient) + zero_point) > limit) | (np.abs(zero_point) > limit)
    return ambiguous


_QUANTIZE_REASON = (
    "quantizeLinear: NaN input, non-positive scale, a quotient within a float ULP of a rounding tie, "
    "or a 32-bit result beyond the float type's integer precision (implementation-defined)"
)


def quantizeLinear(input, scale, zeroPoint):
    # Output type = zeroPoint's type; ml_dtypes.iinfo also knows int4/uint4
    # (WPT's and Chromium's extension: saturate to [-8, 7] and [0, 15]).
    info = ml_dtypes.iinfo(zeroPoint.dtype)
    scale = blockwise_expand(scale, input.shape)
    zero_point = blockwise_expand(zeroPoint, input.shape).astype(np.float64)  # exact for 32-bit ints
    with np.errstate(all="ignore"):  # zero scales and float16 overflow are flagged or intended
        quotient = input / scale
        nan = np.isnan(quotient)
        # NaN: the emulation's clamp and float->int cast leave it to the implementation.
        values = _quantize(np.where(nan, 0.0, quotient), zero_point, info.min, info.max).astype(zeroPoint.dtype)
        undefined = nan | _bad_scale(scale) | _ambiguous_rounding(input, scale, quotient, zero_point, info)
    if undefined.any():
        return ImplementationDefined(values, undefined, _QUANTIZE_REASON)
    return values


OPS = {"quantizeLinear": quantizeLinear, "dequantizeLinear": dequantizeLinear}
