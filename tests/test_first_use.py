"""What a newcomer meets first (issue 28): what the commands print and what the
report pages put first. The browser side of the pages is
tests/test_reports_browser.py; the README's commands, tests/test_readme_commands.py."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from webnn_harness.cli import main
from webnn_harness.fuzz.findings import Finding, finding_line, findings_tally


def relu_case(name: str, expected=(0, 2, 0, 4)) -> dict:
    return {"name": name, "graph": {
        "inputs": {"x": {"data": [-1, 2, -3, 4], "descriptor": {"shape": [4], "dataType": "float32"}}},
        "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
        "expectedOutputs": {"y": {"data": list(expected), "descriptor": {"shape": [4], "dataType": "float32"}}}}}


@pytest.fixture
def corpus(tmp_path) -> Path:
    """A corpus "mine": two passing relu cases and one with a wrong expected value."""
    root = tmp_path / "mine"
    root.mkdir()
    (root / "relu.json").write_text(json.dumps([relu_case("relu a"), relu_case("relu b"),
                                                relu_case("relu wrong", (0, 2, 0, 5))]))
    return root


def run(tmp_path, out, *args) -> int:
    return main(["run", "-q", "--workers", "1", "-b", "reference", "--out", str(tmp_path / out), *args])


def test_many_unmatched_expectations_are_one_line_with_the_first_few(tmp_path, corpus, capsys):
    entries = [{"case": f"typo {i}", "reason": "never matches"} for i in range(7)]
    (tmp_path / "exp.json").write_text(json.dumps(entries))
    run(tmp_path, "r", "--cases", str(corpus), "--expectations", str(tmp_path / "exp.json"))
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "expectation matched no case" in line]
    assert len(lines) == 1, err
    assert lines[0].strip().startswith("7 x expectation matched no case") and "summary.json" in lines[0]
    assert '"typo 2"' in lines[0] and '"typo 3"' not in lines[0]  # the first three only
    # a few are still listed one a line
    (tmp_path / "exp2.json").write_text(json.dumps(entries[:2]))
    run(tmp_path, "r2", "--cases", str(corpus), "--expectations", str(tmp_path / "exp2.json"))
    assert capsys.readouterr().err.count("  expectation matched no case: ") == 2


def test_rerun_failures_of_another_corpus_without_its_cases_says_to_pass_them(tmp_path, corpus, capsys):
    assert run(tmp_path, "old", "--cases", str(corpus)) == 1
    capsys.readouterr()
    assert run(tmp_path, "new", "--rerun-failures", str(tmp_path / "old")) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err  # one line, not the ids the bundled corpus lacks
    assert "ran the corpus mine, not the bundled one: pass the same --cases as it did" in err
    assert "(its command: webnn-harness" in err  # run in-process here, so the recorded command is short
    # with its --cases it runs the one failure again
    assert run(tmp_path, "new", "--rerun-failures", str(tmp_path / "old"), "--cases", str(corpus)) == 1


def _finding(cause="backend", known=(), message="", value_kind="zero") -> Finding:
    return Finding(key="k", id="abc123", status="fail", ops=("sign",), data_types=("float32",), value_kind=value_kind,
                   message=message, worst={}, required=True, seed=1, elements=1, nodes=1, known=known, cause=cause)


def test_a_fuzz_console_line_says_new_or_known_and_has_no_empty_field():
    assert finding_line(_finding()) == "finding abc123 (new): fail sign float32 on zero values"
    known = finding_line(_finding(known=("ORT's Sign returns NaN for NaN",), message="output differs\n at [0]"))
    assert known == ("finding abc123 (known): fail sign float32 on zero values: output differs at [0]; "
                     "known: ORT's Sign returns NaN for NaN")
    assert "on none values" not in finding_line(_finding(value_kind="none"))
    assert "(precision)" in finding_line(_finding(cause="precision", known=("x",)))


def test_fuzz_totals_are_disjoint_groups_that_add_up():
    findings = [_finding(), _finding(), _finding(known=("r",)), _finding(cause="precision"),
                _finding(cause="precision", known=("r",))]
    text = findings_tally(findings)
    assert text == "5 findings: 2 new (not a known failure), 1 known, 2 precision effects"
    assert sum(int(n) for n in re.findall(r"(\d+) (?:new|known|precision)", text)) == 5
    assert findings_tally([]) == "0 findings"


def test_backends_aligns_long_versions_and_names_what_run_uses(capsys, monkeypatch):
    from webnn_harness import backends
    from webnn_harness.backends.base import BackendInfo
    from webnn_harness.commands.backends import backend_row

    reference = backends.create("reference", {})

    class LongVersion:
        def info(self):
            return BackendInfo(name="longname-backend", version="2026.4.1-22982-e213a147257-releases/2026/4",
                               device="CPU")

    monkeypatch.setattr(backends, "available", lambda: {"reference": "x", "longname-backend": "y"})
    monkeypatch.setattr(backends, "create", lambda name, options: LongVersion() if name != "reference" else reference)
    # These fakes live in this process only: load them here, not in the child a third-party backend gets.
    monkeypatch.setattr("webnn_harness.commands.backends.isolated_row", lambda name, target: backend_row(name, target))
    assert main(["backends"]) == 0
    lines = capsys.readouterr().out.splitlines()
    devices = [line.index(d) for line, d in zip(lines, ("CPU", "cpu"))]
    assert devices[0] == devices[1], lines  # the device column lines up after the 40-character version
    assert lines[-1].startswith("run without --backend uses reference;")


@pytest.mark.parametrize("command, shown", [
    ("run", ["seconds per case before it counts as a timeout (default 60)", "the summary still prints"]),
    ("fuzz", ["(default 60;", "(default: new graphs each run", "the summary still prints"]),
    ("bench", ["(default 300)", "the summary still prints"]),
    ("probe", ["not run's --max-case-bytes", "the summary still prints"]),
    ("ops", ["print the catalog as JSON"]),
    ("backends", ["print the backends as JSON"]),
])
def test_help_shows_defaults_and_says_what_each_flag_does(command, shown, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for phrase in shown:
        assert phrase in text, phrase


def test_report_over_a_folder_holding_an_earlier_site_adds_no_ghost_backend(tmp_path, corpus, capsys):
    work = tmp_path / "out"
    assert main(["probe", "-b", "reference", "--op", "relu", "--no-layout", "--no-bytes", "--workers", "1", "-q",
                 "--out", str(work / "probe")]) == 0
    run(work, "run", "--cases", str(corpus))
    assert main(["report", str(work), "--out", str(work / "site")]) == 0
    assert (work / "site" / "data").is_dir() and list((work / "site" / "data").glob("*opSupportLimits.json"))
    assert main(["report", str(work), "--out", str(work / "site")]) == 0  # again: the site is inside the input now
    assert [p.name for p in (work / "site" / "backends").glob("*.html")] == ["reference-0.1.0.html"]


def test_two_runs_of_one_corpus_are_named_by_their_folders(tmp_path, corpus):
    from webnn_harness.reports import build_model

    for folder in ("monday", "tuesday"):
        run(tmp_path, folder, "--cases", str(corpus))
    run(tmp_path, "named", "--cases", str(corpus), "--label", "nightly")
    conf = build_model([tmp_path / "monday", tmp_path / "tuesday", tmp_path / "named"]).conformance
    assert sorted(b.header.label for b in conf.backends) == ["monday (mine)", "nightly", "tuesday (mine)"]
    assert len({b.backend.label for b in conf.backends}) == 3  # three rows a reader tells apart


def test_layout_evidence_is_worded_not_dumped():
    from webnn_harness.reports.capability import _layout_facts

    raw = {"preferred": "nchw", "verdict": "no significant preference", "significant": False, "basis": "...",
           "ratio": {"median": 1.1667, "ci95": [0.995, 1.529]},
           "method": {"rounds": {"min": 7, "max": 25, "budgetSeconds": 1.5}, "interleaved": True,
                      "interval": "order-statistic 95% interval for the median"},
           "shapes": {"conv2d 3x3": {"op": "conv2d", "channels": 32, "size": 56, "batch": 1, "dataType": "float32"}},
           "ended": "end", "extra": {"note": 1}}
    facts = dict(_layout_facts(raw))
    assert facts["All graphs"] == ("nhwc / nchw 1.167 (geometric mean of the graphs' ratios), 95% interval "
                                   "0.995–1.529: no significant preference")
    assert facts["Method"] == ("7–25 rounds, nchw and nhwc interleaved, within 1.5 s a graph; "
                               "order-statistic 95% interval for the median")
    assert facts["Inputs"] == "batch 1, float32"
    assert facts["extra.note"] == "1"  # a key the page does not word is still shown
    assert not any(k.startswith(("ratio", "method", "shapes", "ended")) for k in facts)


def test_conformance_page_writes_a_known_reason_once_and_says_known_beside_required_ok(tmp_path, corpus):
    from webnn_harness.reports import build_site

    reason = "the expected value of this case is wrong on purpose, a long reason " * 3
    (tmp_path / "exp.json").write_text(json.dumps([{"match": "wrong", "reason": reason},
                                                   {"match": "relu [ab]$", "reason": "never applies: they pass"}]))
    (corpus / "more.json").write_text(json.dumps([relu_case(f"more wrong {i}", (0, 2, 0, 5)) for i in range(4)]))
    assert run(tmp_path, "r", "--cases", str(corpus), "--expectations", str(tmp_path / "exp.json")) == 0
    page = build_site([tmp_path / "r"], tmp_path / "site").parent.joinpath("conformance.html").read_text()
    assert page.count(reason.strip()) == 1  # in the list of reasons under the table, not on each of the 5 rows
    assert page.count('href="#known-1"') == 5
    outcome = re.search(r'<span class="badge good">required OK</span>(.*?)</td>', page, flags=re.S).group(1)
    assert "5 known failures" in outcome


def test_performance_page_leads_with_the_seed_table_and_the_slowest_then_folds_the_header(tmp_path):
    from test_reports_performance import seed_records, write_bench
    from webnn_harness.reports import build_site
    from webnn_harness.reports.performance import SLOWEST_SHOWN, build_performance

    folder = write_bench(tmp_path / "bench", seed_records())
    perf = build_performance([folder])
    medians = [r.seconds for r in perf.slowest]
    speeds = sorted((r.seconds for r in perf.records if r.is_speed), reverse=True)
    assert len(medians) == SLOWEST_SHOWN and medians == speeds[:SLOWEST_SHOWN]
    page = build_site([folder], tmp_path / "site").parent.joinpath("performance.html").read_text()
    order = [page.index(marker) for marker in ('id="answer"', 'id="published"', 'id="slowest"', 'id="header"',
                                               'id="ratios"')]
    assert order == sorted(order)  # the answer, then the folded "what was measured", then the details
    assert re.search(r'<details class="meta" id="header">\s*<summary>What was measured', page)
    assert "<th>÷</th>" not in page and "Baseline variant" in page


def test_two_benches_one_after_the_other_lead_with_their_significant_changes(tmp_path):
    pytest.importorskip("scipy")
    from test_reports_performance import record, write_bench
    from webnn_harness.reports.performance import build_performance

    steady = [0.010 + 0.0001 * (i % 5) for i in range(30)]
    slower = [t * 1.5 for t in steady]
    before = write_bench(tmp_path / "before", [record("op-add", "graph", steady), record("op-mul", "graph", steady)])
    after = write_bench(tmp_path / "after", [record("op-add", "graph", slower), record("op-mul", "graph", steady)])
    changes = build_performance([before, after]).changes
    assert [(c.benchmark, c.verdict) for _, _, c in changes] == [("op-add", "slower")]
    assert changes[0][0].startswith("before: ") and changes[0][1].startswith("after: ")


def test_merge_defaults_its_out_as_run_does_and_junit_takes_runs_option_name(tmp_path, corpus, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for i in (1, 2):
        run(tmp_path, f"shard{i}", "--cases", str(corpus), "--shard", f"{i}/2")
    # exit 1 as run's on the whole run: "relu wrong" fails (issue 42)
    assert main(["merge", str(tmp_path / "shard1"), str(tmp_path / "shard2")]) == 1
    assert (tmp_path / "out" / "run" / "results.jsonl").is_file()
    assert main(["junit", "out/run", "--junit", "out/junit.xml"]) == 1
    assert (tmp_path / "out" / "junit.xml").read_text().startswith("<?xml")
