"""The library API behind ``webnn-harness run``: load cases, run them on each
backend, write records as they complete, summarise."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Container, Iterable, Mapping, Sequence

from webnn_harness import backends
from webnn_harness.cases import Case, CaseError, load_cases
from webnn_harness.knownfailures import KnownFailures
from webnn_harness.lifecycle import stop_reason
from webnn_harness.results import BackendTally, Record, ResultWriter, write_summary
from webnn_harness.runfolder import Mode, RunFolder, record_key
from webnn_harness.runner import RunOptions, WorkerPool


@dataclass(frozen=True)
class BackendRequest:
    name: str
    options: Mapping[str, str] = field(default_factory=dict)


@dataclass
class RunResult:
    tallies: list[BackendTally]
    load_errors: list[CaseError]
    stale_known_failures: dict[str, list[dict]]
    out_dir: Path
    resumed: int = 0  # records kept from an earlier, interrupted run (``mode="resume"``)
    dropped_lines: tuple[str, ...] = ()  # resume: unreadable lines of the earlier results.jsonl

    @property
    def exit_code(self) -> int:
        """0: no required case failed, crashed, timed out or errored; 1 otherwise."""
        return 1 if any(t.counting_against for t in self.tallies) else 0


def error_record(err: CaseError, info: Mapping) -> Record:
    return Record(
        file=err.file, case=err.name, ops=(), data_types=(), backend=info, status="error",
        required=True, message=str(err),
    )


def run(
    case_paths: Sequence[str | Path],
    requests: Sequence[BackendRequest],
    out_dir: Path,
    ops: Iterable[str] | None = None,
    name_filter: str | None = None,
    options: RunOptions = RunOptions(),
    progress: Callable[[int], object] | None = None,
    on_record: Callable[[Record], None] | None = None,
    mode: Mode = "new",
    only: Mapping[str, Container[tuple[str, str]]] | None = None,
    max_case_bytes: int | None = None,
) -> RunResult:
    """Run every case on every backend into ``out_dir``, locked for the run.

    ``mode``: "new" refuses a folder holding a run, "overwrite" replaces it,
    "resume" keeps its records and runs only the cases they do not cover.
    ``only``: per backend name, the (file, case) pairs to run (``--rerun-failures``).
    """
    folder = RunFolder(Path(out_dir), mode)
    folder.precheck()
    infos = [backend_info(req) for req in requests]  # an unknown backend or option fails before anything is written
    with folder:
        return _run_in(folder, case_paths, list(zip(requests, infos)), ops, name_filter, options, progress,
                       on_record, only, max_case_bytes)


def backend_info(req: BackendRequest) -> dict:
    try:
        backend = backends.create(req.name, req.options)
    except (ValueError, TypeError) as exc:  # a factory refusing its options; not a case problem
        raise backends.BackendError(f"{req.name}: {exc}") from exc
    return backend.info().to_json()


def _run_in(folder: RunFolder, case_paths, requests, ops, name_filter, options, progress, on_record, only,
            max_case_bytes) -> RunResult:
    out_dir = folder.path
    loaded = load_cases(case_paths, ops, name_filter, max_case_bytes=max_case_bytes)
    cases = [c for c in loaded if isinstance(c, Case)]
    errors = [c for c in loaded if isinstance(c, CaseError)]
    files_run = sorted({c.file for c in loaded})
    done = folder.done
    writer = ResultWriter(out_dir, append=folder.mode == "resume")
    tallies: list[BackendTally] = []
    stale: dict[str, list[dict]] = {}
    started_planned = [0]  # what the backends started so far will have recorded when they finish
    started = time.perf_counter()
    stopped = ""

    def summarise(complete: bool) -> None:
        recorded = sum(sum(t.counts.values()) for t in tallies)
        # Backends not started yet count every loaded case (an upper bound under --resume/--rerun-failures).
        planned = started_planned[0] + len(loaded) * (len(requests) - len(tallies))
        write_summary(
            out_dir,
            tallies,
            {
                "complete": complete,
                **({"stoppedBy": stopped} if stopped else {}),
                "progress": {"recorded": recorded, "planned": max(planned, recorded),
                             "backendsStarted": len(tallies), "backends": len(requests)},
                "cases": len(loaded),
                "caseFiles": len(files_run),
                "loadErrors": [str(e) for e in errors],
                "staleKnownFailures": stale,
                "seconds": round(time.perf_counter() - started, 3),
                "command": " ".join(sys.argv),
            },
        )

    summarise(complete=False)  # what a SIGKILL leaves behind says the run is incomplete
    try:
        for req, info in requests:
            name = str(info.get("name", req.name))

            def wanted(file: str, case: str) -> bool:
                if record_key(name, file, case) in done:
                    return False
                return only is None or (file, case) in only.get(name, ())

            todo = [c for c in cases if wanted(c.file, c.name)]
            todo_errors = [e for e in errors if wanted(e.file, e.name)]
            known = KnownFailures.for_backend(req.name, req.options)
            tally = BackendTally(info)
            for r in folder.previous:
                if str(r.backend.get("name", "")) == name:
                    tally.add(r)
            tallies.append(tally)
            started_planned[0] += sum(tally.counts.values()) + len(todo) + len(todo_errors)
            t0 = time.perf_counter()

            def emit(record: Record) -> None:
                record = known.apply(record)
                writer.write(record)
                tally.add(record)
                if on_record:
                    on_record(record)
                if progress:
                    progress(1)

            for err in todo_errors:
                emit(error_record(err, info))
            pool = WorkerPool(req.name, req.options, options, info)
            try:
                if todo:
                    pool.run_cases(todo, emit)
            finally:
                pool.close()
                tally.seconds = time.perf_counter() - t0
            stale[req.name] = known.stale()
    except BaseException as exc:
        stopped = stop_reason(exc)
        raise
    finally:
        writer.close()
        summarise(complete=not stopped)
    return RunResult(tallies, errors, stale, out_dir, resumed=len(folder.previous), dropped_lines=folder.problems)
