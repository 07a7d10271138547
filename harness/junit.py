"""JUnit XML from results.jsonl, for vendors' CI dashboards."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from junitparser import Error, Failure, JUnitXml, Skipped, TestCase, TestSuite

from webnn_harness.results import read_records


def write_junit(results: Path, out: Path) -> None:
    suites: dict[str, TestSuite] = defaultdict(lambda: TestSuite())
    for r in read_records(results):
        key = r.backend["name"]
        suite = suites[key]
        suite.name = f"webnn-harness {key} {r.backend.get('version', '')}"
        tc = TestCase(r.case, classname=r.file.replace("/", "."), time=(r.build_seconds or 0) + (r.compute_seconds or 0))
        detail = r.message or (f"max {r.metric} error {r.max_error} > budget {r.budget} at {r.output}{list(r.worst_index or [])}: "
                               f"expected {r.expected_value}, got {r.actual_value}")
        if r.status == "fail" and not r.known_failure:
            tc.result = [Failure(detail, "fail")]
        elif r.status in ("error", "crash", "timeout") and not r.known_failure:
            tc.result = [Error(detail, r.status)]
        elif r.status in ("unsupported", "skipped") or r.known_failure:
            tc.result = [Skipped(r.known_failure or detail)]
        suite.add_testcase(tc)
    xml = JUnitXml()
    for suite in suites.values():
        xml.add_testsuite(suite)
    out.parent.mkdir(parents=True, exist_ok=True)
    xml.write(str(out), pretty=True)
