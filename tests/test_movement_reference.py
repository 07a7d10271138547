"""Create steps and reference of the data-movement operators: validation
errors the spec's method steps throw, resolved defaults, exact values for
every data type (64-bit integers beyond 2^53 included), index clamping and
implementation-defined scatter collisions."""
from __future__ import annotations

import math

import numpy as np
import pytest

from webnn_harness.backends.reference.evaluate import evaluate
from webnn_harness.backends.reference.ops import movement as ref
from webnn_harness.spec.builder import build_graph
from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.opspec import SpecError, create
from webnn_harness.spec.opspec.movement import OPS as MOVEMENT_OPS, cast_number


def desc(shape, data_type="float32"):
    return TensorDesc(tuple(shape), data_type)


def run(op, inputs, arguments, outputs="out"):
    """Build a one-node graph the way a case does and evaluate it."""
    descs = {name: desc(value.shape, value.dtype.name) for name, value in inputs.items()}
    graph = build_graph(descs, {}, [{"name": op, "arguments": arguments, "outputs": outputs}], None)
    return graph, evaluate(graph, inputs)


# ---------------------------------------------------------------- create steps

INVALID = [
    ("reshape", {"input": desc([2, 3])}, {"newShape": [4, 2]}, "elements"),
    ("reshape", {"input": desc([2, 3])}, {"newShape": [-1, 3]}, "unsigned long"),
    ("reshape", {"input": desc([2, 3])}, {"newShape": [0, 6]}, "valid dimension"),
    ("transpose", {"input": desc([2, 3, 4])}, {"permutation": [0, 1]}, "rank"),
    ("transpose", {"input": desc([2, 3, 4])}, {"permutation": [0, 1, 3]}, "out of range"),
    ("transpose", {"input": desc([2, 3, 4])}, {"permutation": [0, 1, 1]}, "duplicates"),
    ("concat", {"inputs": (desc([2, 3]), desc([3, 3]))}, {"axis": 1}, "dimension 0"),
    ("concat", {"inputs": (desc([2, 3]), desc([2, 3, 1]))}, {"axis": 0}, "rank"),
    ("concat", {"inputs": (desc([2, 3]), desc([2, 3]))}, {"axis": 2}, "out of range"),
    ("concat", {"inputs": (desc([2, 3]), desc([2, 3], "int32"))}, {"axis": 0}, "data type"),
    ("concat", {"inputs": ()}, {"axis": 0}, "tensor count"),
    ("split", {"input": desc([6, 2])}, {"splits": [2, 3], "axis": 0}, "sum"),
    ("split", {"input": desc([6, 2])}, {"splits": [6, 0], "axis": 0}, "has a 0"),
    ("split", {"input": desc([6, 2])}, {"splits": 4, "axis": 0}, "evenly"),
    ("split", {"input": desc([6, 2])}, {"splits": 0, "axis": 0}, "tensor count"),
    ("split", {"input": desc([6, 2])}, {"splits": 2, "axis": 2}, "out of range"),
    ("slice", {"input": desc([4, 5])}, {"starts": [0, 3], "sizes": [4, 3], "strides": None}, "exceeds"),
    ("slice", {"input": desc([4, 5])}, {"starts": [0, 0], "sizes": [4, 0], "strides": None}, "has a 0"),
    ("slice", {"input": desc([4, 5])}, {"starts": [0], "sizes": [4], "strides": None}, "rank"),
    ("slice", {"input": desc([4, 5])}, {"starts": [0, 0], "sizes": [4, 5], "strides": [1, 0]}, "at least 1"),
    ("slice", {"input": desc([4, 5])}, {"starts": [0, 0], "sizes": [4, 5], "strides": [1]}, "strides"),
    ("slice", {"input": desc([4, 5])}, {"starts": [5, 0], "sizes": [1, 5], "strides": None}, "beyond"),
    ("expand", {"input": desc([3, 1])}, {"newShape": [1, 4]}, "unidirectionally"),  # ONNX would give [3,4]
    ("expand", {"input": desc([2, 3])}, {"newShape": [3]}, "lower rank"),
    ("expand", {"input": desc([1])}, {"newShape": [0]}, "valid dimension"),
    ("gather", {"input": desc([2, 3]), "indices": desc([2], "int32")}, {"axis": 2}, "out of range"),
    ("gatherElements", {"input": desc([2, 3]), "indices": desc([2, 2], "int32")}, {"axis": 0}, "except in dimension 0"),
    ("gatherND", {"input": desc([2, 3]), "indices": desc([4, 3], "int32")}, {}, "exceeds input rank"),
    ("scatterElements", {"input": desc([4, 3]), "indices": desc([2, 3], "int32"), "updates": desc([2, 2])},
     {"axis": 0}, "updates shape"),
    ("scatterND", {"input": desc([4, 3]), "indices": desc([2, 1], "int32"), "updates": desc([2, 2])}, {}, "updates shape"),
    ("tile", {"input": desc([2, 3])}, {"repetitions": [2]}, "rank"),
    ("tile", {"input": desc([2, 3])}, {"repetitions": [2, 0]}, "has a 0"),
    ("reverse", {"input": desc([2, 3])}, {"axes": [0, 0]}, "duplicates"),
    ("reverse", {"input": desc([2, 3])}, {"axes": [2]}, "out of range"),
    ("pad", {"input": desc([2, 3])}, {"beginningPadding": [1], "endingPadding": [1, 1], "mode": "constant", "value": 0},
     "rank"),
    ("pad", {"input": desc([2, 3])}, {"beginningPadding": [1, 2], "endingPadding": [1, 3], "mode": "reflection",
                                     "value": 0}, "reflection"),
    ("pad", {"input": desc([2, 3])}, {"beginningPadding": [2, 0], "endingPadding": [0, 0], "mode": "reflection",
                                     "value": 0}, "reflection"),
    ("pad", {"input": desc([2, 3])}, {"beginningPadding": [0, 0], "endingPadding": [0, 0], "mode": "symmetric",
                                     "value": 0}, "MLPaddingMode"),
]


