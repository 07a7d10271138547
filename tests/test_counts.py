"""Counts that mean what they say (issue 42): an unsupported case is no known failure, a removed case
and a settings change are said as what they are, an op that supports no data type has no rank range."""
import json

from webnn_harness.cli import main
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.records import BackendTally, ResultWriter
from webnn_harness.outputs.run_diff import diff_runs, format_markdown, format_text
from webnn_harness.probe.limits import tensor_limits
from webnn_harness.reports.archive import limits_entries
from webnn_harness.spec.catalog import operators


def rec(cid, status, known=None, settings=None, metric=None):
    file, _, case = cid.partition("::")
    return Record(file=file, case=case, ops=("relu",), data_types=("float32",),
                  backend={"name": "acme", "version": "1", "device": "cpu", "settings": settings or {}},
                  status=status, required=True, known_failure=known,
                  metric=metric, max_error=0.0 if metric else None, budget=0.0 if metric else None)


def write_run(folder, records):
    w = ResultWriter(folder)
    for r in records:
        w.write(r)
    w.close()
    (folder / "summary.json").write_text(json.dumps({"label": folder.name}))
    return folder


def test_an_unsupported_case_an_entry_names_is_not_a_known_failure():
    tally = BackendTally({"name": "acme"})
    for r in (rec("w/a.json::a", "fail", known="why"), rec("w/a.json::b", "unsupported", known="why"),
              rec("w/a.json::c", "unsupported")):
        tally.add(r)
    assert tally.known_failures == 1 and tally.to_json()["knownFailures"] == 1


def test_the_console_and_the_badge_count_no_unsupported_case_as_a_known_failure(tmp_path, monkeypatch, capsys):
    from webnn_harness.reports.model import build_model

    monkeypatch.chdir(tmp_path)
    case = {"name": "abs a", "graph": {
        "inputs": {"x": {"data": [-1, 2], "descriptor": {"shape": [2], "dataType": "float32"}}},
        "operators": [{"name": "abs", "arguments": [{"input": "x"}], "outputs": "y"}],
        "expectedOutputs": {"y": {"data": [1, 2], "descriptor": {"shape": [2], "dataType": "float32"}}}}}
    relu = json.loads(json.dumps(case).replace('"abs"', '"relu"').replace("abs a", "relu a"))
    relu["graph"]["expectedOutputs"]["y"]["data"] = [0, 3]
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "ops.json").write_text(json.dumps({"tests": [case, relu]}))
    (tmp_path / "exp.json").write_text(json.dumps([{"match": ".", "reason": "listed"}]))
    assert main(["run", "-q", "--workers", "1", "-b", "webnn_harness.backends.faulty:create", "-o", "reject_op=abs",
                 "--cases", "c", "--expectations", "exp.json", "--out", "r"]) == 0
    out = capsys.readouterr().out
    assert "1 unsupported, 1 fail (1 known failures)" in out
    (b,) = build_model(["r"]).conformance.backends
    assert b.known_failures == 1


def test_diff_says_a_removed_case_is_gone_and_that_settings_differ(tmp_path):
    base = write_run(tmp_path / "base", [rec("w/a.json::stays", "pass", settings={"crash_abs": False}),
                                         rec("w/a.json::goes", "pass", metric="ULP", settings={"crash_abs": False})])
    new = write_run(tmp_path / "new", [rec("w/a.json::stays", "crash", settings={"crash_abs": True})])
    diff = diff_runs(base, new)
    text = format_text(diff)
    assert "removed    w/a.json::goes: pass -> absent\n" in text and "budget" not in text
    assert "the runs' backend settings differ, so changes may come from them: crash_abs: false -> true" in text
    assert "crash_abs: false -> true" in format_markdown(diff)
    assert diff.to_json()["backends"][0]["settingsChanged"] == ["crash_abs: false -> true"]
    # the same settings: nothing said
    assert "settings differ" not in format_text(diff_runs(base, base))


def test_an_op_with_no_supported_data_type_has_no_rank_range_to_gain_or_lose():
    lim = operators()["relu"].operands["input"]
    one, other = tensor_limits([], [0, 1], lim), tensor_limits(["int4"], [0], lim)
    assert one == other == {"dataTypes": [], "rankRange": {"min": 0, "max": 0}}
    assert limits_entries({"relu": {"input": {"dataTypes": [], "rankRange": {"min": 0, "max": 1}}}}) == set()
    assert limits_entries({"relu": {"input": {"dataTypes": ["float32"], "rankRange": {"min": 0, "max": 1}}}}) == {
        "relu.input: float32", "relu.input: rank 0–1"}
