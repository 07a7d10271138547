"""Reductions, argMin/argMax, cumulativeSum."""
from __future__ import annotations

import openvino.opset16 as ops

from webnn_harness.backends.openvino.lower.base import const, i64, output, squeeze


def _reduce(native, over_nothing=lambda x: output(x)):
    """A reduction with OpenVINO's native op. With empty ``axes`` the spec
    reduces over no dimension, so each element is its own reduction:
    ``over_nothing`` gives that value (e.g. |x| for reduceL1)."""

    def lower(out, input, axes, keepDimensions):
        if not axes:
            return over_nothing(input)
        return output(native(input, i64(axes), keepDimensions))

    return lower


def _square(x):
    return output(ops.multiply(x, x))


def reduce_sum_square(out, input, axes, keepDimensions):
    if not axes:
        return _square(input)
    return output(ops.reduce_sum(_square(input), i64(axes), keepDimensions))


def reduce_log_sum(out, input, axes, keepDimensions):
    if not axes:
        return output(ops.log(input))
    return output(ops.log(ops.reduce_sum(input, i64(axes), keepDimensions)))


def reduce_log_sum_exp(out, input, axes, keepDimensions):
    # log(sum(exp(x - m))) + m with m the maximum: exp(x) alone overflows
    # float32 for x > 88 where the true result is finite. m is replaced by 0
    # where it is infinite, so all -inf gives -inf and any +inf gives +inf.
    if not axes:
        return output(input)
    m = ops.reduce_max(input, i64(axes), True)
    m = ops.select(ops.is_inf(m), const(0, input), m)
    shifted = ops.exp(ops.subtract(input, m))
    result = ops.add(ops.log(ops.reduce_sum(shifted, i64(axes), True)), m)
    return output(result) if keepDimensions else squeeze(result, axes)


def _arg(mode):
    def lower(out, input, axis, keepDimensions, outputDataType):
        # TopK k=1 with stable=True returns the first index among equal values
        # (stable needs a sort mode; with one element it orders nothing).
        index_type = {"int32": "i32", "int64": "i64"}[outputDataType]
        topk = ops.topk(input, i64(1), axis, mode, "index", index_type, True)
        indices = topk.output(1)
        return indices if keepDimensions else squeeze(indices, [axis])

    return lower


def cumulative_sum(out, input, axis, exclusive, reversed):
    return output(ops.cum_sum(input, i64(axis), exclusive, reversed))


LOWER = {
    "reduceL1": _reduce(ops.reduce_l1, lambda x: output(ops.abs(x))),
    "reduceL2": _reduce(ops.reduce_l2, lambda x: output(ops.abs(x))),
    "reduceLogSum": reduce_log_sum,
    "reduceLogSumExp": reduce_log_sum_exp,
    "reduceMax": _reduce(ops.reduce_max),
    "reduceMean": _reduce(ops.reduce_mean),
    "reduceMin": _reduce(ops.reduce_min),
    "reduceProduct": _reduce(ops.reduce_prod),
    "reduceSum": _reduce(ops.reduce_sum),
    "reduceSumSquare": reduce_sum_square,
    "argMin": _arg("min"),
    "argMax": _arg("max"),
    "cumulativeSum": cumulative_sum,
}

EMULATIONS = {
    "reduceLogSum": "ReduceSum, Log",
    "reduceLogSumExp": "ReduceMax m, log(ReduceSum(exp(x - m))) + m (no overflow for large x)",
    "reduceSumSquare": "Multiply(x, x), ReduceSum",
    "argMin": "TopK(k=1, mode=min, stable) indices, Squeeze unless keepDimensions",
    "argMax": "TopK(k=1, mode=max, stable) indices, Squeeze unless keepDimensions",
}
