"""The WPT-exact judge (harness/verdict/wpt.py, ``run --judge wpt``): WPT's
utils.js rule and nothing else, and both verdicts kept where they differ.
tools/wpt_rule_check.py checks it against utils.js itself under node."""
import json

import numpy as np
import pytest

from webnn_harness.api import BackendRequest, RunRequest, run
from webnn_harness.loading.cases import load_cases
from webnn_harness.verdict.record import Record
from webnn_harness.reports import build_site
from webnn_harness.verdict.wpt import distances, to_half_bits, wpt_judge, wpt_tolerance

NAN = float("nan")


def one_case(tmp_path, inputs, operators, expected=None, name="c", extra=None):
    graph = {"inputs": {k: {"data": v, "descriptor": {"shape": list(np.shape(v)), "dataType": t}} for k, (v, t) in inputs.items()},
             "operators": operators}
    if expected:
        graph["expectedOutputs"] = {k: {"data": v, "descriptor": {"shape": list(np.shape(v)), "dataType": t}}
                                    for k, (v, t) in expected.items()}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"tests": [{"name": name, "graph": graph}], **(extra or {})}))
    (case,) = load_cases([path])
    assert not hasattr(case, "field"), str(case)
    return case


def test_the_budget_is_the_sum_over_the_graph_in_the_first_outputs_type(tmp_path):
    case = one_case(tmp_path, {"x": ([[1.0, 2.0], [3.0, 4.0]], "float32")}, [
        {"name": "matmul", "arguments": [{"a": "x"}, {"b": "x"}], "outputs": "m"},
        {"name": "sigmoid", "arguments": [{"input": "m"}], "outputs": "s"},
        {"name": "erf", "arguments": [{"input": "s"}], "outputs": "y"}])
    assert wpt_tolerance(case) == ("ULP", 2 * 2 + 34 + 0)  # K*2, sigmoid 34, erf's ATOL dropped


def test_a_one_operator_file_function_utils_js_lacks_is_the_ops_budget(tmp_path):
    case = one_case(tmp_path, {"x": ([1.0, 2.0], "float32")}, [{"name": "exp", "arguments": [{"input": "x"}], "outputs": "y"}])
    assert wpt_tolerance(case) == ("ULP", 32.0)
    atol = one_case(tmp_path, {"x": ([1.0, 2.0], "float16")}, [{"name": "cos", "arguments": [{"input": "x"}], "outputs": "y"}],
                    extra={"fileTolerance": {"metric": "ATOL", "byDataType": {"float32": 2.0**-10}}})
    assert wpt_tolerance(atol) == ("ATOL", None)  # the file's function has no float16 entry: undefined


def test_float32_follows_get_bitwise():
    e = np.array([0.0, NAN, 1.0, -1.0], np.float32)
    a = np.array([-0.0, np.float32(np.nan), np.nextafter(np.float32(1), np.float32(2)), 1.0], np.float32)
    assert list(distances(e, a, "float32", "ULP")[:3]) == [0.0, 0.0, 1.0]  # +0 == -0, NaN == NaN
    assert distances(e, a, "float32", "ULP")[3] == 2 * 0x3F800000


def test_float16_follows_to_half_and_raw_patterns():
    # toHalf rounds a tie away from zero and flushes below 2^-25; NaN is 0x7c01
    assert list(to_half_bits(np.array([1.00048828125, 3 * 2.0**-26, NAN]))) == [0x3C01, 0, 0x7C01]
    e = np.array([NAN, 1.0, 0.0], np.float16)
    a = np.array([np.float16(np.nan), -1.0, -0.0], np.float16)  # numpy's NaN is 0x7e00
    assert list(distances(e, a, "float16", "ULP")) == [0x7E00 - 0x7C01, 0x8000, 0.0]


def test_atol_never_passes_a_nan_or_an_infinity():
    e = np.array([np.inf, NAN, 1.0], np.float32)
    assert list(distances(e, e.copy(), "float32", "ATOL")) == [np.inf, np.inf, 0.0]


def test_integers_exact_where_utils_js_leaves_the_budget_undefined(tmp_path):
    case = one_case(tmp_path, {"x": ([1, 2], "int32")}, [{"name": "add", "arguments": [{"a": "x"}, {"b": "x"}], "outputs": "y"}])
    assert wpt_tolerance(case) == ("ULP", 0)  # add has no int32 entry: it adds nothing
    lacking = one_case(tmp_path, {"x": ([1, 2], "int32")}, [{"name": "add", "arguments": [{"a": "x"}, {"b": "x"}], "outputs": "y"}],
                       extra={"fileTolerance": {"metric": "ULP", "byDataType": {"float32": 1}}})
    assert wpt_tolerance(lacking) == ("ULP", None)
    exact = np.array([2, 4], np.int32)
    assert wpt_judge(lacking, {"y": exact}, {"y": exact}, {}).status == "pass"
    assert wpt_judge(lacking, {"y": exact + 1}, {"y": exact}, {}).status == "fail"


def float16_nan_case(tmp_path):
    return one_case(tmp_path, {"x": ([-1.0, 4.0], "float16")}, [{"name": "sqrt", "arguments": [{"input": "x"}], "outputs": "y"}])


def test_both_verdicts_are_kept_where_they_differ_and_judge_wpt_takes_wpts(tmp_path):
    float16_nan_case(tmp_path)  # sqrt(-1) in float16: a 0x7e00 NaN, 511 ULPs from WPT's 0x7c01
    records = {}
    for judge in ("harness", "wpt"):
        out = tmp_path / judge
        run(RunRequest(cases=(tmp_path / "c.json",), backends=(BackendRequest("reference", {}),), out_dir=out, judge=judge))
        (line,) = (out / "results.jsonl").read_text().splitlines()
        records[judge] = json.loads(line)
    ours, theirs = records["harness"], records["wpt"]
    assert ours["status"] == "pass" and ours["wptVerdict"]["status"] == "fail"
    assert ours["wptVerdict"]["maxError"] == 511.0 and ours["wptVerdict"]["budget"] == 1.0
    assert theirs["status"] == "fail" and theirs["harnessVerdict"]["status"] == "pass" and "wptVerdict" not in theirs
    assert json.loads((tmp_path / "wpt" / "summary.json").read_text())["judge"] == "wpt"
    assert Record.from_json(ours).judged_by_wpt().to_json()["status"] == "fail"
    # the conformance page lists it, with its reason, whichever judge gave the statuses
    for judge in ("harness", "wpt"):
        page = (build_site([tmp_path / judge], tmp_path / f"site-{judge}").parent / "conformance.html").read_text()
        assert "1 pass by the harness and fail by WPT; 0 fail by the harness and pass by WPT" in page
        assert "toHalf writes it 0x7c01" in page


@pytest.mark.parametrize("judge", ["harness", "wpt"])
def test_folding_a_cast_round_trip_fails_both_judges(tmp_path, judge):
    from pathlib import Path

    corpus = Path(__file__).resolve().parents[1] / "cases" / "elementwise" / "cast.json"
    out = tmp_path / "run"
    run(RunRequest(cases=(corpus,), backends=(BackendRequest("webnn_harness.backends.mutants:create",
                                                             {"mutation": "fold_cast_round_trip"}),),
                   out_dir=out, judge=judge))
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    graphs = [r for r in records if len(r["ops"]) > 1 or r["case"].startswith("four")]
    assert graphs and all(r["status"] == "fail" for r in graphs)
