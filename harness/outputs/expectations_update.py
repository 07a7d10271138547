"""``run --update-expectations FILE``: a backend's expectations file written
from one of its runs, and the run judged again against it.

The matcher itself is the verdict's (harness/verdict/expectations.py); this
is the output that reads a run folder and writes the file.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from webnn_harness.files.writes import write_atomic
from webnn_harness.outputs.run_folder import check_writable_file, read_records_whole
from webnn_harness.verdict.expectations import CpuView, Expectation, cpu_view, read_expectations
from webnn_harness.verdict.record import BAD_STATUSES, Record


def update_expectations(path: Path, records: Iterable[Record], previous: Sequence[Expectation] = (),
                        version: str = "", options: Mapping[str, str] | None = None,
                        cpu: CpuView | None = None) -> dict:
    """Write ``path`` from one backend's run (its records, made at ``version``
    with ``options``): a previous entry still naming a failing case (fail,
    error, crash, timeout) is kept with its reason, an entry whose cases all
    passed is dropped, an entry whose cases did not run or that is not in force
    for this version, these options and this machine (``cpu``) is kept as it was, and each failure no
    entry names gets an entry of its own, with the record's status and message
    as a reason to edit. Returns counts."""
    records = list(records)
    kept: list[Expectation] = []
    dropped = 0
    covered: set[str] = set()
    for e in previous:
        in_force = e.applies_to(version, options or {}, cpu)
        hits = [r for r in records if e.matches(r.file, r.case)] if in_force else []
        failing = [r for r in hits if r.status in BAD_STATUSES]
        if hits and not failing:
            dropped += 1
            continue
        kept.append(e)
        covered.update(r.id for r in failing)
    added = []
    seen: set[str] = set()
    for r in sorted(records, key=lambda r: r.id):
        if r.status not in BAD_STATUSES or r.id in covered or r.id in seen:
            continue
        seen.add(r.id)
        message = r.detail[:200]
        added.append({"file": r.file, "case": r.case,
                      "reason": f"{r.status} on {r.backend.get('name', '?')} {r.backend.get('version', '')}"
                                + (f": {message}" if message else "")})
    doc = [e.to_json() for e in kept] + added
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return {"kept": len(kept), "added": len(added), "dropped": dropped}


def check_updatable(path: Path) -> None:
    """``run --update-expectations FILE``, before the run, not after it: FILE readable as expectations
    if it is there, and writable. Raises a ValueError (ExpectationsError, OutputFolderError), one line."""
    if path.exists() and not path.is_dir():
        read_expectations(path)
    check_writable_file(path, "--update-expectations")


@dataclass(frozen=True)
class ExpectationsUpdate:
    counts: Mapping[str, int]  # entries added, kept and dropped as passing (update_expectations)
    left: int  # required failures of the run that the updated expectations do not list


def update_from_run(path: Path, results: Path, backend: str, version: str, options: Mapping[str, str],
                    given: Sequence[str | Path] = ()) -> ExpectationsUpdate:
    """Write ``path`` from one backend's run (its ``results``, made at ``version`` with ``options``),
    then judge the run again against it and the expectations it ran with (``given``): the run
    as the next one will see it. Raises ExpectationsError when ``path`` holds unreadable expectations."""
    previous = read_expectations(path) if path.exists() else ()
    records = read_records_whole(results).records
    from webnn_harness import backends

    cap = backends.facts_or_defaults(backend).isa_cap_variable
    counts = update_expectations(path, records, previous, version, options, cpu_view(cap))
    updated = backends.known_failures(backend, version, options, [*given, path])
    return ExpectationsUpdate(counts, sum(updated.apply(r).counts_against for r in records))
