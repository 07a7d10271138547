"""Reductions, argMin/argMax and cumulativeSum.

TFLite reduces with SUM, MEAN, REDUCE_MAX, REDUCE_MIN and REDUCE_PROD;
L1, L2, logSum, logSumExp and sumSquare are composed from them, as in
Chromium. WebNN reduces over no axes by applying the reduction to each
element alone (spec "reduction operations"), composed element-wise here.
"""
from __future__ import annotations

from ai_edge_litert import schema_py_generated as schema

from webnn_harness.backends.litert.emitter import OP, Call, Emitter, Unlowerable
from webnn_harness.backends.litert.lower.elementwise import INT8_PLAIN, binary, refuse_quantized, unary
from webnn_harness.backends.lowering import LogSumExpSteps, log_sum_exp, reduce_over_no_axes
from webnn_harness.spec.dtypes import is_float
from webnn_harness.spec.graph import TensorDesc


# LiteRT's reduce kernels (kernels/reduce.cc) have no unsigned 32/64-bit
# code; their Prepare fails with no message ("Node number 0 (SUM) failed to
# prepare"), so the refusal is said here.
NO_REDUCE_KERNEL = ("uint32", "uint64")


def reduce(e: Emitter, code: int, x: int, axes, keep: bool) -> int:
    data_type = e.desc(x).data_type
    if data_type in NO_REDUCE_KERNEL:
        raise Unlowerable(f"LiteRT's reduce kernels (SUM, MEAN, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD) have no "
                          f"{data_type} code")
    shape = e.desc(x).shape
    axes = sorted(a % len(shape) for a in axes)
    out = [1 if a in axes else n for a, n in enumerate(shape)] if keep else \
        [n for a, n in enumerate(shape) if a not in axes]
    options = schema.ReducerOptionsT()
    options.keepDims = keep
    return e.op(code, [x, e.i32(axes)], e.like(x, shape=out), options)


def _sum_square(e, x):
    """SQUARE on floats (the builtin MUL clamps its result to +-FLT_MAX, so
    inf * inf would be finite); MUL on integers (SQUARE has no integer kernel)."""
    if is_float(e.desc(x).data_type):
        return unary(e, OP.SQUARE, x)
    return binary(e, OP.MUL, x, x)


def _log_sum_exp_steps(e: Emitter) -> LogSumExpSteps:
    def zero_where_infinite(peak: int) -> int:
        data_type = e.desc(peak).data_type
        infinite = binary(e, OP.EQUAL, unary(e, OP.ABS, peak), e.scalar(float("inf"), data_type), "bool")
        return e.op(OP.SELECT_V2, [infinite, e.scalar(0, data_type), peak], e.like(peak))

    return LogSumExpSteps(
        reduce_max_kept=lambda x, axes: reduce(e, OP.REDUCE_MAX, x, axes, True),
        reduce_sum=lambda x, axes, keep: reduce(e, OP.SUM, x, axes, keep),
        zero_where_infinite=zero_where_infinite,
        exp=lambda x: unary(e, OP.EXP, x),
        log=lambda x: unary(e, OP.LOG, x),
        sub=lambda a, b: binary(e, OP.SUB, a, b),
        add=lambda a, b: binary(e, OP.ADD, a, b),
        shaped_like=lambda x, like: e.reshape(x, e.desc(like).shape),
    )


# op -> (element-wise step before the reduction, reducer, step after it)
_COMPOSED = {
    "reduceSum": (None, OP.SUM, None),
    "reduceMean": (None, OP.MEAN, None),
    "reduceMax": (None, OP.REDUCE_MAX, None),
    "reduceMin": (None, OP.REDUCE_MIN, None),
    "reduceProduct": (None, OP.REDUCE_PROD, None),
    "reduceL1": (lambda e, x: unary(e, OP.ABS, x), OP.SUM, None),
    "reduceL2": (_sum_square, OP.SUM, lambda e, x: unary(e, OP.SQRT, x)),
    "reduceLogSum": (None, OP.SUM, lambda e, x: unary(e, OP.LOG, x)),
    "reduceSumSquare": (_sum_square, OP.SUM, None),
}


def _one_element_steps(e: Emitter, out: TensorDesc):
    """The element-wise steps of a reduction over no axes (backends/lowering.py
    ONE_ELEMENT_REDUCTION); SQUARE on every type, integers too."""
    return {
        "abs": lambda x: unary(e, OP.ABS, x),
        "log": lambda x: unary(e, OP.LOG, x),
        "square": lambda x: unary(e, OP.SQUARE, x),
        "identity": lambda x: e.op(OP.RESHAPE, [x, e.i32(out.shape)], out),
    }


def _reduce(op: str):
    def lower(e: Emitter, c: Call) -> int:
        refuse_quantized(c, "input", INT8_PLAIN if op in ("reduceMax", "reduceMin") else ())
        x = c["input"]
        axes = list(c.attr("axes"))
        keep = c.attr("keepDimensions")
        if not axes:
            return reduce_over_no_axes(op, x, _one_element_steps(e, c.out))
        if op == "reduceLogSumExp":
            return log_sum_exp(x, axes, keep, _log_sum_exp_steps(e))
        before, code, after = _COMPOSED[op]
        y = reduce(e, code, before(e, x) if before else x, axes, keep)
        return after(e, y) if after else y

    return lower


def _arg(code: int, options_class):
    def lower(e: Emitter, c: Call) -> int:
        refuse_quantized(c, "input", INT8_PLAIN)
        axis = c.attr("axis")
        options = options_class()
        options.outputType = schema.TensorType.INT64 if c.out.data_type == "int64" else schema.TensorType.INT32
        shape = [n for a, n in enumerate(c.desc("input").shape) if a != axis]
        index = e.op(code, [c["input"], e.i32([axis])], e.like(c["input"], c.out.data_type, shape), options)
        return e.reshape(index, c.out.shape) if tuple(shape) != tuple(c.out.shape) else index

    return lower


def cumulative_sum(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    options = schema.CumsumOptionsT()
    options.exclusive = c.attr("exclusive")
    options.reverse = c.attr("reversed")
    axis = e.const(c.attr("axis"), "int32", ())
    return e.op(OP.CUMSUM, [c["input"], axis], c.out, options)


LOWER = {
    **{op: _reduce(op) for op in (*_COMPOSED, "reduceLogSumExp")},
    "argMin": _arg(OP.ARG_MIN, schema.ArgMinOptionsT),
    "argMax": _arg(OP.ARG_MAX, schema.ArgMaxOptionsT),
    "cumulativeSum": cumulative_sum,
}

EMULATED = {
    "reduceL1": "SUM(ABS(x))",
    "reduceL2": "SQRT(SUM(SQUARE(x)))",
    "reduceLogSum": "LOG(SUM(x))",
    "reduceLogSumExp": "max + LOG(SUM(EXP(x - max))) with REDUCE_MAX (an infinite max taken as 0)",
    "reduceSumSquare": "SUM(SQUARE(x)) (integers: MUL(x, x))",
    "argMin": "keepDimensions: ARG_MIN then RESHAPE (TFLite drops the axis)",
    "argMax": "keepDimensions: ARG_MAX then RESHAPE (TFLite drops the axis)",
}
