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
from webnn_harness.spec.opspec.base import EXACT, Budget, BudgetFn, Created, check, counted
from webnn_harness.spec.opspec.traits import (
    AccuracyPlan, InputValues, OpSpec, ProbePlan, Skip, Variation, declare, dims)

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


# --- Costs (see base.py "What a Cost counts"): flops per input element (the
# combining step, counted once per element reduced) plus flops per output
# element (the final divide, sqrt or log).


def _reduction_flops(per_input: int, per_output: int):
    def flops(node, descs) -> int:
        return per_input * descs[node.operands["input"]].size + per_output * descs[node.outputs[0]].size

    return counted(flops)


# Probe plans (see traits.py).


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


# softmax: exp(x - max(x)) / sum(exp(x - max(x))): per element a compare for
# the max, a subtract, an exp, an add for the sum and a divide.
SOFTMAX_FLOPS_PER_ELEMENT = 5


def reduce_method(name: str, tolerance: BudgetFn, per_input: int, per_output: int, domain: str,
           accuracy: AccuracyPlan | None = None) -> OpSpec:
    """One of the reduce* methods: ``per_input`` / ``per_output`` flops (see "Costs" above)."""
    return OpSpec(name, _create_reduce(name), tolerance, _reduction_flops(per_input, per_output), REDUCTION_PLAN,
                  InputValues(domain), accuracy=accuracy)


def arg_reduce(name: str) -> OpSpec:
    """argMin/argMax: an index, exact and discrete; a compare per input element."""
    return OpSpec(name, _create_arg(name), EXACT, _reduction_flops(1, 0), ARG_PLAN, InputValues("wide"),
                  discrete=True)


OPS = declare(
    reduce_method("reduceL1", _reduce_budget(1, 0), 2, 0, "additive"),  # abs, add
    reduce_method("reduceL2", _reduce_budget(2, 2), 2, 1, "squares"),  # square, add; sqrt
    reduce_method("reduceLogSum", _reduce_budget(1, 18), 1, 1, "positive"),  # add; log
    reduce_method("reduceLogSumExp", _reduce_budget(2, 18), 2, 1, "smooth"),  # exp, add; log
    reduce_method("reduceMax", EXACT, 1, 0, "wide"),  # compare
    reduce_method("reduceMean", _reduce_budget(1, 2), 1, 1, "additive", REDUCE_SUM_ACCURACY),  # add; divide
    reduce_method("reduceMin", EXACT, 1, 0, "wide"),  # compare
    reduce_method("reduceProduct", _reduce_budget(1, 0), 1, 0, "longProduct"),  # multiply
    reduce_method("reduceSum", _reduce_budget(1, 0), 1, 0, "additive", REDUCE_SUM_ACCURACY),  # add
    reduce_method("reduceSumSquare", _reduce_budget(2, 0), 2, 0, "squares"),  # square, add
    arg_reduce("argMin"),
    arg_reduce("argMax"),
    OpSpec("cumulativeSum", cumulativeSum, cumulative_sum_budget, _reduction_flops(1, 0),  # add
           ProbePlan(unary_axis_arguments), InputValues("additive")),
    OpSpec("softmax", softmax, softmax_budget, _reduction_flops(SOFTMAX_FLOPS_PER_ELEMENT, 0),
           ProbePlan(unary_axis_arguments), InputValues("smooth")),
)
