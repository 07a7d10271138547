"""Generate cases/linalg/*.json: matmul, gemm, triangular.

Run: /work/venv/bin/python tools/cases/linalg.py
Hand cases carry expected values worked out by hand or with plain Python
(the triangular ones are the spec's own examples); generated ones omit them.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reduction import INF, NAN, big, case, gen, op, tensor, write  # noqa: E402



# Generated matmul/gemm inputs lie in [0, 1), as WPT's do: a sum of
# mixed-sign products can cancel toward zero, where the K*2-ULP budget (which
# is relative to the small result) is out of reach for any float32
# accumulation order, so such a case would fail every real backend for no
# fault of theirs.
SUMMED = {"low": 0, "high": 1}

def _matmul2d(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def _flat(m):
    return [x for row in m for x in row]


def matmul_cases() -> list[dict]:
    out = []
    a, b = [[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]
    for data_type in ("float32", "float16"):
        out.append(case(f"matmul {data_type} 2D x 2D (hand)",
                        {"a": tensor(_flat(a), [2, 2], data_type), "b": tensor(_flat(b), [2, 2], data_type)},
                        op("matmul", [{"a": "a"}, {"b": "b"}]),
                        {"output": tensor([19.0, 22.0, 43.0, 50.0], [2, 2], data_type)}))
    out.append(case("matmul float32 [2,3] x [3,1] (hand)",
                    {"a": tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3], "float32"), "b": tensor([1.0, 0.0, -1.0], [3, 1], "float32", constant=True)},
                    op("matmul", [{"a": "a"}, {"b": "b"}]), {"output": tensor([-2.0, -2.0], [2, 1], "float32")}))
    out.append(case("matmul float32 batch [2,1,2] x [2,1] broadcast (hand)",
                    {"a": tensor([1.0, 2.0, 3.0, 4.0], [2, 1, 2], "float32"), "b": tensor([1.0, 1.0], [2, 1], "float32")},
                    op("matmul", [{"a": "a"}, {"b": "b"}]), {"output": tensor([3.0, 7.0], [2, 1, 1], "float32")}))
    out.append(case("matmul float32 batch [1,2,2] x [3,2,1] both broadcast (hand)",
                    {"a": tensor([1.0, 0.0, 0.0, 1.0], [1, 2, 2], "float32"), "b": tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [3, 2, 1], "float32")},
                    op("matmul", [{"a": "a"}, {"b": "b"}]), {"output": tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [3, 2, 1], "float32")}))
    out.append(case("matmul float32 Infinity times 0 gives NaN",
                    {"a": tensor([INF, 1.0], [1, 2], "float32"), "b": tensor([0.0, 1.0], [2, 1], "float32")},
                    op("matmul", [{"a": "a"}, {"b": "b"}]), {"output": tensor([NAN], [1, 1], "float32")}))
    out.append(case("matmul float32 Infinity propagates",
                    {"a": tensor([INF, 1.0], [1, 2], "float32"), "b": tensor([2.0, 1.0], [2, 1], "float32")},
                    op("matmul", [{"a": "a"}, {"b": "b"}]), {"output": tensor([INF], [1, 1], "float32")}))
    out.append(case("matmul float16 result overflows to Infinity",
                    {"a": tensor([300.0, 300.0], [1, 2], "float16"), "b": tensor([300.0, 300.0], [2, 1], "float16")},
                    op("matmul", [{"a": "a"}, {"b": "b"}]), {"output": tensor([INF], [1, 1], "float16")}))
    seed = 900
    for shape_a, shape_b in (([4, 8], [8, 3]), ([1, 16], [16, 1]), ([2, 3, 5], [2, 5, 4]), ([3, 5], [2, 5, 2]),
                             ([2, 1, 3, 4], [1, 3, 4, 2]), ([2, 2, 1, 3, 4], [2, 1, 4, 5]), ([1, 2, 1, 2, 3, 2], [2, 1, 2, 2, 2])):
        for data_type in ("float32", "float16"):
            seed += 1
            out.append(case(f"matmul {data_type} {shape_a} x {shape_b} generated",
                            {"a": tensor(gen(seed, **SUMMED), shape_a, data_type), "b": tensor(gen(seed + 50, **SUMMED), shape_b, data_type, constant=seed % 2 == 0)},
                            op("matmul", [{"a": "a"}, {"b": "b"}])))
    out.append(case("matmul float32 K=300 generated",
                    {"a": tensor(gen(990), [3, 300], "float32"), "b": tensor(gen(991), [300, 2], "float32")},
                    op("matmul", [{"a": "a"}, {"b": "b"}])))
    # Multi-operator graphs.
    out.append(case("softmax of matmul float32 (hand)",
                    {"a": tensor([1.0, 0.0, 0.0, 1.0], [2, 2], "float32"), "b": tensor([0.0, 0.0, 5.0, 5.0], [2, 2], "float32")},
                    [op("matmul", [{"a": "a"}, {"b": "b"}], "logits"), op("softmax", [{"input": "logits"}, {"axis": 1}], "output")],
                    {"output": tensor([0.5, 0.5, 0.5, 0.5], [2, 2], "float32")}))
    out.append(case("reduceSum of matmul float32 (hand)",
                    {"a": tensor([1.0, 2.0, 3.0, 4.0], [2, 2], "float32"), "b": tensor([5.0, 6.0, 7.0, 8.0], [2, 2], "float32")},
                    [op("matmul", [{"a": "a"}, {"b": "b"}], "product"),
                     op("reduceSum", [{"input": "product"}, {"options": {"axes": [1]}}], "output")],
                    {"output": tensor([41.0, 93.0], [2], "float32")}))
    out.append(case("softmax of matmul float32 generated",
                    {"a": tensor(gen(992), [2, 4, 8], "float32"), "b": tensor(gen(993), [8, 6], "float32")},
                    [op("matmul", [{"a": "a"}, {"b": "b"}], "logits"), op("softmax", [{"input": "logits"}, {"axis": 2}], "output")]))
    out.append(case("matmul of layerNormalization float32 generated",
                    {"x": tensor(gen(994, "normal", mean=1, std=2), [3, 8], "float32"), "w": tensor(gen(995), [8, 4], "float32", constant=True)},
                    [op("layerNormalization", [{"input": "x"}], "normed"), op("matmul", [{"a": "normed"}, {"b": "w"}], "output")]))
    return out


def gemm_cases() -> list[dict]:
    out = []
    a, b = [[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]
    ab = _matmul2d(a, b)  # [[19, 22], [43, 50]]
    at = [list(r) for r in zip(*a)]
    bt = [list(r) for r in zip(*b)]

    def hand(label, options, expected, c=None, data_type="float32", a_data=a, b_data=b):
        inputs = {"a": tensor(_flat(a_data), [2, 2], data_type), "b": tensor(_flat(b_data), [2, 2], data_type)}
        if c is not None:
            inputs["c"] = tensor(c[0], c[1], data_type)
            options = {**options, "c": "c"}
        args = [{"a": "a"}, {"b": "b"}] + ([{"options": options}] if options else [])
        out.append(case(f"gemm {data_type} {label} (hand)", inputs, op("gemm", args), {"output": tensor(_flat(expected), [2, 2], data_type)}))

    hand("default options", {}, ab)
    hand("default options float16", {}, ab, data_type="float16")
    hand("aTranspose", {"aTranspose": True}, _matmul2d(at, b))
    hand("bTranspose", {"bTranspose": True}, _matmul2d(a, bt))
    hand("aTranspose and bTranspose", {"aTranspose": True, "bTranspose": True}, _matmul2d(at, bt))
    hand("alpha=2", {"alpha": 2.0}, [[2 * x for x in r] for r in ab])
    hand("c scalar beta=3 alpha=2", {"alpha": 2.0, "beta": 3.0}, [[2 * x + 3 for x in r] for r in ab], c=([1.0], []))
    hand("c [2] broadcast over rows", {}, [[x + y for x, y in zip(r, [10.0, 20.0])] for r in ab], c=([10.0, 20.0], [2]))
    hand("c [2,1] broadcast over columns", {}, [[x + y for x in r] for r, y in zip(ab, [10.0, 20.0])], c=([10.0, 20.0], [2, 1]))
    hand("c [1,2]", {"beta": 0.5}, [[x + 0.5 * y for x, y in zip(r, [2.0, 4.0])] for r in ab], c=([2.0, 4.0], [1, 2]))
    hand("c [2,2] beta=-1", {"beta": -1.0}, [[x - y for x, y in zip(r, cr)] for r, cr in zip(ab, [[1.0, 2.0], [3.0, 4.0]])], c=([1.0, 2.0, 3.0, 4.0], [2, 2]))
    hand("c given beta=0", {"beta": 0.0}, ab, c=([7.0, 7.0, 7.0, 7.0], [2, 2]))
    hand("alpha=0 keeps only c", {"alpha": 0.0}, [[1.0, 1.0], [1.0, 1.0]], c=([1.0], [1, 1]))
    # Non-square: a [2,3] (aTranspose false) x b [3,1].
    out.append(case("gemm float32 [2,3] x [3,1] c [1] (hand)",
                    {"a": tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3], "float32"), "b": tensor([1.0, 1.0, 1.0], [3, 1], "float32"),
                     "c": tensor([0.5], [1], "float32", constant=True)},
                    op("gemm", [{"a": "a"}, {"b": "b"}, {"options": {"c": "c"}}]),
                    {"output": tensor([6.5, 15.5], [2, 1], "float32")}))
    out.append(case("gemm float32 Infinity in c propagates",
                    {"a": tensor([1.0], [1, 1], "float32"), "b": tensor([1.0], [1, 1], "float32"), "c": tensor([INF], [], "float32")},
                    op("gemm", [{"a": "a"}, {"b": "b"}, {"options": {"c": "c"}}]), {"output": tensor([INF], [1, 1], "float32")}))
    seed = 1000
    for m, k, n, at_, bt_ in ((3, 4, 5, False, False), (4, 6, 2, True, False), (2, 8, 3, False, True), (5, 3, 4, True, True), (1, 32, 1, False, False), (6, 16, 7, True, True)):
        for data_type in ("float32", "float16"):
            seed += 1
            shape_a = [k, m] if at_ else [m, k]
            shape_b = [n, k] if bt_ else [k, n]
            c_shape = [[], [n], [m, 1], [1, n], [m, n], None][seed % 6]
            options = {"alpha": [1.0, 0.5, -2.0][seed % 3], "beta": [1.0, 0.25, 0.0][(seed // 3) % 3], "aTranspose": at_, "bTranspose": bt_}
            inputs = {"a": tensor(gen(seed, **SUMMED), shape_a, data_type), "b": tensor(gen(seed + 50, **SUMMED), shape_b, data_type)}
            if c_shape is not None:
                inputs["c"] = tensor(gen(seed + 100, **SUMMED), c_shape, data_type)
                options["c"] = "c"
            out.append(case(f"gemm {data_type} M={m} K={k} N={n} aT={at_} bT={bt_} c={c_shape} generated", inputs,
                            op("gemm", [{"a": "a"}, {"b": "b"}, {"options": options}])))
    out.append(case("reduceMean of gemm float32 generated",
                    {"a": tensor(gen(1090), [4, 6], "float32"), "b": tensor(gen(1091), [6, 3], "float32"), "c": tensor(gen(1092), [3], "float32")},
                    [op("gemm", [{"a": "a"}, {"b": "b"}, {"options": {"c": "c", "alpha": 0.5}}], "y"),
                     op("reduceMean", [{"input": "y"}, {"options": {"axes": [0]}}], "output")]))
    return out


def _tri(matrix, upper, diagonal):
    return [[x if ((j - i >= diagonal) if upper else (j - i <= diagonal)) else 0 for j, x in enumerate(row)]
            for i, row in enumerate(matrix)]


def triangular_cases() -> list[dict]:
    out = []
    # The spec's examples (#api-mlgraphbuilder-triangular), expected values copied from the spec.
    x = [7, 1, 2, 9, 4, 8, 2, 6, 3]
    spec_examples = [
        ("upper default", {}, [7, 1, 2, 0, 4, 8, 0, 0, 3]),
        ("upper diagonal=1", {"diagonal": 1}, [0, 1, 2, 0, 0, 8, 0, 0, 0]),
        ("upper diagonal=-1", {"diagonal": -1}, [7, 1, 2, 9, 4, 8, 0, 6, 3]),
        ("lower", {"upper": False}, [7, 0, 0, 9, 4, 0, 2, 6, 3]),
        ("lower diagonal=1", {"upper": False, "diagonal": 1}, [7, 1, 0, 9, 4, 8, 2, 6, 3]),
        ("lower diagonal=-1", {"upper": False, "diagonal": -1}, [0, 0, 0, 9, 0, 0, 2, 6, 0]),
    ]
    for label, options, expected in spec_examples:
        args = [{"input": "input"}] + ([{"options": options}] if options else [])
        out.append(case(f"triangular float32 {label} (spec example)", {"input": tensor([float(v) for v in x], [3, 3], "float32")},
                        op("triangular", args), {"output": tensor([float(v) for v in expected], [3, 3], "float32")}))
    out.append(case("triangular float32 lower batch of two (spec example)",
                    {"input": tensor([7.0, 1, 2, 9, 4, 8, 2, 6, 3, 1, 4, 9, 4, 5, 8, 3, 9, 1], [2, 3, 3], "float32")},
                    op("triangular", [{"input": "input"}, {"options": {"upper": False}}]),
                    {"output": tensor([7.0, 0, 0, 9, 4, 0, 2, 6, 3, 1, 0, 0, 4, 5, 0, 3, 9, 1], [2, 3, 3], "float32")}))
    m = [[1, 2, 3, 4], [5, 6, 7, 8]]  # non-square [2,4]
    for upper, diagonal in ((True, 2), (False, 1), (True, 5), (False, -3), (True, -5), (False, 4)):
        for data_type in ("int32", "uint8"):
            out.append(case(f"triangular {data_type} [2,4] upper={upper} diagonal={diagonal} (hand)",
                            {"input": tensor(_flat(m), [2, 4], data_type)},
                            op("triangular", [{"input": "input"}, {"options": {"upper": upper, "diagonal": diagonal}}]),
                            {"output": tensor(_flat(_tri(m, upper, diagonal)), [2, 4], data_type)}))
    extremes = {
        "int64": [2**63 - 1, -(2**63), 2**53 + 1, -3],
        "uint64": [2**64 - 1, 2**53 + 1, 2**63, 5],
        "uint32": [4294967295, 1, 2, 3],
        "int8": [-128, 127, -1, 1],
        "float16": [65504.0, 2.0**-24, -65504.0, INF],
    }
    for data_type, vals in extremes.items():
        mat = [vals[:2], vals[2:]]
        out.append(case(f"triangular {data_type} extremes lower (hand)", {"input": tensor([big(v) if isinstance(v, int) else v for v in vals], [2, 2], data_type)},
                        op("triangular", [{"input": "input"}, {"options": {"upper": False}}]),
                        {"output": tensor([big(v) if isinstance(v, int) else v for v in _flat(_tri(mat, False, 0))], [2, 2], data_type)}))
    out.append(case("triangular float32 NaN outside the kept part becomes 0",
                    {"input": tensor([1.0, NAN, NAN, 2.0], [2, 2], "float32")},
                    op("triangular", [{"input": "input"}, {"options": {"upper": True}}]),
                    {"output": tensor([1.0, NAN, 0.0, 2.0], [2, 2], "float32")}))
    seed = 1100
    for shape in ([4, 5], [3, 3, 4], [2, 2, 3, 3], [2, 1, 2, 4, 3]):
        for data_type, upper, diagonal in (("float32", True, 1), ("float16", False, -1), ("int64", True, -2), ("uint32", False, 0)):
            seed += 1
            data = gen(seed) if data_type.startswith("float") else gen(seed, "integers", low=0, high=1000)
            out.append(case(f"triangular {data_type} {len(shape)}D upper={upper} diagonal={diagonal} generated",
                            {"input": tensor(data, shape, data_type)},
                            op("triangular", [{"input": "input"}, {"options": {"upper": upper, "diagonal": diagonal}}])))
    return out


def main() -> None:
    write("linalg", "matmul", matmul_cases())
    write("linalg", "gemm", gemm_cases())
    write("linalg", "triangular", triangular_cases())


if __name__ == "__main__":
    main()
