"""Create steps for the reduction operators (see harness/spec/opspec/__init__.py):
the ten reduce* methods, argMin/argMax, cumulativeSum and softmax.

Spec: "Reduction operations" (#api-mlgraphbuilder-reduce), "argMin/argMax
operations" (#api-mlgraphbuilder-argminmax), #api-mlgraphbuilder-cumulativesum,
#api-mlgraphbuilder-softmax-method.
"""
from __future__ import annotations

from math import prod
from typing import Sequence

from webnn_harness.spec.dtypes import integer_range
from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.opspec.base import EXACT, Budget, Created, check, counted
from webnn_harness.spec.opspec.traits import AccuracyPlan, InputValues, OpTraits, ProbePlan, Skip, Variation, dims

REDUCE_OPS = (
    "reduceL1", "reduceL2", "reduceLogSum", "reduceLogSumExp", "reduceMax",
    "reduceMean", "reduceMin", "reduceProduct", "reduceSum", "reduceSumSquare",
)

# argMin/argMax tensor limits: the output's allowed data types.
ARG_OUTPUT_TYPES = ("int32", "int64")


def reduction_output_shape(op: str, shape: Sequence[int], axes, keep_dimensions: bool):
    """Spec "calculate reduction output sizes": axes absent means every axis;
    an empty list reduces nothing. Returns (output shape, resolved axes)."""
    rank = len(shape)
    if axes is None:
        axes = list(range(rank))
    axes = list(axes)
    for axis in axes:
        check(isinstance(axis, int) and 0 <= axis < rank,
              f"{op}: axis {axis} in axes {axes} is out of range for input rank {rank}")
    check(len(set(axes)) == len(axes), f"{op}: axes {axes} has duplicate values")
    if keep_dimensions:
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return out, axes


def _create_reduce(op: str):
    def create(operands, attributes) -> Created:
        x: TensorDesc = operands["input"]
        keep = bool(attributes["keepDimensions"])
        shape, axes = reduction_output_shape(op, x.shape, attributes["axes"], keep)
        return Created((TensorDesc(shape, x.data_type),), {"axes": axes, "keepDimensions": keep})

    create.__name__ = op
    create.__doc__ = f"Spec: {op}(input, options) -> create reduction operation."
    return create


def _create_arg(op: str):
    def create(operands, attributes) -> Created:
        x: TensorDesc = operands["input"]
        axis = attributes["axis"]
        keep = bool(attributes["keepDimensions"])
        out_type = attributes["outputDataType"]
        check(isinstance(axis, int) and 0 <= axis < x.rank,
              f"{op}: axis {axis} is out of range for input rank {x.rank}")
        check(out_type in ARG_OUTPUT_TYPES,
              f"{op}: outputDataType {out_type} is not one of {', '.join(ARG_OUTPUT_TYPES)}")
        # "If input's shape[axis] is greater than outputDataType's maximum value, throw."
        check(x.shape[axis] <= integer_range(out_type)[1],
              f"{op}: input dimension {x.shape[axis]} does not fit in {out_type}")
        shape, _ = reduction_output_shape(op, x.shape, [axis], keep)
        return Created((TensorDesc(shape, out_type),),
                       {"axis": axis, "keepDimensions": keep, "outputDataType": out_type})

    create.__name__ = op
    create.__doc__ = f"Spec: {op}(input, axis, options) -> create an argMin/argMax operation."
    return create


def cumulativeSum(operands, attributes) -> Created:
    x: TensorDesc = operands["input"]
    axis = attributes["axis"]
    check(isinstance(axis, int) and 0 <= axis < x.rank,
          f"cumulativeSum: axis {axis} is out of range for input rank {x.rank}")
    return Created((x,), {"axis": axis, "exclusive": bool(attributes["exclusive"]),
                          "reversed": bool(attributes["reversed"])})


def softmax(operands, attributes) -> Created:
    x: TensorDesc = operands["input"]
    axis = attributes["axis"]
    check(isinstance(axis, int) and 0 <= axis < x.rank,
          f"softmax: axis {axis} is out of range for input rank {x.rank}")
    return Created((x,), {"axis": axis})


CREATE = {
    **{op: _create_reduce(op) for op in REDUCE_OPS},
    "argMin": _create_arg("argMin"),
    "argMax": _create_arg("argMax"),
    "cumulativeSum": cumulativeSum,
    "softmax": softmax,
}


# --- Tolerances: exactly the budgets WPT applies (webnn/resources/utils.js,
# getReductionOperatorsPrecisionTolerance / getSoftmaxPrecisionTolerance; see
# /work/shared/wpt/README.md). R is the number of input elements reduced into
# one output element: the product of the reduced dimensions, 1 when axes is
# empty or the input is a scalar (WPT multiplies from 1 the same way).


def reduced_element_count(node, descs) -> int:
    shape = descs[node.operands["input"]].shape
    return prod(shape[a] for a in node.attributes["axes"])


def _reduce_budget(factor: int, extra: int):
    def budget(node, descs) -> Budget:
        return Budget("ULP", factor * reduced_element_count(node, descs) + extra)

    return budget


def softmax_budget(node, descs) -> Budget:
    shape = descs[node.operands["input"]].shape
    return Budget("ULP", shape[node.attributes["axis"]] * 3 + 3)