@pytest.mark.parametrize("op, operands, attributes, message", INVALID, ids=[f"{c[0]}-{c[3]}" for c in INVALID])
def test_create_steps_throw(op, operands, attributes, message):
    with pytest.raises(SpecError, match=message):
        create(op, operands, attributes)


def test_index_operand_types_are_checked_by_the_limits_table():
    with pytest.raises(SpecError, match="indices data type"):
        create("gather", {"input": desc([3]), "indices": desc([1], "uint64")}, {"axis": 0})
    with pytest.raises(SpecError, match="updates data type"):
        create("scatterND", {"input": desc([3]), "indices": desc([1, 1], "int32"), "updates": desc([1], "float16")}, {})


def test_edge_padding_may_exceed_the_input_size():
    # Only "reflection" limits the padding; "edge" repeats the edge element.
    created = create("pad", {"input": desc([2, 1])}, {"beginningPadding": [3, 5], "endingPadding": [2, 0],
                                                     "mode": "edge", "value": 0})
    assert created.outputs[0].shape == (7, 6)


RESOLVED = [
    ("transpose", {"input": desc([2, 3, 4])}, {"permutation": None}, {"permutation": [2, 1, 0]}, [(4, 3, 2)]),
    ("transpose", {"input": desc([])}, {"permutation": None}, {"permutation": []}, [()]),
    ("reverse", {"input": desc([2, 3])}, {"axes": None}, {"axes": [0, 1]}, [(2, 3)]),
    ("reverse", {"input": desc([2, 3])}, {"axes": []}, {"axes": []}, [(2, 3)]),
    ("slice", {"input": desc([5, 7])}, {"starts": [1, 2], "sizes": [4, 5], "strides": None},
     {"strides": [1, 1]}, [(4, 5)]),
    ("slice", {"input": desc([5, 7])}, {"starts": [1, 2], "sizes": [4, 5], "strides": [3, 2]},
     {"strides": [3, 2]}, [(2, 3)]),  # ceil(4/3) = 2, ceil(5/2) = 3
    ("split", {"input": desc([6, 4])}, {"splits": 2, "axis": 1}, {"splits": [2, 2]}, [(6, 2), (6, 2)]),
    ("split", {"input": desc([6, 4])}, {"splits": [1, 5], "axis": 0}, {"splits": [1, 5]}, [(1, 4), (5, 4)]),
    ("pad", {"input": desc([2, 3], "int8")}, {"beginningPadding": [1, 0], "endingPadding": [0, 2],
                                             "mode": "constant", "value": 300.7}, {"value": 127}, [(3, 5)]),
    ("pad", {"input": desc([2], "float16")}, {"beginningPadding": [1], "endingPadding": [0],
                                             "mode": "constant", "value": 70000}, {"value": math.inf}, [(3,)]),
    ("gather", {"input": desc([4, 3]), "indices": desc([2, 5], "int64")}, {"axis": 1}, {"axis": 1}, [(4, 2, 5)]),
    ("gatherND", {"input": desc([2, 3, 4]), "indices": desc([5, 2], "uint32")}, {}, {}, [(5, 4)]),
    ("expand", {"input": desc([])}, {"newShape": [2, 3]}, {"newShape": [2, 3]}, [(2, 3)]),
    ("concat", {"inputs": (desc([2, 1]), desc([2, 4]), desc([2, 2]))}, {"axis": 1}, {"axis": 1}, [(2, 7)]),
]


