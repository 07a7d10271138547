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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping

import filelock

from webnn_harness.outputs.records import Record, read_records

RESULTS, SUMMARY, LOCK = "results.jsonl", "summary.json", ".webnn-harness-run.lock"
Mode = Literal["new", "overwrite", "resume"]


class OutputFolderError(Exception):
    """The output folder cannot be used as asked: one line, exit code 2."""


@dataclass(frozen=True)
class RecordsRead:
    records: tuple[Record, ...]
    problems: tuple[str, ...]  # "FILE: line N: why", for lines that were skipped
    whole_bytes: int  # length of the file up to the end of its last complete line


def _record_problem(line: bytes) -> tuple[Record | None, str]:
    try:
        doc = json.loads(line)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        return None, f"not JSON ({exc})"
    if not isinstance(doc, dict):
        return None, "not a webnn-harness record (not a JSON object)"
    try:
        return Record.from_json(doc), ""
    except KeyError as exc:
        return None, f"not a webnn-harness record (no {exc} field)"
    except (TypeError, ValueError) as exc:
        return None, f"not a webnn-harness record ({exc})"


def read_records_whole(path: Path, max_problems: int = 5) -> RecordsRead:
    """Every record of ``path`` that can be read; the rest named by line number."""
    records: list[Record] = []
    problems: list[str] = []
    skipped = 0
    whole = 0
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, start=1):
            complete = line.endswith(b"\n")
            if not line.strip():
                whole += len(line) * complete
                continue
            record, why = _record_problem(line)
            if complete or record is not None:  # a last record missing only its newline is whole
                whole += len(line)
            if record is not None:
                records.append(record)
                continue
            skipped += 1
            if not complete:
                why = "cut short (the run was killed while writing it?); the lines before it are read"
            if len(problems) < max_problems:
                problems.append(f"{path}: line {number}: {why}")
    if skipped > max_problems:
        problems.append(f"{path}: ... and {skipped - max_problems} more unreadable lines")
    return RecordsRead(tuple(records), tuple(problems), whole)


def record_key(backend_name: str, file: str, case: str) -> tuple[str, str, str]:
    return (backend_name, file, case)


@dataclass
class OutputFolder:
    """An output folder locked for one run. Use as a context manager."""

    path: Path
    mode: Mode = "new"
    previous: tuple[Record, ...] = ()  # resume: records already there
    problems: tuple[str, ...] = ()  # resume: lines of results.jsonl that were dropped
    _lock: filelock.BaseFileLock | None = field(default=None, repr=False)

    @property
    def done(self) -> set[tuple[str, str, str]]:
        return {record_key(str(r.backend.get("name", "")), r.file, r.case) for r in self.previous}

    def precheck(self) -> None:
        """The refusals that need no lock, before anything is written (even the lock file)."""
        if self.path.exists() and not self.path.is_dir():
            raise OutputFolderError(f"{self.path}: exists and is not a folder; choose another --out")
        if self.path.is_dir():
            self._check_contents(read=False)

    def open(self) -> "OutputFolder":
        out = self.path
        self.precheck()
        try:
            out.mkdir(parents=True, exist_ok=True)
            lock = filelock.FileLock(str(out / LOCK), timeout=0)
            lock.acquire()
        except filelock.Timeout:
            raise OutputFolderError(f"{out}: another run is writing to this folder (it holds {LOCK}); "
                                 "wait for it to finish or choose another --out") from None
        except OSError as exc:
            raise OutputFolderError(f"{out}: cannot write here: {exc.strerror or exc}") from None
        self._lock = lock
        try:
            self._check_contents()
        except BaseException:
            self.close()
            raise
        return self

    def _check_contents(self, read: bool = True) -> None:
        results = self.path / RESULTS
        holds_run = results.exists() or (self.path / SUMMARY).exists()
        if self.mode == "new" and holds_run:
            raise OutputFolderError(f"{self.path}: holds an earlier run ({RESULTS}); pass --overwrite to replace it, "
                                 "--resume to continue it, or choose another --out")
        if read and self.mode == "resume" and results.exists():
            read = read_records_whole(results)
            self.previous, self.problems = read.records, read.problems
            with open(results, "r+b") as fh:
                # Drop a cut-short last line, and end the last whole one, so appended records
                # start on a line of their own.
                fh.truncate(read.whole_bytes)
                if read.whole_bytes:
                    fh.seek(read.whole_bytes - 1)
                    if fh.read(1) != b"\n":
                        fh.write(b"\n")

    def close(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> "OutputFolder":
        return self.open() if self._lock is None else self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass(frozen=True)
class Rerun:
    """``--rerun-failures RUN``: what to run again, read from RUN's records."""

    only: dict[str, set[tuple[str, str]]]  # backend name -> (file, case) of every record that did not pass
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
        if r.status != "pass":
            only.setdefault(str(r.backend.get("name", "")), set()).add((r.file, r.case))
    if not only:
        raise OutputFolderError(f"{run_dir}: every record passed; nothing to re-run")
    return Rerun(only, read.problems)


def check_writable_file(path: Path, what: str) -> None:
    """Fail before a run, not after it, when ``path`` cannot be written: open it
    for appending (which changes nothing) and remove it again if we created it."""
    path = Path(path)
    if path.is_dir():
        raise OutputFolderError(f"{path}: {what} is a folder; name a file")
    existed = path.exists()
    try:
        with open(path, "ab"):
            pass
    except OSError as exc:
        raise OutputFolderError(f"{path}: {what} cannot be written: {exc.strerror or exc}") from None
    if not existed:
        path.unlink()


# -- reading a finished (or interrupted) run ------------------------------------
class RunFolderError(ValueError):
    """A folder that is not a readable run: one line, exit code 2."""


@dataclass(frozen=True)
class RunFolder:
    path: Path
    summary: Mapping[str, Any]  # {} for an interrupted run that wrote none
    records: tuple[Record, ...]

    @property
    def label(self) -> str:
        return str(self.summary.get("label") or self.path.name)


def read_run_folder(path: str | Path, need_summary: bool = False) -> RunFolder:
    path = Path(path)
    results = path / "results.jsonl"
    if not results.is_file():
        raise RunFolderError(f"{path}: not a run folder (no results.jsonl)")
    try:
        records = tuple(read_records(results))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RunFolderError(f"{results}: cannot read: {exc}") from None
    summary_path = path / "summary.json"
    summary: Mapping[str, Any] = {}
    if summary_path.is_file():
        try:
            summary = json.loads(summary_path.read_text())
        except (OSError, ValueError) as exc:
            raise RunFolderError(f"{summary_path}: cannot read: {exc}") from None
    elif need_summary:
        raise RunFolderError(f"{path}: no summary.json (the run did not finish)")
    return RunFolder(path, summary, records)
