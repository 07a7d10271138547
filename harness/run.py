"""The library API behind ``webnn-harness run``: load cases, run them on each
backend, write records as they complete, summarise."""
from __future__ import annotations

import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from webnn_harness.caseid import BUNDLED_CORPUS, corpus_root
from webnn_harness.cases import Case, CaseError, bundled_corpus
from webnn_harness.executor import ExecutorFactory, LocalExecutors
from webnn_harness.expectations import ExpectationSet
from webnn_harness.results import BackendTally, Record, ResultWriter, write_summary
from webnn_harness.runner import RunOptions
from webnn_harness.selection import Shard, select_cases


@dataclass(frozen=True)
class BackendRequest:
    name: str
    options: Mapping[str, str] = field(default_factory=dict)


@dataclass
class RunResult:
    tallies: list[BackendTally]
    load_errors: list[CaseError]
    expectations: dict[str, list[dict]]  # backend -> every entry in force with its outcome
    out_dir: Path
    label: str = ""
    corpus_paths: dict[str, str] = field(default_factory=dict)  # corpus name -> its folder here (not the bundled one)

    def expectations_with(self, backend: str, outcome: str) -> list[dict]:
        return [e for e in self.expectations.get(backend, []) if e["outcome"] == outcome]

    @property
    def exit_code(self) -> int:
        """0: no required case failed, crashed, timed out or errored; 1 otherwise."""
        return 1 if any(t.counting_against for t in self.tallies) else 0


def error_record(err: CaseError, info: Mapping) -> Record:
    return Record(
        file=err.file, case=err.name, ops=(), data_types=(), backend=info, status="error",
        required=True, message=str(err),
    )


def corpus_paths(case_paths: Sequence[str | Path]) -> dict[str, str]:
    """Corpus name -> the folder it was read from here (for local re-run commands)."""
    out = {}
    for p in case_paths:
        name, root = corpus_root(Path(p), bundled_corpus())
        out.setdefault(name, None if name == BUNDLED_CORPUS else str(Path(p) if Path(p).is_dir() else root))
    return out


def default_label(case_paths: Sequence[str | Path]) -> str:
    """A run's name when --label is not given: its corpora, e.g. "wpt" or "cases+wpt"."""
    return "+".join(corpus_paths(case_paths)) or BUNDLED_CORPUS


# Options whose values are local paths: the recorded command keeps only their
# last component, so a published header names no folder of this machine.
PATH_OPTIONS = ("--cases", "--out", "--expectations", "--update-expectations", "--junit")


def public_command(argv: Sequence[str]) -> str:
    out = ["webnn-harness"]
    args = list(argv[1:])
    i = 0
    while i < len(args):
        a = args[i]
        key, eq, value = a.partition("=")
        if key in PATH_OPTIONS and eq:
            out.append(f"{key}={Path(value).name or value}")
        elif a in PATH_OPTIONS and i + 1 < len(args):
            out += [a, Path(args[i + 1]).name or args[i + 1]]
            i += 1
        else:
            out.append(a)
        i += 1
    return shlex.join(out)


def run(
    case_paths: Sequence[str | Path],
    requests: Sequence[BackendRequest],
    out_dir: Path,
    ops: Iterable[str] | None = None,
    name_filter: str | None = None,
    options: RunOptions = RunOptions(),
    progress: Callable[[int], object] | None = None,
    on_record: Callable[[Record], None] | None = None,
    expectations: Sequence[str | Path] = (),
    shard: Shard | None = None,
    ids: Sequence[str] = (),
    label: str | None = None,
    on_backend: Callable[[Mapping, int], object] | None = None,
    executor: ExecutorFactory | None = None,
) -> RunResult:
    """Run the selected cases on each backend. Raises SelectionError (a
    ValueError) before writing anything when the selection is malformed or
    empty, and ExpectationsError when an expectations file is. ``executor``
    says where cases run (default: local worker processes; harness/executor.py)."""
    executor = executor or LocalExecutors()
    loaded = select_cases(case_paths, ops, name_filter, ids, shard)
    cases = [c for c in loaded if isinstance(c, Case)]
    errors = sorted((c for c in loaded if isinstance(c, CaseError)), key=lambda e: (e.file, e.index))
    files_run = sorted({c.file for c in loaded})
    label = label or default_label(case_paths)
    resolved: list[tuple[BackendRequest, Mapping, ExpectationSet]] = []
    for req in requests:  # every backend and expectations file checked before anything is written
        info = executor.describe(req.name, req.options)
        resolved.append((req, info, ExpectationSet.for_backend(req.name, info["version"], req.options, expectations)))
    writer = ResultWriter(out_dir)
    tallies: list[BackendTally] = []
    reports: dict[str, list[dict]] = {}
    started = time.perf_counter()
    try:
        for req, info, known in resolved:
            tally = BackendTally(info)
            if on_backend:
                on_backend(info, len(loaded))
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
            reports[info["name"]] = known.report()
    finally:
        writer.close()
        write_summary(
            out_dir,
            tallies,
            {
                "label": label,
                "shard": str(shard) if shard else None,
                "cases": len(loaded),
                "caseFiles": len(files_run),
                "caseFileIds": files_run,
                "loadErrors": sorted(str(e) for e in errors),
                "expectations": reports,
                "seconds": round(time.perf_counter() - started, 3),
                "command": public_command(sys.argv),
            },
        )
    return RunResult(tallies, errors, reports, out_dir, label, corpus_paths(case_paths))
