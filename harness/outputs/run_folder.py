"""The run folder (``run --out``): written by one run at a time, never replaced
unasked, and read back whole by the commands that work on finished runs
(diff, merge, junit: ``read_run_folder``).

- A lock file held for the whole run (``filelock``: flock(2) on POSIX,
  LockFileEx on Windows, released by the OS if the process dies) makes a
  second concurrent run into the same folder stop with a usage error instead
  of interleaving lines of results.jsonl.
- A folder that already holds a run is refused unless the user says
  ``overwrite`` (start again) or ``resume`` (keep its records, skip the
  cases they cover, append the rest).
- ``read_records_whole`` reads what is whole of a results.jsonl that SIGKILL
  cut short, and says which lines it could not read, by number.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from webnn_harness.outputs.kind_files import RESULTS, SUMMARY
from webnn_harness.files.reading import ReadError, read_json, read_lines
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.writing import Mode, OwnedFolder  # noqa: F401 - Mode, OutputFolderError: import paths of api.py and the commands (harness/commands/)
from webnn_harness.files.writes import OutputFolderError, describe_write_error

LOCK = ".webnn-harness-run.lock"
RUN_RECORD_SCHEMA, RUN_SUMMARY_SCHEMA = "record", "run-summary"  # harness/schema/<name>.schema.json


@dataclass(frozen=True)
class RecordsRead:
    records: tuple[Record, ...]
    problems: tuple[str, ...]  # "FILE: line N: why", for lines that were skipped
    whole_bytes: int  # length of the file up to the end of its last complete line


def read_records_whole(path: Path) -> RecordsRead:
    """Every record of ``path`` that can be read; the rest named by line number (harness/files/reading.py),
    the same for every command that reads a run."""
    read = read_lines(path, Record.from_json, kind=RUN_RECORD_SCHEMA)
    return RecordsRead(read.items, read.problems, read.whole_bytes)


def record_key(backend_name: str, file: str, case: str) -> tuple[str, str, str]:
    return (backend_name, file, case)


@dataclass
class OutputFolder(OwnedFolder):
    """A run's output folder (harness/outputs/writing.py) locked for one run; ``resume`` keeps its records."""

    previous: tuple[Record, ...] = ()  # resume: records already there
    problems: tuple[str, ...] = ()  # resume: lines of results.jsonl that were dropped

    @property
    def done(self) -> set[tuple[str, str, str]]:
        return {record_key(str(r.backend.get("name", "")), r.file, r.case) for r in self.previous}

    def _check_contents_locked(self) -> None:
        super()._check_contents_locked()
        results = self.path / RESULTS
        if self.mode == "resume" and results.exists():
            try:
                read = read_records_whole(results)
            except ReadError as exc:
                raise OutputFolderError(str(exc)) from None
            self.previous, self.problems = read.records, read.problems
            with open(results, "r+b") as fh:
                # Drop a cut-short last line, and end the last whole one, so appended records
                # start on a line of their own.
                fh.truncate(read.whole_bytes)
                if read.whole_bytes:
                    fh.seek(read.whole_bytes - 1)
                    if fh.read(1) != b"\n":
                        fh.write(b"\n")


class NothingToRerun(OutputFolderError):
    """``--rerun-failures RUN`` where every record worth re-running passed: no mistake (a CI's retry
    step after a green run), said in one line, exit 0, nothing written."""


@dataclass(frozen=True)
class Rerun:
    """``--rerun-failures RUN``: what to run again, read from RUN's records."""

    only: dict[str, set[tuple[str, str]]]  # backend name -> (file, case) of every record worth re-running
    problems: tuple[str, ...]  # lines of RUN's results.jsonl that could not be read

    @property
    def files(self) -> list[str]:
        return sorted({f for keys in self.only.values() for f, _ in keys})

    @property
    def backends(self) -> list[str]:
        return sorted(self.only)


