"""The library API behind ``webnn-harness run``: load cases, run them on each
backend, write records as they complete, summarise."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from webnn_harness.cases import Case, CaseError, load_cases
from webnn_harness.executor import ExecutorFactory, LocalExecutors
from webnn_harness.knownfailures import KnownFailures
from webnn_harness.results import BackendTally, Record, ResultWriter, write_summary
from webnn_harness.runner import RunOptions


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
    executor: ExecutorFactory | None = None,
) -> RunResult:
    """``executor`` says where cases run (default: local worker processes; see harness/executor.py)."""
    executor = executor or LocalExecutors()
    loaded = load_cases(case_paths, ops, name_filter)
    cases = [c for c in loaded if isinstance(c, Case)]
    errors = [c for c in loaded if isinstance(c, CaseError)]
    files_run = sorted({c.file for c in loaded})
    writer = ResultWriter(out_dir)
    tallies: list[BackendTally] = []
    stale: dict[str, list[dict]] = {}
    started = time.perf_counter()
    try:
        for req in requests:
            info = executor.describe(req.name, req.options)
            known = KnownFailures.for_backend(req.name, req.options)
            tally = BackendTally(info)
            tallies.append(tally)
            t0 = time.perf_counter()

            def emit(record: Record) -> None:
                record = known.apply(record)
                writer.write(record)
                tally.add(record)
                if on_record:
                    on_record(record)
                if progress:
                    progress(1)

            for err in errors:
                emit(error_record(err, info))
            pool = executor(req.name, req.options, options, info)
            try:
                pool.run_cases(cases, emit)
            finally:
                pool.close()
                tally.seconds = time.perf_counter() - t0
            stale[req.name] = known.stale()
    finally:
        writer.close()
        write_summary(
            out_dir,
            tallies,
            {
                "cases": len(loaded),
                "caseFiles": len(files_run),
                "loadErrors": [str(e) for e in errors],
                "staleKnownFailures": stale,
                "seconds": round(time.perf_counter() - started, 3),
                "command": " ".join(sys.argv),
            },
        )
    return RunResult(tallies, errors, stale, out_dir)
