"""Reductions, argMin/argMax and cumulativeSum."""
from __future__ import annotations

from webnn_harness.backends.lowering import ONE_ELEMENT_REDUCTION, reduce_over_no_axes
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

# ONNX's noop_with_empty_axes returns the input unchanged for every
# reduction, which is wrong for L1, L2, logSum and sumSquare over no axes
# (backends/lowering.py ONE_ELEMENT_REDUCTION): composed element-wise.
_ONE_ELEMENT_NODES = {"abs": "Abs", "log": "Log", "square": "Mul(x, x)"}


def _one_element_steps(e: Emitter):
    return {
        "abs": lambda x: e.op("Abs", [x]),
        "log": lambda x: e.op("Log", [x]),
        "square": lambda x: e.op("Mul", [x, x]),
        "identity": lambda x: e.op("Identity", [x]),
    }


def _reduce(op: str):
    onnx_op = _REDUCE[op]

    def lower(e: Emitter, c: Call) -> str:
        x = c["input"]
        axes = c.attr("axes")
        if not axes:
            return reduce_over_no_axes(op, x, _one_element_steps(e))
        return e.op(onnx_op, [x, e.i64(axes)], keepdims=int(c.attr("keepDimensions")))

    return lower


def _arg(onnx_op: str):
    def lower(e: Emitter, c: Call) -> str:
        # select_last_index=0: the first extreme index, the usual choice (the
        # spec leaves ties to the implementation).
        index = e.op(onnx_op, [c["input"]], axis=c.attr("axis"), keepdims=int(c.attr("keepDimensions")),
                     select_last_index=0)
        out_type = c.out.data_type
        return index if out_type == "int64" else e.cast(index, out_type)

    return lower


def cumulative_sum(e: Emitter, c: Call) -> str:
    return e.op("CumSum", [c["input"], e.scalar(c.attr("axis"), "int64")],
                exclusive=int(c.attr("exclusive")), reverse=int(c.attr("reversed")))


LOWER = {
    **{op: _reduce(op) for op in _REDUCE},
    "argMin": _arg("ArgMin"),
    "argMax": _arg("ArgMax"),
    "cumulativeSum": cumulative_sum,
}

EMULATED = {
    op: f"axes=[]: element-wise {_ONE_ELEMENT_NODES[step]} (ONNX noop_with_empty_axes would return the input unchanged)"
    for op, step in ONE_ELEMENT_REDUCTION.items()
}
