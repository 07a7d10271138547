"""Reference (float64 numpy) implementations of the reduction operators:
reduce*, argMin/argMax, cumulativeSum, softmax.

Float operands arrive as float64; integer operands keep their exact dtype and
are computed in that dtype (never through float64, so 64-bit values beyond
2^53 stay exact).

Integer overflow: the spec says nothing about it for reduceSum, reduceProduct,
reduceL1, reduceSumSquare or cumulativeSum. We compute modulo 2^bits in the
operand's own type (two's complement wraparound), which is what numpy does for
a fixed-dtype accumulator and what every native backend we know of does
(ONNX Runtime, OpenVINO, DirectML all accumulate in the element type).
``np.sum`` would otherwise widen int32/uint32 to 64 bits, hence ``dtype=``.
"""
from __future__ import annotations

import numpy as np

from webnn_harness.backends.reference.ops.base import ImplementationDefined


def _axes(axes) -> tuple[int, ...]:
    return tuple(axes)


def _is_int(x: np.ndarray) -> bool:
    return x.dtype.kind in "iu"


def _sum(x: np.ndarray, axes, keepDimensions: bool) -> np.ndarray:
    # Integer: accumulate in the input's own type (wraps, see module docstring).
    dtype = x.dtype  # integers wrap in-type; floats: float64, or the operand type (evaluate.py precision)
    return np.sum(x, axis=_axes(axes), keepdims=keepDimensions, dtype=dtype)


def reduceSum(input, axes, keepDimensions):
    return _sum(input, axes, keepDimensions)


def reduceL1(input, axes, keepDimensions):
    # Unsigned: |x| is x. Signed: np.abs(INT_MIN) wraps to INT_MIN, the same
    # two's complement rule as the sum.
    magnitude = input if input.dtype.kind == "u" else np.abs(input)
    return _sum(magnitude, axes, keepDimensions)


def reduceSumSquare(input, axes, keepDimensions):
    return _sum(input * input, axes, keepDimensions)  # integer square wraps in-type


def reduceProduct(input, axes, keepDimensions):
    dtype = input.dtype  # float64, or the operand type (evaluate.py precision)
    return np.prod(input, axis=_axes(axes), keepdims=keepDimensions, dtype=dtype)


def reduceL2(input, axes, keepDimensions):
    return np.sqrt(_sum(input * input, axes, keepDimensions))


def reduceMean(input, axes, keepDimensions):
    return np.mean(input, axis=_axes(axes), keepdims=keepDimensions)


def reduceLogSum(input, axes, keepDimensions):
    return np.log(_sum(input, axes, keepDimensions))


def reduceLogSumExp(input, axes, keepDimensions):
    """log(sum(exp(x))) computed as m + log(sum(exp(x - m))) with m the slice
    maximum, so large inputs do not overflow exp. An infinite (or NaN) m is
    replaced by 0: then +inf gives +inf, all -inf gives log(0) = -inf, NaN stays NaN."""
    axes = _axes(axes)
    m = np.max(input, axis=axes, keepdims=True) if input.size else np.zeros_like(input)
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(np.sum(np.exp(input - m), axis=axes, keepdims=True)) + m
    return out if keepDimensions else np.squeeze(out, axis=axes)


def _extremum(fn, input, axes, keepDimensions, op: str):
    out = fn(input, axis=_axes(axes), keepdims=keepDimensions)
    if input.dtype.kind != "f":
        return out
    # The spec defines reduceMax/reduceMin as "the maximum/minimum value of the
    # input values" and says nothing about NaN; backends differ (fmax-style
    # kernels skip NaN, others propagate it), so slices holding a NaN are
    # implementation-defined.
    has_nan = np.any(np.isnan(input), axis=_axes(axes), keepdims=keepDimensions)
    if not np.any(has_nan):
        return out
    return ImplementationDefined(out, has_nan, f"{op}: NaN in the reduced values; the spec does not define NaN handling")


def reduceMax(input, axes, keepDimensions):
    return _extremum(np.max, input, axes, keepDimensions, "reduceMax")


def reduceMin(input, axes, keepDimensions):
    return _extremum(np.min, input, axes, keepDimensions, "reduceMin")


def _arg(index_fn, extreme_fn, input, axis, keepDimensions, outputDataType, op: str):
    """Spec: "In case of ties, the identity of the return value is
    implementation dependent." We return the first index (what ONNX with
    select_last_index=0 returns) and mark every output whose slice has a tie
    as implementation-defined, so any valid index passes. A slice with a NaN is
    marked too: the spec does not say whether NaN is smaller or larger than
    numbers. +0 and -0 compare equal, so they tie."""
    index = index_fn(input, axis=axis, keepdims=True).astype(outputDataType)
    extreme = extreme_fn(input, axis=axis, keepdims=True)
    ties = np.sum(input == extreme, axis=axis, keepdims=True) > 1
    if input.dtype.kind == "f":
        ties |= np.any(np.isnan(input), axis=axis, keepdims=True)
    if not keepDimensions:
        index, ties = np.squeeze(index, axis=axis), np.squeeze(ties, axis=axis)
    if not np.any(ties):
        return index
    return ImplementationDefined(index, ties, f"{op}: tie (or NaN) in the reduced slice; the spec leaves the index to the implementation")


def argMin(input, axis, keepDimensions, outputDataType):
    return _arg(np.argmin, np.min, input, axis, keepDimensions, outputDataType, "argMin")


def argMax(input, axis, keepDimensions, outputDataType):
    return _arg(np.argmax, np.max, input, axis, keepDimensions, outputDataType, "argMax")


def cumulativeSum(input, axis, exclusive, reversed):
    """Inclusive or exclusive prefix sum along ``axis``, optionally from the
    high end. Exclusive shifts the input by one (a 0 enters first) instead of
    subtracting the input from the inclusive sum, which would turn
    inf - inf into NaN and lose low bits."""
    x = np.flip(input, axis) if reversed else input
    if exclusive:
        zero = np.zeros_like(np.take(x, [0], axis=axis))
        x = np.concatenate([zero, np.delete(x, -1, axis=axis)], axis=axis)
    dtype = x.dtype  # integers wrap in-type; floats: float64, or the operand type (evaluate.py precision)
    out = np.cumsum(x, axis=axis, dtype=dtype)  # integers wrap in-type
    return np.flip(out, axis) if reversed else out


def softmax(input, axis):
    """The spec's emulation, exp(x - max) / sum(exp(x - max)) along axis: stable,
    and it fixes the special cases (an +inf input gives NaN through
    inf - inf; -inf inputs beside finite ones give exactly 0)."""
    shifted = input - np.max(input, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


OPS = {
    "reduceL1": reduceL1,
    "reduceL2": reduceL2,
    "reduceLogSum": reduceLogSum,
    "reduceLogSumExp": reduceLogSumExp,
    "reduceMax": reduceMax,
    "reduceMean": reduceMean,
    "reduceMin": reduceMin,
    "reduceProduct": reduceProduct,
    "reduceSum": reduceSum,
    "reduceSumSquare": reduceSumSquare,
    "argMin": argMin,
    "argMax": argMax,
    "cumulativeSum": cumulativeSum,
    "softmax": softmax,
}
