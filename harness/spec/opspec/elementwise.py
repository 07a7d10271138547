"""Create steps for the elementwise operators (see harness/spec/opspec/__init__.py).

Covers the spec sections "Element-wise binary operations", "Element-wise
logical operations", "Element-wise unary operations", cast, clamp, the
activations with scalar options (elu, gelu, hardSigmoid, hardSwish,
leakyRelu, linear, relu, sigmoid, softplus, softsign, tanh), prelu and where.

The catalog's allowed data types and ranks are checked before these run
(base.check_limits); what is left here is what the method steps add:
broadcasting, output data types, casting scalar options to the input's data
type, and the clamp minValue <= maxValue check.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping

import numpy as np

from webnn_harness.spec.catalog import operator
from webnn_harness.spec.dtypes import DATA_TYPES, integer_range, is_float
from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.opspec.base import (
    EXACT,
    BudgetFn,
    Created,
    atol,
    broadcast_shapes,
    check,
    per_output_element,
    ulp,
)
from webnn_harness.spec.opspec.traits import InputValues, OpSpec, ProbePlan, Variation, declare, dims


def _broadcast(op: str, shape_a, shape_b) -> tuple[int, ...]:
    """Spec "bidirectionally broadcasting"; the error names the op."""
    try:
        return broadcast_shapes(shape_a, shape_b)
    except ValueError as exc:
        raise type(exc)(f"{op}: {exc}") from None


def _same_type(op: str, a: TensorDesc, b: TensorDesc, names: str = "a and b") -> None:
    check(a.data_type == b.data_type, f"{op}: {names} must have the same data type ({a.data_type} vs {b.data_type})")


# --- casting scalars (spec "Casting": ConvertToFloat / ConvertToInt) --------


def _convert_to_float(x: float | int, data_type: str) -> float:
    """ConvertToFloat: nearest value, ties to even, overflow to +/-Infinity."""
    with np.errstate(over="ignore"):
        return float(np.float32(x) if data_type == "float32" else np.float16(np.float64(x)))


def _convert_to_int(x: float | int, data_type: str) -> int:
    """ConvertToInt: NaN -> 0, clamp to the type's range, round half to even.

    The spec's table says uint32 uses ConvertToInt(x, 32, "signed"); every
    other unsigned type is "unsigned" and WPT clamps uint32 with
    maxValue 4294967290, so we read that row as a typo for "unsigned"."""
    lo, hi = integer_range(data_type)
    if isinstance(x, float):
        if math.isnan(x):
            return 0
        x = min(max(x, float(lo)), float(hi))
        return min(max(round(x), lo), hi)  # round(): half to even; re-clamp 2^63 rounding
    return min(max(int(x), lo), hi)


def cast_number(x: float | int, data_type: str) -> float | int:
    """The spec's "cast" of an MLNumber / double to an MLOperandDataType."""
    return _convert_to_float(x, data_type) if is_float(data_type) else _convert_to_int(x, data_type)


# --- shared shapes of create steps ----------------------------------------


def _unary_create(op: str) -> Callable:
    """Output is a copy of the input's descriptor; every option is cast to the
    input's data type (elu alpha, hardSigmoid alpha/beta, leakyRelu alpha,
    linear alpha/beta: "Set options.alpha to the result of casting ...")."""

    def create(operands: Mapping[str, Any], attributes: Mapping[str, Any]) -> Created:
        desc = operands["input"]
        resolved = {k: cast_number(v, desc.data_type) for k, v in attributes.items()}
        return Created((desc,), resolved)

    create.__name__ = op
    return create


def _binary_create(op: str) -> Callable:
    """Spec "create an element-wise binary operation": same data types,
    bidirectional broadcast, output of a's data type."""

    def create(operands: Mapping[str, Any], attributes: Mapping[str, Any]) -> Created:
        a, b = operands["a"], operands["b"]
        _same_type(op, a, b)
        return Created((TensorDesc(_broadcast(op, a.shape, b.shape), a.data_type),), dict(attributes))

    create.__name__ = op
    return create


