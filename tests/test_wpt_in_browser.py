"""tools/wpt_in_browser.py without a browser: META lines, the .any.html wrapper, the regenerated
test files, the loopback server, statuses, and the case-for-case comparison."""
from __future__ import annotations

import importlib.util
import json
import re
import sys
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "wpt_in_browser.py"
spec = importlib.util.spec_from_file_location("wpt_in_browser", TOOL)
wib = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = wib  # dataclasses look their module up there
spec.loader.exec_module(wib)

HEADER = """// META: title=test WebNN API relu operation
// META: global=window
// META: variant=?cpu
// META: variant=?gpu
// META: script=../resources/utils.js
// META: timeout=long

'use strict';
// META: script=not-a-meta-line-after-code.js
"""

CORPUS_DOC = {
    "source": "web-platform-tests/wpt/webnn/conformance_tests/relu.https.any.js",
    "commit": "2c4fe5065d91a8cf0210c6ec9d45a27bdc1d1073",
    "tests": [{
        "name": "relu float32 special values",
        "graph": {
            "inputs": {"x": {"data": ["NaN", "-Infinity", 1.5, {"bigint": "9223372036854775807"}],
                             "descriptor": {"dimensions": [4], "dataType": "float32"}}},
            "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
            "expectedOutputs": {"y": {"data": ["NaN", 0, 1.5, 0], "descriptor": {"shape": [4], "dataType": "float32"}}},
        },
    }],
}


def test_meta_lines_end_where_the_code_starts():
    meta = wib.read_meta(HEADER)
    assert meta == wib.Meta("test WebNN API relu operation", ("../resources/utils.js",), ("?cpu", "?gpu"), True)


def test_variant_is_the_device_query_utils_js_reads():
    meta = wib.read_meta(HEADER)
    assert wib.variant_for_device(meta, "cpu") == "?cpu"
    assert wib.variant_for_device(wib.Meta("", (), ("?device=npu",), False), "npu") == "?device=npu"
    with pytest.raises(ValueError, match="no variant for device 'npu'"):
        wib.variant_for_device(meta, "npu")


def test_wrapper_loads_harness_reporter_meta_scripts_then_the_test():
    html = wib.wrapper_html(wib.read_meta(HEADER), "relu.https.any.js")
    order = [html.index(s) for s in ('content="long"', "<title>test WebNN API relu operation</title>",
                                     "/resources/testharness.js", "/resources/testharnessreport.js",
                                     "../resources/utils.js", '<script src="relu.https.any.js">')]
    assert order == sorted(order)


def test_js_literal_writes_what_json_cannot():
    assert wib.js_literal(["NaN", "Infinity", "-Infinity", {"bigint": "-9223372036854775808"}, "x", 2.5]) == \
        '[NaN, Infinity, -Infinity, -9223372036854775808n, "x", 2.5]'
    assert wib.js_literal({"minValue": "-Infinity"}) == '{"minValue": -Infinity}'


def test_file_tolerances():
    assert wib.file_tolerance_js(None) is None
    assert "value: 0}" in wib.file_tolerance_js({"metric": "ULP", "value": 0})
    by_type = wib.file_tolerance_js({"metric": "ATOL", "byDataType": {"float32": 0.5}})
    assert "metricType: 'ATOL'" in by_type and '{"float32": 0.5}[getExpectedDataTypeOfSingleOutput(' in by_type
    with pytest.raises(ValueError, match="expression"):
        wib.file_tolerance_js({"metric": "ULP", "byDataType": {"float32": "shape[axis] - 1"}})


def test_tolerance_comes_from_the_corpus_then_the_known_table_then_utils_js():
    recorded = dict(CORPUS_DOC, fileTolerance={"metric": "ULP", "value": 0})
    assert wib.tolerance_js(recorded, "exp.https.any.js")[1] == "the corpus's fileTolerance"
    assert "32" in wib.tolerance_js(CORPUS_DOC, "exp.https.any.js")[0]
    assert wib.tolerance_js(CORPUS_DOC, "instance_normalization.https.any.js")[0] == "getInstanceNormPrecisionTolerance"
    assert wib.tolerance_js(CORPUS_DOC, "relu.https.any.js")[0] == "getPrecisionTolerance"


def test_regenerated_file_is_shaped_as_wpt_writes_it(tmp_path):
    corpus = tmp_path / "wpt"
    corpus.mkdir()
    (corpus / "relu.json").write_text(json.dumps(CORPUS_DOC))
    (corpus / "minimum_datatype_set.json").write_text("{}")  # no tests: not a case file
    root = tmp_path / "root"
    written = wib.regenerate(root, [corpus], [])
    assert written == [root / "webnn/conformance_tests/relu.https.any.js"]
    text = written[0].read_text()
    meta = wib.read_meta(text)
    assert meta.scripts == ("../resources/utils.js",) and "?cpu" in meta.variants and meta.long_timeout
    assert '"shape": [4]' in text and "dimensions" not in text  # the current utils.js reads shape
    assert "[NaN, -Infinity, 1.5, 9223372036854775807n]" in text
    assert text.rstrip().endswith("regeneratedTests, buildAndExecuteGraph, regeneratedTolerance);")


