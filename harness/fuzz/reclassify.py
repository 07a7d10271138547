"""Classify the findings of an earlier fuzz run again with the current code:
cause (precision or backend, harness/fuzz/precision.py) and known or new
(findings.agreeing_expectations), without running the backend again. The
run's folder is read, never written; the result is a new fuzz folder
(summary.json, findings/, findings-details/) that ``report`` reads as any.

Each finding's minimal case is evaluated again, so the verdict uses the
current reference: ``stillFails`` says whether the backend's stored value at
the worst element still fails against it (a reference fix since the run
can turn a finding into a pass). Probe reasons are kept as the run found them.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Mapping

from webnn_harness.fuzz.driver import FUZZ_FILES
from webnn_harness.outputs.kinds import FUZZ_SUMMARY_SCHEMA, read_fuzz_folder
from webnn_harness.files.reading import read_json
from webnn_harness.outputs.writing import OwnedFolder
from webnn_harness.files.writes import write_atomic
from webnn_harness.loading.cases import Case, load_file
from webnn_harness import backends
from webnn_harness.verdict.expectations import ExpectationSet
from webnn_harness.fuzz.findings import (agreeing_expectations, finding_counts, finding_value_kinds,
                                         related_expectations)
from webnn_harness.fuzz.precision import STALE, classify_cause, judge_worst
from webnn_harness.probe.deviations import present_classes
from webnn_harness.outputs.records import run_header


def _minimal_case(folder: Path, finding: Mapping) -> Case:
    path = folder / "findings" / f"{finding['id']}.json"
    cases = list(load_file(path, file=f"findings/{path.name}"))
    if len(cases) != 1 or not isinstance(cases[0], Case):
        raise ValueError(f"{path}: not one loadable case ({cases[0] if cases else 'empty'})")
    return cases[0]


def reclassify_finding(folder: Path, finding: Mapping, known: ExpectationSet) -> dict:
    case = _minimal_case(folder, finding)
    worst = finding["worst"]
    output_type = finding["key"].split(" | ")[2]
    related = related_expectations(finding["ops"], finding["dataTypes"], known.entries)
    kinds = finding_value_kinds(worst, output_type, present_classes(case))
    agreeing, others = agreeing_expectations(related, kinds, finding["message"], finding["dataTypes"])
    probe = [k for k in finding.get("known", []) if k.startswith("probe: ")]
    cause, note = classify_cause(case, finding["status"], worst)
    still = None
    if finding["status"] == "fail" and worst.get("index") is not None and worst.get("metric") is not None:
        verdict = judge_worst(case, worst, "float64")
        still = None if verdict is None else not verdict.passed
    if still is False:  # cause is about a failure; this one is gone
        cause, note = STALE, "the current reference gives the backend's value: the reference changed since this run"
    return {**finding, "known": list(dict.fromkeys(agreeing + probe)), "related": others, "cause": cause,
            "causeNote": note, "stillFails": still}


def reclassify(source: Path, out: Path) -> Path:
    """Write ``out`` (a new folder) with ``source``'s findings classified again; returns its summary.json."""
    source, out = Path(source), Path(out)
    # Its finding ids become file names: the schema allows only names (harness/files/reading.py).
    summary = dict(read_fuzz_folder(source).summary)
    if out.resolve() == source.resolve():
        raise ValueError(f"{out} is the folder read; give a new folder")
    with OwnedFolder(out, kind="fuzz", files=FUZZ_FILES):  # new: a folder holding a fuzz run is refused
        return _reclassified(source, out, summary)


def _reclassified(source: Path, out: Path, summary: dict) -> Path:
    backend = summary["backend"]
    known = backends.known_failures(backend["name"], backend["version"], summary["settings"].get("options", {}),
                                   recorded=True)
    findings = [reclassify_finding(source, f, known) for f in summary["findings"]]
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source / "findings", out / "findings")
    (out / "findings-details").mkdir()
    for f in findings:
        old = source / "findings-details" / f"{f['id']}.json"
        extra = read_json(old, kind=f"{FUZZ_SUMMARY_SCHEMA}#finding") if old.exists() else {}
        write_atomic(out / "findings-details" / f"{f['id']}.json", json.dumps({**extra, **f}, indent=1) + "\n")
    summary.update(findings=findings, **finding_counts(findings),
                   reclassified={"from": source.name, **{k: v for k, v in run_header().items() if k != "harness"}})
    path = write_atomic(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    return path


def table(summary: Mapping) -> list[str]:
    """One line per finding: id, ops, data types, cause, known or new."""
    lines = [f"{summary['backend']['name']} {summary['backend']['version']}: {len(summary['findings'])} findings, "
             f"{summary['backendFindings']} backend, {summary['precisionFindings']} precision, "
             f"{summary['newFindings']} new"]
    for f in summary["findings"]:
        lines.append(" | ".join((f["id"], "+".join(f["ops"]), ",".join(f["dataTypes"]), f["cause"],
                                 "known" if f["known"] else "new" + (" (related expectation)" if f["related"] else ""))))
    return lines


def main(argv: list[str] | None = None) -> int:
    """python -m webnn_harness.fuzz.reclassify FUZZ_DIR NEW_DIR"""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m webnn_harness.fuzz.reclassify",
                                     description="classify an earlier fuzz run's findings again into a new folder")
    parser.add_argument("source", help="a fuzz folder (summary.json, findings/, findings-details/); read only")
    parser.add_argument("out", help="a new folder for the reclassified run")
    args = parser.parse_args(argv)
    try:
        summary = json.loads(reclassify(Path(args.source), Path(args.out)).read_text())
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    print("\n".join(table(summary)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