@pytest.mark.parametrize("op, operands, attributes, expected_attributes, shapes", RESOLVED,
                         ids=[c[0] for c in RESOLVED])
def test_defaults_resolved_and_output_shapes(op, operands, attributes, expected_attributes, shapes):
    created = create(op, operands, attributes)
    assert set(created.attributes) == set(attributes)
    for key, value in expected_attributes.items():
        assert created.attributes[key] == value
    assert [o.shape for o in created.outputs] == shapes


@pytest.mark.parametrize("value, data_type, expected", [
    (float("nan"), "int32", 0),
    (2.5, "int32", 2),  # round half to even
    (-3.5, "int8", -4),
    (-1, "uint8", 0),  # clamped, not wrapped
    (4e9, "uint32", 4_000_000_000),  # the spec's "signed" for uint32 would clamp to 2^31-1
    (2**64, "uint64", 2**64 - 1),
    (-(2**63) - 5, "int64", -(2**63)),
    (2**53 + 1, "int64", 2**53 + 1),  # exact, no float64 detour
    (65520.0, "float16", math.inf),  # rounds up past the largest float16
    (65519.0, "float16", 65504.0),
    (4e-8, "float16", 2.0**-24),  # nearest is the smallest subnormal
    (2e-8, "float16", 0.0),  # below half of it
    (float("-inf"), "int8", -128),
])
def test_cast_number(value, data_type, expected):
    got = cast_number(value, data_type)
    assert got == expected
    assert type(got) is (float if data_type.startswith("float") else int)


def test_every_movement_op_has_an_exact_budget():
    from webnn_harness.spec.opspec.base import Budget

    for op, spec in MOVEMENT_OPS.items():
        assert spec.tolerance(None, {}) == Budget("ULP", 0), op


# ------------------------------------------------------------------- reference

BIG = [2**63 - 1, -(2**63), 2**53 + 1, -(2**53) - 3]
UBIG = [2**64 - 1, 2**63, 2**53 + 1, 7]


@pytest.mark.parametrize("data_type, values", [("int64", BIG), ("uint64", UBIG)])
@pytest.mark.parametrize("op, arguments, expected", [
    ("reshape", [{"input": "x"}, {"newShape": [2, 2]}], lambda a, b, c, d: [[a, b], [c, d]]),
    ("transpose", [{"input": "x"}], lambda a, b, c, d: [a, b, c, d]),
    ("reverse", [{"input": "x"}], lambda a, b, c, d: [d, c, b, a]),
    ("tile", [{"input": "x"}, {"repetitions": [2]}], lambda a, b, c, d: [a, b, c, d, a, b, c, d]),
    ("expand", [{"input": "x"}, {"newShape": [2, 4]}], lambda a, b, c, d: [[a, b, c, d]] * 2),
    ("slice", [{"input": "x"}, {"starts": [1]}, {"sizes": [3]}, {"options": {"strides": [2]}}],
     lambda a, b, c, d: [b, d]),
    ("pad", [{"input": "x"}, {"beginningPadding": [1]}, {"endingPadding": [2]}, {"options": {"mode": "reflection"}}],
     lambda a, b, c, d: [b, a, b, c, d, c, b]),
    ("pad", [{"input": "x"}, {"beginningPadding": [2]}, {"endingPadding": [1]}, {"options": {"mode": "edge"}}],
     lambda a, b, c, d: [a, a, a, b, c, d, d]),
])
def test_64_bit_values_are_copied_exactly(data_type, values, op, arguments, expected):
    x = np.array(values, dtype=data_type)
    _, outs = run(op, {"x": x}, arguments)
    got = outs["out"].values
    assert got.dtype == x.dtype
    assert got.tolist() == expected(*values)