def cumulative_sum_budget(node, descs) -> Budget:
    # WPT cumulative_sum.https.any.js: float32 'shape[axis] - 1' (one rounding
    # per addition along the axis); integers are exact anyway.
    shape = descs[node.operands["input"]].shape
    return Budget("ULP", shape[node.attributes["axis"]] - 1)


TOLERANCE = {
    "reduceL1": _reduce_budget(1, 0),
    "reduceL2": _reduce_budget(2, 2),
    "reduceLogSum": _reduce_budget(1, 18),
    "reduceLogSumExp": _reduce_budget(2, 18),
    "reduceMax": EXACT,
    "reduceMean": _reduce_budget(1, 2),
    "reduceMin": EXACT,
    "reduceProduct": _reduce_budget(1, 0),
    "reduceSum": _reduce_budget(1, 0),
    "reduceSumSquare": _reduce_budget(2, 0),
    "argMin": EXACT,
    "argMax": EXACT,
    "cumulativeSum": cumulative_sum_budget,
    "softmax": softmax_budget,
}



# --- Costs (see base.py "What a Cost counts"): flops per input element (the
# combining step, counted once per element reduced) plus flops per output
# element (the final divide, sqrt or log).


def _reduction_flops(per_input: int, per_output: int):
    def flops(node, descs) -> int:
        return per_input * descs[node.operands["input"]].size + per_output * descs[node.outputs[0]].size

    return counted(flops)


# softmax: exp(x - max(x)) / sum(exp(x - max(x))): per element a compare for
# the max, a subtract, an exp, an add for the sum and a divide.
SOFTMAX_FLOPS_PER_ELEMENT = 5

COST = {
    "reduceL1": _reduction_flops(2, 0),  # abs, add
    "reduceL2": _reduction_flops(2, 1),  # square, add; sqrt
    "reduceLogSum": _reduction_flops(1, 1),  # add; log
    "reduceLogSumExp": _reduction_flops(2, 1),  # exp, add; log
    "reduceMax": _reduction_flops(1, 0),  # compare
    "reduceMean": _reduction_flops(1, 1),  # add; divide
    "reduceMin": _reduction_flops(1, 0),  # compare
    "reduceProduct": _reduction_flops(1, 0),  # multiply
    "reduceSum": _reduction_flops(1, 0),  # add
    "reduceSumSquare": _reduction_flops(2, 0),  # square, add
    "argMin": _reduction_flops(1, 0),  # compare
    "argMax": _reduction_flops(1, 0),  # compare
    "cumulativeSum": _reduction_flops(1, 0),  # add
    "softmax": _reduction_flops(SOFTMAX_FLOPS_PER_ELEMENT, 0),
}


# Probe plans and the other traits (see traits.py).


def reduction_arguments(v: Variation):
    r = v.rank_of("input", 2)
    # keepDimensions keeps the output at the input's rank, so one sweep covers both.
    return {"input": dims(r)}, {"axes": [r - 1] if r else None, "keepDimensions": True}


def arg_reduction_arguments(v: Variation):
    if v.axis == "rank" and v.member == "output" and v.value == 0:
        return {"input": (3,)}, {"axis": 0, "keepDimensions": False, "outputDataType": v.types["output"]}
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    return {"input": dims(r)}, {"axis": r - 1, "keepDimensions": True, "outputDataType": v.types["output"]}


def unary_axis_arguments(v: Variation):
    r = v.rank_of("input", 2)
    if r == 0:
        raise Skip("needs rank >= 1")
    return {"input": dims(r)}, {"axis": r - 1}


REDUCTION_PLAN = ProbePlan(reduction_arguments)
ARG_PLAN = ProbePlan(arg_reduction_arguments, typed_outputs=("output",), extras=(("output", "rank", 0),))
# TOSA REDUCE_SUM's accumulation lengths (reduceMean is checked as TOSA checks AVG_POOL2D).
REDUCE_SUM_ACCURACY = AccuracyPlan("REDUCE_SUM", (16, 256, 4096))


def _reduction(domain: str, accuracy: AccuracyPlan | None = None) -> OpTraits:
    return OpTraits(REDUCTION_PLAN, InputValues(domain), accuracy=accuracy)


TRAITS = {
    "reduceL1": _reduction("additive"),
    "reduceL2": _reduction("squares"),
    "reduceLogSum": _reduction("positive"),
    "reduceLogSumExp": _reduction("smooth"),
    "reduceMax": _reduction("wide"),
    "reduceMean": _reduction("additive", REDUCE_SUM_ACCURACY),
    "reduceMin": _reduction("wide"),
    "reduceProduct": _reduction("longProduct"),
    "reduceSum": _reduction("additive", REDUCE_SUM_ACCURACY),
    "reduceSumSquare": _reduction("squares"),
    "argMin": OpTraits(ARG_PLAN, InputValues("wide"), discrete=True),
    "argMax": OpTraits(ARG_PLAN, InputValues("wide"), discrete=True),
    "cumulativeSum": OpTraits(ProbePlan(unary_axis_arguments), InputValues("additive")),
    "softmax": OpTraits(ProbePlan(unary_axis_arguments), InputValues("smooth")),
}
