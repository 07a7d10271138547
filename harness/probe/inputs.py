"""Discriminating input values: values that survive a computation only if
the full width of the data type is honoured.

- int64/uint64: beyond 2^31 and beyond 2^53 (lost by an int32 or a float64
  path), uint64 above 2^63 (lost by a signed path);
- int32/uint32: beyond 2^24 (lost by a float32 path), uint32 above 2^31;
- int8: negative values; uint8: above 127;
- float32: values float16 cannot hold (1e30, 1 + 2^-20), a float16 or
  bfloat16 compute path rounds them away;
- float16: the largest finite value, a subnormal, values with a full 10-bit
  mantissa;
- NaN and infinities only for the ops that define them (``specials`` in
  the op's traits).

Each op's traits (harness/spec/opspec, ``OpSpec.values``) name the value
domain of its operands, and of single members where they differ: inside the
op's domain (positive for log/sqrt, non-zero divisors, valid gather indices,
positive quantization scales, sums and products that cannot overflow).
DOMAIN_VALUES says what each domain holds. Values are laid out by cycling
the list over the tensor, so every list value appears even in a 2-element
tensor, and a rank-0 tensor gets the most discriminating one.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from webnn_harness.spec.dtypes import integer_range, is_float, numpy_dtype
from webnn_harness.spec.opspec import OPS

NAN, INF = float("nan"), float("inf")

WIDE: Mapping[str, Sequence] = {
    "int64": [2**53 + 1, -(2**53) - 3, 2**31 + 7, -(2**40) - 5, 2**62 + 11, -(2**62) - 13, 0, 5, -1],
    "uint64": [2**63 + 5, 2**53 + 1, 2**32 + 3, 2**64 - 2, 0, 7, 1],
    "int32": [2**24 + 1, -(2**24) - 3, 2**31 - 2, -(2**31) + 2, 0, 7, -1],
    "uint32": [2**31 + 5, 2**32 - 2, 2**24 + 1, 0, 9],
    "int8": [-100, 127, -127, 0, 5, -1],
    "uint8": [200, 255, 128, 0, 3],
    "float32": [1 + 2**-20, -3.1415927410125732, 1e30, -2.5e-30, 65520.0, 0.1, -0.0, 2.5],
    "float16": [1 + 2**-10, -2050.0, 65504.0, 2**-24, 0.0999755859375, -0.0, 2.5, -0.333251953125],
}

# Halves of the wide values: sums of two stay in range (add, sub, reductions
# over the last axis of 2 or 3 elements).
ADDITIVE: Mapping[str, Sequence] = {
    "int64": [2**53 + 1, -(2**53) - 3, 2**31 + 7, -(2**40) - 5, 2**60 + 11, -(2**60) - 13, 0, 5, -1],
    "uint64": [2**62 + 5, 2**53 + 1, 2**32 + 3, 0, 7, 1],
    "int32": [2**24 + 1, -(2**24) - 3, 2**29 - 2, -(2**29) + 2, 0, 7, -1],
    "uint32": [2**30 + 5, 2**31 + 3, 2**24 + 1, 0, 9],
    "int8": [-40, 41, -33, 0, 5, -1],
    "uint8": [70, 80, 3, 0],
    "float32": [1 + 2**-20, -3.1415927410125732, 1e30, -2.5e-30, 65520.0, 0.1, -0.0, 2.5],
    "float16": [1 + 2**-10, -2050.0, 16384.0, 2**-24, 0.0999755859375, -0.0, 2.5, -0.333251953125],
}

# Products (and sums of squares) of two values stay in range but exceed 2^53 / 2^24.
PRODUCT: Mapping[str, Sequence] = {
    "int64": [2**30 + 7, -(2**30) - 3, 2**27 + 1, 5, -2],
    "uint64": [2**31 + 5, 2**31 - 1, 3, 7],
    "int32": [30000, -30001, 4097, 3, -2],
    "uint32": [46000, 40000, 3, 7],
    "int8": [-8, 7, 3, -2],
    "uint8": [11, 7, 2],
    "float32": [1 + 2**-20, -1.75, 1e15, 0.1, -0.0, 2.5],
    "float16": [1 + 2**-10, -1.75, 200.0, 0.0999755859375, -0.0, 2.5],
}

# reduceProduct over the last axis (up to 4 elements in the plans): the product
# stays in range but exceeds 2^53 (64-bit) or 2^24 (32-bit).
REDUCE_PRODUCT: Mapping[str, Sequence] = {
    "int64": [2**20 + 7, -(2**20) - 3, 2**14 + 1, 3], "uint64": [2**21 + 5, 2**21 - 1, 2**10 + 3, 3],
    "int32": [1200, -1201, 1100, 1], "uint32": [1600, 1500, 1700, 1], "int8": [-5, 4, 3, -1], "uint8": [6, 5, 7, 1],
    "float32": [1 + 2**-20, -1.75, 1e9, 0.1, -0.0, 2.5], "float16": [1 + 2**-10, -1.75, 20.0, 0.0999755859375, -0.0, 2.5],
}
# reduceSumSquare / reduceL2: the sum of up to 4 squares stays in range.
REDUCE_SQUARES: Mapping[str, Sequence] = {
    "int64": [2**29 + 7, -(2**29) - 3, 2**27 + 1, 5], "uint64": [2**31 + 5, 2**30 - 1, 3, 7],
    "int32": [20000, -20001, 4097, 3], "uint32": [30000, 29999, 7, 2], "int8": [-5, 5, 3, -2], "uint8": [7, 7, 2, 3],
    "float32": [1 + 2**-20, -1.75, 1e15, 0.1, -0.0, 2.5], "float16": [1 + 2**-10, -1.75, 100.0, 0.0999755859375, -0.0, 2.5],
}
# Multiples of 1/4 up to 2: products and sums of a few dozen of them are exact in
# float32 and float16, so convolutions and matrix products have one correct
# answer whatever the summation order (random data would make tiny outputs by
# cancellation, where any ULP budget is meaningless).
DYADIC = [k / 4 for k in range(-8, 9) if k]

SMALL_NONZERO: Mapping[str, Sequence] = {
    "int64": [3, -7, 2, 5, 1], "int32": [3, -7, 2, 5, 1], "int8": [3, -7, 2, 5, 1],
    "uint64": [3, 7, 2, 5, 1], "uint32": [3, 7, 2, 5, 1], "uint8": [3, 7, 2, 5, 1],
    "float32": [0.75, -3.0, 1.5, 0.0009765625, -1 - 2**-20], "float16": [0.75, -3.0, 1.5, 0.0009765625, -1 - 2**-10],
}

POW_BASE: Mapping[str, Sequence] = {
    "int64": [2**20 + 1, -(2**15) - 3, 3, -2], "uint64": [2**21 + 3, 5, 2], "int32": [1000, -1200, 3, -2],
    "uint32": [1500, 7, 2], "int8": [-5, 4, 2], "uint8": [6, 5, 2],
    "float32": [0.5, 1.75, 2.5, 1 + 2**-20, 3.0], "float16": [0.5, 1.75, 2.5, 1 + 2**-10, 3.0],
}
POW_EXPONENT: Mapping[str, Sequence] = {
    **{t: [3, 2, 1, 0] for t in ("int64", "uint64", "int32", "uint32", "int8", "uint8")},
    "float32": [2.0, -1.5, 0.5, 3.0, -2.0], "float16": [2.0, -1.5, 0.5, 3.0, -2.0],
}

# Floats inside every transcendental's comfortable domain, with full
# mantissas and the rounding edge cases of ceil/floor/roundEven.
# Negative values stop at -1.5: further out, gelu/elu/sigmoid-like outputs come
# from cancellations (1 + erf(x) for x << 0) where the WPT ULP budgets, set on
# data near zero, measure the formula's conditioning rather than the backend.
FLOAT_SMOOTH = [0.5, -1.5, 2.5, 1.0009765625, -0.75, 0.0999755859375, -0.0, 1.25, -0.3330078125, 1.1875]
FLOAT_POSITIVE = [0.5, 1.5, 2.5, 1.0009765625, 7.75, 0.0999755859375, 3.0, 0.3330078125]
FLOAT_NONZERO = [0.5, -1.5, 2.5, 1.0009765625, -7.75, 0.0999755859375, 3.0, -0.3330078125]
BOOLEAN = [0, 1, 2, 255, 0, 7]
SPECIALS = [NAN, INF, -INF]


def _seed(*parts: Any) -> int:
    return zlib.crc32("/".join(map(str, parts)).encode())


def _cycle(values: Sequence, shape: Sequence[int], data_type: str, offset: int = 0) -> np.ndarray:
    count = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
    vals = list(values)
    offset %= len(vals)
    vals = vals[offset:] + vals[:offset]
    dtype = numpy_dtype(data_type)
    if is_float(data_type):
        with np.errstate(over="ignore"):
            arr = np.asarray(vals, dtype=np.float64).astype(dtype)
    else:
        lo, hi = integer_range(data_type)
        arr = np.asarray([min(max(int(v), lo), hi) for v in vals], dtype=dtype)
    return np.resize(arr, count).reshape(tuple(shape))  # the values repeated in turn


def _uniform(shape, data_type: str, seed: int, low=-1.0, high=1.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if is_float(data_type):
        return rng.uniform(low, high, size=tuple(shape)).astype(numpy_dtype(data_type))
    lo, hi = integer_range(data_type)
    lo, hi = max(lo, -8), min(hi, 8)
    return rng.integers(lo, hi, size=tuple(shape), endpoint=True).astype(numpy_dtype(data_type))


def _typed_list(table: Mapping[str, Sequence], data_type: str, specials: bool) -> list:
    values = list(table[data_type])
    if specials and is_float(data_type):
        values = values[:3] + SPECIALS + values[3:]
    return values


def _axis_indices(shapes: Mapping[str, Any], attributes: Mapping[str, Any], shape: Sequence[int],
                  data_type: str) -> np.ndarray:
    """Valid indices along ``axis``: in range for the indexed dimension,
    negative ones too where the type is signed (the spec counts them from the end)."""
    signed = data_type in ("int32", "int64", "int8")
    n = shapes["input"][attributes.get("axis", 0)]
    pool = [n - 1, 0, -1, 1, -n] if signed else [n - 1, 0, 1]
    pool = [p for p in pool if -n <= p < n]
    return _cycle(pool, shape, data_type)


def _coordinates(shapes: Mapping[str, Any], shape: Sequence[int], data_type: str) -> np.ndarray:
    """gatherND / scatterND: the last dimension holds coordinates into input,
    negative ones too where the type is signed."""
    signed = data_type in ("int32", "int64", "int8")
    input_shape = shapes["input"]
    k = shape[-1]
    count = int(np.prod(shape[:-1], dtype=np.int64))
    rows = []
    for i in range(count):
        row = []
        for d in range(k):
            n = input_shape[d]
            v = (i + d) % n
            row.append(v - n if signed and (i + d) % 2 else v)
        rows.append(row)
    # scatterND plans use a single coordinate row, so updates never collide.
    return np.asarray(rows, dtype=numpy_dtype(data_type)).reshape(tuple(shape))


@dataclass(frozen=True)
class Operand:
    """One operand to fill: what a domain's values may depend on."""

    op: str
    member: str
    shape: tuple[int, ...]
    data_type: str
    shapes: Mapping[str, Any]  # every member's shape
    attributes: Mapping[str, Any]
    slot: int  # position in a list member
    specials: bool  # the op passes NaN and infinities

    @property
    def seed(self) -> int:
        return _seed(self.op, self.member, self.slot, self.shape, self.data_type)

    @property
    def floating(self) -> bool:
        return is_float(self.data_type)


