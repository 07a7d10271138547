"""Element-wise ops: binary arithmetic, comparisons, logic, unary math,
activations, cast, clamp, where."""
from __future__ import annotations

import openvino.opset16 as ops

from webnn_harness.backends.lowering import Call, clamp_bounds
from webnn_harness.backends.openvino.lower.base import (
    const,
    convert,
    data_type,
    from_bool,
    is_float,
    output,
    to_bool,
)


def _binary(ov_fn):
    def lower(e, c: Call):
        return output(ov_fn(c["a"], c["b"]))

    return lower


def _compare(ov_fn):
    # WebNN comparisons return uint8 0/1 (spec: "element-wise comparison ... output data type uint8").
    def lower(e, c: Call):
        return from_bool(ov_fn(c["a"], c["b"]))

    return lower


def _logical(ov_fn):
    def lower(e, c: Call):
        return from_bool(ov_fn(to_bool(c["a"]), to_bool(c["b"])))

    return lower


def _unary(ov_fn):
    def lower(e, c: Call):
        return output(ov_fn(c["input"]))

    return lower


def logical_not(e, c: Call):
    a = c["a"]
    return from_bool(ops.equal(a, const(0, a)))


def is_nan(e, c: Call):
    a = c["a"]
    if not is_float(a):  # integers are never NaN
        return from_bool(ops.not_equal(a, a))
    return from_bool(ops.is_nan(a))


def is_infinite(e, c: Call):
    a = c["a"]
    if not is_float(a):
        return from_bool(ops.not_equal(a, a))
    return from_bool(ops.is_inf(a, {"detect_positive": True, "detect_negative": True}))


def reciprocal(e, c: Call):
    return output(ops.divide(const(1, c["input"]), c["input"]))


def round_even(e, c: Call):
    return output(ops.round(c["input"], "half_to_even"))


def cast(e, c: Call):
    return convert(c["input"], c.attr("dataType"))


def clamp(e, c: Call):
    # Max/Minimum with constants of the input's own type, not OpenVINO Clamp,
    # whose bounds are doubles: int64/uint64 bounds beyond 2^53 stay exact.
    result = output(c["input"])
    dt = data_type(result)
    lo, hi = clamp_bounds(c.attr("minValue"), c.attr("maxValue"), dt, drop_limits=True)
    if lo is not None:
        result = output(ops.maximum(result, const(lo, dt)))
    if hi is not None:
        result = output(ops.minimum(result, const(hi, dt)))
    return result


def elu(e, c: Call):
    # OpenVINO Elu: x if x > 0 else alpha * (exp(x) - 1), the spec's formula.
    return output(ops.elu(c["input"], float(c.attr("alpha"))))


def gelu(e, c: Call):
    return output(ops.gelu(c["input"], "erf"))


def hard_sigmoid(e, c: Call):
    x = c["input"]
    return output(ops.hard_sigmoid(x, const(c.attr("alpha"), x), const(c.attr("beta"), x)))


def hard_swish(e, c: Call):
    return output(ops.hswish(c["input"]))


def leaky_relu(e, c: Call):
    # Select, not PRelu: PRelu's slope must broadcast along channels.
    x = c["input"]
    return output(ops.select(ops.less(x, const(0, x)), ops.multiply(x, const(c.attr("alpha"), x)), x))


def linear(e, c: Call):
    x = c["input"]
    return output(ops.add(ops.multiply(x, const(c.attr("alpha"), x)), const(c.attr("beta"), x)))


def prelu(e, c: Call):
    # Spec: max(0, x) + slope * min(0, x), with bidirectional broadcasting,
    # which OpenVINO PRelu (slope per channel) does not offer.
    x = c["input"]
    return output(ops.select(ops.less(x, const(0, x)), ops.multiply(x, c["slope"]), x))


def relu(e, c: Call):
    return output(ops.relu(c["input"]))


def softmax(e, c: Call):
    return output(ops.softmax(c["input"], c.attr("axis")))


