"""Element-wise ops: binary, comparison, logical, unary, activations, cast, clamp.

WebNN booleans are uint8 (0 false, nonzero true); TFLite comparisons and
logical ops use BOOL, so results are cast back to uint8 and logical inputs
become BOOL by ``x != 0``. As in Chromium's graph_builder_tflite.cc, ops
TFLite has no builtin for are composed (EMULATED names each).
"""
from __future__ import annotations

import math

from ai_edge_litert import schema_py_generated as schema

from webnn_harness.backends.litert.emitter import OP, Call, Emitter, Unlowerable, broadcast_shape
from webnn_harness.backends.lowering import clamp_bounds
from webnn_harness.spec.dtypes import is_float

# TFLite's int8/uint8 arithmetic kernels are the quantized ones: without
# quantization parameters ADD, SUB and the comparisons abort the process in
# allocate_tensors (issue 27), and RELU, ELU, MUL, SUM and BATCH_MATMUL
# compute with a zero scale (all zeros). Only ops that move bytes take them,
# and those whose kernel is a plain integer one (``plain``: MAXIMUM, MINIMUM,
# ARG_MAX/MIN, REDUCE_MAX/MIN, NEG on int8; checked one by one on 2.3.0).
QUANTIZED_ONLY = ("int8", "uint8")
INT8_PLAIN = ("int8", "uint8")


def binary(e: Emitter, code: int, a: int, b: int, data_type: str | None = None, options=None) -> int:
    """``code(a, b)`` with numpy broadcasting; the output is ``data_type`` (default: a's)."""
    shape = broadcast_shape(e.desc(a).shape, e.desc(b).shape)
    if shape == ():
        # TFLite's binary kernels compute 0-D with 0-D as [1]: say so, and reshape back.
        return e.reshape(e.op(code, [a, b], e.like(a, data_type, (1,)), options), ())
    return e.op(code, [a, b], e.like(a, data_type, shape), options)


def unary(e: Emitter, code: int, x: int, options=None) -> int:
    return e.op(code, [x], e.like(x), options)


def refuse_quantized(c: Call, param: str, plain: tuple[str, ...] = ()) -> None:
    data_type = c.desc(param).data_type
    if data_type in QUANTIZED_ONLY and data_type not in plain:
        raise Unlowerable(f"{c.node.op} on {data_type}: LiteRT's {data_type} kernels need quantization "
                          "parameters (without them some abort the process)")


def _native_binary(code: int, plain: tuple[str, ...] = ()):
    def lower(e: Emitter, c: Call) -> int:
        refuse_quantized(c, "a", plain)
        return binary(e, code, c["a"], c["b"])

    return lower


def _comparison(code: int):
    def lower(e: Emitter, c: Call) -> int:
        refuse_quantized(c, "a")
        return e.cast(binary(e, code, c["a"], c["b"], "bool"), "uint8")

    return lower


def truth(e: Emitter, x: int) -> int:
    """A WebNN uint8 boolean as a TFLite BOOL: CAST makes any nonzero true
    (NOT_EQUAL on uint8 is a quantized kernel and aborts without parameters)."""
    return e.cast(x, "bool")


def _logical(code: int):
    def lower(e: Emitter, c: Call) -> int:
        operands = [truth(e, c[p]) for p in ("a", "b") if c.has(p)]
        if len(operands) == 1:
            return e.cast(unary(e, code, operands[0]), "uint8")
        return e.cast(binary(e, code, *operands), "uint8")

    return lower


def is_nan(e: Emitter, c: Call) -> int:
    x = c["a"]
    if not is_float(c.desc("a").data_type):
        refuse_quantized(c, "a")
    # NaN is the one value unequal to itself; an integer never is.
    return e.cast(binary(e, OP.NOT_EQUAL, x, x, "bool"), "uint8")