def _cycled(table: Mapping[str, Sequence], slot: bool = False):
    """The type's list from ``table`` cycled over the tensor (from ``slot`` on)."""
    return lambda x: _cycle(table[x.data_type], x.shape, x.data_type, x.slot if slot else 0)


def _floats_only(values: Sequence, specials: bool = False):
    """``values`` for a float operand (NaN and infinities too where the op
    passes them); None for an integer one, which falls through."""
    return lambda x: (_cycle(list(values) + (SPECIALS if specials and x.specials else []), x.shape, x.data_type)
                      if x.floating else None)


def _dyadic(x: Operand) -> np.ndarray | None:
    if not x.floating:
        return None
    return np.random.default_rng(x.seed).choice(DYADIC, size=x.shape).astype(numpy_dtype(x.data_type))


def _wide(x: Operand) -> np.ndarray:
    # Second operands start one further along the list: the two sides of a
    # binary op differ element by element.
    second = x.member in ("b", "slope", "falseValue", "updates")
    return _cycle(_typed_list(WIDE, x.data_type, x.specials), x.shape, x.data_type, x.slot + second)


# Domain -> its values for one operand (None: not for this operand's type,
# the next domain applies). The domains are named in harness/spec/opspec/traits.py.
DOMAIN_VALUES: Mapping[str, Callable[[Operand], np.ndarray | None]] = {
    "uniform": lambda x: _uniform(x.shape, x.data_type, x.seed),
    "wide": _wide,
    "additive": lambda x: _cycle(_typed_list(ADDITIVE, x.data_type, x.specials), x.shape, x.data_type, x.slot),
    "product": _cycled(PRODUCT, slot=True),
    "longProduct": _cycled(REDUCE_PRODUCT),
    "squares": _cycled(REDUCE_SQUARES),
    "dyadic": _dyadic,
    "smooth": _floats_only(FLOAT_SMOOTH, specials=True),
    "positive": _floats_only(FLOAT_POSITIVE),
    "nonzero": _floats_only(FLOAT_NONZERO),
    "divisor": _cycled(SMALL_NONZERO),
    "integerDivisor": lambda x: None if x.floating else _cycle(SMALL_NONZERO[x.data_type], x.shape, x.data_type),
    "positiveUniform": lambda x: _uniform(x.shape, x.data_type, x.seed, 0.25, 2.0),
    "powBase": _cycled(POW_BASE, slot=True),
    "powExponent": _cycled(POW_EXPONENT, slot=True),
    "boolean": lambda x: _cycle(BOOLEAN, x.shape, x.data_type, x.slot),
    "axisIndices": lambda x: _axis_indices(x.shapes, x.attributes, x.shape, x.data_type),
    "coordinates": lambda x: _coordinates(x.shapes, x.shape, x.data_type),
    "quantization": lambda x: _quantization_values(x.member, x.shape, x.data_type),
    "quotients": lambda x: _cycle([1.5, -2.25, 0.375, 3.0, -0.0, 10.25], x.shape, x.data_type),
}


