"""Telling a backend bug from a float32 effect (harness/fuzz/precision.py),
the reference's operand-precision mode it relies on, agreeing expectations
(harness/fuzz/findings.py) and re-classifying a fuzz folder (reclassify.py)."""
import json

import numpy as np
import pytest

from webnn_harness.backends import create
from webnn_harness.backends.reference import evaluate
from webnn_harness.loading.cases import load_file
from webnn_harness.verdict.expectations import Expectation
from webnn_harness.fuzz.findings import agreeing_expectations, finding_value_kinds, related_expectations
from webnn_harness.fuzz.precision import classify_cause
from webnn_harness.fuzz.reclassify import reclassify
from webnn_harness.reports.findings import build_findings

BIG = 3.4028234663852886e38  # float32 max


def _case(tmp_path, op, data, data_type="float32", options=None, shape=None):
    shape = shape or [len(data)]
    out_shape = [1] if op.startswith("reduce") else shape
    args = [{"input": "x"}] + ([{"options": options}] if options else [])
    doc = {"tests": [{"name": f"{op} case", "graph": {
        "inputs": {"x": {"data": data, "descriptor": {"shape": shape, "dataType": data_type}}},
        "operators": [{"name": op, "arguments": args, "outputs": ["y"]}],
        "expectedOutputs": {"y": {"descriptor": {"shape": out_shape, "dataType": data_type}}}}}]}
    path = tmp_path / f"{op}.json"
    path.write_text(json.dumps(doc))
    (case,) = load_file(path)
    return case


def test_operand_precision_computes_in_the_operand_type(tmp_path):
    """float64 (default): the sum of 3e38 + 3e38 - 3e38 is 3e38; in float32 the first
    addition overflows and the sum stays +inf. Integers are the same in both."""
    case = _case(tmp_path, "reduceSum", [3e38, 3e38, -3e38], options={"axes": [0], "keepDimensions": True})
    assert evaluate(case.graph, case.inputs)["y"].values[0] == np.float32(3e38)
    assert np.isposinf(evaluate(case.graph, case.inputs, precision="operand")["y"].values[0])
    ints = _case(tmp_path, "reduceSum", [2**31 - 1, 1], "int32", {"axes": [0], "keepDimensions": True})
    for precision in ("float64", "operand"):
        assert evaluate(ints.graph, ints.inputs, precision=precision)["y"].values[0] == -2**31  # wraps
    with pytest.raises(ValueError, match="precision"):
        evaluate(case.graph, case.inputs, precision="float32")


def test_reference_backend_option_is_recorded_in_its_settings(tmp_path):
    assert "float64" in create("reference", {}).info().settings["precision"]
    operand = create("reference", {"precision": "operand"})
    assert "operand" in operand.info().settings["precision"]
    case = _case(tmp_path, "reduceSum", [3e38, 3e38, -3e38], options={"axes": [0], "keepDimensions": True})
    assert np.isposinf(operand.compute(operand.build(case.graph), case.inputs)["y"][0])
    for bad in ({"precision": "float32"}, {"threads": "2"}):
        with pytest.raises(ValueError):
            create("reference", bad)


def _worst(actual, expected=3.0000000054977558e38, budget=0.0):
    return {"output": "y", "index": [0], "expected": expected, "actual": actual, "error": 1.0, "metric": "ULP",
            "budget": budget}


def test_a_float32_overflow_the_spec_formula_gives_too_is_precision(tmp_path):
    case = _case(tmp_path, "reduceSum", [3e38, 3e38, -3e38], options={"axes": [0], "keepDimensions": True})
    cause, note = classify_cause(case, "fail", _worst("Infinity"))
    assert cause == "precision"
    assert note.startswith("the spec's formula evaluated in float32 gives inf too") and "overflows" in note
    # Another wrong value is the backend's, as is a crash (no value to compare).
    assert classify_cause(case, "fail", _worst("NaN"))[0] == "backend"
    assert classify_cause(case, "fail", _worst("-Infinity"))[0] == "backend"
    assert classify_cause(case, "crash", {"output": None, "index": None})[0] == "backend"