def test_pad_constant_keeps_a_64_bit_value_exact():
    x = np.array([1, 2], dtype="uint64")
    graph, outs = run("pad", {"x": x}, [{"input": "x"}, {"beginningPadding": [1]}, {"endingPadding": [1]},
                                       {"options": {"value": {"bigint": str(2**64 - 2)}}}])
    assert [int(v) for v in outs["out"].values] == [2**64 - 2, 1, 2, 2**64 - 2]
    assert graph.nodes[0].attributes["value"] == 2**64 - 2


def test_gather_scatter_with_64_bit_data_and_int64_indices():
    x = np.array([[2**63 - 1, 1], [-(2**63), 2**53 + 1]], dtype="int64")
    i = np.array([1, -1], dtype="int64")
    _, outs = run("gather", {"x": x, "i": i}, [{"input": "x"}, {"indices": "i"}, {"options": {"axis": 1}}])
    assert outs["out"].values.tolist() == [[1, 1], [2**53 + 1, 2**53 + 1]]
    u = np.array([[2**53 + 3], [-(2**62)]], dtype="int64")
    j = np.array([[0], [1]], dtype="int32")
    _, outs = run("scatterElements", {"x": x, "j": j, "u": u},
                  [{"input": "x"}, {"indices": "j"}, {"updates": "u"}, {"options": {"axis": 1}}])
    assert outs["out"].values.tolist() == [[2**53 + 3, 1], [-(2**63), -(2**62)]]


def test_float_specials_survive_float64_round_trip():
    sub = np.float16(2.0**-24)  # smallest float16 subnormal
    x = np.array([np.nan, np.inf, -np.inf, -0.0, sub, 65504], dtype="float16")
    _, outs = run("reverse", {"x": x}, [{"input": "x"}])
    got = outs["out"].values
    assert got.dtype == np.float16
    assert got.view(np.uint16).tolist() == x[::-1].view(np.uint16).tolist()  # -0 and NaN bits too


def test_gather_clamps_out_of_range_and_wraps_negative_indices():
    x = np.arange(12, dtype=np.float64).reshape(4, 3)
    idx = np.array([-1, -4, -5, 3, 4, 100, -100], dtype=np.int64)
    assert ref.gather(x, idx, axis=0)[:, 0].tolist() == [9, 0, 0, 9, 9, 9, 0]
    u = np.array([0, 2, 7, 2**32 - 1], dtype=np.uint32)
    assert ref.gather(x, u, axis=1)[0].tolist() == [0, 2, 2, 2]
    nd = np.array([[-1, -1], [5, -9]], dtype=np.int32)
    assert ref.gatherND(x, nd).tolist() == [11, 9]


