"""Element-wise ops: binary, comparison, logical, unary, activations, cast, clamp.

WebNN booleans are uint8 (0 false, nonzero true); ONNX comparisons and logical
ops use BOOL, so results are cast back to uint8 and logical inputs cast to BOOL.
"""
from __future__ import annotations

from webnn_harness.backends.onnxruntime.emitter import Call, Emitter
from webnn_harness.spec.dtypes import is_float
from webnn_harness.spec.opspec.base import unidirectionally_broadcastable


def _native(onnx_op: str, *params: str, **attrs):
    def lower(e: Emitter, c: Call) -> str:
        return e.op(onnx_op, [c[p] for p in params], **attrs)

    lower.__name__ = f"lower_{onnx_op}"
    return lower


def _comparison(onnx_op: str):
    def lower(e: Emitter, c: Call) -> str:
        return e.cast(e.op(onnx_op, [c["a"], c["b"]]), "uint8")

    return lower


def not_equal(e: Emitter, c: Call) -> str:
    return e.cast(e.op("Not", [e.op("Equal", [c["a"], c["b"]])]), "uint8")


def _logical(onnx_op: str):
    def lower(e: Emitter, c: Call) -> str:
        operands = [e.cast(c[p], "bool") for p in ("a", "b") if c.has(p)]
        return e.cast(e.op(onnx_op, operands), "uint8")

    return lower


def _float_predicate(onnx_op: str, **attrs):
    """isNaN / isInfinite: ONNX defines them on float types only; an integer
    is never NaN or infinite, so integer inputs give all-false (Equal(x, x)
    negated keeps the data dependency and the shape)."""

    def lower(e: Emitter, c: Call) -> str:
        x = c["a"]
        if is_float(c.desc("a").data_type):
            return e.cast(e.op(onnx_op, [x], **attrs), "uint8")
        return e.cast(e.op("Not", [e.op("Equal", [x, x])]), "uint8")

    return lower


def cast(e: Emitter, c: Call) -> str:
    return e.cast(c["input"], c.attr("dataType"))


def clamp(e: Emitter, c: Call) -> str:
    # Both bounds as the create steps cast them, never left out: Clip without
    # a bound clips to the type's finite range (+inf would become FLT_MAX);
    # a NaN bound keeps x.
    data_type = c.desc("input").data_type
    bounds = [e.scalar(c.attr(key), data_type) for key in ("minValue", "maxValue")]
    return e.op("Clip", [c["input"], *bounds])


def linear(e: Emitter, c: Call) -> str:
    data_type = c.desc("input").data_type
    alpha = e.scalar(c.attr("alpha"), data_type)
    beta = e.scalar(c.attr("beta"), data_type)
    return e.op("Add", [e.op("Mul", [c["input"], alpha]), beta])


def prelu(e: Emitter, c: Call) -> str:
    """ONNX PRelu broadcasts slope to input one way only; WebNN broadcasts
    both ways (the output takes the larger shape), so compose when needed."""
    x, slope = c["input"], c["slope"]
    # ORT's CPU PRelu is float-only; integer types compose exactly (wrapping
    # as the spec's mul does) from Less, Mul and Where.
    native = is_float(c.desc("input").data_type)
    if native and unidirectionally_broadcastable(c.desc("slope").shape, c.desc("input").shape):
        return e.op("PRelu", [x, slope])
    zero = e.scalar(0, c.desc("input").data_type)
    # Where broadcasts its three operands to the common (output) shape.
    return e.op("Where", [e.op("Less", [x, zero]), e.op("Mul", [x, slope]), x])


def elu(e: Emitter, c: Call) -> str:
    return e.op("Elu", [c["input"]], alpha=float(c.attr("alpha")))


def hard_sigmoid(e: Emitter, c: Call) -> str:
    return e.op("HardSigmoid", [c["input"]], alpha=float(c.attr("alpha")), beta=float(c.attr("beta")))


def leaky_relu(e: Emitter, c: Call) -> str:
    return e.op("LeakyRelu", [c["input"]], alpha=float(c.attr("alpha")))


def softmax(e: Emitter, c: Call) -> str:
    return e.op("Softmax", [c["input"]], axis=int(c.attr("axis")))


_BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "max": "Max", "min": "Min", "pow": "Pow"}
_COMPARISON = {
    "equal": "Equal",
    "greater": "Greater",
    "greaterOrEqual": "GreaterOrEqual",
    "lesser": "Less",
    "lesserOrEqual": "LessOrEqual",
}
_UNARY = {
    "abs": "Abs", "ceil": "Ceil", "cos": "Cos", "erf": "Erf", "exp": "Exp", "floor": "Floor",
    "log": "Log", "neg": "Neg", "reciprocal": "Reciprocal", "roundEven": "Round", "sin": "Sin",
    "sqrt": "Sqrt", "tan": "Tan", "identity": "Identity", "sign": "Sign",
    # activations without options
    "gelu": "Gelu", "hardSwish": "HardSwish", "relu": "Relu", "sigmoid": "Sigmoid",
    "softplus": "Softplus", "softsign": "Softsign", "tanh": "Tanh",
}

LOWER = {
    **{op: _native(onnx, "a", "b") for op, onnx in _BINARY.items()},
    **{op: _comparison(onnx) for op, onnx in _COMPARISON.items()},
    "notEqual": not_equal,
    "logicalNot": _logical("Not"),
    "logicalAnd": _logical("And"),
    "logicalOr": _logical("Or"),
    "logicalXor": _logical("Xor"),
    "isNaN": _float_predicate("IsNaN"),
    "isInfinite": _float_predicate("IsInf"),
    **{op: _native(onnx, "input") for op, onnx in _UNARY.items()},
    "cast": cast,
    "clamp": clamp,
    "elu": elu,
    "hardSigmoid": hard_sigmoid,
    "leakyRelu": leaky_relu,
    "linear": linear,
    "prelu": prelu,
    "softmax": softmax,
}

EMULATED = {
    "notEqual": "Not(Equal(a, b)); ONNX has no NotEqual",
    "linear": "Add(Mul(x, alpha), beta); ONNX has no linear activation",
    "isNaN": "integer inputs: Not(Equal(x, x)) (ONNX IsNaN is float-only; integers are never NaN)",
    "isInfinite": "integer inputs: Not(Equal(x, x)) (ONNX IsInf is float-only; integers are never infinite)",
    "prelu": "integer types, or slope not unidirectionally broadcastable to input: Where(x < 0, x * slope, x) "
    "(ORT's PRelu is float-only and broadcasts one way only)",
}