def rerun_failures(run_dir: Path, out: Path) -> Rerun:
    results = Path(run_dir) / RESULTS
    if Path(run_dir).resolve() == Path(out).resolve():
        raise OutputFolderError("--rerun-failures writes a new run: give an --out other than the run it reads")
    if not results.is_file():
        raise OutputFolderError(f"{run_dir}: no {RESULTS} here; --rerun-failures takes the --out folder of a run")
    read = read_records_whole(results)
    if not read.records and read.problems:
        raise OutputFolderError(read.problems[0])
    only: dict[str, set[tuple[str, str]]] = {}
    for r in read.records:
        if r.worth_rerunning:
            only.setdefault(str(r.backend.get("name", "")), set()).add((r.file, r.case))
    if not only:
        raise NothingToRerun(f"{run_dir}: every required and listed record passed (or was unsupported); "
                             "nothing to re-run")
    return Rerun(only, read.problems)


def check_writable_file(path: Path, what: str) -> None:
    """Fail before a run, not after it, when ``path`` cannot be written: open it
    for appending (which changes nothing) and remove it again if we created it."""
    path = Path(path)
    try:
        if path.is_dir():
            raise OutputFolderError(f"{path}: {what} is a folder; name a file")
        existed = path.exists() or path.is_symlink()
        with open(path, "ab"):
            pass
        if not existed:
            path.unlink()
    except OSError as exc:
        raise OutputFolderError(f"{what} {describe_write_error(exc, path)}") from None


# -- reading a finished (or interrupted) run ------------------------------------
class RunFolderError(ValueError):
    """A folder that is not a readable run: one line, exit code 2."""


@dataclass(frozen=True)
class RunFolder:
    path: Path
    summary: Mapping[str, Any]  # {} for an interrupted run that wrote none
    records: tuple[Record, ...]
    problems: tuple[str, ...] = ()  # lines of results.jsonl that were skipped

    @property
    def label(self) -> str:
        return str(self.summary.get("label") or self.path.name)


def read_run_folder(path: str | Path, need_summary: bool = False,
                    on_problem: Callable[[str], object] | None = None) -> RunFolder:
    """A run folder's records and summary. Lines of results.jsonl that cannot be read are skipped, named
    in ``problems`` and given to ``on_problem`` (as ``run --resume`` skips them: every command the same);
    a file none of whose lines is a record is not a run."""
    path = Path(path)
    results = path / RESULTS
    if not results.is_file():
        raise RunFolderError(f"{path}: not a run folder (no {RESULTS})")
    try:
        read = read_records_whole(results)
        if not read.records and read.problems:
            raise RunFolderError(read.problems[0])
        summary_path = path / SUMMARY
        summary: Mapping[str, Any] = {}
        if summary_path.exists():
            summary = read_json(summary_path, kind=RUN_SUMMARY_SCHEMA)
        elif need_summary:
            raise RunFolderError(f"{path}: no {SUMMARY} (the run did not finish)")
    except ReadError as exc:
        raise RunFolderError(str(exc)) from None
    for problem in read.problems if on_problem else ():
        on_problem(problem)
    return RunFolder(path, summary, read.records, read.problems)


def backend_key(backend: Mapping[str, Any]) -> str:
    """A backend dict as one comparable key (records of one backend carry equal dicts)."""
    return json.dumps(backend, sort_keys=True, default=str)


def backend_groups(run: RunFolder) -> list[tuple[Mapping[str, Any], list[Record]]]:
    """(backend, its records) per backend of ``run``: the summary's backends in its order, then any only the
    records name (an interrupted run)."""
    groups: dict[str, tuple[Mapping[str, Any], list[Record]]] = {}
    for entry in run.summary.get("backends", []):
        b = entry.get("backend", {}) if isinstance(entry, Mapping) else {}
        groups.setdefault(backend_key(b), (b, []))
    # Every record carries its backend dict: sorting and dumping each one cost about 1 s per
    # 100k records. repr (C code) tells the same JSON values apart (1, 1.0 and True included),
    # so each distinct repr is dumped once.
    keys: dict[str, str] = {}
    for r in run.records:
        text = repr(r.backend)
        key = keys.get(text) or keys.setdefault(text, backend_key(r.backend))
        groups.setdefault(key, (r.backend, []))[1].append(r)
    return list(groups.values())
