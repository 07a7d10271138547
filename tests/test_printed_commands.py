"""Every command we print runs as printed from the folder the user ran us in
(issue 25, item 5): the console's re-run lines, the conformance and findings
pages, JUnit, and the commands summaries record. Relative paths stay as
given; only an absolute path outside that folder is cut to its last
component, and the command says so in a shell comment."""
from __future__ import annotations

import html
import json
import re
import shlex
import shutil

import pytest

from webnn_harness.outputs.rerun_commands import public_command
from webnn_harness.cli import main
from webnn_harness.outputs.rerun_commands import SHORTENED, shown_path

WRONG = {"name": "relu wrong", "graph": {
    "inputs": {"x": {"data": [1.0, -2.0], "descriptor": {"shape": [2], "dataType": "float32"}}},
    "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
    "expectedOutputs": {"y": {"data": [1.0, 5.0], "descriptor": {"shape": [2], "dataType": "float32"}}}}}


@pytest.fixture
def user_folder(tmp_path, monkeypatch):
    """The folder the user runs us in, with a corpus of one failing case under their own name."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "c.json").write_text(json.dumps({"tests": [WRONG]}))
    return tmp_path


def runs_as_printed(command: str, capsys=None) -> int:
    """Run a printed command as a shell would (its comment ignored); it must not be a usage error."""
    argv = shlex.split(command, comments=True)
    assert argv[:2] == ["webnn-harness", "run"], command
    code = main(argv[1:] + ["-q"])
    assert code in (0, 1), f"exit {code}: {command}"
    return code


def rerun_records(command: str) -> list[dict]:
    out = shlex.split(command, comments=True)
    folder = out[out.index("--out") + 1]
    return [json.loads(line) for line in open(f"{folder}/results.jsonl")]


def test_console_rerun_command_runs_as_printed(user_folder, capsys):
    assert main(["run", "--backend", "reference", "--cases", "mine", "--out", "out/run", "--workers", "1"]) == 1
    (command,) = [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip().startswith("webnn-harness run")]
    assert "--cases mine " in command
    assert runs_as_printed(command) == 1
    assert [r["case"] for r in rerun_records(command)] == ["relu wrong"]


def test_summary_command_keeps_relative_paths_as_given(user_folder):
    assert main(["run", "-q", "--backend", "reference", "--cases", "./mine", "--out", "out/run", "--workers", "1"]) == 1
    recorded = json.loads((user_folder / "out/run/summary.json").read_text())["command"]
    assert "--cases ./mine" in recorded and "--out out/run" in recorded, recorded  # was: --cases mine --out run


def test_absolute_paths_inside_are_made_relative_outside_shortened_and_said(user_folder, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "corpus"
    assert shown_path(str(user_folder / "mine")) == ("mine", False)
    assert shown_path("../x/wpt") == ("../x/wpt", False)
    assert shown_path(str(outside)) == ("corpus", True)
    command = public_command(["prog", "run", "--cases", str(user_folder / "mine"), "--out", str(outside)])
    assert command == f"webnn-harness run --cases mine --out corpus  {SHORTENED}"
    assert public_command(["prog", "run", "--cases", "mine"]) == "webnn-harness run --cases mine"


def test_conformance_page_and_junit_commands_run_as_printed(user_folder):
    assert main(["run", "-q", "--backend", "reference", "--cases", "mine", "--out", "out/run", "--workers", "1",
                 "--junit", "junit.xml"]) == 1
    from webnn_harness.reports import build_site

    page = build_site(["out/run"], "out/site").with_name("conformance.html").read_text()
    (command,) = [html.unescape(c) for c in re.findall(r'<code class="cmd" title="re-run[^"]*">(.*?)</code>', page)]
    assert runs_as_printed(command) == 1
    junit = (user_folder / "junit.xml").read_text()
    (line,) = [html.unescape(m) for m in re.findall(r"re-run: (webnn-harness run[^\n<]*)", junit)]
    assert "--cases mine" in line
    shutil.rmtree(shlex.split(line)[shlex.split(line).index("--out") + 1])  # the same re-run folder: never overwritten
    assert runs_as_printed(line) == 1


def test_findings_page_command_runs_as_printed(user_folder):
    """A fuzz folder at out/fuzz: the page printed --cases fuzz/findings, which exits 2 from here."""
    folder = user_folder / "out" / "fuzz"
    (folder / "findings").mkdir(parents=True)
    (folder / "findings-details").mkdir()
    case = {**WRONG, "name": "c"}
    (folder / "findings" / "abc.json").write_text(json.dumps({"tests": [case]}))
    finding = {"key": "fail | relu | float32 | positive | ", "id": "abc", "status": "fail", "ops": ["relu"],
               "dataTypes": ["float32"], "valueKind": "positive", "message": "", "required": True, "seed": 1,
               "elements": 2, "nodes": 1, "known": [], "hits": 1}
    (folder / "findings-details" / "abc.json").write_text(json.dumps({**finding, "case": "c"}))
    header = {"harness": "webnn-harness", "harnessVersion": "0", "date": "2026-01-01T00:00:00+00:00", "machine": {},
              "backend": {"name": "reference", "version": "0", "device": "cpu", "settings": {}}}
    (folder / "summary.json").write_text(json.dumps({**header, "kind": "fuzz", "complete": True,
                                                     "settings": {"backend": "reference", "options": {}, "seed": 1},
                                                     "findings": [finding], "newFindings": 1}))
    from webnn_harness.reports import build_site

    page = build_site(["out/fuzz"], "out/site").with_name("findings.html").read_text()
    (command,) = [html.unescape(c) for c in re.findall(r'<code class="cmd">(.*?)</code>', page)]
    assert "--cases out/fuzz/findings" in command
    assert runs_as_printed(command) == 1


def test_merged_run_keeps_every_shard_command_and_its_pages_rerun_with_the_options(user_folder):
    passing = {**WRONG, "name": "relu right"}
    passing["graph"] = {**WRONG["graph"], "expectedOutputs": {}}
    (user_folder / "mine" / "c.json").write_text(json.dumps({"tests": [WRONG, passing]}))
    for i in (1, 2):
        main(["run", "-q", "--backend", "reference", "-o", "precision=float64", "--cases", "mine", "--shard", f"{i}/2",
              "--out", f"out/shard-{i}", "--workers", "1"])
    assert main(["merge", "out/shard-1", "out/shard-2", "--out", "out/run"]) == 1  # "relu wrong" fails, as run's
    summary = json.loads((user_folder / "out/run/summary.json").read_text())
    assert [("--shard 1/2" in c, "--shard 2/2" in c) for c in summary["shardCommands"]] == [(True, False), (False, True)]
    assert summary["command"].startswith("webnn-harness merge out/shard-1 out/shard-2 --out out/run")
    from webnn_harness.reports import build_site

    page = build_site(["out/run"], "out/site").with_name("conformance.html").read_text()
    (command,) = [html.unescape(c) for c in re.findall(r'<code class="cmd" title="re-run[^"]*">(.*?)</code>', page)]
    assert "-o precision=float64" in command and "--cases mine" in command
    assert runs_as_printed(command) == 1
