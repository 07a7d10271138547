"""Reductions, argMin/argMax and cumulativeSum."""
from __future__ import annotations

from webnn_harness.backends.onnxruntime.emitter import Call, Emitter

_REDUCE = {
    "reduceL1": "ReduceL1",
    "reduceL2": "ReduceL2",
    "reduceLogSum": "ReduceLogSum",
    "reduceLogSumExp": "ReduceLogSumExp",
    "reduceMax": "ReduceMax",
    "reduceMean": "ReduceMean",
    "reduceMin": "ReduceMin",
    "reduceProduct": "ReduceProd",
    "reduceSum": "ReduceSum",
    "reduceSumSquare": "ReduceSumSquare",
}

# WebNN reduces over no axes by applying the reduction to each single element
# (spec "reduction operations": axes [] means no dimension is reduced, the
# function still applies). ONNX's noop_with_empty_axes returns the input
# unchanged for every reduction, which is wrong for L1, L2, logSum and
# sumSquare, so the empty-axes case is composed element-wise.
_NO_AXES = {
    "reduceL1": lambda e, x: e.op("Abs", [x]),
    "reduceL2": lambda e, x: e.op("Abs", [x]),
    "reduceLogSum": lambda e, x: e.op("Log", [x]),
    "reduceSumSquare": lambda e, x: e.op("Mul", [x, x]),
}


def _reduce(op: str):
    onnx_op = _REDUCE[op]

    def lower(e: Emitter, c: Call) -> str:
        x = c["input"]
        rank = c.desc("input").rank
        axes = c.attr("axes", list(range(rank)))
        keep = int(bool(c.attr("keepDimensions", False)))
        if not axes:
            compose = _NO_AXES.get(op)
            return compose(e, x) if compose else e.op("Identity", [x])
        return e.op(onnx_op, [x, e.i64(axes)], keepdims=keep)

    return lower


def _arg(onnx_op: str):
    def lower(e: Emitter, c: Call) -> str:
        # select_last_index=0: the first extreme index, the usual choice (the
        # spec leaves ties to the implementation).
        index = e.op(onnx_op, [c["input"]], axis=int(c.attr("axis")),
                     keepdims=int(bool(c.attr("keepDimensions", False))), select_last_index=0)
        out_type = c.out.data_type
        return index if out_type == "int64" else e.cast(index, out_type)

    return lower


def cumulative_sum(e: Emitter, c: Call) -> str:
    return e.op("CumSum", [c["input"], e.scalar(int(c.attr("axis")), "int64")],
                exclusive=int(bool(c.attr("exclusive", False))), reverse=int(bool(c.attr("reversed", False))))


LOWER = {
    **{op: _reduce(op) for op in _REDUCE},
    "argMin": _arg("ArgMin"),
    "argMax": _arg("ArgMax"),
    "cumulativeSum": cumulative_sum,
}

EMULATED = {
    op: f"axes=[]: element-wise {how} (ONNX noop_with_empty_axes would return the input unchanged)"
    for op, how in {"reduceL1": "Abs", "reduceL2": "Abs", "reduceLogSum": "Log", "reduceSumSquare": "Mul(x, x)"}.items()
}
