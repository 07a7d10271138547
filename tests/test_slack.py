"""Slack: how much of its budget a judged case used (max error / budget).
By hand values, on records (written, read back, and read from runs written
before slack existed), from a real run, and on the conformance page: max and
median per op x data type x backend and the passes at 0.5 or more."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from webnn_harness.cli import main
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.records import BackendTally, ResultWriter, write_summary
from webnn_harness.reports.common import BackendIds
from webnn_harness.reports.conformance import TIGHT_SLACK, _RunGroup, run_pieces, slack_in_order, slack_per_cell, tight_passes
from webnn_harness.reports.model import build_model
from webnn_harness.verdict.comparison import budget_slack, compare

ORT = {"name": "onnxruntime", "version": "1.32.0", "device": "CPU", "settings": {"provider": "CPUExecutionProvider"}}


def rec(case, status="pass", ops=("matmul",), types=("float32",), **kw) -> Record:
    return Record(file="cases/linalg/matmul.json", case=case, ops=tuple(ops), data_types=tuple(types), backend=ORT,
                  status=status, required=True, **kw)


def test_budget_slack_by_hand():
    assert budget_slack(3.0, 4.0) == 0.75
    assert budget_slack(0.0, 4.0) == 0.0
    assert budget_slack(0.0, 0.0) == 0.0  # exact against an exact budget
    assert budget_slack(1.0, 0.0) == math.inf  # any error against an exact budget
    assert budget_slack(math.inf, 2.0) == math.inf
    assert budget_slack(None, 4.0) is None and budget_slack(2.0, None) is None  # nothing compared


def test_comparison_slack_in_ulps_and_for_a_shape_mismatch():
    expected = np.array([1.0, 2.0], np.float32)
    actual = np.array([np.nextafter(np.float32(1), np.float32(2)), 2.0], np.float32)
    assert compare(expected, actual, "float32", "ULP", 4.0).slack == 0.25
    assert compare(expected, expected, "float32", "ULP", 4.0).slack == 0.0
    assert compare(expected, expected[:1], "float32", "ULP", 4.0).slack is None


def test_records_carry_slack_and_read_older_runs_without_it():
    r = rec("a", metric="ULP", budget=4.0, max_error=3.0, slack=0.75)
    line = json.loads(json.dumps(r.to_json(), allow_nan=False))
    assert line["slack"] == 0.75 and Record.from_json(line).slack == 0.75
    assert json.dumps(rec("b", status="fail", metric="ULP", budget=0.0, max_error=math.inf, slack=math.inf).to_json(),
                      allow_nan=False).count('"slack": "Infinity"') == 1
    assert Record.from_json({**line, "slack": "Infinity"}).slack == math.inf
    old = {k: v for k, v in line.items() if k != "slack"}
    assert Record.from_json(old).slack == 0.75  # computed from maxError / budget
    assert Record.from_json({**old, "maxError": None, "budget": None}).slack is None
    assert Record.from_json({**line, "slack": "lots"}).slack is None  # a hand-edited file does not break a report
    assert "compliance" not in line  # only accuracy cases carry the dot-product check


def test_a_real_run_records_slack_on_every_judged_case(tmp_path):
    out = tmp_path / "run"
    assert main(["run", "-q", "--backend", "reference", "--op", "matmul", "--op", "relu", "--out", str(out)]) == 0
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    judged = [r for r in lines if r["maxError"] is not None]
    assert judged and all(r["slack"] == budget_slack(r["maxError"], r["budget"]) for r in judged)
    assert all(r["slack"] is None for r in lines if r["maxError"] is None)


RECORDS = [
    rec("exact", metric="ULP", budget=4.0, max_error=0.0, slack=0.0),
    rec("quarter", metric="ULP", budget=4.0, max_error=1.0, slack=0.25),
    rec("tight", metric="ULP", budget=4.0, max_error=3.0, slack=0.75),
    rec("over", status="fail", metric="ULP", budget=4.0, max_error=6.0, slack=1.5),
    rec("not compared", status="unsupported"),
    rec("half", types=("float16",), metric="ULP", budget=2.0, max_error=1.0, slack=0.5),
    rec("chain", ops=("matmul", "relu"), metric="ULP", budget=4.0, max_error=2.4, slack=0.6),
]


def test_slack_rows_max_median_and_tight_passes_by_hand():
    rows = {(r.op, r.data_type): r for r in slack_in_order(slack_per_cell(RECORDS), ["relu", "matmul"], ["float32", "float16"])}
    f32 = rows[("matmul", "float32")]
    # slacks 0, 0.25, 0.75, 1.5, 0.6: max 1.5, median 0.6; passes at 0.5 or more: tight, chain
    assert (f32.judged, f32.max_slack, f32.median_slack, f32.tight) == (5, 1.5, 0.6, 2)
    assert rows[("matmul", "float16")].tight == 1 and rows[("relu", "float32")].judged == 1
    assert [k for k in rows] == [("relu", "float32"), ("matmul", "float32"), ("matmul", "float16")]  # catalog order
    shown = run_pieces(_RunGroup(ORT, RECORDS, {}, Path("run"))).shown  # with their re-run commands
    tight = tight_passes(shown, BackendIds().get("onnxruntime", "1.32.0", "CPU"))
    assert [t.case for t in tight] == ["tight", "chain", "half"] and all(t.slack >= TIGHT_SLACK for t in tight)
    assert "--id cases/linalg/matmul.json::tight " in tight[0].command  # re-runs exactly that case


def test_conformance_page_shows_slack_per_op_and_type_and_lists_tight_passes(tmp_path: Path):
    run = tmp_path / "run"
    writer = ResultWriter(run)
    tally = BackendTally(ORT)
    for r in RECORDS:
        writer.write(r)
        tally.add(r)
    writer.close()
    write_summary(run, [tally], {"cases": len(RECORDS), "command": "webnn-harness run --backend onnxruntime"})
    model = build_model([run])
    (backend,) = model.conformance.backends
    assert len(backend.tight_passes) == 3
    site = tmp_path / "site"
    assert main(["report", str(run), "--out", str(site)]) == 0
    page = (site / "conformance.html").read_text()
    section = page[page.index('<section id="slack">'):]
    assert "How close" in section and ">1.50<" in section and ">0.60<" in section
    assert "3 passing cases at 0.5 or more of the budget" in section