def _logical_create(op: str) -> Callable:
    """Spec "create an element-wise logical operation": output is uint8; b, when
    the op takes it, must match a's data type and broadcast with a.

    isNaN/isInfinite: the method steps throw for non-float inputs (added with
    the ops, webnn#858) but the later tensor-limits table (webnn#910) allows any
    data type; we follow the table, and the reference answers 0 for integers."""

    def create(operands: Mapping[str, Any], attributes: Mapping[str, Any]) -> Created:
        a = operands["a"]
        shape = a.shape
        if "b" in operands:
            b = operands["b"]
            _same_type(op, a, b)
            shape = _broadcast(op, a.shape, b.shape)
        return Created((TensorDesc(shape, "uint8"),), dict(attributes))

    create.__name__ = op
    return create


# --- ops with their own steps ------------------------------------------------


def cast(operands, attributes) -> Created:
    """cast: output = input's shape with the target data type, which must be
    one of the output's allowed data types."""
    data_type = attributes["dataType"]
    check(data_type in DATA_TYPES, f"cast: {data_type!r} is not an MLOperandDataType")
    allowed = operator("cast").operands["output"].allowed_data_types
    check(data_type in allowed, f"cast: output data type {data_type} is not allowed")
    return Created((TensorDesc(operands["input"].shape, data_type),), {"dataType": data_type})


def clamp(operands, attributes) -> Created:
    """clamp: minValue/maxValue are cast to the input's data type, then
    minValue > maxValue throws.

    The spec's steps default minValue to Infinity and maxValue to -Infinity,
    which would make clamp() without options throw; that is a typo for
    -Infinity / +Infinity (WPT's default-options cases expect no clamping).
    Cast to an integer type, +/-Infinity become the type's maximum/minimum.
    NaN bounds stay NaN (the spec casts NaN to NaN); the reference treats a
    NaN bound as no bound, as WPT's "minValue as NaN" cases expect."""
    data_type = operands["input"].data_type
    low = attributes.get("minValue")
    high = attributes.get("maxValue")
    low = cast_number(-math.inf if low is None else low, data_type)
    high = cast_number(math.inf if high is None else high, data_type)
    check(not low > high, f"clamp: minValue {low} is greater than maxValue {high} (after casting to {data_type})")
    return Created((operands["input"],), {"minValue": low, "maxValue": high})


def prelu(operands, attributes) -> Created:
    """prelu: the spec bidirectionally broadcasts slope and input (output rank
    is the larger rank); ONNX PRelu only broadcasts slope to input."""
    x, slope = operands["input"], operands["slope"]
    _same_type("prelu", x, slope, "input and slope")
    shape = _broadcast("prelu", slope.shape, x.shape)
    return Created((TensorDesc(shape, x.data_type),), dict(attributes))


def where(operands, attributes) -> Created:
    """where: broadcast trueValue with falseValue, then condition with that;
    output has trueValue's data type."""
    condition, true_value, false_value = operands["condition"], operands["trueValue"], operands["falseValue"]
    _same_type("where", true_value, false_value, "trueValue and falseValue")
    shape = _broadcast("where", true_value.shape, false_value.shape)
    shape = _broadcast("where", condition.shape, shape)
    return Created((TensorDesc(shape, true_value.data_type),), dict(attributes))


# Probe plans (see traits.py). Each builder returns ({member: shape},
# {attribute: value}) for one Variation.


def unary_arguments(v: Variation):
    member = operator(v.op).signature[0].name  # "input" or "a"
    return {member: dims(v.rank_of(member, 2))}, {}


def binary_arguments(v: Variation):
    r = v.rank_of(v.member, 2) if v.axis == "rank" else 2
    names = [p.name for p in operator(v.op).signature]
    return {n: dims(r) for n in names}, {}


def cast_arguments(v: Variation):
    return {"input": dims(v.rank_of("input", 2))}, {"dataType": v.types["output"]}