def test_spec_examples():
    """The worked examples in the spec's gatherElements, gatherND,
    scatterElements, scatterND and pad sections."""
    x = np.array([[0, 1, 2], [10, 11, 12], [20, 21, 22], [30, 31, 32]], dtype=np.float64)
    assert ref.gatherElements(x, np.array([[3, 1, 1], [2, 0, 3]], np.uint32), axis=0).tolist() == \
        [[30, 11, 12], [20, 1, 32]]
    assert ref.gatherElements(x, np.array([[2], [1], [0], [2]], np.uint32), axis=1).tolist() == \
        [[2], [11], [20], [32]]
    assert ref.scatterElements(x, np.array([[3, 1, 1], [2, 0, 3]], np.uint32),
                               np.array([[-1, -2, -3], [-4, -5, -6]], float), axis=0).tolist() == \
        [[0, -5, 2], [10, -2, -3], [-4, 21, 22], [-1, 31, -6]]
    y = np.arange(8, dtype=np.float64).reshape(2, 2, 2)
    assert ref.gatherND(y, np.array([[0, 1], [1, 0]], np.uint32)).tolist() == [[2, 3], [4, 5]]
    assert ref.scatterND(np.arange(8.0), np.array([[4], [3], [1], [7]], np.uint32),
                         np.array([-1, -2, -3, -4], float)).tolist() == [0, -3, 2, -2, -1, 5, 6, -4]
    p = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float64)
    args = dict(beginningPadding=[1, 2], endingPadding=[1, 2], value=0)
    assert ref.pad(p, mode="edge", **args).tolist() == [[1, 1, 1, 2, 3, 3, 3]] * 2 + [[4, 4, 4, 5, 6, 6, 6]] * 2
    assert ref.pad(p, mode="reflection", **args).tolist() == [[6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1]] * 2
    assert ref.pad(p, mode="constant", **args).tolist()[1] == [0, 0, 1, 2, 3, 0, 0]


def test_scatter_duplicates_with_different_values_are_implementation_defined():
    x = np.zeros(4, dtype=np.int32)
    idx = np.array([[1], [3], [-3]], dtype=np.int32)  # -3 is 1 again
    result = ref.scatterND(x, idx, np.array([5, 6, 7], dtype=np.int32))
    assert result.undefined.tolist() == [False, True, False, False]
    assert result.values[3] == 6 and result.values[0] == 0
    same = ref.scatterND(x, idx, np.array([5, 6, 5], dtype=np.int32))
    assert isinstance(same, np.ndarray) and same.tolist() == [0, 5, 0, 6]  # agreeing duplicates are defined


def test_scatter_elements_clamped_collision_is_implementation_defined():
    x = np.zeros((1, 3))
    result = ref.scatterElements(x, np.array([[2, 9]], np.int64), np.array([[1.0, 2.0]]), axis=1)
    assert result.undefined.tolist() == [[False, False, True]]


def test_implementation_defined_mask_reaches_the_evaluator_output():
    x = np.zeros(3, dtype=np.float32)
    i = np.array([[0], [0]], dtype=np.int32)
    u = np.array([1, 2], dtype=np.float32)
    _, outs = run("scatterND", {"x": x, "i": i, "u": u}, [{"input": "x"}, {"indices": "i"}, {"updates": "u"}])
    assert outs["out"].undefined.tolist() == [True, False, False]
    assert "duplicate" in outs["out"].reason


def test_split_returns_a_sequence_in_order():
    x = np.arange(10, dtype=np.uint8).reshape(5, 2)
    graph, outs = run("split", {"x": x}, [{"input": "x"}, {"splits": [1, 4]}], outputs=["a", "b"])
    assert outs["a"].values.tolist() == [[0, 1]]
    assert outs["b"].values.tolist() == [[2, 3], [4, 5], [6, 7], [8, 9]]


def test_multi_operator_graph():
    x = np.arange(24, dtype=np.int8).reshape(2, 3, 4) - 12
    descs = {"x": desc(x.shape, "int8")}
    ops = [
        {"name": "reshape", "arguments": [{"input": "x"}, {"newShape": [6, 4]}], "outputs": "r"},
        {"name": "transpose", "arguments": [{"input": "r"}], "outputs": "t"},
        {"name": "slice", "arguments": [{"input": "t"}, {"starts": [1, 0]}, {"sizes": [2, 6]},
                                        {"options": {"strides": [1, 5]}}], "outputs": "s"},
    ]
    graph = build_graph(descs, {}, ops, None)
    out = evaluate(graph, {"x": x})["s"].values
    # t[i][j] = r[j][i] = x.flat[4*j + i] - : rows 1..2, columns 0 and 5
    assert out.tolist() == [[1 - 12, 21 - 12], [2 - 12, 22 - 12]]
