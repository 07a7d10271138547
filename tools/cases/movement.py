"""Generate cases/movement/*.json: the data-movement ops (reshape, transpose,
concat, split, slice, expand, gather, gatherElements, gatherND,
scatterElements, scatterND, tile, reverse, pad) and a few graphs of them.

Run: /work/venv/bin/python tools/cases/movement.py

Small cases carry literal expected values worked out from each op's
definition in the spec with plain-Python index arithmetic on flat lists
(``expected_*`` below; never numpy or the reference). Values are moved as
opaque tokens, so NaN/Infinity/-0, float16 subnormals and 64-bit integers
beyond 2^53 ({"bigint": ...}) go through untouched and every data type's full
width is exercised. Larger cases use seeded generated inputs and give only the
expected output descriptors, so the reference computes the values.
"""
from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "cases" / "movement"
INF, NINF, NAN = "Infinity", "-Infinity", "NaN"
DATA_TYPES = ["float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8"]


def big(value: int):
    """A JSON integer, or {"bigint": ...} beyond 2^53."""
    return value if abs(value) <= 2**53 else {"bigint": str(value)}


# Eight values per data type that show its full width survives.
FULL_WIDTH = {
    "float32": [1.5, -0.0, NAN, INF, NINF, 3.4028234663852886e38, 1.401298464324817e-45, -2.5],
    "float16": [0.5, -0.0, NAN, INF, NINF, 65504.0, 5.960464477539063e-08, -6.103515625e-05],
    "int32": [-2147483648, 2147483647, -1, 0, 7, -100000, 123456789, 1],
    "uint32": [4294967295, 2147483648, 0, 1, 3000000000, 65535, 7, 2147483647],
    "int64": [big(-(2**63)), big(2**63 - 1), big(2**53 + 1), big(-(2**53) - 3), -1, 0, 42, 2**53],
    "uint64": [big(2**64 - 1), big(2**63), big(2**53 + 1), 0, 1, 2**32, big(2**64 - 2), 12345],
    "int8": [-128, 127, -1, 0, 5, -77, 100, 1],
    "uint8": [255, 128, 0, 1, 200, 127, 7, 64],
}