def clamp_arguments(v: Variation):
    t = v.types["input"]
    lo, hi = (-2.5, 1.75) if t in ("float32", "float16") else ((-50, 100) if t in ("int8", "int32", "int64") else (5, 150))
    return {"input": dims(v.rank_of("input", 2))}, {"minValue": lo, "maxValue": hi}


def where_arguments(v: Variation):
    r = v.rank_of(v.member, 2) if v.axis == "rank" else 2
    return {"condition": dims(r), "trueValue": dims(r), "falseValue": dims(r)}, {}


def prelu_arguments(v: Variation):
    r = v.rank_of(v.member, 2) if v.axis == "rank" else 2
    return {"input": dims(r), "slope": dims(r)}, {}


UNARY_PLAN = ProbePlan(unary_arguments)
BINARY_PLAN = ProbePlan(binary_arguments, rank_ties={"b": "a"})


# --- the ops -------------------------------------------------------------------
# Tolerances: budgets from WPT (see /work/shared/wpt/README.md "Tolerances WPT
# applies" and each WPT test file's own get*PrecisionTolerance); integer
# outputs are exact. Costs (see base.py "What a Cost counts"): flops per output
# element, counting each operation of the spec's formula (its "emulation" note
# where it has one) once, and a library function (exp, log, erf, tanh, sin,
# cos, tan, sqrt, pow) as 1.


def _op(name: str, create: Callable, tolerance: BudgetFn, flops: int, probe: ProbePlan, domain: str = "uniform",
        specials: bool = False, members: Mapping[str, str] | None = None, discrete: bool = False,
        keeps_zero_sign: bool = False, graph_sweep: int | None = None) -> OpSpec:
    """Every op of this family is element-wise and costs ``flops`` per output element."""
    return OpSpec(name, create, tolerance, per_output_element(flops), probe,
                  InputValues(domain, dict(members or {}), specials), elementwise=True, discrete=discrete,
                  keeps_zero_sign=keeps_zero_sign, graph_sweep=graph_sweep)


def binary(name: str, tolerance: BudgetFn, domain: str = "uniform", **values) -> OpSpec:
    """An element-wise binary op: one arithmetic op per element (pow: one function call)."""
    return _op(name, _binary_create(name), tolerance, 1, BINARY_PLAN, domain, **values)


def logical(name: str, probe: ProbePlan, domain: str, specials: bool = False) -> OpSpec:
    """A comparison or logical op: a uint8 output, exact; one comparison or logical op per element."""
    return _op(name, _logical_create(name), EXACT, 1, probe, domain, specials, discrete=True)


def unary(name: str, tolerance: BudgetFn, domain: str, flops: int = 1, specials: bool = False,
          keeps_zero_sign: bool = False, graph_sweep: int | None = None) -> OpSpec:
    """An element-wise unary op or activation: one op or function call per element unless ``flops`` says."""
    return _op(name, _unary_create(name), tolerance, flops, UNARY_PLAN, domain, specials,
               keeps_zero_sign=keeps_zero_sign, graph_sweep=graph_sweep)


