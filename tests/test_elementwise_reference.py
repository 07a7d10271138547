"""Elementwise family: the spec's create steps, the float64 reference on edge
values, the tolerance table, and the corpus files."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from webnn_harness.backends.reference.evaluate import evaluate
from webnn_harness.backends.reference.ops import OPS, ImplementationDefined
from webnn_harness.backends.reference.ops import elementwise as ref
from webnn_harness.spec.builder import FieldError, build_graph
from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.opspec import create
from webnn_harness.spec.opspec import elementwise as spec
from webnn_harness.spec.opspec.base import Budget, SpecError

ALL_OPS = (
    "add sub mul div max min pow equal notEqual greater greaterOrEqual lesser lesserOrEqual logicalNot "
    "logicalAnd logicalOr logicalXor isNaN isInfinite abs neg ceil cos erf exp floor log reciprocal roundEven "
    "sin sqrt tan identity sign cast clamp elu gelu hardSigmoid hardSwish leakyRelu linear relu sigmoid "
    "softplus softsign tanh prelu where"
).split()
CORPUS = Path(__file__).resolve().parents[1] / "cases" / "elementwise"


def d(shape, data_type="float32"):
    return TensorDesc(tuple(shape), data_type)


def run_graph(op, inputs: dict, arguments: list, options=None):
    """Build a one-node graph as a case file would, evaluate it with the
    reference (float64 compute, rounded once to the output type)."""
    args = [{k: k} for k in inputs] + arguments + ([{"options": options}] if options else [])
    graph = build_graph({k: d(v.shape, v.dtype.name) for k, v in inputs.items()}, {},
                        [{"name": op, "arguments": args, "outputs": "out"}], ["out"])
    return evaluate(graph, inputs)["out"]


def u(result):
    """Values and mask of a reference op result."""
    if isinstance(result, ImplementationDefined):
        return result.values, result.undefined
    return np.asarray(result), None


# --- tables ------------------------------------------------------------------


def test_every_op_has_create_reference_and_budget():
    for op in ALL_OPS:
        assert op in spec.OPS, op
        assert op in OPS, op


@pytest.mark.parametrize("op, data_type, expected", [
    ("add", "float32", Budget("ULP", 1)), ("div", "float16", Budget("ULP", 2)),
    ("sigmoid", "float32", Budget("ULP", 34)), ("sigmoid", "float16", Budget("ULP", 10)),
    ("cos", "float32", Budget("ATOL", 2**-10)), ("cos", "float16", Budget("ATOL", 2**-7)),
    ("sin", "float16", Budget("ATOL", 1 / 512)), ("exp", "float32", Budget("ULP", 32)),
    ("exp", "float16", Budget("ULP", 1)), ("pow", "float16", Budget("ULP", 2)),
    ("log", "float16", Budget("ATOL", 1 / 1024)), ("leakyRelu", "float16", Budget("ULP", 2)),
    ("relu", "float32", Budget("ULP", 0)), ("roundEven", "float16", Budget("ULP", 0)),
])
def test_tolerance_follows_wpt(op, data_type, expected):
    node = type("N", (), {"outputs": ("y",), "op": op, "attributes": {}})()
    assert spec.OPS[op].tolerance(node, {"y": d([2], data_type)}) == expected


# --- create steps --------------------------------------------------------------


def test_binary_broadcasts_bidirectionally():
    out = create("add", {"a": d([2, 1, 3]), "b": d([4, 1])}, {}).outputs[0]
    assert out == d([2, 4, 3])
    assert create("pow", {"a": d([]), "b": d([1, 2, 1, 2, 3])}, {}).outputs[0].shape == (1, 2, 1, 2, 3)


def test_binary_rejects_bad_broadcast_and_mixed_types():
    with pytest.raises(SpecError, match="broadcast"):
        create("sub", {"a": d([2, 3]), "b": d([2])}, {})
    with pytest.raises(SpecError):
        create("mul", {"a": d([2]), "b": d([2], "float16")}, {})


def test_comparisons_output_uint8_and_broadcast():
    out = create("greaterOrEqual", {"a": d([3, 1], "int64"), "b": d([4], "int64")}, {}).outputs[0]
    assert out == d([3, 4], "uint8")


def test_logical_ops_accept_only_uint8():
    with pytest.raises(SpecError):
        create("logicalAnd", {"a": d([2]), "b": d([2])}, {})
    with pytest.raises(SpecError):
        create("logicalNot", {"a": d([2], "int8")}, {})
    assert create("logicalXor", {"a": d([2, 1], "uint8"), "b": d([3], "uint8")}, {}).outputs[0] == d([2, 3], "uint8")


def test_unary_data_type_limits():
    with pytest.raises(SpecError):
        create("abs", {"input": d([2], "uint32")}, {})
    with pytest.raises(SpecError):
        create("exp", {"input": d([2], "int32")}, {})
    assert create("neg", {"input": d([2], "int64")}, {}).outputs[0] == d([2], "int64")
    assert create("identity", {"input": d([], "uint64")}, {}).outputs[0] == d([], "uint64")


def test_is_nan_follows_the_limits_table_for_integers():
    # The tensor-limits table allows any data type (see the create steps' docstring).
    assert create("isNaN", {"a": d([2], "int32")}, {}).outputs[0] == d([2], "uint8")


def test_cast_output_takes_the_target_type():
    created = create("cast", {"input": d([2, 3], "float32")}, {"dataType": "uint64"})
    assert created.outputs[0] == d([2, 3], "uint64")
    assert created.attributes == {"dataType": "uint64"}
    with pytest.raises(SpecError):
        create("cast", {"input": d([2])}, {"dataType": "float64"})


def test_cast_from_a_wpt_case_with_key_type():
    # WPT writes the target type as {"type": ...}: arguments are positional.
    graph = build_graph({"x": d([2])}, {}, [{"name": "cast", "arguments": [{"input": "x"}, {"type": "int8"}], "outputs": "y"}], ["y"])
    assert graph.descs["y"] == d([2], "int8")
    assert graph.nodes[0].attributes == {"dataType": "int8"}


def test_clamp_defaults_and_casting():
    assert create("clamp", {"input": d([2])}, {"minValue": None, "maxValue": None}).attributes == \
        {"minValue": -math.inf, "maxValue": math.inf}
    assert create("clamp", {"input": d([2], "int8")}, {"minValue": None, "maxValue": None}).attributes == \
        {"minValue": -128, "maxValue": 127}
    # ConvertToInt: clamp to the range, round half to even.
    assert create("clamp", {"input": d([2], "int32")}, {"minValue": -2.5, "maxValue": 3.5}).attributes == \
        {"minValue": -2, "maxValue": 4}
    # uint32 bounds above the signed maximum survive (the spec's "signed" for uint32 is read as a typo).
    assert create("clamp", {"input": d([2], "uint32")}, {"minValue": 0, "maxValue": 4294967290}).attributes["maxValue"] == 4294967290
    assert create("clamp", {"input": d([2], "uint64")}, {"minValue": 2**63 + 1, "maxValue": None}).attributes == \
        {"minValue": 2**63 + 1, "maxValue": 2**64 - 1}
    assert create("clamp", {"input": d([2], "float16")}, {"minValue": 0.1, "maxValue": 70000}).attributes == \
        {"minValue": 0.0999755859375, "maxValue": math.inf}


def test_clamp_min_greater_than_max_throws_after_casting():
    with pytest.raises(SpecError, match="greater than maxValue"):
        create("clamp", {"input": d([2])}, {"minValue": 2, "maxValue": 1})
    # Both cast to 0 for uint8: equal, no error.
    assert create("clamp", {"input": d([2], "uint8")}, {"minValue": -5, "maxValue": -3}).attributes == \
        {"minValue": 0, "maxValue": 0}
    # NaN compares false: no error.
    create("clamp", {"input": d([2])}, {"minValue": math.nan, "maxValue": 1.0})


def test_activation_options_are_cast_to_the_input_type():
    assert create("leakyRelu", {"input": d([2], "float16")}, {"alpha": 0.01}).attributes == {"alpha": 0.01000213623046875}
    assert create("elu", {"input": d([2])}, {"alpha": 0.1}).attributes == {"alpha": float(np.float32(0.1))}
    assert create("linear", {"input": d([2])}, {"alpha": 1.0, "beta": 0.0}).attributes == {"alpha": 1.0, "beta": 0.0}


def test_prelu_broadcasts_slope_and_input_both_ways():
    assert create("prelu", {"input": d([3]), "slope": d([2, 3])}, {}).outputs[0] == d([2, 3])
    assert create("prelu", {"input": d([2, 1]), "slope": d([3])}, {}).outputs[0] == d([2, 3])
    with pytest.raises(SpecError):
        create("prelu", {"input": d([2, 3]), "slope": d([2])}, {})
    with pytest.raises(SpecError):
        create("prelu", {"input": d([3]), "slope": d([3], "float16")}, {})
    with pytest.raises(SpecError):
        create("prelu", {"input": d([3], "uint8"), "slope": d([3], "uint8")}, {})


def test_where_broadcasts_three_ways():
    out = create("where", {"condition": d([2, 1, 1], "uint8"), "trueValue": d([3, 1], "int64"),
                           "falseValue": d([4], "int64")}, {}).outputs[0]
    assert out == d([2, 3, 4], "int64")
    with pytest.raises(SpecError):
        create("where", {"condition": d([2], "float32"), "trueValue": d([2]), "falseValue": d([2])}, {})
    with pytest.raises(SpecError):
        create("where", {"condition": d([2], "uint8"), "trueValue": d([2]), "falseValue": d([2], "int32")}, {})
    with pytest.raises(SpecError):
        create("where", {"condition": d([3], "uint8"), "trueValue": d([2]), "falseValue": d([2])}, {})


# --- reference: integers ----------------------------------------------------------


def test_int_div_truncates_toward_zero():
    a = np.array([7, -7, 7, -7, -1, 0], np.int32)
    b = np.array([2, 2, -2, -2, 3, -5], np.int32)
    values, mask = u(ref.div(a, b))
    assert values.tolist() == [3, -3, -3, 3, 0, 0] and mask is None


def test_int_div_by_zero_and_min_by_minus_one_are_implementation_defined():
    values, mask = u(ref.div(np.array([5, -128, 9], np.int8), np.array([0, -1, 4], np.int8)))
    assert mask.tolist() == [True, True, False] and values[2] == 2


def test_int64_div_beyond_2_pow_53_is_exact():
    values, _ = u(ref.div(np.array([2**63 - 1, -(2**53) - 1], np.int64), np.array([2, -3], np.int64)))
    assert values.tolist() == [4611686018427387903, 3002399751580331]


def test_integer_arithmetic_wraps():
    assert ref.add(np.array([127], np.int8), np.array([1], np.int8)).tolist() == [-128]
    assert ref.sub(np.array([0], np.uint64), np.array([1], np.uint64)).tolist() == [2**64 - 1]
    assert ref.mul(np.array([2**32], np.int64), np.array([2**31], np.int64)).tolist() == [-(2**63)]
    assert ref.abs_(np.array([-128, -5], np.int8)).tolist() == [-128, 5]
    assert ref.neg(np.array([-(2**63)], np.int64)).tolist() == [-(2**63)]


def test_int64_beyond_2_pow_53_stays_exact():
    big = np.array([2**53], np.int64)
    assert ref.add(big, np.array([1], np.int64)).tolist() == [2**53 + 1]
    assert ref.greater(np.array([2**53 + 1], np.int64), big).tolist() == [1]
    assert ref.greater(np.array([2**63], np.uint64), np.array([1], np.uint64)).tolist() == [1]


def test_int_pow_wraps_and_negative_exponents_are_undefined():
    values, mask = u(ref.pow_(np.array([3, 2, 2], np.int8), np.array([5, 7, -1], np.int8)))
    assert values[:2].tolist() == [-13, -128] and mask.tolist() == [False, False, True]
    assert ref.pow_(np.array([3], np.int64), np.array([39], np.int64)).tolist() == [3**39]


# --- reference: cast --------------------------------------------------------------


def test_cast_int_to_int_keeps_low_bits():
    assert ref.cast(np.array([-1, 300, -129], np.int32), "uint8").tolist() == [255, 44, 127]
    assert ref.cast(np.array([2**64 - 1, 2**63], np.uint64), "int64").tolist() == [-1, -(2**63)]
    assert ref.cast(np.array([2**53 + 1], np.int64), "int32").tolist() == [1]


def test_cast_float_to_int_truncates_and_marks_out_of_range():
    values, mask = u(ref.cast(np.array([2.7, -2.7, 127.9, 128.0, -129.0, np.nan, np.inf]), "int8"))
    assert values[:3].tolist() == [2, -2, 127]
    assert mask.tolist() == [False, False, False, True, True, True, True]
    values, mask = u(ref.cast(np.array([2.0**63, -(2.0**63)]), "int64"))  # 2^63 is out, -2^63 in
    assert mask.tolist() == [True, False] and values[1] == -(2**63)
    values, mask = u(ref.cast(np.array([-0.5, -1.0]), "uint8"))  # -0.5 truncates to 0: in range
    assert values[0] == 0 and mask.tolist() == [False, True]


def test_cast_int64_to_float32_rounds_once():
    n = 2**53 + 2**29 + 1  # through float64 it would tie and round down to 2^53
    assert float(ref.cast(np.array([n], np.int64), "float32")[0]) == 2.0**53 + 2.0**30
    assert float(ref.cast(np.array([2**64 - 1], np.uint64), "float32")[0]) == 2.0**64


def test_cast_to_float16_rounds_in_the_caller():
    out = run_graph("cast", {"x": np.array([65519.9921875, 65520.0, 1.00048828125, 3e-8], np.float32)}, [{"dataType": "float16"}])
    assert out.values.dtype == np.float16
    assert out.values.tolist() == [65504.0, math.inf, 1.0, 2.0**-24]
    out = run_graph("cast", {"x": np.array([2049, 2051, 70000], np.int32)}, [{"dataType": "float16"}])
    assert out.values.tolist() == [2048.0, 2052.0, math.inf]


# --- reference: floats and float16 ------------------------------------------------


def test_float16_results_round_once():
    out = run_graph("add", {"a": np.array([65504, 2.0**-24], np.float16), "b": np.array([32, -(2.0**-24)], np.float16)}, [])
    assert out.values.dtype == np.float16 and out.values.tolist() == [math.inf, 0.0]
    out = run_graph("leakyRelu", {"x": np.array([-100.0], np.float16)}, [], {"alpha": 0.25})
    assert out.values.tolist() == [-25.0]


def test_sign_of_nan_and_zero_is_zero():
    assert ref.sign(np.array([np.nan, 0.0, -0.0, -3.0, np.inf])).tolist() == [0.0, 0.0, 0.0, -1.0, 1.0]
    assert ref.sign(np.array([-128, 0, 5], np.int8)).tolist() == [-1, 0, 1]


def test_logical_ops_treat_non_zero_as_true():
    a, b = np.array([0, 2, 255, 0], np.uint8), np.array([0, 4, 0, 1], np.uint8)
    assert ref.logicalAnd(a, b).tolist() == [0, 1, 0, 0]
    assert ref.logicalXor(a, b).tolist() == [0, 0, 1, 1]
    assert ref.logicalNot(a).tolist() == [1, 0, 0, 1]
    assert ref.logicalOr(a, b).dtype == np.uint8


def test_is_nan_and_is_infinite():
    x = np.array([np.nan, np.inf, -np.inf, 0.0])
    assert ref.isNaN(x).tolist() == [1, 0, 0, 0] and ref.isInfinite(x).tolist() == [0, 1, 1, 0]
    assert ref.isNaN(np.array([-128, 127], np.int8)).tolist() == [0, 0]


def test_comparisons_with_nan_and_signed_zero():
    a, b = np.array([np.nan, 0.0, np.nan]), np.array([np.nan, -0.0, 1.0])
    assert ref.equal(a, b).tolist() == [0, 1, 0]
    assert ref.notEqual(a, b).tolist() == [1, 0, 1]
    assert ref.greaterOrEqual(a, b).tolist() == [0, 1, 0]


def test_round_even_ties_to_even():
    x = np.array([0.1, 0.9, 1.1, 1.9, -3.5, -2.5, -1.5, 1.5, 2.5, 3.5])  # the spec's example
    assert ref.roundEven(x).tolist() == [0.0, 1.0, 1.0, 2.0, -4.0, -2.0, -2.0, 2.0, 2.0, 4.0]


def test_erf_and_gelu_known_values():
    assert ref.erf(np.array([0.0, 1.0, -np.inf]))[1] == pytest.approx(0.8427007929497149, abs=1e-15)
    gelu = ref.gelu(np.array([1.0, -1.0, -10.0, 0.0]))
    assert gelu[:2] == pytest.approx([0.8413447460685429, -0.15865525393145707], rel=1e-14)
    assert gelu[2] == pytest.approx(-7.6198530241605e-23, rel=1e-12)  # no cancellation to 0
    assert ref.erf(np.float64(0.5)).shape == ()


def test_max_min_relu_clamp_nan_are_implementation_defined():
    _, mask = u(ref.max_(np.array([np.nan, 1.0]), np.array([1.0, 2.0])))
    assert mask.tolist() == [True, False]
    _, mask = u(ref.relu(np.array([np.nan, -1.0])))
    assert mask.tolist() == [True, False]
    values, mask = u(ref.clamp(np.array([np.nan, -5.0]), -1.0, 1.0))
    assert mask.tolist() == [True, False] and values[1] == -1.0


def test_clamp_nan_bound_clamps_nothing():
    assert ref.clamp(np.array([-np.inf, 5.0]), math.nan, 1.0).tolist() == [-np.inf, 1.0]
    assert ref.clamp(np.array([2**64 - 1, 0], np.uint64), 1, 2**63 + 1).tolist() == [2**63 + 1, 1]


def test_prelu_and_where():
    assert ref.prelu(np.array([[-1.0], [2.0]]), np.array([1.0, 2.0, 3.0])).tolist() == [[-1, -2, -3], [2, 2, 2]]
    assert ref.prelu(np.array([-100], np.int8), np.array([2], np.int8)).tolist() == [56]
    out = ref.where(np.array([0, 2], np.uint8), np.array([2**63 + 1], np.uint64), np.array([7], np.uint64))
    assert out.tolist() == [7, 2**63 + 1] and out.dtype == np.uint64


def test_activation_formulas_at_hand_values():
    x = np.array([-4.0, -1.5, 0.0, 1.5, 4.0])
    assert ref.hardSwish(x).tolist() == [-0.0, -0.375, 0.0, 1.125, 4.0]
    assert ref.hardSigmoid(x, 0.2, 0.5).tolist() == pytest.approx([0.0, 0.2, 0.5, 0.8, 1.0])
    assert ref.elu(np.array([-np.inf, 2.0]), 2.0).tolist() == [-2.0, 2.0]
    assert ref.softplus(np.array([1000.0, -np.inf])).tolist() == [1000.0, 0.0]
    assert ref.sigmoid(np.array([0.0, -np.inf])).tolist() == [0.5, 0.0]
    assert ref.linear(np.array([1.0]), 2.0, 3.0).tolist() == [5.0]


def test_zero_d_inputs_work_for_every_unary_op():
    for op in ("abs neg ceil cos erf exp floor log reciprocal roundEven sin sqrt tan identity sign gelu "
               "hardSwish relu sigmoid softplus softsign tanh isNaN isInfinite").split():
        param = "a" if op in ("isNaN", "isInfinite") else "input"
        values, _ = u(OPS[op](**{param: np.asarray(0.5)}))
        assert np.asarray(values).shape == (), op


# --- corpus -----------------------------------------------------------------------


def test_corpus_has_enough_unique_cases_per_op():
    total = 0
    for path in sorted(CORPUS.glob("*.json")):
        tests = json.loads(path.read_text())["tests"]
        names = [t["name"] for t in tests]
        assert len(names) == len(set(names)), path.name
        assert len(tests) >= 10, path.name
        total += len(tests)
    assert len(list(CORPUS.glob("*.json"))) == len(ALL_OPS)
    assert total >= 900


def test_corpus_loads_and_the_reference_passes_it():
    from webnn_harness.loading.cases import CaseError, load_file
    from webnn_harness.verdict.judge import judge

    failures = []
    for path in sorted(CORPUS.glob("*.json")):
        for case in load_file(path):
            if isinstance(case, CaseError):
                failures.append(f"{path.name}: {case.name}: {case.message}")
                continue
            outs = evaluate(case.graph, case.inputs)
            actual = {n: np.atleast_1d(o.values) for n, o in outs.items()}
            expected = {n: np.atleast_1d(case.expected.get(n, outs[n].values)) for n in case.graph.outputs}
            masks = {n: None if o.undefined is None else np.atleast_1d(o.undefined) for n, o in outs.items()}
            status, cmp, _ = judge(case, actual, expected, masks)
            if status != "pass":
                failures.append(f"{path.name}: {case.name}: {cmp.message if cmp else status}")
    assert not failures, "\n".join(failures[:20])


def test_corpus_rejects_invalid_graphs():
    # The create steps run when a case is loaded: a bad broadcast is a case error.
    with pytest.raises(FieldError, match="broadcast"):
        build_graph({"a": d([2, 3]), "b": d([4])}, {}, [{"name": "add", "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "y"}], ["y"])
