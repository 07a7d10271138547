"""The smaller things a vendor saw on the way (issue 42, item 8)."""
import json

from webnn_harness.accuracy.driver import AccuracyResult
from webnn_harness.archive.store import machine_text
from webnn_harness.bench.machine import machine_info
from webnn_harness.cli import main, parser
from webnn_harness.outputs.records import run_header
from webnn_harness.probe.summary import probe_summary_text

RELU = {"name": "relu", "graph": {
    "inputs": {"x": {"data": [-1, 2], "descriptor": {"shape": [2], "dataType": "float32"}}},
    "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
    "expectedOutputs": {"y": {"data": [0, 2], "descriptor": {"shape": [2], "dataType": "float32"}}}}}


def _evidence(layout):
    operators = {"complete": 1, "gaps": 0, "wrong": 0, "absent": 0}
    return {"summary": {"operators": operators, "wrongFindings": 0, "valueDeviations": 0},
            "preferredInputLayout": layout, "maxTensorByteLength": {}}


def test_an_unmeasured_layout_is_said_once():
    text = probe_summary_text(_evidence({"preferred": None, "basis": "not measured (defaulting to nchw)"}))
    assert "preferredInputLayout not measured (defaulting to nchw);" in text and "(not measured (" not in text
    measured = probe_summary_text(_evidence({"preferred": "nhwc", "basis": "the only layout that ran"}))
    assert "preferredInputLayout nhwc (the only layout that ran);" in measured


def test_a_run_and_a_bench_describe_one_machine_alike():
    assert machine_text(run_header()["machine"]) == machine_text(machine_info())


def test_the_default_label_of_a_run_in_out_run_reads_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "relu.json").write_text(json.dumps([RELU]))
    assert main(["run", "-q", "--workers", "1", "-b", "reference", "--cases", "cases", "--out", "out/run"]) == 0
    assert main(["report", "out/run", "--out", "out/site"]) == 0
    html = (tmp_path / "out" / "site" / "conformance.html").read_text()
    assert "run run" not in html and "</strong> run (cases) — " in html


def test_accuracy_says_the_wpt_fails_and_takes_runs_workers_default():
    p = parser()
    assert p.parse_args(["accuracy", "-b", "reference"]).workers == p.parse_args(["run"]).workers
    records = [{"wpt": {"status": s}, "compliant": True} for s in ("fail", "fail", "pass")]
    assert AccuracyResult(records, 0.0, None).wpt_fails == 2
