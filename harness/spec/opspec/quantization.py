"""Create steps for the quantization operators (see harness/spec/opspec/__init__.py):
quantizeLinear and dequantizeLinear (spec #api-mlgraphbuilder-quantizelinear,
#api-mlgraphbuilder-dequantizelinear).

Both take ``scale`` and ``zeroPoint`` of the input's rank whose every dimension
divides the input's ("blockwise broadcastable", spec #algorithms-broadcast):
all ones is per-tensor, one full dimension is per-axis, anything else between
is blockwise (possibly along several axes at once, which ONNX cannot express).
Neither op has an option besides ``label``, so nothing is left to resolve.
"""
from __future__ import annotations

from typing import Sequence

from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.opspec.base import EXACT, Created, check, per_output_element, ulp
from webnn_harness.spec.opspec.traits import InputValues, OpSpec, ProbePlan, Variation, declare, dims


def blockwise_broadcastable(shape_from: Sequence[int], shape_to: Sequence[int]) -> bool:
    """Spec "blockwise broadcast the shapes": same rank, and every dimension
    of shape_from exactly divides the matching dimension of shape_to."""
    return len(shape_from) == len(shape_to) and all(t % f == 0 for f, t in zip(shape_from, shape_to))


def _check_scale_and_zero_point(op: str, inp: TensorDesc, scale: TensorDesc, zero_point: TensorDesc) -> None:
    check(
        scale.rank == inp.rank and zero_point.rank == inp.rank,
        f"{op}: scale rank {scale.rank} and zeroPoint rank {zero_point.rank} must equal input rank {inp.rank}",
    )
    check(
        scale.shape == zero_point.shape,
        f"{op}: scale shape {list(scale.shape)} must equal zeroPoint shape {list(zero_point.shape)}",
    )
    check(
        blockwise_broadcastable(scale.shape, inp.shape),
        f"{op}: scale shape {list(scale.shape)} is not blockwise broadcastable to input shape {list(inp.shape)}",
    )


def quantizeLinear(operands, attributes) -> Created:
    # Data types (input float, scale same as input, zeroPoint 8/32-bit int)
    # are the catalog's limits, checked before this function runs.
    inp, scale, zero_point = operands["input"], operands["scale"], operands["zeroPoint"]
    _check_scale_and_zero_point("quantizeLinear", inp, scale, zero_point)
    return Created((TensorDesc(inp.shape, zero_point.data_type),), dict(attributes))


def dequantizeLinear(operands, attributes) -> Created:
    inp, scale, zero_point = operands["input"], operands["scale"], operands["zeroPoint"]
    check(
        zero_point.data_type == inp.data_type,
        f"dequantizeLinear: zeroPoint data type {zero_point.data_type} must equal input data type {inp.data_type}",
    )
    _check_scale_and_zero_point("dequantizeLinear", inp, scale, zero_point)
    return Created((TensorDesc(inp.shape, scale.data_type),), dict(attributes))


# dequantizeLinear: 1 ULP, as upstream WPT (dequantizeLinear.https.any.js,
# float32 and float16; our WPT snapshot has no such file). Reason: in the
# spec's emulation cast(input) and sub(zeroPoint) are exact while |input| and
# |input - zeroPoint| stay below 2^24 (float16 scale: 2^11), which holds for
# every 8-bit input, so only the final mul rounds (WPT's mul budget is 1).
# Beyond those bounds (32-bit inputs) the emulation's own cast rounds and sub
# can cancel, so no small budget fits; the corpus keeps 32-bit values below.
# An implementation computing input*scale - zeroPoint*scale instead cancels
# and fails this budget, as it should: the spec's formula is
# (input - zeroPoint) * scale.
#
# quantizeLinear's output is an integer, compared exactly; elements where a
# float16/float32 division may legitimately round to the other integer are
# marked implementation-defined by the reference (see its quantizeLinear).
QUANTIZE_LINEAR_TOLERANCE = EXACT
DEQUANTIZE_LINEAR_TOLERANCE = ulp(1)


# Costs per element (see base.py "What a Cost counts"), from the spec's formulas:
# quantizeLinear clamp(roundEven(input / scale) + zeroPoint): divide, round,
# add, and the clamp's max and min; dequantizeLinear (input - zeroPoint) *
# scale: subtract, multiply (the casts to float are conversions, not counted).
QUANTIZE_LINEAR_FLOPS = 5
DEQUANTIZE_LINEAR_FLOPS = 2


# Probe plans (see traits.py).


def quantize_linear_arguments(v: Variation):
    r = v.rank_of("input", 2)
    ones = (1,) * r  # one scale for the whole tensor: the form every backend has
    if v.axis == "option" and v.value == "per-axis" and r >= 1:
        ones = (1,) * (r - 1) + (dims(r)[-1],)
    return {"input": dims(r), "scale": ones, "zeroPoint": ones}, {}


QUANTIZATION_PLAN = ProbePlan(quantize_linear_arguments, options=("per-axis",))
# Written as WPT's quantize/dequantize subgraph files write them:
# {"scale": s, "zeroPoint": z} in one argument object.
JOINED = ("scale", "zeroPoint")

OPS = declare(
    OpSpec("quantizeLinear", quantizeLinear, QUANTIZE_LINEAR_TOLERANCE, per_output_element(QUANTIZE_LINEAR_FLOPS),
           QUANTIZATION_PLAN, InputValues("quantization", {"input": "quotients"}), joined_arguments=JOINED),
    OpSpec("dequantizeLinear", dequantizeLinear, DEQUANTIZE_LINEAR_TOLERANCE,
           per_output_element(DEQUANTIZE_LINEAR_FLOPS), QUANTIZATION_PLAN, InputValues("quantization"),
           joined_arguments=JOINED),
)
