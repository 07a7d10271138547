"""What an archive's site keeps of each column entry between builds, beside the digests
(harness/archive/digest.py): the pieces of the site model its files give.

An entry never changes (its id is a hash of its files), so what the columns need of it is derived
once and kept in the site's cache folder, keyed by the entry's path in the archive, a format
number and the harness version (``content_key``):

- a run: each backend's ``RunPieces`` (reports/conformance.py): tallies, the op x data type
  cells and slack, and only the records the pages show one by one (non-passes, tight passes,
  cases the judges part on), each schema-checked again when read back. A build reads no
  run's results.jsonl whose pieces are kept;
- a probe: its files as read (``ProbeFiles``: limits, evidence, header).

The cache lies in the site folder, which anyone may edit: a file that does not match its schema
(harness/schema/archive-pieces.schema.json) or reads back wrong is computed again from the entry's
files, as a damaged digest is. Bench, fuzz and accuracy columns are read
from their folders on every build.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Callable

from webnn_harness.archive.digest import content_key, read_cached, write_cached
from webnn_harness.outputs.kinds import ProbeFiles, read_probe_files
from webnn_harness.files.reading import check
from webnn_harness.verdict.record import STATUSES, Record
from webnn_harness.outputs.run_folder import RUN_RECORD_SCHEMA
from webnn_harness.reports.conformance import RunHeader, RunPieces, ShownRecord, SlackRow, run_pieces

PIECES_FORMAT = 1  # bump when RunPieces or what is kept of a probe changes
PIECES_PREFIX = "pieces-"


class CacheShapeError(ValueError):
    """A cache file that is not what this module writes: computed again."""


def _of(value: Any, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool) and kind in (int, float, (int, float)):
        raise CacheShapeError(f"expected {kind}, got {type(value).__name__}")
    return value


def _float(value: Any) -> float:
    """A float as ``_json_float`` wrote it (JSON has no infinity: an error against a zero budget)."""
    return float("inf") if value == "Infinity" else float(_of(value, (int, float)))


def _json_float(value: float) -> Any:
    return "Infinity" if value == float("inf") else value


def _counts(doc: Any) -> dict[str, int]:
    """Records per status: statuses a record may have (the records were schema-checked), counted."""
    counts = {_of(k, str): _of(n, int) for k, n in _of(doc, dict).items()}
    if not set(counts) <= set(STATUSES) or any(n < 0 for n in counts.values()):
        raise CacheShapeError("not counts of statuses")
    return counts


def _in_folder(problem: str, folder: Path) -> list:
    """A problem line, its run folder's path left out (the cache lies in the published site folder, and
    the archive may move): [True, the rest] when it starts with it."""
    prefix = str(folder)
    return [True, problem[len(prefix):]] if problem.startswith(prefix) else [False, problem]


def run_pieces_json(pieces: RunPieces, folder: Path) -> dict:
    h = pieces.header
    return {
        "header": {"backend": h.backend, "harnessVersion": h.harness_version, "date": h.date, "machine": h.machine,
                   "command": h.command, "source": h.source, "seconds": h.seconds, "incomplete": h.incomplete,
                   "label": h.label},
        "runName": pieces.run_name, "rerunOptionsDerived": pieces.rerun_options_derived, "judge": pieces.judge,
        "counts": pieces.counts, "required": pieces.required, "optional": pieces.optional,
        "knownFailures": pieces.known_failures, "requiredProblems": pieces.required_problems,
        "ops": list(pieces.ops), "dataTypes": list(pieces.data_types),
        # In (op, data type) order: the cells and slack come in set order, which differs from process to process.
        "cells": [[op, dt, dict(sorted(c.items())), known] for (op, dt), (c, known) in sorted(pieces.cells.items())],
        "slack": [[r.op, r.data_type, r.judged, _json_float(r.max_slack), _json_float(r.median_slack), r.tight]
                  for r in sorted(pieces.slack, key=lambda r: (r.op, r.data_type))],
        "shown": [[s.record.to_json(), s.command] for s in pieces.shown],
        "problems": [_in_folder(p, folder) for p in pieces.problems],
    }


def _shown(doc: Any, source: str) -> ShownRecord:
    record, command = _of(doc, list)
    check(record, RUN_RECORD_SCHEMA, source)  # as a results.jsonl line is
    return ShownRecord(Record.from_json(record), _of(command, str))


def run_pieces_from_json(doc: Any, folder: Path, source: str) -> RunPieces:
    """``run_pieces_json``'s document as RunPieces; a CacheShapeError (or a ReadError) when it is not one."""
    h = _of(_of(doc, dict)["header"], dict)
    seconds = h["seconds"]
    header = RunHeader(
        backend=_of(h["backend"], dict), harness_version=_of(h["harnessVersion"], str), date=_of(h["date"], str),
        machine=_of(h["machine"], dict), command=_of(h["command"], str), source=_of(h["source"], str),
        seconds=None if seconds is None else _of(seconds, (int, float)), incomplete=_of(h["incomplete"], str),
        label=_of(h["label"], str))
    cells = {}
    for op, dt, counts, known in (_of(c, list) for c in _of(doc["cells"], list)):
        cells[(_of(op, str), _of(dt, str))] = (Counter(_counts(counts)), _of(known, int))
    slack = tuple(SlackRow(_of(op, str), _of(dt, str), _of(judged, int), _float(top), _float(median), _of(tight, int))
                  for op, dt, judged, top, median, tight in (_of(r, list) for r in _of(doc["slack"], list)))
    problems = tuple(str(folder) + _of(text, str) if _of(rel, bool) else _of(text, str)
                     for rel, text in (_of(p, list) for p in _of(doc["problems"], list)))
    return RunPieces(
        header=header, run_name=_of(doc["runName"], str), rerun_options_derived=_of(doc["rerunOptionsDerived"], bool),
        judge=_of(doc["judge"], str), counts=_counts(doc["counts"]), required=_counts(doc["required"]),
        optional=_counts(doc["optional"]), known_failures=_of(doc["knownFailures"], int),
        required_problems=_of(doc["requiredProblems"], int),
        ops=tuple(_of(o, str) for o in _of(doc["ops"], list)),
        data_types=tuple(_of(d, str) for d in _of(doc["dataTypes"], list)),
        cells=cells, slack=slack, shown=tuple(_shown(s, source) for s in _of(doc["shown"], list)), problems=problems)


