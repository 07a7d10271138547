"""Generate cases/reduction/*.json: the ten reduce* ops, argMin/argMax,
cumulativeSum, softmax.

Run: /work/venv/bin/python tools/cases/reduction.py

Small cases carry literal expected values worked out from the spec's
definition with plain Python arithmetic (``math``/int, never numpy or the
reference); larger ones use seeded generated inputs and omit expected, so the
reference computes them. Integer overflow is avoided on purpose: the spec does
not define it, so the corpus does not test it.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "cases"
INF, NINF, NAN = "Infinity", "-Infinity", "NaN"


# --- case-building helpers (shared by tools/cases/linalg.py, normalization.py)

def tensor(data, shape, data_type, constant=False) -> dict:
    t = {"data": data, "descriptor": {"shape": list(shape), "dataType": data_type}}
    if constant:
        t["constant"] = True
    return t


def gen(seed, distribution="uniform", **params) -> dict:
    return {"generate": {"distribution": distribution, **params, "seed": seed}}


def big(value: int):
    """A JSON integer, or {"bigint": ...} beyond 2^53."""
    return value if abs(value) <= 2**53 else {"bigint": str(value)}


def op(name, args, outputs="output") -> dict:
    return {"name": name, "arguments": args, "outputs": outputs}


def case(name, inputs, operators, expected=None, tolerance=None) -> dict:
    graph = {"inputs": inputs, "operators": operators if isinstance(operators, list) else [operators]}
    if expected is not None:
        graph["expectedOutputs"] = expected
    c = {"name": name, "graph": graph}
    if tolerance:
        c["tolerance"] = tolerance
    return c


def write(family: str, file_stem: str, cases: list[dict]) -> None:
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), f"duplicate names in {file_stem}"
    folder = ROOT / family
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{file_stem}.json").write_text(json.dumps({"tests": cases}, indent=1) + "\n")


def random_data(data_type: str, seed: int, positive=False, limit=5) -> dict:
    """Generated data suited to the type (integers kept within +-limit so
    sums and products of the corpus shapes cannot overflow)."""
    if data_type.startswith("float"):
        return gen(seed, "uniform", low=0.1 if positive else -1, high=1)
    low = 0 if data_type.startswith("u") or positive else -limit
    return gen(seed, "integers", low=low, high=limit)


# --- reduce*: the spec's reduction functions over a list of values, in plain Python

def _sum(v):
    return math.fsum(v) if any(isinstance(x, float) for x in v) else sum(v)


FORMULA = {
    "reduceL1": lambda v: _sum([abs(x) for x in v]),
    "reduceL2": lambda v: math.sqrt(_sum([x * x for x in v])),
    "reduceLogSum": lambda v: math.log(_sum(v)),
    "reduceLogSumExp": lambda v: math.log(math.fsum(math.exp(x) for x in v)),
    "reduceMax": max,
    "reduceMean": lambda v: _sum(v) / len(v),
    "reduceMin": min,
    "reduceProduct": math.prod,
    "reduceSum": _sum,
    "reduceSumSquare": lambda v: _sum([x * x for x in v]),
}
INT_TYPES = {  # spec tensor limits per reduce op (integer part)
    "reduceL1": ["int32", "uint32", "int64", "uint64"],
    "reduceSum": ["int32", "uint32", "int64", "uint64"],
    "reduceSumSquare": ["int32", "uint32", "int64", "uint64"],
    "reduceProduct": ["int32", "uint32", "int64", "uint64"],
    "reduceMax": ["int32", "uint32", "int64", "uint64", "int8", "uint8"],
    "reduceMin": ["int32", "uint32", "int64", "uint64", "int8", "uint8"],
}
POSITIVE_ONLY = {"reduceLogSum"}  # log of a negative sum is NaN: keep generated data positive


def _rows(data, shape):
    return [data[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])]


def _reduce_2d(f, data, shape, axes):
    """Apply f over the reduced slices of a row-major 2-D list."""
    rows = _rows(data, shape)
    if axes == [1]:
        return [f(r) for r in rows]
    if axes == [0]:
        return [f([r[j] for r in rows]) for j in range(shape[1])]
    if axes == []:
        return [f([x]) for x in data]
    return f(data)  # all axes


def _reduce_hand_cases(name: str) -> list[dict]:
    f = FORMULA[name]
    data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] if name != "reduceL1" else [1.0, -2.0, 3.0, -4.0, 5.0, -6.0]
    out = []
    for axes, keep, shape_out in (
        ([1], False, [2]), ([0], False, [3]), ([1], True, [2, 1]), ([0], True, [1, 3]),
        (None, False, []), (None, True, [1, 1]), ([0, 1], False, []), ([], False, [2, 3]),
    ):
        options = {"keepDimensions": keep} if keep else {}
        if axes is not None:
            options["axes"] = axes
        args = [{"input": "input"}] + ([{"options": options}] if options else [])
        expected = _reduce_2d(f, data, [2, 3], axes if axes != [0, 1] else None)
        out.append(case(
            f"{name} float32 2D axes={axes} keepDimensions={keep} (hand)",
            {"input": tensor(data, [2, 3], "float32")},
            op(name, args),
            {"output": tensor(expected, shape_out, "float32")},
        ))
    # Rank 0: the reduction function applied to the one value.
    scalar = 4.0
    out.append(case(f"{name} float32 0D scalar (hand)", {"input": tensor([scalar], [], "float32")},
                    op(name, [{"input": "input"}]), {"output": tensor([f([scalar])], [], "float32")}))
    # float16: values exactly representable, result rounded by hand below.
    h = [0.5, 1.5, 2.0, 4.0]
    out.append(case(f"{name} float16 2D axes=[1] (hand)", {"input": tensor(h, [2, 2], "float16")},
                    op(name, [{"input": "input"}, {"options": {"axes": [1]}}]),
                    {"output": tensor(_reduce_2d(f, h, [2, 2], [1]), [2], "float16")}))
    return out


def _reduce_special_cases(name: str) -> list[dict]:
    """Infinity, NaN, signed zero, float16 extremes, with expected values from IEEE rules."""
    out = []

    def one(label, data, data_type, expected, shape=None):
        shape = shape or [len(data)]
        out.append(case(f"{name} {data_type} {label}", {"input": tensor(data, shape, data_type)},
                        op(name, [{"input": "input"}]), {"output": tensor([expected], [], data_type)}))

    if name in ("reduceSum", "reduceL1", "reduceMean", "reduceSumSquare", "reduceL2", "reduceLogSum", "reduceLogSumExp", "reduceMax", "reduceProduct"):
        one("with +Infinity", [1.0, INF, 2.0], "float32", INF)
    if name in ("reduceSum", "reduceMean", "reduceLogSum"):
        one("+Infinity and -Infinity give NaN", [INF, NINF], "float32", NAN)
    if name in ("reduceMin", "reduceLogSumExp"):
        one("with -Infinity", [1.0, NINF, 2.0], "float32", NINF if name == "reduceMin" else math.log(math.e + math.e**2))
    if name not in ("reduceMax", "reduceMin"):
        one("with NaN", [1.0, NAN, 2.0], "float32", NAN)
    else:
        # The spec leaves NaN in max/min open: the reference marks it, any value passes.
        one("with NaN (implementation-defined)", [1.0, NAN, 2.0], "float32", NAN)
        one("signed zeros", [-0.0, 0.0], "float32", 0.0)
    if name == "reduceProduct":
        one("zero times Infinity gives NaN", [0.0, INF], "float32", NAN)
        one("float16 overflow to Infinity", [256.0, 256.0], "float16", INF)
    if name == "reduceSum":
        one("float16 max plus max overflows", [65504.0, 65504.0], "float16", INF)
        one("float16 subnormals", [2.0**-24, 2.0**-24, 2.0**-23], "float16", 2.0**-22)
    if name == "reduceMean":
        one("float16 max values", [65504.0, 65504.0], "float16", 65504.0)
    if name == "reduceMax":
        one("float16 max and subnormal", [65504.0, 2.0**-24], "float16", 65504.0)
    if name == "reduceMin":
        one("float16 subnormals", [2.0**-24, 2.0**-23], "float16", 2.0**-24)
    if name == "reduceLogSumExp":
        # Stability: exp(1000) overflows float32/float64, the result does not.
        one("large inputs stay finite", [1000.0, 1000.0], "float32", 1000.0 + math.log(2.0))
    return out


def _reduce_integer_cases(name: str) -> list[dict]:
    out = []
    f = FORMULA[name]
    for data_type in INT_TYPES.get(name, []):
        unsigned = data_type.startswith("u")
        data = [1, 2, 3, 4, 5, 6] if unsigned or name != "reduceL1" else [1, -2, 3, -4, 5, -6]
        if name in ("reduceMax", "reduceMin") and not unsigned:
            data = [7, -3, 0, -9, 4, 2]
        out.append(case(f"{name} {data_type} 2D axes=[1] (hand)", {"input": tensor(data, [2, 3], data_type)},
                        op(name, [{"input": "input"}, {"options": {"axes": [1]}}]),
                        {"output": tensor(_reduce_2d(f, data, [2, 3], [1]), [2], data_type)}))
    # 64-bit values where float64 would round: exact integer math required.
    big_cases = {
        "reduceSum": [("int64", [2**53, 1, 1]), ("uint64", [2**63, 2**62, 1])],
        "reduceL1": [("int64", [-(2**53 + 1), 2]), ("uint64", [2**64 - 3, 1])],
        "reduceProduct": [("int64", [2**31, 2**31 + 1]), ("uint64", [2**32 + 1, 2**31 + 1])],
        "reduceSumSquare": [("int64", [3037000499, 1]), ("uint64", [4294967295, 3])],
        "reduceMax": [("int64", [2**63 - 1, 2**63 - 2, -(2**63)]), ("uint64", [2**64 - 1, 2**64 - 2]),
                      ("int8", [-128, 127, 0]), ("uint8", [255, 0])],
        "reduceMin": [("int64", [-(2**63), -(2**63) + 1, 2**63 - 1]), ("uint64", [2**64 - 1, 2**53 + 1]),
                      ("int8", [-128, 127]), ("uint8", [255, 1])],
    }
    for data_type, data in big_cases.get(name, []):
        out.append(case(f"{name} {data_type} extreme values exact", {"input": tensor([big(v) for v in data], [len(data)], data_type)},
                        op(name, [{"input": "input"}]), {"output": tensor([big(f(data))], [], data_type)}))
    return out


def _reduce_generated_cases(name: str, seed0: int) -> list[dict]:
    out = []
    types = ["float32", "float16"] + INT_TYPES.get(name, [])
    shapes = [[5], [3, 4], [2, 3, 4], [2, 3, 2, 3], [2, 1, 3, 2, 2]]
    axes_for = {1: [[0]], 2: [[1], [0, 1]], 3: [[0, 2], [2, 1]], 4: [[1, 2, 3]], 5: [[4, 0], None]}
    seed = seed0
    for i, shape in enumerate(shapes):
        for axes in axes_for[len(shape)]:
            for data_type in (types[i % len(types)], types[(i + 3) % len(types)]):
                keep = (seed % 2) == 0
                options = {"keepDimensions": keep}
                if axes is not None:
                    options["axes"] = axes
                seed += 1
                out.append(case(
                    f"{name} {data_type} {len(shape)}D axes={axes} keepDimensions={keep} generated",
                    {"input": tensor(random_data(data_type, seed, name in POSITIVE_ONLY,
                                                  limit=2 if name == "reduceProduct" else 5), shape, data_type)},
                    op(name, [{"input": "input"}, {"options": options}]),
                ))
    return out


REDUCE_FILES = {
    "reduceL1": "reduce_l1", "reduceL2": "reduce_l2", "reduceLogSum": "reduce_log_sum",
    "reduceLogSumExp": "reduce_log_sum_exp", "reduceMax": "reduce_max", "reduceMean": "reduce_mean",
    "reduceMin": "reduce_min", "reduceProduct": "reduce_product", "reduceSum": "reduce_sum",
    "reduceSumSquare": "reduce_sum_square",
}


def reduce_cases(name: str, seed0: int) -> list[dict]:
    cases = _reduce_hand_cases(name) + _reduce_special_cases(name) + _reduce_integer_cases(name)
    cases += _reduce_generated_cases(name, seed0)
    if name == "reduceSum":
        # Multi-operator: reduceSum of a cumulativeSum (sum of prefix sums of 1..4 = 1+3+6+10).
        cases.append(case("reduceSum of cumulativeSum float32 (hand)", {"x": tensor([1.0, 2.0, 3.0, 4.0], [4], "float32")},
                          [op("cumulativeSum", [{"input": "x"}, {"axis": 0}], "prefix"),
                           op("reduceSum", [{"input": "prefix"}], "output")],
                          {"output": tensor([20.0], [], "float32")}))
    return cases


# --- argMin / argMax

def _arg_cases(name: str) -> list[dict]:
    pick = (lambda v: v.index(max(v))) if name == "argMax" else (lambda v: v.index(min(v)))
    data = [1.0, 5.0, 3.0, 7.0, 2.0, 9.0]
    rows = _rows(data, [2, 3])
    cols = [[r[j] for r in rows] for j in range(3)]
    out = []
    for axis, keep, expected, shape in (
        (1, False, [pick(r) for r in rows], [2]),
        (0, False, [pick(c) for c in cols], [3]),
        (1, True, [pick(r) for r in rows], [2, 1]),
        (0, True, [pick(c) for c in cols], [1, 3]),
    ):
        for out_type in ("int32", "int64"):
            options = {"keepDimensions": keep} if keep else {}
            if out_type != "int32":
                options["outputDataType"] = out_type
            args = [{"input": "input"}, {"axis": axis}] + ([{"options": options}] if options else [])
            out.append(case(f"{name} float32 2D axis={axis} keepDimensions={keep} outputDataType={out_type} (hand)",
                            {"input": tensor(data, [2, 3], "float32")}, op(name, args),
                            {"output": tensor(expected, shape, out_type)}))
    one = lambda label, values, data_type, expected: out.append(case(
        f"{name} {data_type} {label}", {"input": tensor(values, [len(values)], data_type)},
        op(name, [{"input": "input"}, {"axis": 0}]), {"output": tensor([expected], [], "int32")}))
    one("1D with -Infinity and Infinity", [0.0, NINF, INF, 1.0], "float32", 2 if name == "argMax" else 1)
    one("1D float16 extremes", [-65504.0, 2.0**-24, 65504.0], "float16", 2 if name == "argMax" else 0)
    one("1D int8 extremes", [0, -128, 127], "int8", 2 if name == "argMax" else 1)
    one("1D uint8 extremes", [255, 0, 7], "uint8", 0 if name == "argMax" else 1)
    one("1D int32", [5, -7, 11, 3], "int32", 2 if name == "argMax" else 1)
    one("1D uint32", [4000000000, 1, 2], "uint32", 0 if name == "argMax" else 1)
    # 64-bit values that differ only beyond 2^53: a float64 route would tie them.
    one("1D int64 beyond 2^53", [big(2**53 + 1), big(2**53 + 2), big(2**53 + 3)], "int64", 2 if name == "argMax" else 0)
    one("1D uint64 beyond 2^53", [big(2**64 - 2), big(2**64 - 1), big(2**64 - 3)], "uint64", 1 if name == "argMax" else 2)
    # Ties: the spec makes the index implementation-defined; the reference
    # masks the element, so the expected value (first index) is not judged.
    one("1D tie (implementation-defined)", [3.0, 1.0, 3.0, 1.0], "float32", 0)
    one("1D signed zeros tie (implementation-defined)", [-0.0, 0.0], "float32", 0)
    one("1D NaN (implementation-defined)", [1.0, NAN, 2.0], "float32", 1)
    seed = 500 if name == "argMax" else 600
    for shape, axis in (([3, 4], 1), ([2, 3, 4], 0), ([2, 3, 4, 5], 2), ([2, 3, 2, 3, 4], 4), ([7], 0)):
        for data_type in ("float32", "float16", "int32", "int64", "uint32", "uint64", "int8", "uint8"):
            if (seed + len(shape)) % 3 and data_type not in ("float32", "int64"):
                seed += 1
                continue
            seed += 1
            data = gen(seed, "uniform", low=-100, high=100) if data_type.startswith("float") else (
                gen(seed, "integers", low=-1000000, high=1000000) if data_type in ("int32", "int64") else
                gen(seed, "integers", low=0, high=255) if data_type.endswith("8") else gen(seed, "integers", low=0, high=4000000000))
            if data_type == "int8":
                data = gen(seed, "integers", low=-128, high=127)
            out.append(case(f"{name} {data_type} {len(shape)}D axis={axis} generated",
                            {"input": tensor(data, shape, data_type)},
                            op(name, [{"input": "input"}, {"axis": axis}, {"options": {"keepDimensions": seed % 2 == 0, "outputDataType": "int64" if seed % 3 == 0 else "int32"}}])))
    return out


# --- cumulativeSum

def _prefix(values, exclusive, reverse):
    v = list(reversed(values)) if reverse else list(values)
    out, total = [], 0
    for x in v:
        if exclusive:
            out.append(total)
            total += x
        else:
            total += x
            out.append(total)
    return list(reversed(out)) if reverse else out


def cumulative_sum_cases() -> list[dict]:
    out = []
    base = [1.0, 2.0, 3.0, 4.0]
    for exclusive in (False, True):
        for reverse in (False, True):
            options = {}
            if exclusive:
                options["exclusive"] = True
            if reverse:
                options["reversed"] = True
            args = [{"input": "input"}, {"axis": 0}] + ([{"options": options}] if options else [])
            out.append(case(f"cumulativeSum float32 1D exclusive={exclusive} reversed={reverse} (hand)",
                            {"input": tensor(base, [4], "float32")}, op("cumulativeSum", args),
                            {"output": tensor(_prefix(base, exclusive, reverse), [4], "float32")}))
    m = [1, 2, 3, 4, 5, 6]  # [[1,2,3],[4,5,6]]
    out.append(case("cumulativeSum int32 2D axis=1 (hand)", {"input": tensor(m, [2, 3], "int32")},
                    op("cumulativeSum", [{"input": "input"}, {"axis": 1}]),
                    {"output": tensor([1, 3, 6, 4, 9, 15], [2, 3], "int32")}))
    out.append(case("cumulativeSum uint32 2D axis=0 exclusive (hand)", {"input": tensor(m, [2, 3], "uint32")},
                    op("cumulativeSum", [{"input": "input"}, {"axis": 0}, {"options": {"exclusive": True}}]),
                    {"output": tensor([0, 0, 0, 1, 2, 3], [2, 3], "uint32")}))
    out.append(case("cumulativeSum float16 2D axis=0 reversed (hand)", {"input": tensor([0.5, 1.0, 1.5, 2.0], [2, 2], "float16")},
                    op("cumulativeSum", [{"input": "input"}, {"axis": 0}, {"options": {"reversed": True}}]),
                    {"output": tensor([2.0, 3.0, 1.5, 2.0], [2, 2], "float16")}))
    v = [2**53, 1, 1, 1]
    out.append(case("cumulativeSum int64 beyond 2^53 exact", {"input": tensor([big(x) for x in v], [4], "int64")},
                    op("cumulativeSum", [{"input": "input"}, {"axis": 0}]),
                    {"output": tensor([big(x) for x in _prefix(v, False, False)], [4], "int64")}))
    v = [2**63, 2**62, 1]
    out.append(case("cumulativeSum uint64 beyond 2^53 reversed exclusive exact", {"input": tensor([big(x) for x in v], [3], "uint64")},
                    op("cumulativeSum", [{"input": "input"}, {"axis": 0}, {"options": {"exclusive": True, "reversed": True}}]),
                    {"output": tensor([big(x) for x in _prefix(v, True, True)], [3], "uint64")}))
    out.append(case("cumulativeSum float32 Infinity then -Infinity gives NaN", {"input": tensor([INF, 1.0, NINF], [3], "float32")},
                    op("cumulativeSum", [{"input": "input"}, {"axis": 0}]),
                    {"output": tensor([INF, INF, NAN], [3], "float32")}))
    out.append(case("cumulativeSum float32 exclusive keeps Infinity out of the first element", {"input": tensor([INF, 1.0], [2], "float32")},
                    op("cumulativeSum", [{"input": "input"}, {"axis": 0}, {"options": {"exclusive": True}}]),
                    {"output": tensor([0.0, INF], [2], "float32")}))
    out.append(case("cumulativeSum float16 overflow to Infinity", {"input": tensor([65504.0, 65504.0], [2], "float16")},
                    op("cumulativeSum", [{"input": "input"}, {"axis": 0}]),
                    {"output": tensor([65504.0, INF], [2], "float16")}))
    seed = 700
    types = ["float32", "float16", "int32", "uint32", "int64", "uint64"]
    for i, (shape, axis) in enumerate((([9], 0), ([3, 5], 1), ([2, 3, 4], 0), ([2, 3, 4, 3], 2), ([2, 2, 3, 2, 4], 4), ([2, 2, 3, 2, 4], 1))):
        for data_type in (types[i % 6], types[(i + 2) % 6]):
            seed += 1
            out.append(case(f"cumulativeSum {data_type} {len(shape)}D axis={axis} generated",
                            {"input": tensor(random_data(data_type, seed), shape, data_type)},
                            op("cumulativeSum", [{"input": "input"}, {"axis": axis},
                                                 {"options": {"exclusive": seed % 2 == 0, "reversed": seed % 3 == 0}}])))
    return out


# --- softmax

def _softmax(v):
    m = max(v)
    e = [math.exp(x - m) for x in v]
    s = math.fsum(e)
    return [x / s for x in e]


def softmax_cases() -> list[dict]:
    out = []
    row = [1.0, 2.0, 3.0]
    out.append(case("softmax float32 2D axis=1 (hand)", {"input": tensor(row + [0.0, 0.0, 0.0], [2, 3], "float32")},
                    op("softmax", [{"input": "input"}, {"axis": 1}]),
                    {"output": tensor(_softmax(row) + [1 / 3] * 3, [2, 3], "float32")}))
    out.append(case("softmax float32 2D axis=0 (hand)", {"input": tensor([0.0, 1.0, 0.0, 1.0], [2, 2], "float32")},
                    op("softmax", [{"input": "input"}, {"axis": 0}]),
                    {"output": tensor([0.5, 0.5, 0.5, 0.5], [2, 2], "float32")}))
    out.append(case("softmax float16 1D (hand)", {"input": tensor([0.0, math.log(3.0)], [2], "float16")},
                    op("softmax", [{"input": "input"}, {"axis": 0}]),
                    {"output": tensor(_softmax([0.0, float.fromhex("0x1.194p+0")]), [2], "float16")}))
    out.append(case("softmax float32 large equal inputs stay finite", {"input": tensor([1000.0, 1000.0], [2], "float32")},
                    op("softmax", [{"input": "input"}, {"axis": 0}]), {"output": tensor([0.5, 0.5], [2], "float32")}))
    out.append(case("softmax float32 -Infinity gives exactly 0", {"input": tensor([0.0, NINF, 0.0], [3], "float32")},
                    op("softmax", [{"input": "input"}, {"axis": 0}]), {"output": tensor([0.5, 0.0, 0.5], [3], "float32")}))
    out.append(case("softmax float32 NaN propagates", {"input": tensor([0.0, NAN], [2], "float32")},
                    op("softmax", [{"input": "input"}, {"axis": 0}]), {"output": tensor([NAN, NAN], [2], "float32")}))
    out.append(case("softmax float32 single element is 1", {"input": tensor([-42.0], [1, 1], "float32")},
                    op("softmax", [{"input": "input"}, {"axis": 1}]), {"output": tensor([1.0], [1, 1], "float32")}))
    seed = 800
    for shape in ([7], [3, 5], [2, 3, 4], [2, 3, 4, 5], [2, 2, 3, 2, 4]):
        for axis in range(len(shape)):
            for data_type in ("float32", "float16"):
                seed += 1
                if (seed + axis) % 2 and len(shape) > 2:
                    continue
                out.append(case(f"softmax {data_type} {len(shape)}D axis={axis} generated",
                                {"input": tensor(gen(seed, "normal", mean=0, std=3), shape, data_type)},
                                op("softmax", [{"input": "input"}, {"axis": axis}])))
    # Multi-operator: argMax of softmax picks the same index as argMax of the logits.
    out.append(case("argMax of softmax float32 (hand)", {"x": tensor([0.5, 2.5, -1.0, 3.0, 0.0, 1.0], [2, 3], "float32")},
                    [op("softmax", [{"input": "x"}, {"axis": 1}], "probs"),
                     op("argMax", [{"input": "probs"}, {"axis": 1}], "output")],
                    {"output": tensor([1, 0], [2], "int32")}))
    return out


def main() -> None:
    for i, name in enumerate(REDUCE_FILES):
        write("reduction", REDUCE_FILES[name], reduce_cases(name, 100 + 20 * i))
    write("reduction", "arg_min", _arg_cases("argMin"))
    write("reduction", "arg_max", _arg_cases("argMax"))
    write("reduction", "cumulative_sum", cumulative_sum_cases())
    write("reduction", "softmax", softmax_cases())


if __name__ == "__main__":
    main()
