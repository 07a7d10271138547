"""Reductions, argMin/argMax, cumulativeSum."""
from __future__ import annotations

import openvino.opset16 as ops

from webnn_harness.backends.lowering import Call, LogSumExpSteps, log_sum_exp, reduce_over_no_axes
from webnn_harness.backends.openvino.lower.base import const, i64, output, reshape, shape, squeeze


def _square(x):
    return output(ops.multiply(x, x))


# The element-wise steps of a reduction over no axes (backends/lowering.py ONE_ELEMENT_REDUCTION).
ONE_ELEMENT_STEPS = {
    "abs": lambda x: output(ops.abs(x)),
    "log": lambda x: output(ops.log(x)),
    "square": _square,
    "identity": output,
}


def _reduce(op, native):
    """The reduction ``op`` with OpenVINO's native op ``native``."""

    def lower(e, c: Call):
        x, axes = c["input"], c.attr("axes")
        if not axes:
            return reduce_over_no_axes(op, x, ONE_ELEMENT_STEPS)
        return output(native(x, i64(axes), c.attr("keepDimensions")))

    return lower


def reduce_sum_square(e, c: Call):
    x, axes = c["input"], c.attr("axes")
    if not axes:
        return reduce_over_no_axes("reduceSumSquare", x, ONE_ELEMENT_STEPS)
    return output(ops.reduce_sum(_square(x), i64(axes), c.attr("keepDimensions")))


def reduce_log_sum(e, c: Call):
    x, axes = c["input"], c.attr("axes")
    if not axes:
        return reduce_over_no_axes("reduceLogSum", x, ONE_ELEMENT_STEPS)
    return output(ops.log(ops.reduce_sum(x, i64(axes), c.attr("keepDimensions"))))


def _zero_where_infinite(x):
    return output(ops.select(ops.is_inf(x), const(0, x), x))


LOG_SUM_EXP_STEPS = LogSumExpSteps(
    reduce_max_kept=lambda x, axes: output(ops.reduce_max(x, i64(axes), True)),
    reduce_sum=lambda x, axes, keep: output(ops.reduce_sum(x, i64(axes), keep)),
    zero_where_infinite=_zero_where_infinite,
    exp=lambda x: output(ops.exp(x)),
    log=lambda x: output(ops.log(x)),
    sub=lambda a, b: output(ops.subtract(a, b)),
    add=lambda a, b: output(ops.add(a, b)),
    shaped_like=lambda x, like: x if shape(x) == shape(like) else reshape(x, shape(like)),
)


def reduce_log_sum_exp(e, c: Call):
    x, axes = c["input"], c.attr("axes")
    if not axes:
        return reduce_over_no_axes("reduceLogSumExp", x, ONE_ELEMENT_STEPS)
    return log_sum_exp(x, axes, c.attr("keepDimensions"), LOG_SUM_EXP_STEPS)


def _arg(mode):
    def lower(e, c: Call):
        # TopK k=1 with stable=True returns the first index among equal values
        # (stable needs a sort mode; with one element it orders nothing).
        axis = c.attr("axis")
        index_type = {"int32": "i32", "int64": "i64"}[c.attr("outputDataType")]
        topk = ops.topk(c["input"], i64(1), axis, mode, "index", index_type, True)
        indices = topk.output(1)
        return indices if c.attr("keepDimensions") else squeeze(indices, [axis])

    return lower


def cumulative_sum(e, c: Call):
    return output(ops.cum_sum(c["input"], i64(c.attr("axis")), c.attr("exclusive"), c.attr("reversed")))


LOWER = {
    "reduceL1": _reduce("reduceL1", ops.reduce_l1),
    "reduceL2": _reduce("reduceL2", ops.reduce_l2),
    "reduceLogSum": reduce_log_sum,
    "reduceLogSumExp": reduce_log_sum_exp,
    "reduceMax": _reduce("reduceMax", ops.reduce_max),
    "reduceMean": _reduce("reduceMean", ops.reduce_mean),
    "reduceMin": _reduce("reduceMin", ops.reduce_min),
    "reduceProduct": _reduce("reduceProduct", ops.reduce_prod),
    "reduceSum": _reduce("reduceSum", ops.reduce_sum),
    "reduceSumSquare": reduce_sum_square,
    "argMin": _arg("min"),
    "argMax": _arg("max"),
    "cumulativeSum": cumulative_sum,
}

EMULATED = {
    "reduceLogSum": "ReduceSum, Log",
    "reduceLogSumExp": "ReduceMax m, log(ReduceSum(exp(x - m))) + m (no overflow for large x)",
    "reduceSumSquare": "Multiply(x, x), ReduceSum",
    "argMin": "TopK(k=1, mode=min, stable) indices, Squeeze unless keepDimensions",
    "argMax": "TopK(k=1, mode=max, stable) indices, Squeeze unless keepDimensions",
}