OPS = declare(
    # Binary: WPT add/sub/mul 1 ULP, div 2 ULP (div.https.any.js), pow 32 ULP /
    # float16 2 (pow.https.any.js), max/min 0.
    binary("add", ulp(1), "additive", specials=True),
    binary("sub", ulp(1), "additive", members={"b": "integerDivisor"}),
    binary("mul", ulp(1), "product"),
    binary("div", ulp(2), members={"b": "divisor"}),
    binary("max", EXACT, "wide"),
    binary("min", EXACT, "wide"),
    binary("pow", ulp(32, float16=2), members={"a": "powBase", "b": "powExponent"}),
    # Comparisons and logical ops produce uint8: exact.
    *(logical(name, BINARY_PLAN, "wide", specials=True)
      for name in ("equal", "notEqual", "greater", "greaterOrEqual", "lesser", "lesserOrEqual")),
    logical("logicalNot", UNARY_PLAN, "boolean"),
    *(logical(name, BINARY_PLAN, "boolean") for name in ("logicalAnd", "logicalOr", "logicalXor")),
    logical("isNaN", UNARY_PLAN, "wide", specials=True),
    logical("isInfinite", UNARY_PLAN, "wide", specials=True),
    # Unary: exact where the result is a representable input value or an exact
    # rounding (abs, neg, ceil, floor, identity, roundEven, sign).
    # identity first among the graph-level sweep ops: it takes every data type and rank.
    unary("identity", EXACT, "wide", flops=0, specials=True, keeps_zero_sign=True, graph_sweep=0),  # a copy
    unary("abs", EXACT, "wide", specials=True),
    unary("neg", EXACT, "wide", specials=True),
    unary("sign", EXACT, "wide", specials=True),
    unary("ceil", EXACT, "smooth", specials=True),
    unary("floor", EXACT, "smooth", specials=True),
    unary("roundEven", EXACT, "smooth", specials=True),
    unary("exp", ulp(32, float16=1), "smooth", specials=True),  # exp.https.any.js
    unary("cos", atol(2**-10, float16=2**-7), "smooth"),
    unary("sin", atol(1 / 1024, float16=1 / 512), "smooth"),
    unary("tan", atol(1 / 1024, float16=1 / 512), "smooth"),
    unary("erf", atol(1 / 1024, float16=1 / 512), "smooth"),
    unary("log", atol(1 / 1024, float16=1 / 1024), "positive"),  # log.https.any.js
    unary("sqrt", ulp(1), "positive"),  # WPT sqrt 1 ULP (IEEE sqrt is correctly rounded)
    unary("reciprocal", ulp(2), "nonzero"),
    unary("relu", EXACT, "wide"),  # max(0, x)
    unary("elu", ulp(18), "smooth", flops=6),  # max(0, x) + alpha * (exp(min(0, x)) - 1)
    unary("gelu", ulp(18), "smooth", flops=5),  # 0.5 * x * (1 + erf(x / sqrt(2)))
    unary("hardSigmoid", ulp(2), "smooth", flops=4),  # max(0, min(1, alpha * x + beta))
    unary("hardSwish", ulp(4), "smooth", flops=5),  # x * max(0, min(6, x + 3)) / 6
    unary("leakyRelu", ulp(1, float16=2), "smooth", flops=4),  # max(0, x) + alpha * min(0, x)
    unary("linear", ulp(2), "smooth", flops=2),  # alpha * x + beta
    unary("sigmoid", ulp(34, float16=10), "smooth", flops=4),  # 1 / (exp(-x) + 1)
    unary("softplus", ulp(18), "smooth", flops=3),  # log(1 + exp(x))
    unary("softsign", ulp(3), "smooth", flops=3),  # x / (1 + abs(x))
    unary("tanh", ulp(16), "smooth"),
    # WPT cast: 1 ULP to a float type (float <-> float, integer -> float);
    # integer outputs are compared exactly whatever the budget. One conversion.
    _op("cast", cast, ulp(1), 1, ProbePlan(cast_arguments, typed_outputs=("output",), base_types={"output": "float32"}),
        "wide", keeps_zero_sign=True),
    _op("clamp", clamp, EXACT, 2, ProbePlan(clamp_arguments), "wide"),  # min(max(x, minValue), maxValue)
    _op("prelu", prelu, ulp(1), 4, ProbePlan(prelu_arguments, rank_ties={"slope": "input"}),
        "wide"),  # max(0, x) + slope * min(0, x)
    # where only selects input values: exact (WPT's old table: where 0 ULP); one select.
    _op("where", where, EXACT, 1,
        ProbePlan(where_arguments, rank_ties={"trueValue": "condition", "falseValue": "condition"}),
        "wide", specials=True, members={"condition": "boolean"}),
)

# The comparisons and logical ops: the family's ops with a discrete output.
LOGICAL = tuple(name for name, spec in OPS.items() if spec.discrete)
