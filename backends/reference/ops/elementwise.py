"""Reference (float64 numpy) implementations of the elementwise operators.

Float operands arrive as float64 and the caller rounds the result once to the
output type; integer operands keep their exact dtype (int64/uint64 values
beyond 2^53 never pass through float64).

Integer overflow: the spec does not define it for add, sub, mul, pow, neg,
abs, prelu. We wrap like fixed-width two's complement machine arithmetic
(numpy's integer ops do exactly that), so abs(-128) and neg(-128) are -128 in
int8. Results the spec leaves open are returned as ImplementationDefined.
"""
from __future__ import annotations

import math

import numpy as np

from webnn_harness.backends.reference.ops.base import ImplementationDefined
from webnn_harness.spec.dtypes import integer_range, is_float, numpy_dtype


def _is_int(x: np.ndarray) -> bool:
    return x.dtype.kind in "iu"


def _undefined(values: np.ndarray, mask: np.ndarray, reason: str):
    """Wrap only when some element really is implementation-defined."""
    mask = np.broadcast_to(mask, values.shape)
    if not mask.any():
        return values
    return ImplementationDefined(values, mask.copy(), reason)


def _bool(x: np.ndarray) -> np.ndarray:
    return np.asarray(x).astype(np.uint8)


# --- element-wise binary ---------------------------------------------------


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def mul(a, b):
    return a * b


def div(a, b):
    """Floats: IEEE division. Integers: "truncated toward zero" (spec). Division
    by zero and MIN / -1 (which overflows; x86 traps) are implementation-defined."""
    if not _is_int(a):
        return a / b
    a, b = np.broadcast_arrays(a, b)
    zero = b == 0
    overflow = (a == integer_range(a.dtype.name)[0]) & (b == -1) if a.dtype.kind == "i" else np.zeros(a.shape, bool)
    safe_b = np.where(zero | overflow, np.ones_like(b), b)
    quotient = a // safe_b  # floor division; step toward zero where signs differ
    inexact = (a - quotient * safe_b) != 0
    quotient = np.where(inexact & ((a < 0) != (safe_b < 0)), quotient + 1, quotient).astype(a.dtype)
    quotient = np.where(overflow, a, quotient)  # the wrapped value, marked undefined
    return _undefined(quotient, zero | overflow, "div: integer division by zero or MIN / -1 is not defined by the spec")


def _maxmin(a, b, pick, name):
    """max/min: the spec does not say what NaN gives (IEEE maximum propagates
    it, maxNum returns the other operand, hardware differs): NaN elements are
    implementation-defined; the value we keep is numpy's (NaN)."""
    out = pick(a, b)
    if _is_int(out):
        return out
    return _undefined(out, np.isnan(a) | np.isnan(b), f"{name}: the spec does not define {name} with a NaN operand")


def max_(a, b):
    return _maxmin(a, b, np.maximum, "max")


def min_(a, b):
    return _maxmin(a, b, np.minimum, "min")