def probe_files_json(files: ProbeFiles) -> dict:
    return {"limits": files.limits, "evidence": files.evidence, "header": files.header}


def probe_files_from_json(doc: Any, stem: str) -> ProbeFiles:
    d = _of(doc, dict)
    return ProbeFiles(stem, _of(d["limits"], dict), _of(d["evidence"], dict), _of(d["header"], dict))


class ColumnReaders:
    """The run and probe readers ``build_model`` takes, for an archive's entries: each keeps what it
    derives in ``cache`` and takes it from there on the next build. ``read_run``: a run folder -> its
    groups (the report's, which remembers what it read for the digests too). ``used``: the cache files
    this build needs (the others are removed after it); ``read``: the ids of the entries whose files were read."""

    def __init__(self, entries_dir: Path, cache: Path | None, read_run: Callable):
        self.entries_dir, self.cache, self.read_run = entries_dir, cache, read_run
        self.used: set[str] = set()
        self.read: set[str] = set()

    def _file(self, path: Path, *what: Any) -> str:
        name = f"{PIECES_PREFIX}{content_key(path.relative_to(self.entries_dir).as_posix(), *what, PIECES_FORMAT)}.json"
        self.used.add(name)
        return name

    def _entry(self, path: Path) -> str:
        return path.relative_to(self.entries_dir).parts[0]

    def runs(self, folder: Path) -> list[RunPieces]:
        name = self._file(folder, "run")
        doc = read_cached(self.cache, name, "archive-pieces#run")
        if isinstance(doc, list):
            try:
                return [run_pieces_from_json(d, folder, str(self.cache / name)) for d in doc]
            except (KeyError, TypeError, ValueError):  # ValueError: CacheShapeError, a record's ReadError
                pass  # a damaged (or edited) cache file: read from the run again
        self.read.add(self._entry(folder))
        pieces = [run_pieces(g) for g in self.read_run(folder)]
        write_cached(self.cache, name, [run_pieces_json(p, folder) for p in pieces])
        return pieces

    def probe(self, stem: str, limits: Path | None, header: Path | None, evidence: Path | None) -> ProbeFiles:
        given = [p.name if p else None for p in (limits, header, evidence)]
        name = self._file(Path(stem), "probe", given)
        doc = read_cached(self.cache, name, "archive-pieces#probe")
        if isinstance(doc, dict):
            try:
                return probe_files_from_json(doc, stem)
            except (KeyError, TypeError, ValueError):
                pass  # read from the probe's files again
        self.read.add(self._entry(Path(stem)))
        files = read_probe_files(stem, limits, header, evidence)
        write_cached(self.cache, name, probe_files_json(files))
        return files