def test_a_backend_computing_in_float32_is_classified_precision_and_does_not_fail_the_command(tmp_path):
    """The reference in operand precision is a backend that sums in float32: fuzzed
    against the float64 reference, what it gets wrong is overflow (a mean of two -3.4e38s is -inf), and every
    finding is precision; new precision effects alone exit 0 (FuzzResult.new_deviations)."""
    from webnn_harness.cli import main

    code = main(["fuzz", "--backend", "reference", "-o", "precision=operand", "--op", "reduceMean", "--op", "reduceL2",
                 "--time", "8", "--seed", "3", "--shrink-cap", "5", "--out", str(tmp_path), "-q"])
    summary = json.loads((tmp_path / "summary.json").read_text())
    findings = summary["findings"]
    assert findings, "a float32 sum of float32 extremes never overflowed"
    assert all(f["cause"] == "precision" and "float32" in f["causeNote"] for f in findings if "float32" in f["dataTypes"])
    assert summary["precisionFindings"] == sum(1 for f in findings if f["cause"] == "precision") > 0
    assert summary["backend"]["settings"]["precision"].startswith("operand")
    assert code == 0


OV_UINT32 = Expectation("OpenVINO CPU plugin runs uint32 tensors as int32: values above 2^31-1 become negative",
                        file="elementwise/max.json", match="uint32")
OV_HARD_SIGMOID = Expectation("OpenVINO CPU HardSigmoid uses beta 0.5 when beta is 0 (alpha 1 beta 0 maps 0.25 to 0.75)",
                              file="elementwise/hard_sigmoid.json", match="float32")
OV_INT64 = Expectation("OpenVINO CPU plugin runs int64/uint64 tensors as int32, so values outside the int32 range are wrong",
                       file="reduction/reduce_max.json", match="int64")
ORT_DIV = Expectation("ORT's integer Div fails the whole run ('Integer division by zero')", file="elementwise/div.json",
                      match="int32")


def _agreeing(entry, ops, types, worst, output_type, classes=(), message=""):
    related = related_expectations(ops, types, [entry])
    assert related == [entry]  # same op and data type: the old rule called all of these known
    return agreeing_expectations(related, finding_value_kinds(worst, output_type, classes), message, types)


def test_an_expectation_about_the_same_kind_of_value_makes_a_finding_known():
    uint32 = {"expected": 4294967295, "actual": 0}
    assert _agreeing(OV_UINT32, ("max",), ("uint32",), uint32, "uint32") == ([OV_UINT32.reason], [])
    crash = {"expected": None, "actual": None}
    message = "compute raised Fail: [ONNXRuntimeError] ... Compute Integer division by zero"
    assert _agreeing(ORT_DIV, ("div",), ("int32",), crash, "int32", message=message) == ([ORT_DIV.reason], [])


def test_an_expectation_about_another_bug_of_the_op_is_only_related():
    """OpenVINO's hardSigmoid(NaN) = 1.0 is not its beta bug, and reduceMax int64
    16777217 -> 16777216 (float32 rounding, inside int32's range) is not the int32 narrowing."""
    nan = {"expected": "NaN", "actual": 1.0}
    assert _agreeing(OV_HARD_SIGMOID, ("hardSigmoid",), ("float32",), nan, "float32", ["NaN"]) == \
        ([], [OV_HARD_SIGMOID.reason])
    rounded = {"expected": 16777217, "actual": 16777216}
    assert _agreeing(OV_INT64, ("reduceMax",), ("int64",), rounded, "int64", ["beyond 2^24"]) == ([], [OV_INT64.reason])
    other_message = "compute raised Fail: out of memory"
    assert _agreeing(ORT_DIV, ("div",), ("int32",), {}, "int32", message=other_message) == ([], [ORT_DIV.reason])


ORT_GELU = Expectation("ORT's Gelu evaluates 0.5*x*(1+erf(x/sqrt2)) in float32 with MLAS's erf: thousands of ULP "
                       "on small negative outputs", file="elementwise/gelu.json", match="^gelu float32 ")


