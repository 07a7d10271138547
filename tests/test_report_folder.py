"""What a report may touch, and how it reads a run cut short: the site folder
keeps a manifest and replaces only its own files; results.jsonl is read up
to its last whole line, with the unreadable lines named by number."""
import json
from pathlib import Path

import pytest

from webnn_harness.reports import ReportInputError, build_model, build_site
from webnn_harness.reports.sitefolder import MANIFEST
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.records import BackendTally, ResultWriter, write_summary

BACKEND = {"name": "reference", "version": "0.1.0", "device": "cpu", "settings": {}}


def _run(folder: Path, n: int, complete: bool | None = True) -> Path:
    writer = ResultWriter(folder)
    tally = BackendTally(BACKEND)
    for i in range(n):
        r = Record(file="c.json", case=f"case {i}", ops=("relu",), data_types=("float32",), backend=BACKEND,
                   status="pass", required=True)
        writer.write(r)
        tally.add(r)
    writer.close()
    extra = {} if complete is None else {"complete": complete}
    write_summary(folder, [tally], {"cases": n, "command": "webnn-harness run", **extra})
    return folder


def _checkout(tmp_path: Path) -> dict[Path, bytes]:
    """A folder that looks like a source checkout: what `report --out .` used to empty."""
    files = {}
    for rel in ("ops/mine.py", "backends/base.py", "data/table.json", "README.md"):
        path = tmp_path / "checkout" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rel.encode())
        files[path] = rel.encode()
    return files


def test_a_report_refuses_a_folder_that_is_not_an_earlier_report(tmp_path):
    files = _checkout(tmp_path)
    with pytest.raises(ReportInputError, match="holds no earlier report"):
        build_site([_run(tmp_path / "run", 3)], tmp_path / "checkout")
    assert {p: p.read_bytes() for p in files} == files
    assert not (tmp_path / "checkout" / "index.html").exists()


def test_a_report_over_an_earlier_one_replaces_only_what_that_one_wrote(tmp_path):
    run = _run(tmp_path / "run", 3)
    site = build_site([run], tmp_path / "site").parent
    written = json.loads((site / MANIFEST).read_text())["files"]
    assert "index.html" in written and "ops/relu.html" in written and all(not f.startswith("/") for f in written)
    (site / "ops" / "my-notes.txt").write_text("mine")  # the user's, beside the report's pages
    (site / "ops" / "relu.html").write_text("stale")
    build_site([run], site)
    assert (site / "ops" / "my-notes.txt").read_text() == "mine"
    assert (site / "ops" / "relu.html").read_text() != "stale"


def test_a_manifest_naming_files_outside_the_folder_is_refused(tmp_path):
    run = _run(tmp_path / "run", 1)
    site = build_site([run], tmp_path / "site").parent
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (site / MANIFEST).write_text(json.dumps({"kind": "webnn-harness report", "files": ["../victim.txt"]}))
    with pytest.raises(ReportInputError, match="outside the report folder"):
        build_site([run], site)
    assert victim.read_text() == "keep me"


@pytest.mark.parametrize("cut", [20, 120])
def test_a_cut_short_last_line_is_dropped_with_its_line_number(tmp_path, cut):
    run = _run(tmp_path / "run", 40)
    data = (run / "results.jsonl").read_bytes()
    (run / "results.jsonl").write_bytes(data[:-cut])  # what SIGKILL mid-write leaves
    model = build_model([run])
    (b,) = model.conformance.backends
    assert b.total == 39
    assert len(model.warnings) == 1 and "results.jsonl: line 40: cut short" in model.warnings[0]


def test_a_last_record_missing_only_its_newline_is_whole_and_resume_ends_it(tmp_path):
    from webnn_harness.outputs.run_folder import OutputFolder

    run = _run(tmp_path / "run", 5)
    (run / "results.jsonl").write_bytes((run / "results.jsonl").read_bytes()[:-1])
    assert build_model([run]).conformance.backends[0].total == 5 and not build_model([run]).warnings
    with OutputFolder(run, "resume") as folder:
        assert len(folder.previous) == 5
    assert (run / "results.jsonl").read_bytes().endswith(b"}\n")


def test_unreadable_lines_in_the_middle_are_named_and_the_rest_read(tmp_path):
    run = _run(tmp_path / "run", 10)
    lines = (run / "results.jsonl").read_text().splitlines(keepends=True)
    lines[3] = "garbage\n"
    lines[6] = '{"some": "other tool"}\n'
    (run / "results.jsonl").write_text("".join(lines))
    model = build_model([run])
    assert model.conformance.backends[0].total == 8
    assert [w.split(": ", 2)[1] for w in model.warnings] == ["line 4", "line 7"]


@pytest.mark.parametrize("summary, complete", [
    ({"complete": False, "stoppedBy": "terminated (SIGTERM)", "progress": {"recorded": 3, "planned": 9}}, False),
    ({"complete": True}, True),
    ({}, True),  # written before summaries said: they were written only at the end
    (None, False),  # no summary.json at all
])
def test_only_a_whole_run_can_be_required_ok(tmp_path, summary, complete):
    run = _run(tmp_path / "run", 3)
    doc = json.loads((run / "summary.json").read_text())
    doc.pop("complete", None)
    if summary is None:
        (run / "summary.json").unlink()
    else:
        (run / "summary.json").write_text(json.dumps({**doc, **summary}))
    html = (build_site([run], tmp_path / "site").parent / "conformance.html").read_text()
    assert ("required OK" in html) == complete and ("incomplete run" in html) != complete
    if summary and summary.get("progress"):
        assert "terminated (SIGTERM); 3 of 9 records" in html


def test_a_run_stopped_while_cases_loaded_says_its_plan_was_at_least_that():
    from webnn_harness.reports.conformance import run_incomplete

    progress = {"recorded": 3, "planned": 9}
    stopped = {"complete": False, "stoppedBy": "interrupted (SIGINT)"}
    assert run_incomplete({**stopped, "progress": progress}, True).endswith("; 3 of 9 records")
    assert run_incomplete({**stopped, "progress": {**progress, "loading": True}}, True).endswith(
        "; 3 of at least 9 records")