def operand_values(op: str, member: str, shape: Sequence[int], data_type: str,
                   shapes: Mapping[str, Any], attributes: Mapping[str, Any], slot: int = 0) -> np.ndarray:
    """Values for operand ``member`` (``slot``: its position in a list member):
    the member's domain, else the op's, else smooth random values."""
    values = OPS[op].values
    operand = Operand(op, member, tuple(shape), data_type, shapes, attributes, slot, values.specials)
    for domain in values.domains(member):
        out = DOMAIN_VALUES[domain](operand)
        if out is not None:
            return out
    return DOMAIN_VALUES["uniform"](operand)


def _quantization_values(member: str, shape, data_type: str) -> np.ndarray:
    if member == "scale":
        # Powers of two: the product with (input - zeroPoint) is exact, so the
        # output's single rounding is the only one whatever the backend's path.
        return _cycle([0.125, 0.5, 0.25], shape, data_type)
    if member == "zeroPoint":
        table = {"int8": [-3, 2], "uint8": [130, 128], "int32": [-1000, 5000], "uint32": [70000, 5],
                 "int64": [-1000, 5], "uint64": [70000, 5], "float32": [0.0], "float16": [0.0],
                 "int4": [-3, 2], "uint4": [9, 8]}
        return _cycle(table[data_type], shape, data_type)
    table = {"int8": [-100, 127, -128, 5], "uint8": [200, 255, 0, 131], "int32": [2**24 + 1, -(2**24) - 3, 7],
             "uint32": [2**31 + 4, 2**24 + 1, 7], "int64": [2**31 + 7, -5], "uint64": [2**32 + 3, 5],
             "float32": [1.5], "float16": [1.5], "int4": [-8, 7, -1, 5], "uint4": [15, 0, 9, 3]}
    return _cycle(table[data_type], shape, data_type)