def test_an_expectation_is_known_only_for_an_op_of_the_minimal_graph_its_data_type_and_kind():
    """Issue 25, item 4: ORT's gelu expectation made a concat+elu float32 finding
    known ("elu" inside "gelu", any float32 ULP error "the same kind")."""
    inexact = {"expected": 0.5, "actual": 0.25}
    kinds = finding_value_kinds(inexact, "float32", ())
    assert related_expectations(("concat", "elu"), ("float32",), [ORT_GELU]) == []
    assert agreeing_expectations(related_expectations(("concat", "elu"), ("float32",), [ORT_GELU]), kinds, "",
                                 ("float32",)) == ([], [])
    # the op itself, in its data type, with the kind of value the reason names: known
    assert _agreeing(ORT_GELU, ("concat", "gelu"), ("float32",), inexact, "float32") == ([ORT_GELU.reason], [])
    # another data type: not even related
    assert related_expectations(("gelu",), ("float16",), [ORT_GELU]) == []
    # another kind of value (a NaN the reason does not name): only related
    nan = {"expected": "NaN", "actual": 1.0}
    assert _agreeing(ORT_GELU, ("gelu",), ("float32",), nan, "float32", ["NaN"]) == ([], [ORT_GELU.reason])
    # an entry naming no data type is never enough to call a finding known
    any_type = Expectation("gelu is off by thousands of ULP", file="elementwise/gelu.json")
    assert _agreeing(any_type, ("gelu",), ("float32",), inexact, "float32") == ([], [any_type.reason])
    # "int" inside a word names no data type
    zero_point = Expectation("dequantizeLinear zeroPoint rounded", file="quantization/dequantize_linear.json",
                             match="zeroPoint")
    assert related_expectations(("dequantizeLinear",), ("float32",), [zero_point]) == [zero_point]


def _fuzz_folder(tmp_path, case_doc, finding):
    folder = tmp_path / "fuzz-old"
    (folder / "findings").mkdir(parents=True)
    (folder / "findings-details").mkdir()
    (folder / "findings" / f"{finding['id']}.json").write_text(json.dumps(case_doc))
    (folder / "findings-details" / f"{finding['id']}.json").write_text(json.dumps({**finding, "case": "c"}))
    header = {"harness": "webnn-harness", "harnessVersion": "0", "date": "2026-01-01T00:00:00+00:00", "machine": {},
              "backend": {"name": "reference", "version": "0", "device": "cpu", "settings": {}}}
    (folder / "summary.json").write_text(json.dumps({**header, "kind": "fuzz", "complete": True,
                                                     "settings": {"backend": "reference", "options": {}, "seed": 1},
                                                     "findings": [finding], "newFindings": 1}))
    return folder


def test_reclassify_writes_a_new_folder_that_the_findings_page_shows_apart(tmp_path):
    case_doc = {"tests": [{"name": "c", "graph": {
        "inputs": {"x": {"data": [3e38, 3e38, -3e38], "descriptor": {"shape": [3], "dataType": "float32"}}},
        "operators": [{"name": "reduceSum", "arguments": [{"input": "x"}, {"options": {"axes": [0], "keepDimensions": True}}],
                       "outputs": ["y"]}],
        "expectedOutputs": {"y": {"descriptor": {"shape": [1], "dataType": "float32"}}}}}]}
    finding = {"key": "fail | reduceSum | float32 | positive | ", "id": "abc", "status": "fail", "ops": ["reduceSum"],
               "dataTypes": ["float32"], "valueKind": "positive", "message": "", "worst": _worst("Infinity"),
               "required": True, "seed": 1, "elements": 3, "nodes": 1, "known": [], "hits": 1}
    source = _fuzz_folder(tmp_path, case_doc, finding)
    before = {p: p.read_bytes() for p in source.rglob("*") if p.is_file()}
    summary = json.loads(reclassify(source, tmp_path / "fuzz-new").read_text())
    assert {p: p.read_bytes() for p in source.rglob("*") if p.is_file()} == before  # the source is not touched
    (f,) = summary["findings"]
    assert f["cause"] == "precision" and f["stillFails"] is True and summary["precisionFindings"] == 1
    assert summary["reclassified"]["from"] == "fuzz-old"
    with pytest.raises(ValueError, match="holds an earlier fuzz"):
        reclassify(source, tmp_path / "fuzz-new")
    (run,) = build_findings([tmp_path / "fuzz-new"]).runs
    assert [x.id for x in run.by_cause("precision")] == ["abc"] and run.by_cause("backend") == ()
    assert "overflows" in run.by_cause("precision")[0].cause_note


def test_reclassify_command_prints_one_line_per_finding_and_usage_errors_are_exit_2(tmp_path, capsys):
    from webnn_harness.fuzz.reclassify import main

    assert main([str(tmp_path / "none"), str(tmp_path / "out")]) == 2
    assert "summary.json" in capsys.readouterr().err