def is_infinite(e: Emitter, c: Call) -> int:
    x = c["a"]
    data_type = c.desc("a").data_type
    if not is_float(data_type):
        refuse_quantized(c, "a")
        return e.cast(binary(e, OP.NOT_EQUAL, x, x, "bool"), "uint8")
    return e.cast(binary(e, OP.EQUAL, unary(e, OP.ABS, x), e.scalar(math.inf, data_type), "bool"), "uint8")


def _native_unary(code: int, options=None, plain: tuple[str, ...] = ()):
    def lower(e: Emitter, c: Call) -> int:
        refuse_quantized(c, "input", plain)
        return unary(e, code, c["input"], options() if options else None)

    return lower


def identity(e: Emitter, c: Call) -> int:
    return e.op(OP.RESHAPE, [c["input"], e.i32(c.out.shape)], c.out)


def cast(e: Emitter, c: Call) -> int:
    target = c.attr("dataType")
    x = c["input"]
    if target == "float16" and c.out.data_type == "float32":
        # -o float16=float32: the value is still rounded to float16.
        return e.op(OP.CAST, [e.op(OP.CAST, [x], e.like(x, "float16"))], c.out)
    return e.op(OP.CAST, [x], c.out)


def clamp(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input", INT8_PLAIN)
    data_type = c.desc("input").data_type
    # A NaN bound is left out: the builtin MAXIMUM / MINIMUM would return
    # the NaN or the bound.
    low, high = clamp_bounds(c.attr("minValue"), c.attr("maxValue"), data_type)
    y = c["input"]
    if low is not None:
        y = binary(e, OP.MAXIMUM, y, e.scalar(low, data_type))
    if high is not None:
        y = binary(e, OP.MINIMUM, y, e.scalar(high, data_type))
    return y if y != c["input"] else identity(e, c)


def relu(e: Emitter, c: Call) -> int:
    """RELU on floats; MAXIMUM(x, 0) on integers (TFLite's RELU is float or
    quantized only; Chromium also emulates it with MAXIMUM)."""
    data_type = c.desc("input").data_type
    if is_float(data_type):
        return unary(e, OP.RELU, c["input"])
    return binary(e, OP.MAXIMUM, c["input"], e.scalar(0, data_type))


def linear(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    data_type = c.desc("input").data_type
    scaled = binary(e, OP.MUL, c["input"], e.scalar(c.attr("alpha"), data_type))
    return binary(e, OP.ADD, scaled, e.scalar(c.attr("beta"), data_type))


def prelu(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    x = c["input"]
    if tuple(e.desc(x).shape) != tuple(c.out.shape):
        # TFLite's PRELU output has the input's shape (activations.cc:
        # HaveSameShapes(input, output)); a slope that broadcasts the input
        # too is applied to the input broadcast first.
        x = e.op(OP.BROADCAST_TO, [x, e.i32(c.out.shape)], e.like(x, shape=c.out.shape))
    return binary(e, OP.PRELU, x, c["slope"])


def elu(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    alpha = float(c.attr("alpha"))
    x = c["input"]
    if alpha == 1.0:
        return unary(e, OP.ELU, x)
    # TFLite's ELU has alpha 1: where(x < 0, alpha * (exp(x) - 1), x).
    data_type = c.desc("input").data_type
    negative = binary(e, OP.MUL, binary(e, OP.SUB, unary(e, OP.EXP, x), e.scalar(1, data_type)),
                      e.scalar(alpha, data_type))
    return e.op(OP.SELECT_V2, [binary(e, OP.LESS, x, e.scalar(0, data_type), "bool"), negative, x], e.like(x))


def hard_sigmoid(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    data_type = c.desc("input").data_type
    x = binary(e, OP.MUL, c["input"], e.scalar(c.attr("alpha"), data_type))
    x = binary(e, OP.ADD, x, e.scalar(c.attr("beta"), data_type))
    return binary(e, OP.MINIMUM, binary(e, OP.MAXIMUM, x, e.scalar(0, data_type)), e.scalar(1, data_type))


def leaky_relu(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    options = schema.LeakyReluOptionsT()
    options.alpha = float(c.attr("alpha"))
    return unary(e, OP.LEAKY_RELU, c["input"], options)


def softmax(e: Emitter, c: Call) -> int:
    """TFLite's SOFTMAX works on the last axis: another axis is moved last and back."""
    refuse_quantized(c, "input")
    rank = c.desc("input").rank
    axis = int(c.attr("axis")) % max(rank, 1)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    options = schema.SoftmaxOptionsT()
    options.beta = 1.0
    x = e.transpose(c["input"], perm)
    return e.transpose(unary(e, OP.SOFTMAX, x, options), perm)


# Below this, log1p(x) is its series to x^8 (error < x^9 / 9, under 1e-9
# relative); above it, LOG(1 + x) loses at most the log's own error.
# XNNPACK's LOG is too coarse near 1 for Goldberg's log(u) * x / (u - 1).
LOG1P_SERIES_BELOW = 0.1
LOG1P_TERMS = 8


def log1p(e: Emitter, x: int) -> int:
    """log(1 + x) for x >= 0, accurate for small x. TFLite has no LOG1P."""
    data_type = e.desc(x).data_type
    series = e.scalar((-1) ** (LOG1P_TERMS + 1) / LOG1P_TERMS, data_type)
    for k in range(LOG1P_TERMS - 1, 0, -1):  # Horner: x * (1 - x * (1/2 - x * (1/3 - ...)))
        series = binary(e, OP.ADD, binary(e, OP.MUL, series, x), e.scalar((-1) ** (k + 1) / k, data_type))
    series = binary(e, OP.MUL, series, x)
    direct = unary(e, OP.LOG, binary(e, OP.ADD, x, e.scalar(1, data_type)))
    small = binary(e, OP.LESS, x, e.scalar(LOG1P_SERIES_BELOW, data_type), "bool")
    return e.op(OP.SELECT_V2, [small, series, direct], e.like(x))


def softplus(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    x = c["input"]
    data_type = c.desc("input").data_type
    # log(1 + exp(x)) overflows for large x, where softplus(x) = x, and loses
    # the tail for negative x: max(x, 0) + log1p(exp(-|x|)).
    tail = log1p(e, unary(e, OP.EXP, unary(e, OP.NEG, unary(e, OP.ABS, x))))
    return binary(e, OP.ADD, binary(e, OP.MAXIMUM, x, e.scalar(0, data_type)), tail)


def softsign(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    x = c["input"]
    return binary(e, OP.DIV, x, binary(e, OP.ADD, unary(e, OP.ABS, x), e.scalar(1, c.desc("input").data_type)))


def reciprocal(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    return binary(e, OP.DIV, e.scalar(1, c.desc("input").data_type), c["input"])


def tan(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    x = c["input"]
    return binary(e, OP.DIV, unary(e, OP.SIN, x), unary(e, OP.COS, x))


def gelu(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    options = schema.GeluOptionsT()
    options.approximate = False
    return unary(e, OP.GELU, c["input"], options)


# Abramowitz and Stegun 7.1.26 (|error| <= 1.5e-7), as Chromium's erf emulation.
_ERF = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
_ERF_P = 0.3275911


def erf(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    x = c["input"]
    data_type = c.desc("input").data_type
    k = lambda v: e.scalar(v, data_type)  # noqa: E731 - a scalar of x's type
    a = unary(e, OP.ABS, x)
    t = binary(e, OP.DIV, k(1), binary(e, OP.ADD, binary(e, OP.MUL, a, k(_ERF_P)), k(1)))
    poly = k(_ERF[-1])
    for coefficient in reversed(_ERF[:-1]):
        poly = binary(e, OP.ADD, binary(e, OP.MUL, poly, t), k(coefficient))
    poly = binary(e, OP.MUL, poly, t)
    decay = unary(e, OP.EXP, unary(e, OP.NEG, unary(e, OP.SQUARE, a)))
    magnitude = binary(e, OP.SUB, k(1), binary(e, OP.MUL, poly, decay))
    return binary(e, OP.MUL, unary(e, OP.SIGN, x), magnitude)


_BINARY = {"add": OP.ADD, "sub": OP.SUB, "mul": OP.MUL, "div": OP.DIV, "pow": OP.POW}
_COMPARISON = {"equal": OP.EQUAL, "notEqual": OP.NOT_EQUAL, "greater": OP.GREATER,
               "greaterOrEqual": OP.GREATER_EQUAL, "lesser": OP.LESS, "lesserOrEqual": OP.LESS_EQUAL}
_UNARY = {
    "abs": OP.ABS, "ceil": OP.CEIL, "cos": OP.COS, "exp": OP.EXP, "floor": OP.FLOOR, "log": OP.LOG,
    "roundEven": OP.ROUND, "sin": OP.SIN, "sqrt": OP.SQRT, "sign": OP.SIGN,
    "hardSwish": OP.HARD_SWISH, "sigmoid": OP.LOGISTIC, "tanh": OP.TANH,
}

LOWER = {
    **{op: _native_binary(code) for op, code in _BINARY.items()},
    "max": _native_binary(OP.MAXIMUM, INT8_PLAIN),
    "min": _native_binary(OP.MINIMUM, INT8_PLAIN),
    **{op: _comparison(code) for op, code in _COMPARISON.items()},
    "logicalNot": _logical(OP.LOGICAL_NOT),
    "logicalAnd": _logical(OP.LOGICAL_AND),
    "logicalOr": _logical(OP.LOGICAL_OR),
    "logicalXor": _logical(OP.NOT_EQUAL),
    "isNaN": is_nan,
    "isInfinite": is_infinite,
    **{op: _native_unary(code) for op, code in _UNARY.items()},
    "neg": _native_unary(OP.NEG, plain=("int8",)),
    "relu": relu,
    "identity": identity,
    "cast": cast,
    "clamp": clamp,
    "elu": elu,
    "erf": erf,
    "gelu": gelu,
    "hardSigmoid": hard_sigmoid,
    "leakyRelu": leaky_relu,
    "linear": linear,
    "prelu": prelu,
    "reciprocal": reciprocal,
    "softmax": softmax,
    "softplus": softplus,
    "softsign": softsign,
    "tan": tan,
}

EMULATED = {
    "logicalXor": "NOT_EQUAL(a != 0, b != 0); TFLite has no LOGICAL_XOR",
    "isNaN": "NOT_EQUAL(x, x); TFLite has no IS_NAN",
    "isInfinite": "EQUAL(ABS(x), inf) (integers: NOT_EQUAL(x, x), never true); TFLite has no IS_INF",
    "clamp": "MAXIMUM(x, minValue) then MINIMUM(.., maxValue)",
    "elu": "alpha other than 1: SELECT_V2(x < 0, alpha * (EXP(x) - 1), x) (TFLite's ELU has alpha 1)",
    "erf": "Abramowitz-Stegun 7.1.26 polynomial with EXP (|error| <= 1.5e-7), as Chromium; TFLite has no ERF",
    "hardSigmoid": "MINIMUM(MAXIMUM(alpha * x + beta, 0), 1)",
    "linear": "ADD(MUL(x, alpha), beta)",
    "reciprocal": "DIV(1, x)",
    "relu": "integer types: MAXIMUM(x, 0) (TFLite's RELU is float or quantized only)",
    "softmax": "axis other than the last: TRANSPOSE it last, SOFTMAX, TRANSPOSE back",
    "softplus": "MAXIMUM(x, 0) + log1p(EXP(-ABS(x))), log1p by its series below 0.1; TFLite has no SOFTPLUS",
    "softsign": "DIV(x, 1 + ABS(x))",
    "tan": "DIV(SIN(x), COS(x))",
}
