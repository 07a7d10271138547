"""JUnit XML from a run folder, for vendors' CI dashboards.

One test suite per backend configuration, with the backend's name, version,
device and settings as properties; one test case per record, its class name
made from the stable case file id (``wpt/relu.json`` -> ``wpt.relu``) so CI
history follows a case wherever the corpus lives. A failure's text ends with
the command that re-runs it."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from junitparser import Error, Failure, JUnitXml, Skipped, TestCase, TestSuite

from webnn_harness.outputs.rerun_commands import (corpus_paths_from_command, options_from_command,
                                                  published_rerun_command, recorded_run_command)
from webnn_harness.verdict.record import BAD_STATUSES
from webnn_harness.outputs.run_folder import read_run_folder
from webnn_harness.files.writes import replacing, xml_text


def junit_classname(file_id: str) -> str:
    stem = file_id[:-5] if file_id.endswith(".json") else file_id
    return stem.replace("/", ".")


@dataclass(frozen=True)
class JunitWritten:
    """What a JUnit file holds: its test cases, and how many of them count against the run (required
    problems no expectation lists: what ``run`` exits 1 on, so ``junit`` exits as the run would have)."""
    cases: int
    counting_against: int


def write_junit(run_dir: Path, out: Path, options_from_settings: Callable[[Mapping[str, Any]], list[str]],
                on_problem: Callable[[str], object] | None = None) -> JunitWritten:
    """Write ``out`` from ``run_dir``/results.jsonl. Every text from the records goes through ``xml_text``:
    XML 1.0 has no way to write a control character. Where the run's command line is not recorded, a
    re-run command's options are ``options_from_settings(record's backend)`` (the backend registry's:
    webnn_harness.backends.options_from_settings, given by the caller, since outputs/ imports no backend)."""
    run = read_run_folder(run_dir, on_problem=on_problem)  # a RunFolderError (a ValueError) names what cannot be read
    summary = run.summary
    run_command = recorded_run_command(summary)
    recorded = options_from_command(run_command) if len(summary.get("backends", [])) == 1 else None
    corpora = corpus_paths_from_command(run_command)
    label = summary.get("label") or ""
    suites: dict[str, TestSuite] = {}
    n = 0
    for r in run.records:
        key = json.dumps(r.backend, sort_keys=True, default=str)
        suite = suites.get(key)
        if suite is None:
            b = r.backend
            suite = suites[key] = TestSuite(xml_text(" ".join(x for x in ("webnn-harness", str(b.get("name", "?")),
                                                                            str(b.get("version", "")), label) if x)))
            for prop in ("name", "version", "device"):
                suite.add_property(f"backend.{prop}", xml_text(str(b.get(prop, ""))))
            suite.add_property("backend.settings", json.dumps(b.get("settings", {}), sort_keys=True, default=str))
            for prop in ("label", "harnessVersion", "date", "shard"):
                if summary.get(prop):
                    suite.add_property(prop, xml_text(str(summary[prop])))
        options = recorded if recorded is not None else options_from_settings(r.backend)
        tc = TestCase(xml_text(r.case), classname=xml_text(junit_classname(r.file)),
                      time=(r.build_seconds or 0) + (r.compute_seconds or 0))
        detail = r.message or (f"max {r.metric} error {r.max_error} > budget {r.budget} at {r.output}{list(r.worst_index or [])}: "
                               f"expected {r.expected_value}, got {r.actual_value}")
        detail, rerun = xml_text(detail), xml_text(f"re-run: {published_rerun_command(r.backend, options, r.file, r.case, corpora)}")
        if r.status in BAD_STATUSES and not r.known_failure:
            result = Failure(detail, "fail") if r.status == "fail" else Error(detail, r.status)
            result.text = f"{detail}\n{rerun}"
            tc.result = [result]
        elif r.status in ("unsupported", "skipped") or r.known_failure:
            tc.result = [Skipped(xml_text(f"known failure: {r.known_failure}") if r.known_failure else detail)]
        suite.add_testcase(tc)
        n += 1
    xml = JUnitXml()
    for suite in suites.values():
        xml.add_testsuite(suite)
    out.parent.mkdir(parents=True, exist_ok=True)
    with replacing(out) as tmp:
        xml.write(str(tmp), pretty=True)
    return JunitWritten(n, sum(r.counts_against for r in run.records))