def test_server_is_loopback_and_serves_wrapper_and_our_reporter(tmp_path):
    tests_dir = tmp_path / wib.TESTS_DIR
    tests_dir.mkdir(parents=True)
    (tests_dir / "relu.https.any.js").write_text(HEADER)
    server = wib.serve(tmp_path)
    try:
        host, port = server.server_address[:2]
        assert host == "127.0.0.1"
        base = f"http://127.0.0.1:{port}"
        page = urllib.request.urlopen(f"{base}/{wib.TESTS_DIR}/relu.https.any.html?cpu").read().decode()
        assert '<script src="relu.https.any.js"></script>' in page
        reporter = urllib.request.urlopen(f"{base}/resources/testharnessreport.js").read().decode()
        assert "add_completion_callback" in reporter and wib.RESULT_MARK.strip() in reporter
        assert urllib.request.urlopen(f"{base}/{wib.TESTS_DIR}/relu.https.any.js").read().decode() == HEADER
    finally:
        server.shutdown()


def test_statuses_by_wptrunner_names_with_skipped_and_harness():
    completion = {"tests": [{"name": "[required] a", "status": 0, "message": None},
                            {"name": "[required] b", "status": 1, "message": "boom"},
                            {"name": "t", "status": 4, "message": ""}],
                  "harness": {"status": 0, "message": None}}
    entries = wib.subtests_from_completion(completion, ["c"])
    assert {n: e["status"] for n, e in entries.items()} == {
        "[required] a": "PASS", "[required] b": "FAIL", "t": "PRECONDITION_FAILED",
        "[optional] c": "SKIPPED", "(harness)": "OK"}
    logged = [wib.RESULT_MARK + json.dumps({"name": "[optional] d", "status": 2, "message": "slow"})]
    so_far = wib.subtests_so_far(logged, "CRASH", "browser gone")
    assert so_far == {"[optional] d": {"status": "TIMEOUT", "message": "slow"},
                      "(harness)": {"status": "CRASH", "message": "browser gone"}}


@pytest.mark.parametrize("wpt,ours,expected", [
    ("PASS", "pass", "agree"), ("PASS", "fail", "disagree"),
    ("FAIL", "fail", "agree"), ("FAIL", "unsupported", "agree"), ("FAIL", "error", "agree"),
    ("TIMEOUT", "timeout", "agree"), ("NOTRUN", "crash", "agree"), ("FAIL", "pass", "disagree"),
    ("SKIPPED", "unsupported", "agree"), ("SKIPPED", "pass", "disagree"), ("SKIPPED", "error", "disagree"),
    (None, "pass", "only ours"), ("PASS", None, "only WPT"),
])
def test_verdicts(wpt, ours, expected):
    assert wib.verdict(wpt, ours) == expected


def test_case_names_lose_utils_js_prefix():
    assert wib.case_name("[required] relu float32 0D tensor") == "relu float32 0D tensor"
    assert wib.case_name("[optional] x [y]") == "x [y]"
    assert wib.case_name("test WebNN API relu operation") is None


def test_compare_case_for_case_and_report(tmp_path):
    corpus = tmp_path / "wpt"
    corpus.mkdir()
    (corpus / "relu.json").write_text(json.dumps(CORPUS_DOC))
    file_map = wib.corpus_file_by_wpt_file([corpus])
    assert file_map == {"relu.https.any.js": "wpt/relu.json"}
    wpt_results = {"relu.https.any.js": {
        "[required] a": {"status": "PASS", "message": ""},
        "[required] b": {"status": "FAIL", "message": "NotSupportedError: no"},
        "[optional] c": {"status": "SKIPPED", "message": wib.SKIPPED_MESSAGE},
        "test WebNN API relu operation": {"status": "FAIL", "message": "outer"},
        "(harness)": {"status": "OK", "message": ""}}}
    records = [SimpleNamespace(file="wpt/relu.json", case=c, status=s, message=m, required=r) for c, s, m, r in [
        ("a", "pass", "", True), ("b", "pass", "", True), ("c", "unsupported", "no", True), ("d", "pass", "", True),
        ("e", "pass", "", True)]] + [
        SimpleNamespace(file="wpt/other.json", case="a", status="fail", message="", required=True)]
    rows = wib.compare(wpt_results, records, file_map)
    assert {r.case: r.verdict for r in rows} == {
        "a": "agree", "b": "disagree", "c": "agree", "d": "only ours", "e": "only ours"}
    text = wib.report(wpt_results, rows)
    assert re.search(r"relu\.https\.any\.js\s+5\s+1\s+1\s+1\s+4\s+1\s+2\s+1\s+0\s+2\s+OK", text)
    assert "subtest that is no case, not passing: relu.https.any.js :: test WebNN API relu operation: FAIL outer" in text
    assert "1 cases that utils.js calls [required]/[optional] where our records say the opposite" in text
    assert text.split("opposite", 1)[1].split("\n", 1)[0].endswith(": relu.https.any.js 1")
    assert "3 of 5 cases not in agreement:" in text
    assert "- [disagree] wpt/relu.json::b\n    WPT:  FAIL: NotSupportedError: no\n    ours: pass: " in text
    assert "- [only ours] wpt/relu.json::d\n    WPT:  no subtest: \n" in text


def test_a_wpt_file_is_the_source_of_one_corpus_file(tmp_path):
    for folder in ("wpt", "wpt-extra"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "relu.json").write_text(json.dumps(CORPUS_DOC))
    with pytest.raises(ValueError, match="source of both"):
        wib.corpus_file_by_wpt_file([tmp_path / "wpt", tmp_path / "wpt-extra"])