def _int_pow(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """base ** exponent for exponent >= 0, by squaring, wrapping in the dtype."""
    base, exponent = np.broadcast_arrays(base, exponent)
    result = np.ones(base.shape, base.dtype)
    base = base.copy()
    exponent = exponent.astype(np.uint64)  # negative exponents are masked by the caller
    while exponent.any():
        odd = (exponent & np.uint64(1)).astype(bool)
        result = np.where(odd, result * base, result)
        base = base * base
        exponent = exponent >> np.uint64(1)
    return result


def pow_(a, b):
    """Floats: IEEE pow (negative base with non-integer exponent gives NaN).
    Integers: the spec says nothing; non-negative exponents give the exact
    power wrapped to the type; a negative exponent (a fraction, or a division
    by zero for base 0) is implementation-defined."""
    if not _is_int(a):
        return np.power(a, b)
    negative = b < 0 if b.dtype.kind == "i" else np.zeros(b.shape, bool)
    result = _int_pow(a, np.where(negative, np.zeros_like(b), b))
    return _undefined(result, negative, "pow: an integer raised to a negative exponent is not defined by the spec")


# --- element-wise logical --------------------------------------------------
# Integer operands compare exactly in their own dtype (same dtype: spec).


def equal(a, b):
    return _bool(a == b)


def notEqual(a, b):
    return _bool(a != b)


def greater(a, b):
    return _bool(a > b)


def greaterOrEqual(a, b):
    return _bool(a >= b)


def lesser(a, b):
    return _bool(a < b)


def lesserOrEqual(a, b):
    return _bool(a <= b)


def logicalNot(a):
    return _bool(a == 0)


def logicalAnd(a, b):
    return _bool((a != 0) & (b != 0))


def logicalOr(a, b):
    return _bool((a != 0) | (b != 0))


def logicalXor(a, b):
    return _bool((a != 0) != (b != 0))


def isNaN(a):
    """Integers have no NaN: all 0."""
    return _bool(np.zeros(a.shape, bool) if _is_int(a) else np.isnan(a))


def isInfinite(a):
    return _bool(np.zeros(a.shape, bool) if _is_int(a) else np.isinf(a))


# --- element-wise unary ----------------------------------------------------


def abs_(input):
    return np.abs(input)  # int MIN stays MIN (two's complement wrap)


def neg(input):
    return np.negative(input)  # int MIN stays MIN (two's complement wrap)


# Thin wrappers, not aliases: ufuncs take no ``input=`` keyword.


def ceil(input):
    return np.ceil(input)


def floor(input):
    return np.floor(input)


def cos(input):
    return np.cos(input)


def sin(input):
    return np.sin(input)


def tan(input):
    return np.tan(input)


def exp(input):
    return np.exp(input)


def log(input):
    return np.log(input)  # log(0) = -Infinity, log(x < 0) = NaN


def sqrt(input):
    return np.sqrt(input)  # sqrt(-0) = -0, sqrt(x < 0) = NaN


def roundEven(input):
    return np.rint(input)  # IEEE round to nearest, ties to even


def reciprocal(input):
    return 1.0 / input


def identity(input):
    return input.copy()


def sign(input):
    """Spec: "1 if > 0, -1 if < 0, and 0 otherwise", so NaN gives 0 (the
    spec's emulation with greater/lesser/where agrees); numpy and ONNX give NaN."""
    out = np.sign(input)
    return out if _is_int(out) else np.where(np.isnan(out), 0.0, out)


def _elementwise_math(fn):
    """Vectorise a math-module function (float64 in, float64 out, any rank)."""
    ufunc = np.frompyfunc(fn, 1, 1)
    return lambda x: np.asarray(ufunc(np.asarray(x, np.float64)), dtype=np.float64)


_erf = _elementwise_math(math.erf)  # math.erf/erfc: accurate to about 1 ulp of double
_erfc = _elementwise_math(math.erfc)


def erf(input):
    return _erf(input)


# --- cast ------------------------------------------------------------------


def _float_to_int(x: np.ndarray, data_type: str):
    """Spec: float -> integer is "truncated" when in range; out-of-range values,
    +/-Infinity and NaN are implementation-defined."""
    lo, hi = integer_range(data_type)
    truncated = np.trunc(x)
    # hi + 1 and lo are powers of two (or 0), exact in float64; compare against
    # them so that 2^63 (which float64 cannot tell from 2^63 - 1) counts as out.
    in_range = (truncated >= float(lo)) & (truncated < float(hi) + 1.0)
    values = np.where(in_range, truncated, 0.0).astype(numpy_dtype(data_type))
    return _undefined(values, ~in_range, f"cast: a float that is NaN or out of {data_type}'s range is implementation-defined")


def _round_int_to_float32(n: int) -> float:
    """Nearest float32 to the integer n, ties to even, exactly (no double
    rounding through float64 for int64/uint64 values beyond 2^53)."""
    if abs(n) < 2**53:
        return float(np.float32(float(n)))
    shift = abs(n).bit_length() - 24
    q, r = divmod(abs(n), 1 << shift)
    half = 1 << (shift - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return math.copysign(float(q) * 2.0**shift, n)


_int_to_float32 = np.frompyfunc(lambda n: _round_int_to_float32(int(n)), 1, 1)  # n: numpy int


def _int_to_float(x: np.ndarray, data_type: str) -> np.ndarray:
    """Spec: integer -> float is the nearest representable value, or +/-Infinity
    out of range. For float16 every integer above 2^53 overflows to Infinity
    anyway, so going through float64 is exact enough; float32 is rounded here."""
    if data_type == "float32" and x.dtype.itemsize == 8:
        return np.asarray(_int_to_float32(x), dtype=np.float64).astype(np.float32).reshape(x.shape)
    return x.astype(np.float64)


def cast(input, dataType):
    """Integer -> integer keeps the low N bits, two's complement (spec), which
    is numpy's astype between integer dtypes. Float -> float rounds in the caller."""
    target_is_float = is_float(dataType)
    if _is_int(input):
        return _int_to_float(input, dataType) if target_is_float else input.astype(numpy_dtype(dataType))
    return input if target_is_float else _float_to_int(input, dataType)


# --- clamp and activations -------------------------------------------------


def clamp(input, minValue, maxValue):
    """min(max(x, minValue), maxValue). A NaN bound clamps nothing (WPT
    "minValue as NaN"). For a NaN input the spec's emulation goes through
    max/min, which do not define NaN: implementation-defined."""
    if _is_int(input):
        lo, hi = np.array(minValue, input.dtype), np.array(maxValue, input.dtype)
        return np.minimum(np.maximum(input, lo), hi)
    out = input
    if not math.isnan(minValue):
        out = np.maximum(out, minValue)
    if not math.isnan(maxValue):
        out = np.minimum(out, maxValue)
    return _undefined(out, np.isnan(input), "clamp: the spec does not define clamping NaN")


def relu(input):
    """max(0, x) (the spec's only definition): NaN is implementation-defined, as for max."""
    if _is_int(input):
        return np.maximum(input, np.zeros((), input.dtype))
    return _undefined(np.maximum(input, 0.0), np.isnan(input), "relu: max(0, NaN) is not defined by the spec")


def elu(input, alpha):
    """max(0, x) + alpha * (exp(min(0, x)) - 1); expm1 keeps small x accurate."""
    return np.maximum(input, 0.0) + alpha * np.expm1(np.minimum(input, 0.0))


def gelu(input):
    """0.5 * x * (1 + erf(x / sqrt(2))), with 1 + erf(z) written erfc(-z) so
    large negative x keeps its tiny (nonzero) result instead of cancelling."""
    return 0.5 * input * _erfc(-input / math.sqrt(2.0))


def hardSigmoid(input, alpha, beta):
    return np.maximum(np.minimum(alpha * input + beta, 1.0), 0.0)


def hardSwish(input):
    return input * np.maximum(0.0, np.minimum(6.0, input + 3.0)) / 6.0


def leakyRelu(input, alpha):
    return np.maximum(input, 0.0) + alpha * np.minimum(input, 0.0)


def linear(input, alpha, beta):
    return alpha * input + beta


def sigmoid(input):
    return 1.0 / (np.exp(-input) + 1.0)


def softplus(input):
    """ln(1 + exp(x)), as logaddexp(0, x): no overflow for large x."""
    return np.logaddexp(0.0, input)


def softsign(input):
    return input / (1.0 + np.abs(input))


def tanh(input):
    return np.tanh(input)


def prelu(input, slope):
    """max(0, x) + slope * min(0, x), broadcast both ways (spec)."""
    zero = np.zeros((), input.dtype)
    return np.maximum(input, zero) + slope * np.minimum(input, zero)


def where(condition, trueValue, falseValue):
    """Non-zero condition selects trueValue (spec)."""
    return np.where(condition != 0, trueValue, falseValue)


OPS = {
    "add": add, "sub": sub, "mul": mul, "div": div, "max": max_, "min": min_, "pow": pow_,
    "equal": equal, "notEqual": notEqual, "greater": greater, "greaterOrEqual": greaterOrEqual,
    "lesser": lesser, "lesserOrEqual": lesserOrEqual,
    "logicalNot": logicalNot, "logicalAnd": logicalAnd, "logicalOr": logicalOr, "logicalXor": logicalXor,
    "isNaN": isNaN, "isInfinite": isInfinite,
    "abs": abs_, "neg": neg, "ceil": ceil, "floor": floor, "cos": cos, "sin": sin, "tan": tan,
    "erf": erf, "exp": exp, "log": log, "reciprocal": reciprocal, "roundEven": roundEven,
    "sqrt": sqrt, "identity": identity, "sign": sign,
    "cast": cast, "clamp": clamp,
    "elu": elu, "gelu": gelu, "hardSigmoid": hardSigmoid, "hardSwish": hardSwish,
    "leakyRelu": leakyRelu, "linear": linear, "relu": relu, "sigmoid": sigmoid,
    "softplus": softplus, "softsign": softsign, "tanh": tanh,
    "prelu": prelu, "where": where,
}