def where(e, c: Call):
    return output(ops.select(to_bool(c["condition"]), c["trueValue"], c["falseValue"]))


def sign(e, c: Call):
    # Spec: 1 if > 0, -1 if < 0, "and 0 otherwise": NaN gives 0, where
    # OpenVINO Sign gives NaN.
    input = c["input"]
    result = output(ops.sign(input))
    if not is_float(input):
        return result
    return output(ops.select(ops.is_nan(input), const(0, input), result))


def identity(e, c: Call):
    return output(ops.identity(c["input"]))


LOWER = {
    "add": _binary(ops.add),
    "sub": _binary(ops.subtract),
    "mul": _binary(ops.multiply),
    # OpenVINO CPU Divide truncates integer quotients toward zero, as the
    # spec asks ("Integer types are truncated toward zero").
    "div": _binary(ops.divide),
    "max": _binary(ops.maximum),
    "min": _binary(ops.minimum),
    "pow": _binary(ops.power),
    "equal": _compare(ops.equal),
    "notEqual": _compare(ops.not_equal),
    "greater": _compare(ops.greater),
    "greaterOrEqual": _compare(ops.greater_equal),
    "lesser": _compare(ops.less),
    "lesserOrEqual": _compare(ops.less_equal),
    "logicalNot": logical_not,
    "logicalAnd": _logical(ops.logical_and),
    "logicalOr": _logical(ops.logical_or),
    "logicalXor": _logical(ops.logical_xor),
    "isNaN": is_nan,
    "isInfinite": is_infinite,
    "abs": _unary(ops.abs),
    "neg": _unary(ops.negative),
    "ceil": _unary(ops.ceiling),
    "cos": _unary(ops.cos),
    "erf": _unary(ops.erf),
    "exp": _unary(ops.exp),
    "floor": _unary(ops.floor),
    "log": _unary(ops.log),
    "reciprocal": reciprocal,
    "roundEven": round_even,
    "sin": _unary(ops.sin),
    "sqrt": _unary(ops.sqrt),
    "tan": _unary(ops.tan),
    "identity": identity,
    "sign": sign,
    "cast": cast,
    "clamp": clamp,
    "elu": elu,
    "gelu": gelu,
    "hardSigmoid": hard_sigmoid,
    "hardSwish": hard_swish,
    "leakyRelu": leaky_relu,
    "linear": linear,
    "prelu": prelu,
    "relu": relu,
    "sigmoid": _unary(ops.sigmoid),
    "softplus": _unary(ops.softplus),
    "softsign": _unary(ops.softsign),
    "softmax": softmax,
    "tanh": _unary(ops.tanh),
    "where": where,
}

EMULATED = {
    "notEqual": "NotEqual, Convert to u8",
    "logicalNot": "Equal(a, 0), Convert to u8 (WebNN booleans are uint8, non-zero is true)",
    "logicalAnd": "NotEqual(x, 0) on both operands, LogicalAnd, Convert to u8",
    "logicalOr": "NotEqual(x, 0) on both operands, LogicalOr, Convert to u8",
    "logicalXor": "NotEqual(x, 0) on both operands, LogicalXor, Convert to u8",
    "isNaN": "IsNaN (NotEqual(x, x) for integer inputs), Convert to u8",
    "isInfinite": "IsInf (always 0 for integer inputs), Convert to u8",
    "reciprocal": "Divide(1, x)",
    "sign": "Sign, Select(IsNaN(x), 0, ...) for floats (spec: NaN gives 0; OpenVINO gives NaN)",
    "clamp": "Maximum/Minimum with bounds as constants of the input type (Clamp takes doubles)",
    "leakyRelu": "Select(x < 0, x * alpha, x)",
    "linear": "Multiply, Add",
    "prelu": "Select(x < 0, x * slope, x) (PRelu's slope broadcasts per channel only)",
    "where": "NotEqual(condition, 0), Select",
}
