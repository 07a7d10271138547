"""The findings page: fuzz folders (written with the fuzz code's own writers)
are found, told apart from run folders, rendered with each finding's message
and a re-run command that selects exactly its minimal case, and linked from
the op pages; no local path is published."""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")  # the `fuzz` extra
from hypothesis import find

from webnn_harness.cli import main
from webnn_harness.fuzz.driver import FuzzSettings, fuzz, write_fuzz_summary
from webnn_harness.fuzz.findings import Finding, Tally, finding_id, write_finding
from webnn_harness.fuzz.strategies import graphs
from webnn_harness.outputs.kinds import is_fuzz_summary
from webnn_harness.outputs.kinds import discover_outputs
from webnn_harness.reports.model import build_model
from webnn_harness.reports.render import render_site
from webnn_harness.verdict.record import Record

LOCAL = "/home/alice/secret"
MESSAGE = f"kernel <failed> reading {LOCAL}/model.onnx"
INFO = {"name": "onnxruntime", "version": "1.32.0", "device": "CPU", "settings": {"provider": "CPUExecutionProvider"}}


def _finding(key: str, ops: tuple[str, ...], data_type: str, message: str, known: tuple[str, ...], hits: int) -> Finding:
    return Finding(key=key, id=finding_id(key), status="fail", ops=ops, data_types=(data_type,), value_kind="negative",
                   message=message, worst={"output": "output_0", "index": [1], "expected": 0.0, "actual": 1.0,
                                           "error": 1.0, "metric": "ULP", "budget": 0.0},
                   required=True, seed=3, elements=2, nodes=1, known=known, hits=hits)


def make_fuzz_folder(out: Path) -> dict[str, Finding]:
    """A fuzz folder as `fuzz` writes it: two findings, one new and one related to a known failure."""
    relu = find(graphs(("relu",), 1), lambda g: True)  # hypothesis's simplest relu graph, deterministic
    sigmoid = find(graphs(("sigmoid",), 1), lambda g: True)
    new = _finding("fail | relu | float16 | negative | ", ("relu",), "float16", MESSAGE, (), 5)
    known = _finding("fail | sigmoid | float32 | negative | ", ("sigmoid",), "float32", "", ("MLAS logistic approximation",), 1)
    write_finding(out, new, relu)
    write_finding(out, known, sigmoid)
    tally = Tally()
    for ops, dt in ((("relu",), "float16"), (("relu",), "float32"), (("sigmoid",), "float32")):
        tally.add(Record(file="fuzz", case="c", ops=ops, data_types=(dt,), backend={}, status="pass", required=True), False)
    config = FuzzSettings("onnxruntime", {"threads": "1"}, ("relu", "sigmoid"), seconds=5, seed=3)
    write_fuzz_summary(out, {**INFO}, config, tally, [new, known], seconds=5.2, rounds=3, complete=True)
    return {"new": new, "known": known}


@pytest.fixture
def fuzzed(tmp_path: Path) -> tuple[Path, dict[str, Finding]]:
    folder = tmp_path / "ortfuzz"
    return folder, make_fuzz_folder(folder)


def test_fuzz_folder_renders_each_finding_with_message_and_rerun_command(fuzzed, tmp_path, monkeypatch):
    folder, findings = fuzzed
    model = build_model([folder])
    assert model.has_findings and not model.has_runs and model.warnings == ()
    (run,) = model.findings.runs
    assert run.source == "ortfuzz" and run.graphs == 3 and run.options == ("threads=1",) and run.seed == 3
    assert dict(run.tried)["relu"] == (1, 1) and run.data_types == ("float16", "float32")
    assert [f.id for f in run.findings] == [findings["new"].id, findings["known"].id]  # new first
    new, known = run.findings
    assert new.known == () and new.hits == 5 and new.graph == ("relu(input_0) -> output_0",)
    assert known.known == ("MLAS logistic approximation",)
    assert new.command.startswith("webnn-harness run --backend onnxruntime -o threads=1 --cases ortfuzz/findings --id ")

    site = tmp_path / "site"
    render_site(model, site)
    page = (site / "findings.html").read_text()
    assert page == (site / "index.html").read_text()  # a fuzz-only report leads with its findings
    for f in run.findings:
        assert f'id="{f.anchor}"' in page
        assert f.command.replace("'", "&#39;") in page
    assert "kernel &lt;failed&gt; reading model.onnx" in page  # escaped, no local folder
    assert "MLAS logistic approximation" in page and 'href="findings.html"' in page

    # The command re-runs exactly the minimal case, from the folder beside the fuzz folder.
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(new.command, comments=True)[1:]  # as a shell reads it: the note on the shortened path is a comment
    argv[argv.index("onnxruntime")] = "reference"  # the reference passes it; the id must select one case
    argv.remove("-o"), argv.remove("threads=1")
    assert main([*argv, "-q"]) == 0
    (record,) = [json.loads(line) for line in next(tmp_path.glob("out/rerun-*/results.jsonl")).read_text().splitlines()]
    assert record["case"] == new.case and record["status"] == "pass"


def test_op_pages_link_to_their_findings_and_no_page_has_a_local_path(fuzzed, tmp_path):
    folder, findings = fuzzed
    site = tmp_path / "site"
    render_site(build_model([folder]), site)
    relu = (site / "ops" / "relu.html").read_text()
    link = re.search(r'href="\.\./findings\.html#([^"]+)"', relu)
    assert link and link.group(1).endswith(findings["new"].id)
    assert f'id="{link.group(1)}"' in (site / "findings.html").read_text()
    assert "findings.html#" not in (site / "ops" / "add.html").read_text()
    for page in site.rglob("*.html"):
        text = page.read_text()
        assert LOCAL not in text and str(tmp_path) not in text, page


def test_a_run_folder_is_not_a_fuzz_folder(fuzzed, tmp_path):
    folder, _ = fuzzed
    run_dir = tmp_path / "run"
    assert main(["run", "--backend", "reference", "--cases", str(folder / "findings"), "--out", str(run_dir), "-q"]) == 0
    assert not is_fuzz_summary(run_dir / "summary.json") and is_fuzz_summary(folder / "summary.json")
    found = discover_outputs([tmp_path])
    assert found.runs == [run_dir] and found.fuzz == [folder]
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "summary.json").write_text(json.dumps({"backends": []}))
    assert not is_fuzz_summary(stray / "summary.json")
    site = tmp_path / "site"
    render_site(build_model([run_dir]), site)
    assert not (site / "findings.html").exists() and "Fuzz findings" not in (site / "index.html").read_text()
    render_site(build_model([run_dir, folder]), site)
    assert 'href="findings.html"' in (site / "conformance.html").read_text()
    assert (site / "index.html").read_text() == (site / "conformance.html").read_text()  # runs still lead


def test_a_real_fuzz_run_with_no_finding_renders(tmp_path):
    fuzz(FuzzSettings("reference", ops=("relu",), seconds=1, seed=1), tmp_path / "ref")
    site = tmp_path / "site"
    render_site(build_model([tmp_path / "ref"]), site)
    page = (site / "findings.html").read_text()
    assert "No finding" in page and "reference" in page