def values(data_type: str, count: int) -> list:
    """``count`` full-width values of a type (cycled, then shifted so a
    larger tensor is not periodic in 8)."""
    base = FULL_WIDTH[data_type]
    return [base[(i + i // 8) % 8] for i in range(count)]


def small_ints(count: int, start: int = 1) -> list[int]:
    return list(range(start, start + count))


# ------------------------------------------------------------- case helpers

def tensor(data, shape, data_type, constant=False) -> dict:
    t = {"data": data, "descriptor": {"shape": list(shape), "dataType": data_type}}
    if constant:
        t["constant"] = True
    return t


def descriptor_only(shape, data_type) -> dict:
    return {"descriptor": {"shape": list(shape), "dataType": data_type}}


def gen_data(seed: int, data_type: str) -> dict:
    """Seeded generated data over the type's whole range (floats: wide normal)."""
    if data_type.startswith("float"):
        return {"generate": {"distribution": "normal", "mean": 0, "std": 100, "seed": seed}}
    lo, hi = {"int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-(2**63), 2**63 - 1),
              "uint64": (0, 2**64 - 1), "int8": (-128, 127), "uint8": (0, 255)}[data_type]
    return {"generate": {"distribution": "integers", "low": big(lo), "high": big(hi), "seed": seed}}


def gen_indices(seed: int, low: int, high: int) -> dict:
    return {"generate": {"distribution": "integers", "low": low, "high": high, "seed": seed}}


def op(name, args, outputs="output") -> dict:
    return {"name": name, "arguments": args, "outputs": outputs}


def case(name, inputs, operators, expected) -> dict:
    ops = operators if isinstance(operators, list) else [operators]
    return {"name": name, "graph": {"inputs": inputs, "operators": ops, "expectedOutputs": expected}}


def write(file_stem: str, cases: list[dict]) -> None:
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), f"duplicate names in {file_stem}"
    ROOT.mkdir(parents=True, exist_ok=True)
    (ROOT / f"{file_stem}.json").write_text(json.dumps({"tests": cases}, indent=1) + "\n")


# ------------------------------------ expected values: the spec's definitions
# Flat row-major lists, plain-Python index arithmetic.

def positions(shape):
    return itertools.product(*[range(s) for s in shape])


def flat(index, shape) -> int:
    offset = 0
    for i, s in zip(index, shape):
        offset = offset * s + i
    return offset


def size(shape) -> int:
    return math.prod(shape)


def clamp_index(i: int, n: int) -> int:
    """Indices clamp to [-n, n-1]; negative ones count from the end."""
    i = min(max(i, -n), n - 1)
    return i + n if i < 0 else i


def number(v) -> int:
    return int(v["bigint"]) if isinstance(v, dict) else int(v)


def expected_transpose(data, shape, perm):
    out_shape = [shape[p] for p in perm]
    out = []
    for o in positions(out_shape):
        i = [0] * len(shape)
        for k, p in enumerate(perm):
            i[p] = o[k]
        out.append(data[flat(i, shape)])
    return out, out_shape


def expected_concat(parts, axis):
    """parts: [(data, shape)]"""
    out_shape = list(parts[0][1])
    out_shape[axis] = sum(s[axis] for _, s in parts)
    out = []
    for o in positions(out_shape):
        at = o[axis]
        for data, shape in parts:
            if at < shape[axis]:
                i = list(o)
                i[axis] = at
                out.append(data[flat(i, shape)])
                break
            at -= shape[axis]
    return out, out_shape


def expected_split(data, shape, sizes, axis):
    outs, offset = [], 0
    for n in sizes:
        out_shape = list(shape)
        out_shape[axis] = n
        out = []
        for o in positions(out_shape):
            i = list(o)
            i[axis] += offset
            out.append(data[flat(i, shape)])
        outs.append((out, out_shape))
        offset += n
    return outs


def expected_slice(data, shape, starts, sizes, strides=None):
    strides = strides or [1] * len(shape)
    out_shape = [-(-n // s) for n, s in zip(sizes, strides)]
    out = [data[flat([b + k * s for b, k, s in zip(starts, o, strides)], shape)] for o in positions(out_shape)]
    return out, out_shape


def expected_expand(data, shape, new_shape):
    pad = len(new_shape) - len(shape)
    out = []
    for o in positions(new_shape):
        i = [0 if shape[k] == 1 else o[k + pad] for k in range(len(shape))]
        out.append(data[flat(i, shape)])
    return out, list(new_shape)


def expected_gather(data, shape, indices, indices_shape, axis):
    r = len(indices_shape)
    out_shape = list(shape[:axis]) + list(indices_shape) + list(shape[axis + 1:])
    out = []
    for o in positions(out_shape):
        j = clamp_index(number(indices[flat(o[axis:axis + r], indices_shape)]), shape[axis])
        out.append(data[flat(list(o[:axis]) + [j] + list(o[axis + r:]), shape)])
    return out, out_shape


def expected_gather_elements(data, shape, indices, indices_shape, axis):
    out = []
    for o in positions(indices_shape):
        i = list(o)
        i[axis] = clamp_index(number(indices[flat(o, indices_shape)]), shape[axis])
        out.append(data[flat(i, shape)])
    return out, list(indices_shape)


def expected_gather_nd(data, shape, indices, indices_shape):
    k = indices_shape[-1]
    batch = list(indices_shape[:-1])
    out_shape = batch + list(shape[k:])
    out = []
    for o in positions(out_shape):
        b = flat(o[:len(batch)], batch) * k
        coords = [clamp_index(number(indices[b + d]), shape[d]) for d in range(k)]
        out.append(data[flat(coords + list(o[len(batch):]), shape)])
    return out, out_shape


def expected_scatter_elements(data, shape, indices, indices_shape, updates, axis):
    out = list(data)
    for o in positions(indices_shape):
        i = list(o)
        i[axis] = clamp_index(number(indices[flat(o, indices_shape)]), shape[axis])
        out[flat(i, shape)] = updates[flat(o, indices_shape)]
    return out, list(shape)


def expected_scatter_nd(data, shape, indices, indices_shape, updates):
    k = indices_shape[-1]
    batch = list(indices_shape[:-1])
    updates_shape = batch + list(shape[k:])
    out = list(data)
    for o in positions(updates_shape):
        b = flat(o[:len(batch)], batch) * k
        coords = [clamp_index(number(indices[b + d]), shape[d]) for d in range(k)]
        out[flat(coords + list(o[len(batch):]), shape)] = updates[flat(o, updates_shape)]
    return out, list(shape)


def expected_tile(data, shape, reps):
    out_shape = [s * r for s, r in zip(shape, reps)]
    return [data[flat([i % s for i, s in zip(o, shape)], shape)] for o in positions(out_shape)], out_shape


def expected_reverse(data, shape, axes):
    out = [data[flat([s - 1 - i if d in axes else i for d, (i, s) in enumerate(zip(o, shape))], shape)]
           for o in positions(shape)]
    return out, list(shape)


def expected_pad(data, shape, begin, end, mode="constant", value=0):
    out_shape = [b + s + e for b, s, e in zip(begin, shape, end)]
    out = []
    for o in positions(out_shape):
        i = [x - b for x, b in zip(o, begin)]
        if mode == "constant":
            inside = all(0 <= x < s for x, s in zip(i, shape))
            out.append(data[flat(i, shape)] if inside else value)
            continue
        if mode == "edge":
            i = [min(max(x, 0), s - 1) for x, s in zip(i, shape)]
        else:  # reflection: mirror about the edge element, not repeating it
            i = [-x if x < 0 else (2 * (s - 1) - x if x >= s else x) for x, s in zip(i, shape)]
        out.append(data[flat(i, shape)])
    return out, out_shape


def one_op(name, op_name, x, shape, dt, args, result, options=None, extra_inputs=None, constant=False):
    """A single-input case: ``args`` are the positional arguments after input."""
    data, out_shape = result
    inputs = {"input": tensor(x, shape, dt, constant)}
    inputs.update(extra_inputs or {})
    arguments = [{"input": "input"}, *args]
    if options is not None:
        arguments.append({"options": options})
    return case(name, inputs, op(op_name, arguments), {"output": tensor(data, out_shape, dt)})


def generated(name, op_name, shape, dt, seed, args, out_shape, options=None, extra_inputs=None):
    inputs = {"input": tensor(gen_data(seed, dt), shape, dt)}
    inputs.update(extra_inputs or {})
    arguments = [{"input": "input"}, *args]
    if options is not None:
        arguments.append({"options": options})
    return case(name, inputs, op(op_name, arguments), {"output": descriptor_only(out_shape, dt)})


# ------------------------------------------------------------------ per op

def reshape_cases():
    cases = []
    for dt in DATA_TYPES:
        x = values(dt, 8)
        cases.append(one_op(f"reshape {dt} [2,4] to [4,2] full-width values", "reshape", x, [2, 4], dt,
                            [{"newShape": [4, 2]}], (x, [4, 2])))
    x = small_ints(1)
    cases.append(one_op("reshape float32 0D to 5D of ones", "reshape", [-0.0], [], "float32",
                        [{"newShape": [1, 1, 1, 1, 1]}], ([-0.0], [1, 1, 1, 1, 1])))
    cases.append(one_op("reshape int8 5D of ones to 0D", "reshape", [-128], [1, 1, 1, 1, 1], "int8",
                        [{"newShape": []}], ([-128], [])))
    x = small_ints(24)
    for new in ([24], [2, 12], [2, 3, 4], [4, 1, 3, 2], [1, 2, 3, 2, 2], [2, 1, 1, 1, 12, 1]):
        cases.append(one_op(f"reshape int32 [2,3,4] to {new}", "reshape", x, [2, 3, 4], "int32",
                            [{"newShape": new}], (x, new), constant=len(new) == 4))
    x = values("float16", 30)
    cases.append(one_op("reshape float16 constant [5,6] to [3,10]", "reshape", x, [5, 6], "float16",
                        [{"newShape": [3, 10]}], (x, [3, 10]), constant=True))
    for i, dt in enumerate(["float32", "uint64", "int64"]):
        cases.append(generated(f"reshape {dt} generated [4,5,6] to [6,20]", "reshape", [4, 5, 6], dt, 100 + i,
                               [{"newShape": [6, 20]}], [6, 20]))
    return cases


def transpose_cases():
    cases = []
    for dt in DATA_TYPES:
        x = values(dt, 8)
        cases.append(one_op(f"transpose {dt} [2,4] default permutation", "transpose", x, [2, 4], dt, [],
                            expected_transpose(x, [2, 4], [1, 0])))
    cases.append(one_op("transpose float32 0D default permutation", "transpose", [NAN], [], "float32", [],
                        ([NAN], [])))
    cases.append(one_op("transpose uint8 1D permutation [0]", "transpose", [9, 8, 7], [3], "uint8", [],
                        ([9, 8, 7], [3]), options={"permutation": [0]}))
    x = small_ints(24)
    for perm in ([2, 0, 1], [1, 2, 0], [0, 2, 1]):
        cases.append(one_op(f"transpose int32 [2,3,4] permutation {perm}", "transpose", x, [2, 3, 4], "int32", [],
                            expected_transpose(x, [2, 3, 4], perm), options={"permutation": perm}))
    x = values("int64", 24)
    cases.append(one_op("transpose int64 [1,2,3,4] default permutation", "transpose", x, [1, 2, 3, 4], "int64", [],
                        expected_transpose(x, [1, 2, 3, 4], [3, 2, 1, 0])))
    cases.append(one_op("transpose int64 [1,2,3,4] permutation [2,3,0,1]", "transpose", x, [1, 2, 3, 4], "int64",
                        [], expected_transpose(x, [1, 2, 3, 4], [2, 3, 0, 1]), options={"permutation": [2, 3, 0, 1]}))
    x = values("float16", 24)
    cases.append(one_op("transpose float16 5D permutation [1,3,0,4,2]", "transpose", x, [1, 2, 1, 3, 4], "float16",
                        [], expected_transpose(x, [1, 2, 1, 3, 4], [1, 3, 0, 4, 2]),
                        options={"permutation": [1, 3, 0, 4, 2]}))
    cases.append(one_op("transpose uint32 5D default permutation", "transpose", values("uint32", 24),
                        [2, 1, 3, 1, 4], "uint32", [],
                        expected_transpose(values("uint32", 24), [2, 1, 3, 1, 4], [4, 3, 2, 1, 0])))
    for i, (dt, shape, perm) in enumerate([("float32", [3, 4, 5, 6], [3, 1, 0, 2]), ("uint64", [7, 9], None),
                                           ("int8", [2, 3, 4, 5, 6], [4, 0, 3, 1, 2])]):
        out = [shape[p] for p in (perm or list(reversed(range(len(shape)))))]
        cases.append(generated(f"transpose {dt} generated {shape} permutation {perm}", "transpose", shape, dt,
                               200 + i, [], out, options={"permutation": perm} if perm else None))
    return cases


def concat_case(name, parts, dt, axis, constant_first=False):
    inputs = {f"input{k}": tensor(d, s, dt, constant_first and k == 0) for k, (d, s) in enumerate(parts)}
    data, out_shape = expected_concat(parts, axis)
    return case(name, inputs, op("concat", [{"inputs": list(inputs)}, {"axis": axis}]),
                {"output": tensor(data, out_shape, dt)})


def concat_cases():
    cases = []
    for dt in DATA_TYPES:
        x = values(dt, 10)
        cases.append(concat_case(f"concat {dt} three inputs along axis 1 full-width values",
                                 [(x[:2], [2, 1]), (x[2:6], [2, 2]), (x[6:], [2, 2])], dt, 1))
    cases.append(concat_case("concat float32 single input", [([1.5, -0.0], [2])], "float32", 0))
    cases.append(concat_case("concat int32 1D constant and input", [([1, 2], [2]), ([3], [1])], "int32", 0,
                             constant_first=True))
    x = small_ints(60)
    cases.append(concat_case("concat int32 3D along axis 0", [(x[:12], [1, 3, 4]), (x[12:36], [2, 3, 4])], "int32", 0))
    cases.append(concat_case("concat int32 3D along axis 2", [(x[:6], [2, 3, 1]), (x[6:24], [2, 3, 3])], "int32", 2))
    cases.append(concat_case("concat uint8 4D along axis 3",
                             [(x[:4], [1, 2, 2, 1]), (x[4:12], [1, 2, 2, 2]), (x[12:16], [1, 2, 2, 1])], "uint8", 3))
    cases.append(concat_case("concat float16 5D along axis 4",
                             [(values("float16", 4), [1, 2, 1, 2, 1]), (values("float16", 8), [1, 2, 1, 2, 2])],
                             "float16", 4))
    cases.append(concat_case("concat int64 5D along axis 1",
                             [(values("int64", 6), [1, 1, 2, 3, 1]), (values("int64", 12), [1, 2, 2, 3, 1])],
                             "int64", 1))
    parts = [([k], [1]) for k in range(9)]
    cases.append(concat_case("concat uint32 nine 1-element inputs", parts, "uint32", 0))
    cases.append(concat_case("concat float16 four 1D inputs", [(values("float16", n), [n]) for n in (1, 2, 3, 2)],
                             "float16", 0))
    cases.append(concat_case("concat int8 2D constant and input along axis 0",
                             [([-128, 127], [1, 2]), ([0, -1, 1, 2], [2, 2])], "int8", 0, constant_first=True))
    for i, dt in enumerate(["float32", "int64", "uint64"]):
        inputs = {f"input{k}": tensor(gen_data(300 + 10 * i + k, dt), [4, n, 5], dt) for k, n in enumerate([3, 7, 1])}
        cases.append(case(f"concat {dt} generated three inputs along axis 1", inputs,
                          op("concat", [{"inputs": list(inputs)}, {"axis": 1}]),
                          {"output": descriptor_only([4, 11, 5], dt)}))
    return cases


def split_case(name, x, shape, dt, splits, axis=None, constant=False):
    sizes = splits if isinstance(splits, list) else [shape[axis or 0] // splits] * splits
    outs = expected_split(x, shape, sizes, axis or 0)
    names = [f"output{k}" for k in range(len(outs))]
    args = [{"input": "input"}, {"splits": splits}]
    if axis is not None:
        args.append({"options": {"axis": axis}})
    return case(name, {"input": tensor(x, shape, dt, constant)}, op("split", args, names),
                {n: tensor(d, s, dt) for n, (d, s) in zip(names, outs)})


def split_cases():
    cases = []
    for dt in DATA_TYPES:
        x = values(dt, 8)
        cases.append(split_case(f"split {dt} [4,2] into 2 along axis 0 full-width values", x, [4, 2], dt, 2))
    x = small_ints(24)
    cases.append(split_case("split int32 1D into 3", x, [24], "int32", 3, constant=True))
    cases.append(split_case("split int32 1D into one", x, [24], "int32", 1))
    cases.append(split_case("split int32 1D sizes [1,22,1]", x, [24], "int32", [1, 22, 1]))
    cases.append(split_case("split int32 [2,3,4] sizes [1,3] axis 2", x, [2, 3, 4], "int32", [1, 3], axis=2))
    cases.append(split_case("split int32 [2,3,4] into 3 axis 1", x, [2, 3, 4], "int32", 3, axis=1))
    cases.append(split_case("split int32 [2,3,4] sizes [2] axis 0 explicit", x, [2, 3, 4], "int32", [2], axis=0))
    cases.append(split_case("split float16 4D sizes [2,1,1] axis 3", values("float16", 24), [1, 3, 2, 4],
                            "float16", [2, 1, 1], axis=3))
    cases.append(split_case("split uint64 5D into 2 axis 4", values("uint64", 16), [1, 2, 2, 1, 4], "uint64", 2,
                            axis=4))
    cases.append(split_case("split int64 1D sizes of one", values("int64", 4), [4], "int64", [1, 1, 1, 1]))
    cases.append(split_case("split uint32 [2,6] into 3 axis 1", values("uint32", 12), [2, 6], "uint32", 3, axis=1))
    for i, (dt, splits) in enumerate([("float32", 4), ("int8", [5, 1, 2])]):
        sizes = splits if isinstance(splits, list) else [2] * 4
        names = [f"output{k}" for k in range(len(sizes))]
        cases.append(case(f"split {dt} generated [3,8,5] axis 1 splits {splits}",
                          {"input": tensor(gen_data(400 + i, dt), [3, 8, 5], dt)},
                          op("split", [{"input": "input"}, {"splits": splits}, {"options": {"axis": 1}}], names),
                          {n: descriptor_only([3, s, 5], dt) for n, s in zip(names, sizes)}))
    return cases


def slice_cases():
    cases = []
    for dt in DATA_TYPES:
        x = values(dt, 8)
        cases.append(one_op(f"slice {dt} [2,4] starts [0,1] sizes [2,3] strides [1,2] full-width values", "slice",
                            x, [2, 4], dt, [{"starts": [0, 1]}, {"sizes": [2, 3]}],
                            expected_slice(x, [2, 4], [0, 1], [2, 3], [1, 2]), options={"strides": [1, 2]}))
    cases.append(one_op("slice float32 0D with empty starts and sizes", "slice", [INF], [], "float32",
                        [{"starts": []}, {"sizes": []}], ([INF], [])))
    x = small_ints(24)
    cases.append(one_op("slice int32 1D whole tensor", "slice", x, [24], "int32", [{"starts": [0]}, {"sizes": [24]}],
                        (x, [24])))
    cases.append(one_op("slice int32 1D last element", "slice", x, [24], "int32", [{"starts": [23]}, {"sizes": [1]}],
                        ([24], [1])))
    cases.append(one_op("slice int32 1D stride larger than size", "slice", x, [24], "int32",
                        [{"starts": [5]}, {"sizes": [3]}], ([6], [1]), options={"strides": [7]}))
    cases.append(one_op("slice int32 1D stride not dividing size", "slice", x, [24], "int32",
                        [{"starts": [2]}, {"sizes": [10]}], expected_slice(x, [24], [2], [10], [3]),
                        options={"strides": [3]}))
    cases.append(one_op("slice int32 [2,3,4] explicit unit strides", "slice", x, [2, 3, 4], "int32",
                        [{"starts": [1, 0, 1]}, {"sizes": [1, 3, 2]}], expected_slice(x, [2, 3, 4], [1, 0, 1], [1, 3, 2]),
                        options={"strides": [1, 1, 1]}))
    x = values("int64", 48)
    cases.append(one_op("slice int64 4D strides [1,2,1,3]", "slice", x, [2, 4, 2, 3], "int64",
                        [{"starts": [0, 1, 1, 0]}, {"sizes": [2, 3, 1, 3]}],
                        expected_slice(x, [2, 4, 2, 3], [0, 1, 1, 0], [2, 3, 1, 3], [1, 2, 1, 3]),
                        options={"strides": [1, 2, 1, 3]}))
    x = values("float16", 48)
    cases.append(one_op("slice float16 5D", "slice", x, [2, 2, 3, 2, 2], "float16",
                        [{"starts": [1, 0, 1, 1, 0]}, {"sizes": [1, 2, 2, 1, 2]}],
                        expected_slice(x, [2, 2, 3, 2, 2], [1, 0, 1, 1, 0], [1, 2, 2, 1, 2]), constant=True))
    for i, dt in enumerate(["float32", "uint64", "int32"]):
        cases.append(generated(f"slice {dt} generated [6,7,8] strides [2,3,1]", "slice", [6, 7, 8], dt, 500 + i,
                               [{"starts": [1, 0, 2]}, {"sizes": [5, 7, 6]}], [3, 3, 6],
                               options={"strides": [2, 3, 1]}))
    return cases


def expand_cases():
    cases = []
    for dt in DATA_TYPES:
        x = values(dt, 4)
        cases.append(one_op(f"expand {dt} [4,1] to [2,4,3] full-width values", "expand", x, [4, 1], dt,
                            [{"newShape": [2, 4, 3]}], expected_expand(x, [4, 1], [2, 4, 3])))
    cases.append(one_op("expand float32 0D to 5D", "expand", [-0.0], [], "float32",
                        [{"newShape": [2, 1, 2, 1, 2]}], expected_expand([-0.0], [], [2, 1, 2, 1, 2])))
    cases.append(one_op("expand int32 0D to 0D", "expand", [-7], [], "int32", [{"newShape": []}], ([-7], [])))
    cases.append(one_op("expand int32 [2,3] to same shape", "expand", small_ints(6), [2, 3], "int32",
                        [{"newShape": [2, 3]}], (small_ints(6), [2, 3])))
    cases.append(one_op("expand int32 [1,3] to [4,3]", "expand", small_ints(3), [1, 3], "int32",
                        [{"newShape": [4, 3]}], expected_expand(small_ints(3), [1, 3], [4, 3]), constant=True))
    cases.append(one_op("expand int8 1D [3] to [2,2,3]", "expand", [-128, 0, 127], [3], "int8",
                        [{"newShape": [2, 2, 3]}], expected_expand([-128, 0, 127], [3], [2, 2, 3])))
    x = values("uint64", 4)
    cases.append(one_op("expand uint64 [1,2,1,2] to [3,2,2,2]", "expand", x, [1, 2, 1, 2], "uint64",
                        [{"newShape": [3, 2, 2, 2]}], expected_expand(x, [1, 2, 1, 2], [3, 2, 2, 2])))
    x = values("float16", 2)
    cases.append(one_op("expand float16 [2,1,1] to [1,2,2,3,2] (rank 3 to 5)", "expand", x, [2, 1, 1], "float16",
                        [{"newShape": [1, 2, 2, 3, 2]}], expected_expand(x, [2, 1, 1], [1, 2, 2, 3, 2])))
    cases.append(one_op("expand uint32 [1] to [5]", "expand", [4294967295], [1], "uint32", [{"newShape": [5]}],
                        ([4294967295] * 5, [5])))
    for i, dt in enumerate(["float32", "int64", "uint8"]):
        cases.append(generated(f"expand {dt} generated [1,5,1,3] to [4,2,5,6,3]", "expand", [1, 5, 1, 3], dt,
                               600 + i, [{"newShape": [4, 2, 5, 6, 3]}], [4, 2, 5, 6, 3]))
    return cases


def indices_input(data, shape, data_type):
    return {"indices": tensor(data, shape, data_type, constant=True)}


def gather_case(name, x, shape, dt, idx, idx_shape, idx_type, axis=None):
    result = expected_gather(x, shape, idx, idx_shape, axis or 0)
    return one_op(name, "gather", x, shape, dt, [{"indices": "indices"}], result,
                  options={"axis": axis} if axis is not None else None,
                  extra_inputs=indices_input(idx, idx_shape, idx_type))


def gather_cases():
    cases = []
    index_types = ["int32", "uint32", "int64"]
    for k, dt in enumerate(DATA_TYPES):
        x = values(dt, 8)
        it = index_types[k % 3]
        idx = [3, 0, 2] if it == "uint32" else [3, -4, -2]
        cases.append(gather_case(f"gather {dt} [4,2] {it} indices axis 0 full-width values", x, [4, 2], dt,
                                 idx, [3], it))
    x = small_ints(12, 0)
    cases.append(gather_case("gather int32 [4,3] 0D index axis 0", x, [4, 3], "int32", [2], [], "int32"))
    cases.append(gather_case("gather int32 [4,3] 2D indices axis 1", x, [4, 3], "int32", [0, 1, 1, 2], [2, 2],
                             "uint32", axis=1))
    cases.append(gather_case("gather int32 [4,3] out-of-range indices clamp", x, [4, 3], "int32",
                             [4, 100, -5, -2147483648, 2147483647], [5], "int32"))
    cases.append(gather_case("gather int32 [4,3] uint32 max index clamps", x, [4, 3], "int32",
                             [4294967295, 3], [2], "uint32", axis=0))
    cases.append(gather_case("gather int32 [4,3] int64 indices beyond 2^53 clamp", x, [4, 3], "int32",
                             [big(2**62), big(-(2**63)), -1], [3], "int64", axis=1))
    x = values("float16", 24)
    cases.append(gather_case("gather float16 [2,3,4] 3D indices axis 2", x, [2, 3, 4], "float16",
                             [3, 0, -1, -4, 1, 2, 2, 1], [2, 2, 2], "int64", axis=2))
    x = values("uint64", 24)
    cases.append(gather_case("gather uint64 5D 1D indices axis 4", x, [1, 2, 1, 3, 4], "uint64",
                             [3, 1], [2], "int32", axis=4))
    cases.append(gather_case("gather uint64 5D 0D index axis 3", x, [1, 2, 1, 3, 4], "uint64", [1], [], "uint32",
                             axis=3))
    cases.append(gather_case("gather int8 [3] 4D indices", [-128, 0, 127], [3], "int8",
                             [0, 1, 2, -1, -2, -3], [1, 2, 3, 1], "int32"))
    for i, (dt, it) in enumerate([("float32", "int32"), ("int64", "int64"), ("uint8", "uint32")]):
        low = 0 if it == "uint32" else -9
        cases.append(generated(f"gather {dt} generated [5,9,4] {it} indices axis 1", "gather", [5, 9, 4], dt,
                               700 + i, [{"indices": "indices"}], [5, 3, 6, 4], options={"axis": 1},
                               extra_inputs={"indices": tensor(gen_indices(710 + i, low, 8), [3, 6], it)}))
    return cases


def gather_elements_case(name, x, shape, dt, idx, idx_shape, idx_type, axis=None):
    result = expected_gather_elements(x, shape, idx, idx_shape, axis or 0)
    return one_op(name, "gatherElements", x, shape, dt, [{"indices": "indices"}], result,
                  options={"axis": axis} if axis is not None else None,
                  extra_inputs=indices_input(idx, idx_shape, idx_type))


def gather_elements_cases():
    cases = []
    index_types = ["int32", "uint32", "int64"]
    for k, dt in enumerate(DATA_TYPES):
        x = values(dt, 8)
        it = index_types[k % 3]
        idx = [3, 0, 1, 2, 0, 3] if it == "uint32" else [3, -4, -3, 2, 0, -1]
        cases.append(gather_elements_case(f"gatherElements {dt} [4,2] {it} indices axis 0 full-width values",
                                          x, [4, 2], dt, idx, [3, 2], it))
    spec = [0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32]
    cases.append(gather_elements_case("gatherElements float32 spec example axis 0", spec, [4, 3], "float32",
                                      [3, 1, 1, 2, 0, 3], [2, 3], "uint32"))
    cases.append(gather_elements_case("gatherElements float32 spec example axis 1", spec, [4, 3], "float32",
                                      [2, 1, 0, 2], [4, 1], "uint32", axis=1))
    spec3 = [0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211, 300, 301, 310, 311]
    cases.append(gather_elements_case("gatherElements float32 spec example 3D", spec3, [4, 2, 2], "float32",
                                      [0, 2, 1, 3], [1, 2, 2], "uint32", axis=0))
    cases.append(gather_elements_case("gatherElements int32 1D out-of-range indices clamp", [5, 6, 7], [3], "int32",
                                      [3, -4, 99, -99, 2147483647], [5], "int32"))
    cases.append(gather_elements_case("gatherElements int32 [2,3] int64 indices axis 1", small_ints(6), [2, 3],
                                      "int32", [big(2**60), -3, 1, 2, -1, 0], [2, 3], "int64", axis=1))
    x = values("float16", 24)
    cases.append(gather_elements_case("gatherElements float16 [2,3,4] axis 2", x, [2, 3, 4], "float16",
                                      [(i * 7) % 4 for i in range(12)], [2, 3, 2], "int32", axis=2))
    x = values("uint64", 32)
    cases.append(gather_elements_case("gatherElements uint64 5D axis 3", x, [2, 1, 2, 4, 2], "uint64",
                                      [(i * 5) % 4 for i in range(8)], [2, 1, 2, 1, 2], "uint32", axis=3))
    cases.append(gather_elements_case("gatherElements int8 [3] indices larger than input", [-128, 0, 127], [3],
                                      "int8", [2, 2, 0, 1, -1, -3], [6], "int64"))
    cases.append(gather_elements_case("gatherElements uint8 [2,2] axis 1 same shape", [1, 2, 3, 4], [2, 2], "uint8",
                                      [1, 1, 0, 1], [2, 2], "int32", axis=1))
    for i, (dt, it) in enumerate([("float32", "int32"), ("int64", "int64"), ("uint32", "uint32")]):
        low = 0 if it == "uint32" else -6
        cases.append(generated(f"gatherElements {dt} generated [4,6,5] {it} indices axis 1", "gatherElements",
                               [4, 6, 5], dt, 800 + i, [{"indices": "indices"}], [4, 9, 5], options={"axis": 1},
                               extra_inputs={"indices": tensor(gen_indices(810 + i, low, 5), [4, 9, 5], it)}))
    return cases


def gather_nd_case(name, x, shape, dt, idx, idx_shape, idx_type):
    return one_op(name, "gatherND", x, shape, dt, [{"indices": "indices"}],
                  expected_gather_nd(x, shape, idx, idx_shape), extra_inputs=indices_input(idx, idx_shape, idx_type))


def gather_nd_cases():
    cases = []
    index_types = ["int32", "uint32", "int64"]
    for k, dt in enumerate(DATA_TYPES):
        x = values(dt, 8)
        it = index_types[k % 3]
        idx = [1, 0, 0, 1, 0, 0] if it == "uint32" else [1, -2, -2, 1, 0, -1]
        cases.append(gather_nd_case(f"gatherND {dt} [2,2,2] {it} indices [3,2] full-width values", x, [2, 2, 2], dt,
                                    idx, [3, 2], it))
    cases.append(gather_nd_case("gatherND float32 spec example [2,2] indices [3,2]", [0, 1, 2, 3], [2, 2], "float32",
                                [0, 0, 1, 1, 1, 0], [3, 2], "uint32"))
    cases.append(gather_nd_case("gatherND float32 spec example rows", [0, 1, 2, 3], [2, 2], "float32",
                                [1, 0], [2, 1], "uint32"))
    cases.append(gather_nd_case("gatherND float32 spec example blocks", small_ints(8, 0), [2, 2, 2], "float32",
                                [1, 0, 1], [3, 1], "uint32"))
    cases.append(gather_nd_case("gatherND int32 1D indices to 0D output", [4, 5, 6], [3], "int32", [-1], [1], "int32"))
    cases.append(gather_nd_case("gatherND int32 full coordinates 3D", small_ints(24), [2, 3, 4], "int32",
                                [1, 2, 3, 0, -3, -4], [2, 3], "int64"))
    cases.append(gather_nd_case("gatherND int32 out-of-range coordinates clamp", small_ints(6), [2, 3], "int32",
                                [5, -9, -3, 100], [2, 2], "int32"))
    x = values("uint64", 24)
    cases.append(gather_nd_case("gatherND uint64 [2,3,4] indices [2,2,1]", x, [2, 3, 4], "uint64",
                                [1, 0, 0, 1], [2, 2, 1], "uint32"))
    x = values("float16", 32)
    cases.append(gather_nd_case("gatherND float16 5D indices [1,3]", x, [2, 2, 2, 2, 2], "float16",
                                [1, 0, 1], [1, 3], "int32"))
    cases.append(gather_nd_case("gatherND int8 [2,2] 4D indices", [-128, 127, -1, 0], [2, 2], "int8",
                                [0, 1, 1, 0, 1, 1, 0, 0], [2, 1, 2, 2], "int64"))
    for i, (dt, it) in enumerate([("float32", "int32"), ("int64", "uint32")]):
        low = 0 if it == "uint32" else -4
        cases.append(generated(f"gatherND {dt} generated [4,4,6] {it} indices [5,2]", "gatherND", [4, 4, 6], dt,
                               900 + i, [{"indices": "indices"}], [5, 6],
                               extra_inputs={"indices": tensor(gen_indices(910 + i, low, 3), [5, 2], it)}))
    return cases


def scatter_elements_case(name, x, shape, dt, idx, idx_shape, idx_type, upd, axis=None):
    result = expected_scatter_elements(x, shape, idx, idx_shape, upd, axis or 0)
    extra = {**indices_input(idx, idx_shape, idx_type), "updates": tensor(upd, idx_shape, dt)}
    return one_op(name, "scatterElements", x, shape, dt, [{"indices": "indices"}, {"updates": "updates"}], result,
                  options={"axis": axis} if axis is not None else None, extra_inputs=extra)


def scatter_elements_cases():
    cases = []
    index_types = ["int32", "uint32", "int64"]
    for k, dt in enumerate(DATA_TYPES):
        x = values(dt, 8)
        upd = list(reversed(values(dt, 8)))[:4]
        it = index_types[k % 3]
        idx = [3, 0, 1, 2] if it == "uint32" else [-1, 0, -3, 2]
        cases.append(scatter_elements_case(f"scatterElements {dt} [4,2] {it} indices axis 0 full-width values",
                                           x, [4, 2], dt, idx, [2, 2], it, upd))
    spec = [0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32]
    cases.append(scatter_elements_case("scatterElements float32 spec example axis 0", spec, [4, 3], "float32",
                                       [3, 1, 1, 2, 0, 3], [2, 3], "uint32", [-1, -2, -3, -4, -5, -6]))
    cases.append(scatter_elements_case("scatterElements float32 spec example axis 1", spec, [4, 3], "float32",
                                       [2, 1, 0, 2], [4, 1], "uint32", [-1, -2, -3, -4], axis=1))
    spec3 = [0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211, 300, 301, 310, 311]
    cases.append(scatter_elements_case("scatterElements float32 spec example 3D", spec3, [4, 2, 2], "float32",
                                       [0, 2, 1, 3], [1, 2, 2], "uint32", [-1, -2, -3, -4], axis=0))
    cases.append(scatter_elements_case("scatterElements int32 1D out-of-range indices clamp", [0, 0, 0, 0], [4],
                                       "int32", [9, -9], [2], "int32", [5, 6]))
    cases.append(scatter_elements_case("scatterElements int32 duplicate indices writing equal values",
                                       [0, 0, 0], [3], "int32", [1, -2], [2], "int64", [8, 8]))
    x = values("uint64", 24)
    cases.append(scatter_elements_case("scatterElements uint64 [2,3,4] axis 2", x, [2, 3, 4], "uint64",
                                       [3, 0, 1, 2, 0, 3], [2, 3, 1], "int64", values("uint64", 6), axis=2))
    x = values("float16", 16)
    cases.append(scatter_elements_case("scatterElements float16 5D axis 4", x, [1, 2, 1, 2, 4], "float16",
                                       [1, -1, 0, 2], [1, 2, 1, 2, 1], "int32", [9.5, -9.5, 0.25, 1024.0], axis=4))
    cases.append(scatter_elements_case("scatterElements int8 [3,2] axis 1 whole rows", [1, 2, 3, 4, 5, 6], [3, 2],
                                       "int8", [1, 0, 0, 1, -1, -2], [3, 2], "int32", [-128, 127, -1, 0, 9, 8],
                                       axis=1))
    cases.append(scatter_elements_case("scatterElements uint32 1D permutation of all positions", [0, 0, 0, 0], [4],
                                       "uint32", [2, 0, 3, 1], [4], "uint32", [4294967295, 1, 2147483648, 3]))
    cases.append(scatter_elements_case("scatterElements int64 [3,2] axis 0 negative indices", values("int64", 6),
                                       [3, 2], "int64", [-1, -3], [1, 2], "int32", [7, big(2**53 + 5)]))
    # Generated: random indices could collide (implementation-defined), so
    # each lane along axis 1 gets one index (indices size 1 on the axis).
    for i, (dt, it) in enumerate([("float32", "int32"), ("int64", "uint32")]):
        low = 0 if it == "uint32" else -6
        cases.append(generated(f"scatterElements {dt} generated [4,6,5] {it} one index per lane axis 1",
                               "scatterElements", [4, 6, 5], dt, 1000 + i,
                               [{"indices": "indices"}, {"updates": "updates"}], [4, 6, 5], options={"axis": 1},
                               extra_inputs={"indices": tensor(gen_indices(1010 + i, low, 5), [4, 1, 5], it),
                                             "updates": tensor(gen_data(1020 + i, dt), [4, 1, 5], dt)}))
    return cases


def scatter_nd_case(name, x, shape, dt, idx, idx_shape, idx_type, upd):
    k = idx_shape[-1]
    upd_shape = list(idx_shape[:-1]) + list(shape[k:])
    result = expected_scatter_nd(x, shape, idx, idx_shape, upd)
    extra = {**indices_input(idx, idx_shape, idx_type), "updates": tensor(upd, upd_shape, dt)}
    return one_op(name, "scatterND", x, shape, dt, [{"indices": "indices"}, {"updates": "updates"}], result,
                  extra_inputs=extra)


def scatter_nd_cases():
    cases = []
    index_types = ["int32", "uint32", "int64"]
    for k, dt in enumerate(DATA_TYPES):
        x = values(dt, 8)
        upd = list(reversed(values(dt, 8)))[:4]
        it = index_types[k % 3]
        idx = [1, 0, 0, 1] if it == "uint32" else [-1, 0, 0, -3]
        cases.append(scatter_nd_case(f"scatterND {dt} [2,2,2] {it} indices [2,2] full-width values", x, [2, 2, 2],
                                     dt, idx, [2, 2], it, upd))
    cases.append(scatter_nd_case("scatterND float32 spec example 1D", small_ints(8, 0), [8], "float32",
                                 [4, 3, 1, 7], [4, 1], "uint32", [-1, -2, -3, -4]))
    x = small_ints(16)
    cases.append(scatter_nd_case("scatterND int32 [4,4] rows", x, [4, 4], "int32", [0, 2], [2, 1], "int32",
                                 [-1, -2, -3, -4, -5, -6, -7, -8]))
    cases.append(scatter_nd_case("scatterND int32 [4,4] elements with negative indices", x, [4, 4], "int32",
                                 [-1, -1, 0, -4], [2, 2], "int64", [100, 200]))
    cases.append(scatter_nd_case("scatterND int32 1D 0D updates", [1, 2, 3], [3], "int32", [-2], [1], "int32", [9]))
    cases.append(scatter_nd_case("scatterND int32 out-of-range coordinates clamp", [0, 0, 0, 0], [2, 2], "int32",
                                 [7, -7], [1, 2], "int32", [5]))
    cases.append(scatter_nd_case("scatterND uint8 duplicate coordinates writing equal values", [1, 2, 3], [3],
                                 "uint8", [0, -3], [2, 1], "int32", [255, 255]))
    x = values("float16", 32)
    cases.append(scatter_nd_case("scatterND float16 5D indices [2,3]", x, [2, 2, 2, 2, 2], "float16",
                                 [1, 0, 1, 0, 1, 0], [2, 3], "uint32", values("float16", 8)))
    x = values("int64", 24)
    cases.append(scatter_nd_case("scatterND int64 [2,3,4] indices [1,1,2]", x, [2, 3, 4], "int64",
                                 [1, 2], [1, 1, 2], "int64", [big(2**62 + 1), -5, 0, big(-(2**62) - 1)]))
    cases.append(scatter_nd_case("scatterND uint32 [3] all positions", [0, 0, 0], [3], "uint32",
                                 [2, 0, 1], [3, 1], "uint32", [4294967295, 1, 2147483648]))
    for i, (dt, it) in enumerate([("float32", "int32"), ("uint64", "uint32")]):
        # One coordinate: no collisions possible.
        cases.append(generated(f"scatterND {dt} generated [4,5,6] {it} one coordinate", "scatterND", [4, 5, 6], dt,
                               1100 + i, [{"indices": "indices"}, {"updates": "updates"}], [4, 5, 6],
                               extra_inputs={"indices": tensor(gen_indices(1110 + i, 0, 3), [1, 1], it),
                                             "updates": tensor(gen_data(1120 + i, dt), [1, 5, 6], dt)}))
    return cases


def tile_cases():
    cases = []
    for dt in DATA_TYPES:
        x = values(dt, 4)
        cases.append(one_op(f"tile {dt} [2,2] repetitions [2,3] full-width values", "tile", x, [2, 2], dt,
                            [{"repetitions": [2, 3]}], expected_tile(x, [2, 2], [2, 3])))
    cases.append(one_op("tile float32 0D empty repetitions", "tile", [NAN], [], "float32", [{"repetitions": []}],
                        ([NAN], [])))
    cases.append(one_op("tile int32 1D repetitions [1]", "tile", [1, 2, 3], [3], "int32", [{"repetitions": [1]}],
                        ([1, 2, 3], [3])))
    cases.append(one_op("tile int32 1D constant repetitions [3]", "tile", [1, 2], [2], "int32",
                        [{"repetitions": [3]}], ([1, 2, 1, 2, 1, 2], [6]), constant=True))
    x = small_ints(6)
    cases.append(one_op("tile int32 [1,2,3] repetitions [2,1,2]", "tile", x, [1, 2, 3], "int32",
                        [{"repetitions": [2, 1, 2]}], expected_tile(x, [1, 2, 3], [2, 1, 2])))
    cases.append(one_op("tile uint32 4D repetitions [1,1,2,2]", "tile", [1, 2, 3, 4], [1, 1, 2, 2], "uint32",
                        [{"repetitions": [1, 1, 2, 2]}], expected_tile([1, 2, 3, 4], [1, 1, 2, 2], [1, 1, 2, 2])))
    x = values("int64", 4)
    cases.append(one_op("tile int64 5D repetitions [2,1,1,2,1]", "tile", x, [1, 2, 1, 1, 2], "int64",
                        [{"repetitions": [2, 1, 1, 2, 1]}], expected_tile(x, [1, 2, 1, 1, 2], [2, 1, 1, 2, 1])))
    x = values("float16", 3)
    cases.append(one_op("tile float16 [3,1] repetitions [1,4]", "tile", x, [3, 1], "float16",
                        [{"repetitions": [1, 4]}], expected_tile(x, [3, 1], [1, 4])))
    cases.append(one_op("tile uint8 1D repetitions [5]", "tile", [0, 255], [2], "uint8", [{"repetitions": [5]}],
                        ([0, 255] * 5, [10])))
    x = values("int8", 8)
    cases.append(one_op("tile int8 4D repetitions [3,1,1,2]", "tile", x, [1, 2, 2, 2], "int8",
                        [{"repetitions": [3, 1, 1, 2]}], expected_tile(x, [1, 2, 2, 2], [3, 1, 1, 2])))
    for i, dt in enumerate(["float32", "uint64", "int8"]):
        cases.append(generated(f"tile {dt} generated [3,4,5] repetitions [2,3,1]", "tile", [3, 4, 5], dt, 1200 + i,
                               [{"repetitions": [2, 3, 1]}], [6, 12, 5]))
    return cases


def reverse_cases():
    cases = []
    for dt in DATA_TYPES:
        x = values(dt, 8)
        cases.append(one_op(f"reverse {dt} [2,4] default axes full-width values", "reverse", x, [2, 4], dt, [],
                            expected_reverse(x, [2, 4], [0, 1])))
    cases.append(one_op("reverse float32 0D default axes", "reverse", [-0.0], [], "float32", [], ([-0.0], [])))
    cases.append(one_op("reverse float32 0D empty axes", "reverse", [1.5], [], "float32", [], ([1.5], []),
                        options={"axes": []}))
    x = small_ints(24)
    for axes in ([], [0], [2], [2, 0], [0, 1, 2]):
        cases.append(one_op(f"reverse int32 [2,3,4] axes {axes}", "reverse", x, [2, 3, 4], "int32", [],
                            expected_reverse(x, [2, 3, 4], axes), options={"axes": axes}))
    x = values("uint64", 24)
    cases.append(one_op("reverse uint64 4D axes [3,1]", "reverse", x, [3, 2, 1, 4], "uint64", [],
                        expected_reverse(x, [3, 2, 1, 4], [3, 1]), options={"axes": [3, 1]}))
    x = values("float16", 24)
    cases.append(one_op("reverse float16 5D default axes", "reverse", x, [1, 2, 3, 1, 4], "float16", [],
                        expected_reverse(x, [1, 2, 3, 1, 4], [0, 1, 2, 3, 4]), constant=True))
    for i, dt in enumerate(["float32", "int64", "uint32"]):
        cases.append(generated(f"reverse {dt} generated [5,6,7] axes [1,2]", "reverse", [5, 6, 7], dt, 1300 + i, [],
                               [5, 6, 7], options={"axes": [1, 2]}))
    return cases


def pad_cases():
    cases = []
    # value per type: in range, so the cast keeps it (out-of-range casts below)
    value = {"float32": NINF, "float16": 5.960464477539063e-08, "int32": -2147483648, "uint32": 4294967295,
             "int64": big(-(2**63)), "uint64": big(2**64 - 1), "int8": -128, "uint8": 255}
    for dt in DATA_TYPES:
        x = values(dt, 6)
        cases.append(one_op(f"pad {dt} [2,3] constant value full-width values", "pad", x, [2, 3], dt,
                            [{"beginningPadding": [1, 0]}, {"endingPadding": [0, 2]}],
                            expected_pad(x, [2, 3], [1, 0], [0, 2], "constant", value[dt]),
                            options={"value": value[dt]}))
    x = [1, 2, 3, 4, 5, 6]
    for mode in ("constant", "edge", "reflection"):
        options = {"mode": mode} if mode != "constant" else None
        cases.append(one_op(f"pad float32 spec example {mode}", "pad", x, [2, 3], "float32",
                            [{"beginningPadding": [1, 2]}, {"endingPadding": [1, 2]}],
                            expected_pad(x, [2, 3], [1, 2], [1, 2], mode, 0), options=options))
    cases.append(one_op("pad float32 0D", "pad", [2.5], [], "float32", [{"beginningPadding": []},
                                                                          {"endingPadding": []}], ([2.5], [])))
    cases.append(one_op("pad int32 edge padding larger than the input", "pad", [7, 8], [2], "int32",
                        [{"beginningPadding": [3]}, {"endingPadding": [4]}],
                        expected_pad([7, 8], [2], [3], [4], "edge"), options={"mode": "edge"}))
    x = values("uint64", 24)
    cases.append(one_op("pad uint64 [2,3,4] reflection maximum padding", "pad", x, [2, 3, 4], "uint64",
                        [{"beginningPadding": [1, 2, 0]}, {"endingPadding": [1, 0, 3]}],
                        expected_pad(x, [2, 3, 4], [1, 2, 0], [1, 0, 3], "reflection"),
                        options={"mode": "reflection"}))
    x = values("float16", 8)
    cases.append(one_op("pad float16 5D edge", "pad", x, [1, 2, 1, 2, 2], "float16",
                        [{"beginningPadding": [1, 0, 1, 0, 1]}, {"endingPadding": [0, 1, 1, 1, 0]}],
                        expected_pad(x, [1, 2, 1, 2, 2], [1, 0, 1, 0, 1], [0, 1, 1, 1, 0], "edge"),
                        options={"mode": "edge"}))
    # The MLNumber value is cast to the input's type (spec "cast"): integers
    # clamp and round half to even, floats overflow to infinity.
    for dt, given, cast in [("int8", 300, 127), ("uint8", -5, 0), ("int32", 2.5, 2), ("int32", NAN, 0),
                            ("uint32", 3700000000, 3700000000), ("float16", 1e6, INF),
                            ("int64", big(2**70), big(2**63 - 1)), ("uint8", 7.5, 8)]:
        cases.append(one_op(f"pad {dt} constant value {given} casts to {cast}", "pad", [1], [1], dt,
                            [{"beginningPadding": [1]}, {"endingPadding": [1]}], ([cast, 1, cast], [3]),
                            options={"value": given}))
    for i, (dt, mode) in enumerate([("float32", "reflection"), ("int64", "edge"), ("uint8", "constant")]):
        cases.append(generated(f"pad {dt} generated [4,5,6] {mode}", "pad", [4, 5, 6], dt, 1400 + i,
                               [{"beginningPadding": [3, 0, 2]}, {"endingPadding": [1, 4, 5]}], [8, 9, 13],
                               options={"mode": mode}))
    return cases


def graph_cases():
    cases = []
    # reshape -> transpose -> slice
    x = small_ints(24, 0)
    r = x  # reshape [2,3,4] -> [6,4] keeps the flat order
    t, t_shape = expected_transpose(r, [6, 4], [1, 0])
    s, s_shape = expected_slice(t, t_shape, [1, 0], [2, 6], [1, 5])
    cases.append(case("reshape, transpose, slice int32",
                      {"input": tensor(x, [2, 3, 4], "int32")},
                      [op("reshape", [{"input": "input"}, {"newShape": [6, 4]}], "reshaped"),
                       op("transpose", [{"input": "reshaped"}], "transposed"),
                       op("slice", [{"input": "transposed"}, {"starts": [1, 0]}, {"sizes": [2, 6]},
                                    {"options": {"strides": [1, 5]}}], "output")],
                      {"output": tensor(s, s_shape, "int32")}))
    # split -> concat in the other order (a rotation)
    x = values("uint64", 10)
    cases.append(case("split then concat in swapped order uint64",
                      {"input": tensor(x, [2, 5], "uint64")},
                      [op("split", [{"input": "input"}, {"splits": [2, 3]}, {"options": {"axis": 1}}], ["a", "b"]),
                       op("concat", [{"inputs": ["b", "a"]}, {"axis": 1}])],
                      {"output": tensor(x[2:5] + x[0:2] + x[7:10] + x[5:7], [2, 5], "uint64")}))
    # gather -> reshape -> tile
    x = values("float16", 6)
    g, _ = expected_gather(x, [3, 2], [2, 0], [2], 0)
    tl, tl_shape = expected_tile(g, [4], [2])
    cases.append(case("gather, reshape, tile float16",
                      {"input": tensor(x, [3, 2], "float16"), "indices": tensor([2, -3], [2], "int32", True)},
                      [op("gather", [{"input": "input"}, {"indices": "indices"}], "gathered"),
                       op("reshape", [{"input": "gathered"}, {"newShape": [4]}], "flat"),
                       op("tile", [{"input": "flat"}, {"repetitions": [2]}])],
                      {"output": tensor(tl, tl_shape, "float16")}))
    # pad -> reverse -> expand
    x = [-128, 5, 127]
    p, _ = expected_pad(x, [3], [2], [1], "reflection")
    rv, _ = expected_reverse(p, [6], [0])
    e, e_shape = expected_expand(rv, [6], [2, 6])
    cases.append(case("pad, reverse, expand int8",
                      {"input": tensor(x, [3], "int8")},
                      [op("pad", [{"input": "input"}, {"beginningPadding": [2]}, {"endingPadding": [1]},
                                  {"options": {"mode": "reflection"}}], "padded"),
                       op("reverse", [{"input": "padded"}], "reversed"),
                       op("expand", [{"input": "reversed"}, {"newShape": [2, 6]}])],
                      {"output": tensor(e, e_shape, "int8")}))
    # scatterND then gatherND reads the written values back
    x = small_ints(6, 0)
    sc, _ = expected_scatter_nd(x, [2, 3], [1, 2, 0, 0], [2, 2], [-1, -2])
    gn, gn_shape = expected_gather_nd(sc, [2, 3], [1, 2, 0, 0, 1, 1], [3, 2])
    cases.append(case("scatterND then gatherND int32",
                      {"input": tensor(x, [2, 3], "int32"), "where": tensor([1, 2, 0, 0], [2, 2], "int32", True),
                       "values": tensor([-1, -2], [2], "int32"),
                       "read": tensor([1, 2, 0, 0, 1, 1], [3, 2], "uint32", True)},
                      [op("scatterND", [{"input": "input"}, {"indices": "where"}, {"updates": "values"}], "written"),
                       op("gatherND", [{"input": "written"}, {"indices": "read"}])],
                      {"output": tensor(gn, gn_shape, "int32")}))
    # generated: transpose -> split -> concat
    cases.append(case("transpose, split, concat float32 generated",
                      {"input": tensor(gen_data(1500, "float32"), [4, 6, 5], "float32")},
                      [op("transpose", [{"input": "input"}, {"options": {"permutation": [2, 0, 1]}}], "t"),
                       op("split", [{"input": "t"}, {"splits": 3}, {"options": {"axis": 2}}], ["s0", "s1", "s2"]),
                       op("concat", [{"inputs": ["s2", "s0", "s1"]}, {"axis": 0}])],
                      {"output": descriptor_only([15, 4, 2], "float32")}))
    return cases


FILES = {
    "reshape": reshape_cases, "transpose": transpose_cases, "concat": concat_cases, "split": split_cases,
    "slice": slice_cases, "expand": expand_cases, "gather": gather_cases,
    "gather_elements": gather_elements_cases, "gather_nd": gather_nd_cases,
    "scatter_elements": scatter_elements_cases, "scatter_nd": scatter_nd_cases, "tile": tile_cases,
    "reverse": reverse_cases, "pad": pad_cases, "graphs": graph_cases,
}


def main() -> None:
    total = 0
    for stem, make in FILES.items():
        cases = make()
        write(stem, cases)
        total += len(cases)
        print(f"{stem}: {len(cases)} cases")
    print(f"total: {total}")


if __name__ == "__main__":
    main()
