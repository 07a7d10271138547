"""Generate cases/elementwise/*.json: one file per elementwise op.

Run: /work/venv/bin/python tools/cases/elementwise.py

Hand cases carry expected values worked out by hand from the spec's text
(IEEE special values, two's complement wraparound, the spec's cast table) or
with plain Python integer arithmetic; generated cases ("generated" in the
name) give seeded inputs and omit the expected data, which the reference
computes. Every data type the catalog allows, ranks 0 to 5, every option and
broadcasting appear for every op.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from webnn_harness.spec.catalog import operator

OUT = Path(__file__).resolve().parents[2] / "cases" / "elementwise"
NAN, INF, NINF = "NaN", "Infinity", "-Infinity"
F16_MAX, F16_MIN_SUB, F16_MIN_NORMAL = 65504.0, 2.0**-24, 2.0**-14
F32_MIN_SUB = 2.0**-149
I64_MIN, I64_MAX, U64_MAX = -(2**63), 2**63 - 1, 2**64 - 1
P53 = 2**53
RANK_SHAPES = {0: [], 1: [5], 2: [2, 3], 3: [2, 1, 3], 4: [1, 2, 2, 3], 5: [2, 1, 2, 1, 3]}
FLOATS = ("float32", "float16")
INTS = ("int32", "uint32", "int64", "uint64", "int8", "uint8")


def num(v):
    """One value in the corpus encoding."""
    if isinstance(v, str):
        return v
    if isinstance(v, float):
        return NAN if v != v else (INF if v == float("inf") else NINF if v == float("-inf") else v)
    if isinstance(v, int) and abs(v) > P53:
        return {"bigint": str(v)}
    return v


def tensor(data, shape, data_type, constant=False):
    out = {"data": [num(v) for v in data] if isinstance(data, list) else data,
           "descriptor": {"shape": list(shape), "dataType": data_type}}
    if constant:
        out["constant"] = True
    return out


def gen(seed, low=-1.0, high=1.0, distribution="uniform"):
    return {"generate": {"distribution": distribution, "low": num(low), "high": num(high), "seed": seed}}


def ints(seed, low, high):
    return gen(seed, low, high, "integers")


def output_type(op, data_type, attrs):
    if op in LOGICAL_OPS:
        return "uint8"
    return attrs.get("dataType", data_type)


def case(name, op, inputs, *, attrs=None, options=None, expected=None, out_type=None):
    """``inputs``: ordered {param: tensor} (positional operands, spec order);
    ``attrs``: positional non-operand arguments (cast dataType)."""
    args = [{param: f"input{param[0].upper()}{param[1:]}"} for param in inputs]
    args += [{k: v} for k, v in (attrs or {}).items()]
    if options:
        args.append({"options": {k: num(v) for k, v in options.items()}})
    shapes = [t["descriptor"]["shape"] for t in inputs.values()]
    shape = list(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    first = next(iter(inputs.values()))["descriptor"]["dataType"]
    if op == "where":
        first = inputs["trueValue"]["descriptor"]["dataType"]
    out = {"descriptor": {"shape": shape, "dataType": out_type or output_type(op, first, attrs or {})}}
    if expected is not None:
        out["data"] = [num(v) for v in expected]
    return {
        "name": name,
        "graph": {
            "inputs": {f"input{p[0].upper()}{p[1:]}": t for p, t in inputs.items()},
            "operators": [{"name": op, "arguments": args, "outputs": "output"}],
            "expectedOutputs": {"output": out},
        },
    }


def allowed(op, member):
    return operator(op).operands[member].allowed_data_types


# --- generated sweeps --------------------------------------------------------


def float_range(op):
    return FLOAT_RANGES.get(op, (-5.0, 5.0))


def int_range(data_type, op):
    if op in ("pow",):
        return (0, 5) if data_type.startswith("u") else (-4, 5)
    if data_type.startswith("u"):
        return (0, 100)
    return (-100, 100)


def sweep_unary(op, seed, param="input", float_ranks=range(6), options=None):
    """Ranks 0-5 in float32, two float16 shapes and every allowed integer type."""
    out = []
    low, high = float_range(op)
    for rank in float_ranks:
        out.append(case(f"{op} float32 {rank}D generated", op,
                        {param: tensor(gen(seed + rank, low, high), RANK_SHAPES[rank], "float32", constant=rank == 2)},
                        options=options))
    for rank in (1, 4):
        out.append(case(f"{op} float16 {rank}D generated", op,
                        {param: tensor(gen(seed + 10 + rank, low, high), RANK_SHAPES[rank], "float16")}, options=options))
    for i, data_type in enumerate(t for t in allowed(op, param) if t in INTS):
        lo, hi = int_range(data_type, op)
        out.append(case(f"{op} {data_type} 3D generated", op,
                        {param: tensor(ints(seed + 20 + i, lo, hi), [2, 3, 4], data_type)}, options=options))
    return out


def sweep_binary(op, seed, a="a", b="b"):
    """Every allowed data type, ranks 0-5, broadcasting in both directions."""
    out = []
    low, high = float_range(op)
    blow, bhigh = FLOAT_RANGES_B.get(op, (low, high))
    for rank in range(6):
        shape = RANK_SHAPES[rank]
        out.append(case(f"{op} float32 {rank}D generated", op,
                        {a: tensor(gen(seed + rank, low, high), shape, "float32"),
                         b: tensor(gen(seed + 50 + rank, blow, bhigh), shape, "float32", constant=rank == 3)}))
    broadcasts = (([2, 3], [3]), ([3], [2, 1, 3]), ([2, 1], [1, 4]), ([], [2, 2, 1, 2, 3]), ([1, 2, 1, 3], [4, 1, 1, 1]))
    for i, (sa, sb) in enumerate(broadcasts):
        data_type = "float16" if i % 2 else "float32"
        out.append(case(f"{op} {data_type} broadcast {sa} with {sb} generated", op,
                        {a: tensor(gen(seed + 10 + i, low, high), sa, data_type),
                         b: tensor(gen(seed + 60 + i, blow, bhigh), sb, data_type)}))
    out.append(case(f"{op} float16 4D generated", op,
                    {a: tensor(gen(seed + 20, low, high), RANK_SHAPES[4], "float16"),
                     b: tensor(gen(seed + 70, blow, bhigh), RANK_SHAPES[4], "float16")}))
    for i, data_type in enumerate(t for t in allowed(op, a) if t in INTS):
        lo, hi = int_range(data_type, op)
        blo, bhi = INT_RANGES_B.get((op, data_type.startswith("u")), (lo, hi))
        out.append(case(f"{op} {data_type} broadcast generated", op,
                        {a: tensor(ints(seed + 30 + i, lo, hi), [2, 3, 4], data_type),
                         b: tensor(ints(seed + 80 + i, blo, bhi), [3, 1], data_type)}))
    return out


FLOAT_RANGES = {
    "log": (0.01, 100.0), "sqrt": (0.0, 100.0), "reciprocal": (-10.0, 10.0), "tan": (-1.2, 1.2),
    "cos": (-10.0, 10.0), "sin": (-10.0, 10.0), "exp": (-10.0, 10.0), "erf": (-3.0, 3.0),
    "pow": (0.5, 3.0), "div": (-100.0, 100.0), "ceil": (-10.0, 10.0), "floor": (-10.0, 10.0),
    "roundEven": (-10.0, 10.0), "softplus": (-10.0, 10.0), "sigmoid": (-10.0, 10.0),
    "tanh": (-4.0, 4.0), "gelu": (-5.0, 5.0), "hardSwish": (-5.0, 5.0), "hardSigmoid": (-2.0, 4.0),
}
FLOAT_RANGES_B = {"pow": (-3.0, 3.0), "div": (0.5, 50.0)}
# Integer divisors exclude 0 (implementation-defined); generated pow exponents are >= 0.
INT_RANGES_B = {("div", False): (1, 20), ("div", True): (1, 20), ("pow", False): (0, 4), ("pow", True): (0, 4)}


def sweep_compare(op, seed):
    """Comparisons on small integer values (also for floats) so that equal
    pairs occur; every allowed data type, ranks 0-5, broadcasting."""
    out = []
    for rank in range(6):
        shape = RANK_SHAPES[rank]
        out.append(case(f"{op} float32 {rank}D generated", op,
                        {"a": tensor(ints(seed + rank, -3, 3), shape, "float32"),
                         "b": tensor(ints(seed + 50 + rank, -3, 3), shape, "float32", constant=rank == 3)}))
    for i, (sa, sb) in enumerate((([2, 3], [3]), ([2, 1], [1, 4]), ([], [2, 2, 1, 2, 3]))):
        data_type = ("float32", "float16", "int32")[i]
        out.append(case(f"{op} {data_type} broadcast {sa} with {sb} generated", op,
                        {"a": tensor(ints(seed + 10 + i, -3, 3), sa, data_type),
                         "b": tensor(ints(seed + 60 + i, -3, 3), sb, data_type)}))
    out.append(case(f"{op} float16 4D generated", op,
                    {"a": tensor(gen(seed + 20, -2, 2), RANK_SHAPES[4], "float16"),
                     "b": tensor(gen(seed + 70, -2, 2), RANK_SHAPES[4], "float16")}))
    for i, data_type in enumerate(INTS):
        lo, hi = (0, 4) if data_type.startswith("u") else (-2, 2)
        out.append(case(f"{op} {data_type} generated", op,
                        {"a": tensor(ints(seed + 30 + i, lo, hi), [3, 4], data_type),
                         "b": tensor(ints(seed + 80 + i, lo, hi), [3, 4], data_type)}))
    return out


def sweep_logical(op, seed):
    """uint8 only; values 0-3 so that non-zero values other than 1 occur."""
    unary = op == "logicalNot"
    out = []
    for rank in range(6):
        shape = RANK_SHAPES[rank]
        inputs = {"a": tensor(ints(seed + rank, 0, 3), shape, "uint8", constant=rank == 2)}
        if not unary:
            inputs["b"] = tensor(ints(seed + 50 + rank, 0, 3), shape, "uint8")
        out.append(case(f"{op} uint8 {rank}D generated", op, inputs))
    if not unary:
        for i, (sa, sb) in enumerate((([2, 3], [3]), ([2, 1], [1, 4]), ([], [2, 1, 2, 3]))):
            out.append(case(f"{op} uint8 broadcast {sa} with {sb} generated", op,
                            {"a": tensor(ints(seed + 10 + i, 0, 2), sa, "uint8"),
                             "b": tensor(ints(seed + 60 + i, 0, 2), sb, "uint8")}))
    return out


# --- hand cases ----------------------------------------------------------------
# Each entry: (name, inputs, expected[, options]). Values worked out by hand.


def binary_hand(op):
    """Hand cases of the arithmetic binary ops."""
    H = {
        "add": [
            ("int8 wraps around on overflow", [127, -128, 100, -100], [1, -1, 100, -100], [-128, 127, -56, 56], "int8"),
            ("uint8 wraps around on overflow", [255, 200, 0], [1, 100, 0], [0, 44, 0], "uint8"),
            ("int32 wraps around at the extremes", [2147483647, -2147483648], [1, -1], [-2147483648, 2147483647], "int32"),
            ("uint32 values above the signed maximum", [3000000000, 4294967295], [1000000000, 1], [4000000000, 0], "uint32"),
            ("int64 values beyond 2^53", [P53, -P53, P53 + 2], [1, -1, 1], [P53 + 1, -P53 - 1, P53 + 3], "int64"),
            ("int64 wraps around at 2^63", [I64_MAX, I64_MIN], [1, -1], [I64_MIN, I64_MAX], "int64"),
            ("uint64 values above the signed maximum", [2**63, U64_MAX], [2**63 - 1, 1], [U64_MAX, 0], "uint64"),
            ("float32 Infinity, NaN and signed zero", [INF, NINF, INF, NAN, 1.0, -0.0], [1.0, -1.0, NINF, 1.0, NAN, -0.0],
             [INF, NINF, NAN, NAN, NAN, -0.0], "float32"),
            ("float16 overflow to Infinity near 65504", [F16_MAX, -F16_MAX, F16_MAX], [32.0, -32.0, 15.0], [INF, NINF, F16_MAX], "float16"),
            ("float16 subnormals", [F16_MIN_SUB, F16_MIN_SUB, F16_MIN_NORMAL], [F16_MIN_SUB, -F16_MIN_SUB, -F16_MIN_SUB],
             [2 * F16_MIN_SUB, 0.0, F16_MIN_NORMAL - F16_MIN_SUB], "float16"),
        ],
        "sub": [
            ("int8 wraps around on overflow", [-128, 127, 0], [1, -1, -128], [127, -128, -128], "int8"),
            ("uint8 wraps around below zero", [0, 5, 255], [1, 10, 255], [255, 251, 0], "uint8"),
            ("uint32 wraps around below zero", [0, 4294967295], [1, 2147483648], [4294967295, 2147483647], "uint32"),
            ("int32 wraps around at the extremes", [-2147483648, 2147483647], [1, -1], [2147483647, -2147483648], "int32"),
            ("int64 values beyond 2^53", [P53 + 1, -P53 - 1], [1, 2], [P53, -P53 - 3], "int64"),
            ("uint64 values above the signed maximum", [U64_MAX, 0, 2**63], [1, 1, 1], [U64_MAX - 1, U64_MAX, 2**63 - 1], "uint64"),
            ("float32 Infinity, NaN and signed zero", [INF, NINF, -0.0, 0.0, NAN], [INF, INF, 0.0, 0.0, 1.0],
             [NAN, NINF, -0.0, 0.0, NAN], "float32"),
            ("float16 overflow to Infinity near 65504", [-F16_MAX, F16_MAX], [32.0, -32.0], [NINF, INF], "float16"),
            ("float16 subnormal difference", [F16_MIN_NORMAL, 3 * F16_MIN_SUB], [F16_MIN_SUB, F16_MIN_SUB],
             [F16_MIN_NORMAL - F16_MIN_SUB, 2 * F16_MIN_SUB], "float16"),
        ],
        "mul": [
            ("int8 wraps around on overflow", [16, -128, 11], [8, -1, 12], [-128, -128, -124], "int8"),
            ("uint8 wraps around on overflow", [16, 255, 3], [16, 255, 5], [0, 1, 15], "uint8"),
            ("int32 wraps around on overflow", [65536, 46341], [65536, 46341], [0, -2147479015], "int32"),
            ("uint32 values above the signed maximum", [2147483648, 4294967295], [1, 4294967295], [2147483648, 1], "uint32"),
            ("int64 values beyond 2^53", [3002399751580331, -3], [3, 3002399751580331], [P53 + 1, -P53 - 1], "int64"),
            ("int64 wraps around at 2^63", [2**32, I64_MIN], [2**31, -1], [I64_MIN, I64_MIN], "int64"),
            ("uint64 values above the signed maximum", [4294967295, 2**32, 2**63], [4294967297, 2**32, 1],
             [U64_MAX, 0, 2**63], "uint64"),
            ("float32 Infinity times 0 and signed zero", [INF, -0.0, NINF, NAN, -2.0], [0.0, 5.0, -1.0, 0.0, 0.0],
             [NAN, -0.0, INF, NAN, -0.0], "float32"),
            ("float16 overflow and underflow", [256.0, F16_MIN_SUB, 0.5], [256.0, 0.5, F16_MIN_SUB], [INF, 0.0, 0.0], "float16"),
        ],
        "div": [
            ("int32 truncates toward zero", [7, -7, 7, -7, 0, 1, -1], [2, 2, -2, -2, 5, 3, 3], [3, -3, -3, 3, 0, 0, 0], "int32"),
            ("int8 truncates toward zero", [-128, 127, -9], [2, -2, 4], [-64, -63, -2], "int8"),
            ("uint8 truncates", [255, 7, 200], [2, 8, 200], [127, 0, 1], "uint8"),
            ("uint32 values above the signed maximum", [4294967295, 3000000000], [2, 3000000000], [2147483647, 1], "uint32"),
            ("int64 values beyond 2^53", [P53 + 1, I64_MAX, I64_MIN, -P53 - 1], [1, 2, 2, -3],
             [P53 + 1, 4611686018427387903, -4611686018427387904, 3002399751580331], "int64"),
            ("uint64 values above the signed maximum", [U64_MAX, 2**63], [2, 3], [2**63 - 1, 3074457345618258602], "uint64"),
            ("float32 division by zero and Infinity", [1.0, -1.0, 0.0, 1.0, INF, NAN, 1.0], [0.0, 0.0, 0.0, -0.0, INF, 1.0, INF],
             [INF, NINF, NAN, NINF, NAN, NAN, 0.0], "float32"),
            ("float16 overflow and subnormal results", [F16_MAX, 1.0, F16_MIN_NORMAL], [0.5, F16_MAX, 4.0],
             [INF, 1.0 / 65536, F16_MIN_NORMAL / 4], "float16"),
        ],
        "max": [
            ("int8 extremes", [-128, 127, -1], [127, -128, 0], [127, 127, 0], "int8"),
            ("uint8 extremes", [0, 255, 3], [255, 0, 4], [255, 255, 4], "uint8"),
            ("int64 values beyond 2^53", [P53 + 1, -P53 - 1, I64_MIN], [P53, -P53, I64_MAX], [P53 + 1, -P53, I64_MAX], "int64"),
            ("uint64 values above the signed maximum", [2**63, U64_MAX, 1], [1, 2**63, 0], [2**63, U64_MAX, 1], "uint64"),
            ("uint32 values above the signed maximum", [2147483648, 4294967295], [2147483647, 0], [2147483648, 4294967295], "uint32"),
            ("int32 extremes", [-2147483648, 2147483647], [0, 0], [0, 2147483647], "int32"),
            ("float32 Infinity", [INF, NINF, 1.5, -2.0], [1.0, -1.0, NINF, -3.0], [INF, -1.0, 1.5, -2.0], "float32"),
            ("float16 extremes and subnormals", [F16_MAX, -F16_MAX, F16_MIN_SUB], [INF, 0.0, 0.0], [INF, 0.0, F16_MIN_SUB], "float16"),
        ],
        "min": [
            ("int8 extremes", [-128, 127, -1], [127, -128, 0], [-128, -128, -1], "int8"),
            ("uint8 extremes", [0, 255, 3], [255, 0, 4], [0, 0, 3], "uint8"),
            ("int64 values beyond 2^53", [P53 + 1, -P53 - 1, I64_MIN], [P53, -P53, I64_MAX], [P53, -P53 - 1, I64_MIN], "int64"),
            ("uint64 values above the signed maximum", [2**63, U64_MAX, 1], [1, 2**63, 0], [1, 2**63, 0], "uint64"),
            ("uint32 values above the signed maximum", [2147483648, 4294967295], [2147483647, 0], [2147483647, 0], "uint32"),
            ("int32 extremes", [-2147483648, 2147483647], [0, 0], [-2147483648, 0], "int32"),
            ("float32 Infinity", [INF, NINF, 1.5, -2.0], [1.0, -1.0, NINF, -3.0], [1.0, NINF, NINF, -3.0], "float32"),
            ("float16 extremes and subnormals", [F16_MAX, -F16_MAX, -F16_MIN_SUB], [NINF, 0.0, 0.0], [NINF, -F16_MAX, -F16_MIN_SUB], "float16"),
        ],
        "pow": [
            ("float32 integer exponents", [2.0, 2.0, -2.0, -0.5, 10.0], [3.0, -1.0, 3.0, -2.0, 0.0], [8.0, 0.5, -8.0, 4.0, 1.0], "float32"),
            ("float32 IEEE special cases", [NAN, 1.0, -8.0, 0.0, 0.0, -0.0, 4.0, INF, NINF],
             [0.0, NAN, 0.5, 0.0, -1.0, -1.0, 0.5, -1.0, 3.0], [1.0, 1.0, NAN, 1.0, INF, NINF, 2.0, 0.0, NINF], "float32"),
            ("float16 overflow and square root", [256.0, 2.25, 2.0], [2.0, 0.5, -24.0], [INF, 1.5, F16_MIN_SUB], "float16"),
            ("int32 exact powers", [2, -3, 10, 0, 1, -1], [10, 3, 9, 0, 100, 7], [1024, -27, 1000000000, 1, 1, -1], "int32"),
            ("int8 wraps around on overflow", [2, 3, -2], [7, 5, 7], [-128, -13, -128], "int8"),
            ("uint8 wraps around on overflow", [2, 3, 255], [8, 5, 2], [0, 243, 1], "uint8"),
            ("int64 values beyond 2^53", [3, -3, 2], [39, 39, 62], [4052555153018976267, -4052555153018976267, 2**62], "int64"),
            ("uint64 values above the signed maximum", [2, 2, 4294967295], [63, 64, 2], [2**63, 0, 18446744065119617025], "uint64"),
            ("uint32 values above the signed maximum", [2, 65536], [31, 2], [2147483648, 0], "uint32"),
        ],
    }
    out = []
    for i, (title, a, b, expected, data_type) in enumerate(H[op]):
        out.append(case(f"{op} {title}", op, {"a": tensor(a, [len(a)], data_type), "b": tensor(b, [len(b)], data_type)},
                        expected=expected))
    return out


def binary_extra(op):
    """Hand cases that the table above cannot express: division by zero,
    negative integer exponents, NaN operands (implementation-defined: the
    expected data is omitted and the reference masks those elements)."""
    if op == "div":
        return [case("div int32 by zero and MIN / -1 are implementation-defined, others truncate", op,
                     {"a": tensor([5, -2147483648, 9, -9], [4], "int32"), "b": tensor([0, -1, 4, 4], [4], "int32")}),
                case("div int8 broadcast scalar divisor truncates", op,
                     {"a": tensor([-7, -1, 0, 1, 7, 127], [2, 3], "int8"), "b": tensor([-2], [], "int8")},
                     expected=[3, 0, 0, 0, -3, -63])]
    if op == "pow":
        return [case("pow int32 negative exponents are implementation-defined", op,
                     {"a": tensor([2, 1, 0, 3], [4], "int32"), "b": tensor([-1, -1, -1, 2], [4], "int32")}),
                case("pow float32 broadcast exponent scalar 2 (square)", op,
                     {"a": tensor([-3.0, 0.5, 1.5, -0.25], [2, 2], "float32"), "b": tensor([2.0], [], "float32")},
                     expected=[9.0, 0.25, 2.25, 0.0625])]
    if op in ("max", "min"):
        return [case(f"{op} float32 NaN operands are implementation-defined", op,
                     {"a": tensor([NAN, 1.0, NAN, 2.0], [4], "float32"), "b": tensor([1.0, NAN, NAN, 3.0], [4], "float32")}),
                case(f"{op} int32 broadcast [2,1] with [3]", op,
                     {"a": tensor([0, 5], [2, 1], "int32"), "b": tensor([-1, 3, 7], [3], "int32")},
                     expected=[0, 3, 7, 5, 5, 7] if op == "max" else [-1, 0, 0, -1, 3, 5])]
    if op == "add":
        return [case("add float32 broadcast scalar to 5D", op,
                     {"a": tensor([0.5], [], "float32"), "b": tensor([1.0, -1.0, 2.5, -0.5], [1, 2, 1, 2, 1], "float32")},
                     expected=[1.5, -0.5, 3.0, 0.0])]
    if op == "sub":
        return [case("sub float32 broadcast [2,1] with [2]", op,
                     {"a": tensor([1.0, 2.0], [2, 1], "float32"), "b": tensor([0.5, 4.0], [2], "float32")},
                     expected=[0.5, -3.0, 1.5, -2.0])]
    if op == "mul":
        return [case("mul int32 broadcast 0D by 2D", op,
                     {"a": tensor([-3], [], "int32"), "b": tensor([1, -2, 0, 4], [2, 2], "int32")},
                     expected=[-3, 6, 0, -12])]
    return []


COMPARE_OPS = ("equal", "notEqual", "greater", "greaterOrEqual", "lesser", "lesserOrEqual")
LOGICAL_OPS = COMPARE_OPS + ("logicalNot", "logicalAnd", "logicalOr", "logicalXor", "isNaN", "isInfinite")


def compare_hand(op):
    """Per row: a, b, and the truth of a==b, a>b, a<b per element; the other
    ops follow (notEqual = not equal, greaterOrEqual = greater or equal, ...),
    except that NaN makes every comparison but notEqual false."""
    rows = [
        ("float32 NaN, Infinity and signed zeros", "float32",
         [NAN, NAN, INF, NINF, 0.0, -0.0, 1.0], [NAN, 1.0, INF, INF, -0.0, 0.0, 1.0]),
        ("float16 nearby values, 65504 and subnormals", "float16",
         [1.0, F16_MAX, F16_MIN_SUB, -F16_MIN_SUB], [1.0009765625, F16_MAX, 0.0, 0.0]),
        ("int64 values beyond 2^53", "int64", [P53 + 1, P53, -P53 - 1, I64_MIN], [P53, P53 + 1, -P53, I64_MIN]),
        ("uint64 values above the signed maximum", "uint64", [2**63, U64_MAX, 5], [1, U64_MAX, 2**63]),
        ("uint32 values above the signed maximum", "uint32", [4294967295, 2147483648, 7], [1, 2147483647, 7]),
        ("int8 extremes", "int8", [-128, 127, 0], [127, -128, 0]),
        ("uint8 extremes", "uint8", [255, 0, 128], [0, 255, 128]),
        ("int32 extremes", "int32", [-2147483648, 2147483647, -1], [2147483647, -2147483648, -1]),
    ]
    out = []
    for title, data_type, a, b in rows:
        truth = []
        for x, y in zip(a, b):
            if NAN in (x, y):
                truth.append(1 if op == "notEqual" else 0)
                continue
            fx = float(x.replace("Infinity", "inf")) if isinstance(x, str) else x
            fy = float(y.replace("Infinity", "inf")) if isinstance(y, str) else y
            eq, gt, lt = fx == fy, fx > fy, fx < fy  # Python compares ints exactly
            truth.append(int({"equal": eq, "notEqual": not eq, "greater": gt, "greaterOrEqual": gt or eq,
                              "lesser": lt, "lesserOrEqual": lt or eq}[op]))
        out.append(case(f"{op} {title}", op, {"a": tensor(a, [len(a)], data_type), "b": tensor(b, [len(b)], data_type)},
                        expected=truth))
    bcast = {"equal": [1, 0, 0, 0, 0, 1], "notEqual": [0, 1, 1, 1, 1, 0], "greater": [0, 0, 0, 1, 1, 0],
             "greaterOrEqual": [1, 0, 0, 1, 1, 1], "lesser": [0, 1, 1, 0, 0, 0], "lesserOrEqual": [1, 1, 1, 0, 0, 1]}
    out.append(case(f"{op} int32 broadcast [2,1] with [3]", op,
                    {"a": tensor([1, 3], [2, 1], "int32"), "b": tensor([1, 2, 3], [3], "int32")}, expected=bcast[op]))
    return out


def logical_hand(op):
    if op == "logicalNot":
        return [case("logicalNot uint8 non-zero values are true", op, {"a": tensor([0, 1, 2, 255], [4], "uint8")},
                     expected=[1, 0, 0, 0]),
                case("logicalNot uint8 0D zero", op, {"a": tensor([0], [], "uint8")}, expected=[1]),
                case("logicalNot uint8 5D ones and zeros", op, {"a": tensor([1, 0, 0, 1], [1, 2, 1, 2, 1], "uint8")},
                     expected=[0, 1, 1, 0]),
                case("logicalNot uint8 all 255", op, {"a": tensor([255, 255, 255], [3], "uint8")}, expected=[0, 0, 0]),
                case("logicalNot uint8 constant 3D powers of two", op,
                     {"a": tensor([0, 1, 2, 4, 8, 16, 32, 64, 128, 0, 3, 0], [2, 3, 2], "uint8", constant=True)},
                     expected=[1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1])]
    table = {"logicalAnd": [0, 0, 0, 1, 1, 1], "logicalOr": [0, 1, 1, 1, 1, 1], "logicalXor": [0, 1, 1, 0, 0, 0]}
    bcast = {"logicalAnd": [0, 0, 0, 0, 1, 1], "logicalOr": [0, 1, 1, 1, 1, 1], "logicalXor": [0, 1, 1, 1, 0, 0]}
    return [case(f"{op} uint8 truth table with non-zero values 2, 4, 128, 255", op,
                 {"a": tensor([0, 0, 1, 1, 2, 255], [6], "uint8"), "b": tensor([0, 1, 0, 1, 4, 128], [6], "uint8")},
                 expected=table[op]),
            case(f"{op} uint8 broadcast [2,1] with [3]", op,
                 {"a": tensor([0, 3], [2, 1], "uint8"), "b": tensor([0, 1, 7], [3], "uint8")}, expected=bcast[op])]


def is_special_cases(op):
    nan = op == "isNaN"
    out = [case(f"{op} float32 special values", op,
                {"a": tensor([NAN, INF, NINF, 0.0, -0.0, 1.0, 3.4028234663852886e38, F32_MIN_SUB], [8], "float32")},
                expected=[1, 0, 0, 0, 0, 0, 0, 0] if nan else [0, 1, 1, 0, 0, 0, 0, 0]),
           case(f"{op} float16 special values, 65504 and subnormals", op,
                {"a": tensor([NAN, F16_MAX, -F16_MAX, F16_MIN_SUB, INF, NINF], [2, 3], "float16")},
                expected=[1, 0, 0, 0, 0, 0] if nan else [0, 0, 0, 0, 1, 1]),
           case(f"{op} float32 0D NaN", op, {"a": tensor([NAN], [], "float32")}, expected=[1 if nan else 0]),
           case(f"{op} float32 0D Infinity", op, {"a": tensor([NINF], [], "float32")}, expected=[0 if nan else 1])]
    extremes = {"int32": [-2147483648, 0, 2147483647], "uint32": [0, 2147483648, 4294967295],
                "int64": [I64_MIN, P53 + 1, I64_MAX], "uint64": [0, 2**63, U64_MAX],
                "int8": [-128, 0, 127], "uint8": [0, 128, 255]}
    for data_type, values in extremes.items():
        out.append(case(f"{op} {data_type} is always 0 (integers have no NaN or Infinity)", op,
                        {"a": tensor(values, [3], data_type)}, expected=[0, 0, 0]))
    for rank in range(6):
        out.append(case(f"{op} float32 {rank}D generated", op,
                        {"a": tensor(gen(700 + rank, -1e38, 1e38), RANK_SHAPES[rank], "float32")}))
    out.append(case(f"{op} float16 3D generated", op, {"a": tensor(gen(710, -60000, 60000), [2, 3, 4], "float16")}))
    return out


# (title, data_type, input, expected[, options]) for the unary ops and activations.
UNARY_HAND = {
    "abs": [
        ("float32 signed zero, Infinity and NaN", "float32", [-0.0, NINF, NAN, -2.5, 3.0], [0.0, INF, NAN, 2.5, 3.0]),
        ("float16 extremes and subnormals", "float16", [-F16_MAX, -F16_MIN_SUB, F16_MAX], [F16_MAX, F16_MIN_SUB, F16_MAX]),
        ("int8 minimum wraps to itself", "int8", [-128, -127, 0, 127], [-128, 127, 0, 127]),
        ("int32 minimum wraps to itself", "int32", [-2147483648, -5, 2147483647], [-2147483648, 5, 2147483647]),
        ("int64 values beyond 2^53 and the minimum", "int64", [-P53 - 1, I64_MIN, I64_MAX], [P53 + 1, I64_MIN, I64_MAX]),
    ],
    "neg": [
        ("float32 signed zero, Infinity and NaN", "float32", [0.0, -0.0, INF, NAN, 1.5], [-0.0, 0.0, NINF, NAN, -1.5]),
        ("float16 extremes and subnormals", "float16", [F16_MAX, F16_MIN_SUB], [-F16_MAX, -F16_MIN_SUB]),
        ("int8 minimum wraps to itself", "int8", [-128, 127, 0], [-128, -127, 0]),
        ("int32 minimum wraps to itself", "int32", [-2147483648, 2147483647], [-2147483648, -2147483647]),
        ("int64 values beyond 2^53 and the minimum", "int64", [P53 + 1, I64_MIN, I64_MAX], [-P53 - 1, I64_MIN, -I64_MAX]),
    ],
    "sign": [
        ("float32 zeros, Infinity and subnormals", "float32", [-2.5, 0.0, -0.0, 3.0, INF, NINF, F32_MIN_SUB],
         [-1.0, 0.0, 0.0, 1.0, 1.0, -1.0, 1.0]),
        ("float32 NaN gives 0 (spec: 0 otherwise)", "float32", [NAN], [0.0]),
        ("float16 extremes and subnormals", "float16", [-F16_MAX, F16_MIN_SUB, -F16_MIN_SUB], [-1.0, 1.0, -1.0]),
        ("int8 extremes", "int8", [-128, 0, 127], [-1, 0, 1]),
        ("int64 values beyond 2^53", "int64", [I64_MIN, P53 + 1, 0], [-1, 1, 0]),
        ("int32 extremes", "int32", [-2147483648, 2147483647], [-1, 1]),
    ],
    "ceil": [
        ("float32 halves, signed zero and specials", "float32", [1.5, -1.5, 2.0, -0.5, 0.5, NAN, INF, NINF],
         [2.0, -1.0, 2.0, -0.0, 1.0, NAN, INF, NINF]),
        ("float32 large values", "float32", [4194304.5, -4194304.5, 3.4028234663852886e38], [4194305.0, -4194304.0, 3.4028234663852886e38]),
        ("float16 subnormals and 65504", "float16", [F16_MIN_SUB, -F16_MIN_SUB, F16_MAX, 1000.5], [1.0, -0.0, F16_MAX, 1001.0]),
    ],
    "floor": [
        ("float32 halves, signed zero and specials", "float32", [1.5, -1.5, 2.0, -0.5, 0.5, NAN, INF, NINF],
         [1.0, -2.0, 2.0, -1.0, 0.0, NAN, INF, NINF]),
        ("float32 large values", "float32", [4194304.5, -4194304.5, -3.4028234663852886e38], [4194304.0, -4194305.0, -3.4028234663852886e38]),
        ("float16 subnormals and 65504", "float16", [F16_MIN_SUB, -F16_MIN_SUB, -F16_MAX, 1000.5], [0.0, -1.0, -F16_MAX, 1000.0]),
    ],
    "roundEven": [
        ("float32 the spec's example", "float32", [0.1, 0.9, 1.1, 1.9, -3.5, -2.5, -1.5, 1.5, 2.5, 3.5],
         [0.0, 1.0, 1.0, 2.0, -4.0, -2.0, -2.0, 2.0, 2.0, 4.0]),
        ("float32 halves near zero and specials", "float32", [-0.5, 0.5, NAN, INF, NINF, 4194304.5, 4194305.5],
         [-0.0, 0.0, NAN, INF, NINF, 4194304.0, 4194306.0]),
        ("float16 halves and subnormals", "float16", [1000.5, 1001.5, F16_MIN_SUB, F16_MAX], [1000.0, 1002.0, 0.0, F16_MAX]),
    ],
    "cos": [
        ("float32 zeros and specials", "float32", [0.0, -0.0, INF, NINF, NAN], [1.0, 1.0, NAN, NAN, NAN]),
        ("float16 zero and subnormal", "float16", [0.0, F16_MIN_SUB], [1.0, 1.0]),
    ],
    "sin": [
        ("float32 zeros and specials", "float32", [0.0, -0.0, INF, NINF, NAN], [0.0, -0.0, NAN, NAN, NAN]),
        ("float16 subnormal", "float16", [F16_MIN_SUB, -F16_MIN_SUB], [F16_MIN_SUB, -F16_MIN_SUB]),
    ],
    "tan": [
        ("float32 zeros and specials", "float32", [0.0, -0.0, INF, NINF, NAN], [0.0, -0.0, NAN, NAN, NAN]),
        ("float16 subnormal", "float16", [F16_MIN_SUB], [F16_MIN_SUB]),
    ],
    "erf": [
        ("float32 zeros, saturation and specials", "float32", [0.0, -0.0, INF, NINF, NAN, 10.0, -10.0],
         [0.0, -0.0, 1.0, -1.0, NAN, 1.0, -1.0]),
        ("float16 saturation", "float16", [F16_MAX, -F16_MAX, 0.0], [1.0, -1.0, 0.0]),
    ],
    "exp": [
        ("float32 zeros, overflow, underflow and specials", "float32", [0.0, -0.0, INF, NINF, NAN, 89.0, -110.0],
         [1.0, 1.0, INF, 0.0, NAN, INF, 0.0]),
        ("float16 overflow and underflow", "float16", [0.0, 11.1015625, -18.0], [1.0, INF, 0.0]),
    ],
    "log": [
        ("float32 zeros, negatives and specials", "float32", [1.0, 0.0, -0.0, -1.0, INF, NINF, NAN],
         [0.0, NINF, NINF, NAN, INF, NAN, NAN]),
        ("float16 one and zero", "float16", [1.0, 0.0], [0.0, NINF]),
    ],
    "reciprocal": [
        ("float32 zeros, Infinity and NaN", "float32", [2.0, -4.0, 0.0, -0.0, INF, NINF, NAN, 0.5],
         [0.5, -0.25, INF, NINF, 0.0, -0.0, NAN, 2.0]),
        ("float16 overflow from a subnormal and a subnormal result", "float16", [F16_MIN_SUB, F16_MAX, 0.25],
         [INF, 2.0**-16, 4.0]),
    ],
    "sqrt": [
        ("float32 squares, zeros, negatives and specials", "float32", [4.0, 2.25, 0.0, -0.0, -1.0, INF, NINF, NAN],
         [2.0, 1.5, 0.0, -0.0, NAN, INF, NAN, NAN]),
        ("float16 subnormal and square", "float16", [F16_MIN_SUB, 16384.0], [2.0**-12, 128.0]),
    ],
    "identity": [
        ("float32 specials and signed zero", "float32", [NAN, -0.0, INF, NINF, 3.4028234663852886e38, F32_MIN_SUB],
         [NAN, -0.0, INF, NINF, 3.4028234663852886e38, F32_MIN_SUB]),
        ("float16 65504 and subnormals", "float16", [F16_MAX, F16_MIN_SUB, -F16_MIN_SUB, NAN], [F16_MAX, F16_MIN_SUB, -F16_MIN_SUB, NAN]),
        ("int64 extremes and values beyond 2^53", "int64", [I64_MIN, I64_MAX, P53 + 1], [I64_MIN, I64_MAX, P53 + 1]),
        ("uint64 values above the signed maximum", "uint64", [U64_MAX, 2**63, 0], [U64_MAX, 2**63, 0]),
        ("uint32 values above the signed maximum", "uint32", [4294967295, 2147483648], [4294967295, 2147483648]),
        ("int8 extremes", "int8", [-128, 127], [-128, 127]),
        ("uint8 extremes", "uint8", [0, 255], [0, 255]),
        ("int32 extremes", "int32", [-2147483648, 2147483647], [-2147483648, 2147483647]),
    ],
    "relu": [
        ("float32 signed zero and specials", "float32", [-1.0, 0.0, -0.0, 2.5, INF, NINF], [0.0, 0.0, 0.0, 2.5, INF, 0.0]),
        ("float32 NaN is implementation-defined", "float32", [NAN, 1.0], None),
        ("float16 extremes", "float16", [-F16_MAX, F16_MAX, -F16_MIN_SUB], [0.0, F16_MAX, 0.0]),
        ("int8 extremes", "int8", [-128, 127, 0], [0, 127, 0]),
        ("int64 values beyond 2^53", "int64", [I64_MIN, P53 + 1], [0, P53 + 1]),
        ("int32 extremes", "int32", [-2147483648, 2147483647], [0, 2147483647]),
    ],
    "elu": [
        ("float32 default alpha", "float32", [0.0, 1.0, -1.0, INF, NINF, NAN], [0.0, 1.0, -0.6321205588285577, INF, -1.0, NAN]),
        ("float32 alpha 2", "float32", [NINF, 3.0, -0.0], [-2.0, 3.0, 0.0], {"alpha": 2.0}),
        ("float32 alpha 0", "float32", [-5.0, 5.0], [0.0, 5.0], {"alpha": 0.0}),
        ("float16 default alpha", "float16", [NINF, F16_MAX, 0.0], [-1.0, F16_MAX, 0.0]),
    ],
    "gelu": [
        ("float32 values of the normal CDF", "float32", [0.0, 1.0, -1.0, 3.0, INF],
         [0.0, 0.8413447460685429, -0.15865525393145707, 2.99595030590511, INF]),
        ("float32 tiny result for -10", "float32", [-10.0], [-7.6198530241605e-23]),
        ("float16 large values", "float16", [F16_MAX, 10.0], [F16_MAX, 10.0]),
    ],
    "hardSigmoid": [
        ("float32 default alpha and beta", "float32", [-3.0, -2.5, 0.0, 2.5, 1.0, INF, NINF], [0.0, 0.0, 0.5, 1.0, 0.7, 1.0, 0.0]),
        ("float32 alpha 1 beta 0", "float32", [-0.5, 0.25, 2.0], [0.0, 0.25, 1.0], {"alpha": 1.0, "beta": 0.0}),
        ("float32 negative alpha", "float32", [1.0, -1.0], [0.0, 1.0], {"alpha": -2.0, "beta": 0.5}),
        ("float16 default alpha and beta", "float16", [0.0, 5.0, -5.0], [0.5, 1.0, 0.0]),
    ],
    "hardSwish": [
        ("float32 the three pieces", "float32", [-4.0, -3.0, -1.5, 0.0, 1.5, 3.0, 4.0, INF],
         [-0.0, -0.0, -0.375, 0.0, 1.125, 3.0, 4.0, INF]),
        ("float16 the three pieces", "float16", [-4.0, 1.5, 6.0], [-0.0, 1.125, 6.0]),
    ],
    "leakyRelu": [
        ("float32 default alpha", "float32", [-100.0, 0.0, 5.0, INF, NINF], [-1.0, 0.0, 5.0, INF, NINF]),
        ("float32 alpha 0.5", "float32", [-2.0, 3.0], [-1.0, 3.0], {"alpha": 0.5}),
        ("float32 alpha -1 gives the absolute value", "float32", [-3.0, 3.0], [3.0, 3.0], {"alpha": -1.0}),
        ("float16 alpha 0.25", "float16", [-4.0, F16_MAX], [-1.0, F16_MAX], {"alpha": 0.25}),
    ],
    "linear": [
        ("float32 default alpha and beta is identity", "float32", [1.5, -2.0, INF, NAN], [1.5, -2.0, INF, NAN]),
        ("float32 alpha 2 beta 3", "float32", [1.0, -1.5, 0.0], [5.0, 0.0, 3.0], {"alpha": 2.0, "beta": 3.0}),
        ("float32 alpha 0 beta 1", "float32", [5.0, -7.0], [1.0, 1.0], {"alpha": 0.0, "beta": 1.0}),
        ("float16 overflow", "float16", [F16_MAX, 1.0], [INF, 2.0], {"alpha": 2.0, "beta": 0.0}),
    ],
    "sigmoid": [
        ("float32 zero, saturation and specials", "float32", [0.0, INF, NINF, NAN, 100.0], [0.5, 1.0, 0.0, NAN, 1.0]),
        ("float16 zero and saturation", "float16", [0.0, 20.0, -20.0], [0.5, 1.0, 0.0]),  # sigmoid(-20) = 2.06e-9 < half the smallest subnormal
    ],
    "softplus": [
        ("float32 zero, large values and specials", "float32", [0.0, INF, NINF, 100.0, NAN], [0.6931471805599453, INF, 0.0, 100.0, NAN]),
        ("float16 zero and large value", "float16", [0.0, 1000.0], [0.6931471805599453, 1000.0]),
    ],
    "softsign": [
        ("float32 hand values", "float32", [0.0, 1.0, -3.0, 1e30, NAN], [0.0, 0.5, -0.75, 1.0, NAN]),
        ("float16 hand values", "float16", [3.0, -1.0, F16_MAX], [0.75, -0.5, 1.0]),  # 65504/65505 rounds up to 1 in float16
    ],
    "tanh": [
        ("float32 zeros, saturation and specials", "float32", [0.0, -0.0, INF, NINF, 20.0, NAN], [0.0, -0.0, 1.0, -1.0, 1.0, NAN]),
        ("float16 saturation", "float16", [10.0, -10.0, 0.0], [1.0, -1.0, 0.0]),
    ],
}


def unary_hand(op):
    out = []
    for row in UNARY_HAND.get(op, []):
        title, data_type, values, expected = row[:4]
        options = row[4] if len(row) > 4 else None
        out.append(case(f"{op} {title}", op, {"input": tensor(values, [len(values)], data_type)},
                        options=options, expected=expected))
    return out


def cast_cases():
    """Every (input, target) pair on values valid for both, then the spec's
    cast table row by row on hand values."""
    out = []
    safe = {"float32": (-100.0, 100.0), "float16": (-100.0, 100.0), "int32": (-100, 100), "uint32": (0, 200),
            "int64": (-100, 100), "uint64": (0, 200), "int8": (-100, 100), "uint8": (0, 200)}
    seed = 400
    for src in FLOATS + INTS:
        for dst in FLOATS + INTS:
            seed += 1
            lo, hi = safe[src]
            if dst.startswith("u"):
                lo = 0
            if dst in ("int8",):
                lo, hi = max(lo, -100), min(hi, 100)
            rank = seed % 6
            data = gen(seed, lo, hi) if src in FLOATS else ints(seed, lo, hi)
            out.append(case(f"cast {src} to {dst} {rank}D generated", "cast",
                            {"input": tensor(data, RANK_SHAPES[rank], src, constant=rank == 1)}, attrs={"dataType": dst}))
    hand = [
        ("float32 to int32 truncates toward zero", "float32", "int32",
         [2.7, -2.7, 0.5, -0.5, 2147483520.0, -2147483648.0], [2, -2, 0, 0, 2147483520, -2147483648]),
        ("float32 to uint8 truncates", "float32", "uint8", [0.0, 255.9, 1.5, 100.99, -0.9], [0, 255, 1, 100, 0]),
        ("float32 to int64 beyond 2^53", "float32", "int64", [9007199254740992.0, 1e18, -9.223372036854775808e18],
         [P53, 999999984306749440, I64_MIN]),
        ("float32 to uint64 above the signed maximum", "float32", "uint64", [18446742974197923840.0, 9.223372036854775808e18],
         [18446742974197923840, 2**63]),
        ("float16 to int8 truncates", "float16", "int8", [127.5, -128.5, -1.75, F16_MIN_SUB], [127, -128, -1, 0]),
        ("float16 to float32 is exact", "float16", "float32", [F16_MAX, F16_MIN_SUB, -0.0, INF, NAN], [F16_MAX, F16_MIN_SUB, -0.0, INF, NAN]),
        ("float32 to float16 rounds to nearest even and overflows", "float32", "float16",
         [F16_MAX, 65519.9921875, 65520.0, 1e-8, 3e-8, 1.0009765625, 1.00048828125, NINF],
         [F16_MAX, F16_MAX, INF, 0.0, F16_MIN_SUB, 1.0009765625, 1.0, NINF]),
        ("int32 to float16 rounds to nearest even and overflows", "int32", "float16", [70000, -70000, 2049, 2051],
         [INF, NINF, 2048.0, 2052.0]),
        ("int32 to float32 rounds to nearest even", "int32", "float32", [16777217, 16777219, 2147483647],
         [16777216.0, 16777220.0, 2147483648.0]),
        ("int64 to float32 beyond 2^53 rounds once", "int64", "float32", [P53 + 1, I64_MAX, I64_MIN, P53 + 2**29 + 1],
         [float(P53), 2.0**63, -(2.0**63), 9007200328482816.0]),
        ("uint64 to float32 above the signed maximum", "uint64", "float32", [U64_MAX, 2**63], [2.0**64, 2.0**63]),
        ("uint64 to float16 overflows to Infinity", "uint64", "float16", [65504, 65519, 65520, U64_MAX], [F16_MAX, F16_MAX, INF, INF]),
        ("int8 -1 to uint8 is 255 (spec example)", "int8", "uint8", [-1, -128, 127], [255, 128, 127]),
        ("int32 to uint8 keeps the low 8 bits", "int32", "uint8", [300, -1, 256, -256], [44, 255, 0, 0]),
        ("int32 to int8 keeps the low 8 bits", "int32", "int8", [-129, 128, 255, 2147483647], [127, -128, -1, -1]),
        ("int32 to uint32 keeps the bits", "int32", "uint32", [-1, -2147483648], [4294967295, 2147483648]),
        ("uint32 above the signed maximum to int32", "uint32", "int32", [4294967295, 2147483648], [-1, -2147483648]),
        ("int64 to int32 keeps the low 32 bits", "int64", "int32", [2**32 + 5, P53 + 1, -(2**31) - 1], [5, 1, 2147483647]),
        ("int64 to uint64 keeps the bits", "int64", "uint64", [-1, I64_MIN, P53 + 1], [U64_MAX, 2**63, P53 + 1]),
        ("uint64 above the signed maximum to int64", "uint64", "int64", [U64_MAX, 2**63], [-1, I64_MIN]),
        ("uint8 to int8 keeps the bits", "uint8", "int8", [200, 128, 127], [-56, -128, 127]),
        ("uint8 to int64 is exact", "uint8", "int64", [255, 0], [255, 0]),
        ("int8 to float16 is exact", "int8", "float16", [-128, 127], [-128.0, 127.0]),
    ]
    for title, src, dst, values, expected in hand:
        out.append(case(f"cast {title}", "cast", {"input": tensor(values, [len(values)], src)},
                        attrs={"dataType": dst}, expected=expected))
    # Out of range, Infinity and NaN to an integer type: implementation-defined
    # (spec table); expected data omitted, in-range neighbours still compared.
    for dst, values in (("int8", [127.9, -128.9, 200.0, -200.0, NAN, INF, 5.5]),
                        ("uint8", [-1.0, 256.0, NINF, 255.5, 3.0]),
                        ("int32", [2147483648.0, -2147483904.0, NAN, -7.9]),
                        ("uint32", [-1.0, 4294967296.0, 4294967040.0]),
                        ("int64", [9.223372036854775808e18, NINF, -1e18]),
                        ("uint64", [-1.0, 1.8446744073709552e19, 12.25])):
        out.append(case(f"cast float32 out-of-range values to {dst} are implementation-defined", "cast",
                        {"input": tensor(values, [len(values)], "float32")}, attrs={"dataType": dst}))
    out.append(case("cast float16 Infinity and NaN to int32 are implementation-defined", "cast",
                    {"input": tensor([INF, NAN, -3.5], [3], "float16")}, attrs={"dataType": "int32"}))
    return out


def clamp_cases():
    out = []
    hand = [
        ("float32 minValue and maxValue", "float32", [-3.0, -1.0, 0.5, 2.0, 7.0], {"minValue": -1.0, "maxValue": 2.0},
         [-1.0, -1.0, 0.5, 2.0, 2.0]),
        ("float32 default options keep Infinity", "float32", [NINF, INF, -0.0, 3.4028234663852886e38], None,
         [NINF, INF, -0.0, 3.4028234663852886e38]),
        ("float32 minValue equals maxValue", "float32", [-1.0, 0.5, 9.0], {"minValue": 0.5, "maxValue": 0.5}, [0.5, 0.5, 0.5]),
        ("float32 NaN minValue clamps nothing below", "float32", [NINF, -2.0, 3.0], {"minValue": NAN, "maxValue": 1.0},
         [NINF, -2.0, 1.0]),
        ("float32 only maxValue", "float32", [NINF, -2.0, 3.0], {"maxValue": 0.0}, [NINF, -2.0, 0.0]),
        ("float32 only minValue", "float32", [NINF, -2.0, 3.0], {"minValue": 0.0}, [0.0, 0.0, 3.0]),
        ("float16 bounds are cast to float16", "float16", [0.0, 1.0, INF, NINF], {"minValue": 0.1, "maxValue": 65519.0},
         [0.0999755859375, 1.0, F16_MAX, 0.0999755859375]),
        ("int8 bounds outside the type's range are clamped to it", "int8", [-128, 0, 127], {"minValue": -1000, "maxValue": 1000},
         [-128, 0, 127]),
        ("int32 fractional bounds round half to even", "int32", [-5, -2, 0, 2, 5], {"minValue": -2.5, "maxValue": 2.5},
         [-2, -2, 0, 2, 2]),
        ("uint8 negative bounds become 0", "uint8", [0, 5, 255], {"minValue": -5, "maxValue": -3}, [0, 0, 0]),
        ("uint8 default options keep extremes", "uint8", [0, 255], None, [0, 255]),
        ("uint32 bounds above the signed maximum", "uint32", [4294967295, 0, 3000000000],
         {"minValue": 2147483648, "maxValue": 4294967294}, [4294967294, 2147483648, 3000000000]),
        ("int64 bigint bounds beyond 2^53", "int64", [P53 + 3, -P53 - 3, 0],
         {"minValue": {"bigint": str(-P53 - 1)}, "maxValue": {"bigint": str(P53 + 1)}}, [P53 + 1, -P53 - 1, 0]),
        ("int64 default options keep extremes", "int64", [I64_MIN, I64_MAX], None, [I64_MIN, I64_MAX]),
        ("uint64 bigint bounds above the signed maximum", "uint64", [U64_MAX, 2**63, 0],
         {"minValue": 1, "maxValue": {"bigint": str(2**63 + 1)}}, [2**63 + 1, 2**63, 1]),
        ("uint64 default options keep extremes", "uint64", [0, U64_MAX], None, [0, U64_MAX]),
    ]
    for title, data_type, values, options, expected in hand:
        out.append(case(f"clamp {title}", "clamp", {"input": tensor(values, [len(values)], data_type)},
                        options=options, expected=expected))
    out.append(case("clamp float32 NaN input is implementation-defined", "clamp",
                    {"input": tensor([NAN, -5.0, 5.0], [3], "float32")}, options={"minValue": -1.0, "maxValue": 1.0}))
    for rank in range(6):
        out.append(case(f"clamp float32 {rank}D generated minValue -0.5 maxValue 0.5", "clamp",
                        {"input": tensor(gen(500 + rank), RANK_SHAPES[rank], "float32")},
                        options={"minValue": -0.5, "maxValue": 0.5}))
    out.append(case("clamp float16 4D generated minValue 0 (relu6 style maxValue 6)", "clamp",
                    {"input": tensor(gen(510, -10, 10), RANK_SHAPES[4], "float16")}, options={"minValue": 0, "maxValue": 6}))
    for i, data_type in enumerate(INTS):
        out.append(case(f"clamp {data_type} 2D generated minValue 10 maxValue 50", "clamp",
                        {"input": tensor(ints(520 + i, 0, 100), [3, 4], data_type)}, options={"minValue": 10, "maxValue": 50}))
    return out


def prelu_cases():
    out = [
        case("prelu float32 slope [1] broadcast to [5]", "prelu",
             {"input": tensor([-2.0, -1.0, 0.0, 1.0, 2.0], [5], "float32"), "slope": tensor([0.5], [1], "float32")},
             expected=[-1.0, -0.5, 0.0, 1.0, 2.0]),
        case("prelu int8 wraps around on overflow", "prelu",
             {"input": tensor([-100, -2, 3], [3], "int8"), "slope": tensor([2, -3, 4], [3], "int8")}, expected=[56, 6, 3]),
        case("prelu int64 values beyond 2^53", "prelu",
             {"input": tensor([-3002399751580331, 5], [2], "int64"), "slope": tensor([3], [], "int64")},
             expected=[-P53 - 1, 5]),
        case("prelu int32 0D", "prelu", {"input": tensor([-7], [], "int32"), "slope": tensor([3], [], "int32")}, expected=[-21]),
        case("prelu float32 input [2,1] and slope [3] broadcast both ways", "prelu",
             {"input": tensor([-1.0, 2.0], [2, 1], "float32"), "slope": tensor([1.0, 2.0, 3.0], [3], "float32")},
             expected=[-1.0, -2.0, -3.0, 2.0, 2.0, 2.0]),
        case("prelu float32 slope of higher rank than input", "prelu",
             {"input": tensor([-1.0, 0.0, 1.0], [3], "float32"),
              "slope": tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3], "float32")},
             expected=[-1.0, 0.0, 1.0, -4.0, 0.0, 1.0]),
        case("prelu float32 Infinity and NaN", "prelu",
             {"input": tensor([NINF, INF, NAN, -0.0], [4], "float32"), "slope": tensor([0.25], [], "float32")},
             expected=[NINF, INF, NAN, 0.0]),
        case("prelu float16 overflow", "prelu",
             {"input": tensor([-F16_MAX, -1.0], [2], "float16"), "slope": tensor([2.0], [1], "float16")},
             expected=[NINF, -2.0]),
    ]
    slopes = ([], [3], [2, 1, 3], [1, 1, 2, 1, 3])
    for rank in range(6):
        shape = RANK_SHAPES[rank]
        slope = [] if rank == 0 else slopes[min(rank, 3)] if rank >= 3 else [shape[-1]]
        out.append(case(f"prelu float32 {rank}D generated slope {slope}", "prelu",
                        {"input": tensor(gen(600 + rank), shape, "float32"),
                         "slope": tensor(gen(650 + rank, 0, 1), slope, "float32", constant=True)}))
    out.append(case("prelu float16 4D generated slope [3]", "prelu",
                    {"input": tensor(gen(610), RANK_SHAPES[4], "float16"), "slope": tensor(gen(660, 0, 1), [3], "float16")}))
    for i, data_type in enumerate(("int32", "int64", "int8")):
        out.append(case(f"prelu {data_type} 3D generated slope [1,4]", "prelu",
                        {"input": tensor(ints(620 + i, -20, 20), [2, 3, 4], data_type),
                         "slope": tensor(ints(670 + i, -3, 3), [1, 4], data_type)}))
    return out


def where_cases():
    out = [
        case("where int8 non-zero conditions select trueValue", "where",
             {"condition": tensor([0, 1, 2, 255], [4], "uint8"), "trueValue": tensor([1, 2, 3, 4], [4], "int8"),
              "falseValue": tensor([-1, -2, -3, -4], [4], "int8")}, expected=[-1, 2, 3, 4]),
        case("where float32 broadcast condition [2,1], trueValue [3], falseValue 0D", "where",
             {"condition": tensor([1, 0], [2, 1], "uint8"), "trueValue": tensor([1.0, 2.0, 3.0], [3], "float32"),
              "falseValue": tensor([0.0], [], "float32")}, expected=[1.0, 2.0, 3.0, 0.0, 0.0, 0.0]),
        case("where int64 values beyond 2^53", "where",
             {"condition": tensor([1, 0], [2], "uint8"), "trueValue": tensor([P53 + 1], [1], "int64"),
              "falseValue": tensor([I64_MIN], [1], "int64")}, expected=[P53 + 1, I64_MIN]),
        case("where uint64 values above the signed maximum", "where",
             {"condition": tensor([0, 1], [2], "uint8"), "trueValue": tensor([U64_MAX, U64_MAX], [2], "uint64"),
              "falseValue": tensor([2**63, 2**63], [2], "uint64")}, expected=[2**63, U64_MAX]),
        case("where float32 keeps NaN, signed zero and Infinity", "where",
             {"condition": tensor([1, 1, 0], [3], "uint8"), "trueValue": tensor([NAN, -0.0, 1.0], [3], "float32"),
              "falseValue": tensor([0.0, 0.0, INF], [3], "float32")}, expected=[NAN, -0.0, INF]),
        case("where float16 65504 and subnormals", "where",
             {"condition": tensor([1, 0], [2], "uint8"), "trueValue": tensor([F16_MAX, 1.0], [2], "float16"),
              "falseValue": tensor([0.0, F16_MIN_SUB], [2], "float16")}, expected=[F16_MAX, F16_MIN_SUB]),
        case("where condition of higher rank than the values", "where",
             {"condition": tensor([1, 0, 0, 1], [2, 1, 2], "uint8"), "trueValue": tensor([5], [], "int32"),
              "falseValue": tensor([7], [1], "int32")}, expected=[5, 7, 7, 5]),
    ]
    for rank in range(6):
        shape = RANK_SHAPES[rank]
        out.append(case(f"where float32 {rank}D generated", "where",
                        {"condition": tensor(ints(800 + rank, 0, 2), shape, "uint8"),
                         "trueValue": tensor(gen(820 + rank), shape, "float32"),
                         "falseValue": tensor(gen(840 + rank), shape, "float32", constant=rank == 4)}))
    for i, data_type in enumerate(("float16",) + INTS):
        data = (lambda s: gen(s)) if data_type == "float16" else (lambda s: ints(s, 0, 100))
        out.append(case(f"where {data_type} broadcast generated", "where",
                        {"condition": tensor(ints(860 + i, 0, 1), [2, 1, 4], "uint8"),
                         "trueValue": tensor(data(870 + i), [3, 1], data_type),
                         "falseValue": tensor(data(880 + i), [4], data_type)}))
    return out


UNARY_FLOAT = ("ceil", "cos", "erf", "exp", "floor", "log", "reciprocal", "roundEven", "sin", "sqrt", "tan",
               "gelu", "hardSwish", "sigmoid", "softplus", "softsign", "tanh")
OPTIONS_SWEEP = {
    "elu": ({"alpha": 1.0}, {"alpha": 0.5}, {"alpha": 3.0}),
    "hardSigmoid": ({"alpha": 0.2, "beta": 0.5}, {"alpha": 0.5, "beta": 0.0}, {"alpha": -0.3, "beta": 0.8}),
    "leakyRelu": ({"alpha": 0.01}, {"alpha": 0.2}, {"alpha": 1.5}),
    "linear": ({"alpha": 1.0, "beta": 0.0}, {"alpha": -0.5, "beta": 2.0}, {"alpha": 1e-3, "beta": -1e3}),
}


def option_range(op: str, options: dict) -> tuple[float, float]:
    """Generated inputs for an option sweep. hardSigmoid's alpha * x + beta
    is kept in [0.1, 1.3]: just above 0 it is a cancellation whose two float
    roundings (no fused multiply-add) exceed WPT's 2 ULP in any backend;
    below 0 and above 1 it clamps, which the hand cases cover."""
    if op != "hardSigmoid":
        return -5, 5
    alpha, beta = options["alpha"], options["beta"]
    ends = sorted(((0.1 - beta) / alpha, (1.3 - beta) / alpha))
    return round(ends[0], 4), round(ends[1], 4)


def all_cases() -> dict[str, list[dict]]:
    ops: dict[str, list[dict]] = {}
    for i, op in enumerate(("add", "sub", "mul", "div", "max", "min", "pow")):
        ops[op] = binary_hand(op) + binary_extra(op) + sweep_binary(op, 1000 + 100 * i)
    for i, op in enumerate(COMPARE_OPS):
        ops[op] = compare_hand(op) + sweep_compare(op, 2000 + 100 * i)
    for i, op in enumerate(("logicalNot", "logicalAnd", "logicalOr", "logicalXor")):
        ops[op] = logical_hand(op) + sweep_logical(op, 3000 + 100 * i)
    for op in ("isNaN", "isInfinite"):
        ops[op] = is_special_cases(op)
    for i, op in enumerate(UNARY_FLOAT + ("abs", "neg", "sign", "identity", "relu")):
        ops[op] = unary_hand(op) + sweep_unary(op, 4000 + 100 * i)
    for i, (op, sweep) in enumerate(OPTIONS_SWEEP.items()):
        ops[op] = unary_hand(op) + sweep_unary(op, 6000 + 100 * i, float_ranks=range(6))
        for j, options in enumerate(sweep):
            for data_type in FLOATS:
                name = " ".join(f"{k} {v}" for k, v in options.items())
                low, high = option_range(op, options)
                ops[op].append(case(f"{op} {data_type} {name} generated", op,
                                    {"input": tensor(gen(6050 + 100 * i + 10 * j + len(data_type), low, high), [2, 3, 4], data_type)},
                                    options=options))
    ops["cast"] = cast_cases() + cast_rounding_cases()
    ops["clamp"] = clamp_cases()
    ops["prelu"] = prelu_cases()
    ops["where"] = where_cases()
    return ops


# float32 -> float16 rounding at its boundaries, (input, the float16 value):
# ties to even among normal values, subnormals and the signed underflow to
# -0, the overflow threshold (65519 rounds down to 65504, 65520 up to
# Infinity), and the special values.
CAST_ROUNDING_VECTORS = {
    "normal values and ties to even": (
        [1.0003, -1.0003, 1.0007, -1.0007, 1.00048828125, -1.00048828125, 1.00146484375, -1.00146484375,
         2049.0, -2049.0, 2051.0, -2051.0, 3.14159, -2.71828],
        [1.0, -1.0, 1.0009765625, -1.0009765625, 1.0, -1.0, 1.001953125, -1.001953125,
         2048.0, -2048.0, 2052.0, -2052.0, 3.140625, -2.71875]),
    "subnormal values and signed underflow": (
        [F16_MIN_SUB, -F16_MIN_SUB, 2.0**-25, -(2.0**-25), 3 * 2.0**-25, -3 * 2.0**-25, 5 * 2.0**-25, -5 * 2.0**-25,
         1023 * 2.0**-24, -1023 * 2.0**-24, 2047 * 2.0**-25, -2047 * 2.0**-25, 1e-8, -1e-8, 0.0, -0.0],
        [F16_MIN_SUB, -F16_MIN_SUB, 0.0, -0.0, 2.0**-23, -(2.0**-23), 2.0**-23, -(2.0**-23),
         1023 * 2.0**-24, -1023 * 2.0**-24, F16_MIN_NORMAL, -F16_MIN_NORMAL, 0.0, -0.0, 0.0, -0.0]),
    "overflow and special values": (
        [F16_MAX, -F16_MAX, 65519.0, -65519.0, 65520.0, -65520.0, 65536.0, -65536.0, INF, NINF, NAN],
        [F16_MAX, -F16_MAX, F16_MAX, -F16_MAX, INF, NINF, INF, NINF, INF, NINF, NAN]),
}


def _cast_chain(name, values, expected, constant, outputs):
    """float32 -> float16 -> float32 (-> float16 -> float32 where ``outputs``
    names four), each named output expected to hold the float16 values."""
    types = ("float16", "float32") * (len(outputs) // 2)
    shape = [len(values)]
    operators, previous = [], "input"
    for output, data_type in zip(outputs, types):
        operators.append({"name": "cast", "arguments": [{"input": previous}, {"dataType": data_type}], "outputs": output})
        previous = output
    return {"name": name, "graph": {
        "inputs": {"input": tensor(values, shape, "float32", constant=constant)},
        "operators": operators,
        "expectedOutputs": {o: {"data": [num(v) for v in expected], "descriptor": {"shape": shape, "dataType": t}}
                            for o, t in zip(outputs, types)},
    }}


def cast_rounding_cases():
    """WPT's cast_rounding.https.any.js, in our own values: a narrowing cast
    and its widening back must keep the float16 rounding (a backend folding
    the pair into nothing fails), with the intermediate an output or not, on
    an input or a constant, and a chain of four casts with every
    intermediate an output."""
    out = []
    for vector, (values, expected) in CAST_ROUNDING_VECTORS.items():
        for constant in (False, True):
            for both in (False, True):
                outputs = ("narrowed", "widened")
                case_ = _cast_chain(f"cast float32 to float16 to float32 {vector} {'constant' if constant else 'input'}"
                                    f" {'with both outputs' if both else 'widened only'}", values, expected, constant, outputs)
                if not both:
                    del case_["graph"]["expectedOutputs"]["narrowed"]
                out.append(case_)
    every = [v for values, _ in CAST_ROUNDING_VECTORS.values() for v in values]
    rounded = [v for _, expected in CAST_ROUNDING_VECTORS.values() for v in expected]
    out.append(_cast_chain("four successive casts keep each float16 rounding, every intermediate an output", every, rounded,
                           False, ("firstNarrowed", "firstWidened", "secondNarrowed", "secondWidened")))
    return out


def file_name(op: str) -> str:
    """WPT's file names: camelCase to snake_case (greaterOrEqual -> greater_or_equal)."""
    if op == "isNaN":
        return "is_nan.json"
    return re.sub(r"(?<!^)([A-Z])", r"_\1", op).lower() + ".json"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    total = 0
    for op, cases in all_cases().items():
        names = [c["name"] for c in cases]
        duplicates = {n for n in names if names.count(n) > 1}
        assert not duplicates, f"{op}: duplicate case names {duplicates}"
        (OUT / file_name(op)).write_text(json.dumps({"tests": cases}, indent=1) + "\n")
        total += len(cases)
        print(f"{op:16} {len(cases):4}")
    print(f"total {total}")


if __name__ == "__main__":
    main()
