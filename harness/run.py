"""The library API behind ``webnn-harness run``: load cases, run them on each
backend, write records as they complete, summarise."""
from __future__ import annotations

import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Container, Iterable, Mapping, Sequence

from webnn_harness.backends import BackendError
from webnn_harness.caseid import BUNDLED_CORPUS, corpus_root
from webnn_harness.cases import Case, CaseError, bundled_corpus
from webnn_harness.executor import ExecutorFactory, LocalExecutors
from webnn_harness.expectations import ExpectationSet
from webnn_harness.lifecycle import stop_reason
from webnn_harness.outfolder import Mode, OutputFolder, record_key
from webnn_harness.results import BackendTally, Record, ResultWriter, write_summary
from webnn_harness.runner import RunOptions, prestart
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
    resumed: int = 0  # records kept from an earlier, interrupted run (``mode="resume"``)
    dropped_lines: tuple[str, ...] = ()  # resume: unreadable lines of the earlier results.jsonl

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
    mode: Mode = "new",
    only: Mapping[str, Container[tuple[str, str]]] | None = None,
    max_case_bytes: int | None = None,
    executor: ExecutorFactory | None = None,
) -> RunResult:
    """Run the selected cases on each backend into ``out_dir``, locked for the
    run. Raises SelectionError (a ValueError) before writing anything when the
    selection is malformed or empty, ExpectationsError when an expectations
    file is, and OutputFolderError when ``out_dir`` cannot be used as asked.

    ``mode``: "new" refuses a folder holding a run, "overwrite" replaces it,
    "resume" keeps its records and runs only the cases they do not cover.
    ``only``: per backend name, the (file, case) pairs to run (``--rerun-failures``).
    ``executor`` says where cases run (default: local worker processes; harness/executor.py).
    """
    executor = executor or LocalExecutors()
    if isinstance(executor, LocalExecutors):
        prestart(r.name for r in requests)  # the workers' imports overlap the loading of cases (harness/runner.py)
    folder = OutputFolder(Path(out_dir), mode)
    folder.precheck()
    loaded = select_cases(case_paths, ops, name_filter, ids, shard, max_case_bytes)
    cases = [c for c in loaded if isinstance(c, Case)]
    errors = sorted((c for c in loaded if isinstance(c, CaseError)), key=lambda e: (e.file, e.index))
    files_run = sorted({c.file for c in loaded})
    label = label or default_label(case_paths)
    resolved: list[tuple[BackendRequest, Mapping, ExpectationSet]] = []
    for req in requests:  # every backend and expectations file checked before anything is written
        try:
            info = executor.describe(req.name, req.options)
        except (ValueError, TypeError) as exc:  # a factory refusing its options; not a case problem
            raise BackendError(f"{req.name}: {exc}") from exc
        resolved.append((req, info, ExpectationSet.for_backend(req.name, info["version"], req.options, expectations)))
    with folder:
        return _run_in(folder, loaded, cases, errors, files_run, label, resolved, shard, options, progress,
                       on_record, on_backend, only, case_paths, executor)


def _run_in(folder: OutputFolder, loaded, cases, errors, files_run, label, resolved, shard, options, progress,
            on_record, on_backend, only, case_paths, executor: ExecutorFactory) -> RunResult:
    out_dir = folder.path
    done = folder.done
    writer = ResultWriter(out_dir, append=folder.mode == "resume")
    tallies: list[BackendTally] = []
    reports: dict[str, list[dict]] = {}
    started = time.perf_counter()
    started_planned = [0]  # what the backends started so far will have recorded when they finish
    stopped = ""

    def summarise(complete: bool) -> None:
        recorded = sum(sum(t.counts.values()) for t in tallies)
        # Backends not started yet count every loaded case (an upper bound under --resume/--rerun-failures).
        planned = started_planned[0] + len(loaded) * (len(resolved) - len(tallies))
        write_summary(
            out_dir,
            tallies,
            {
                "complete": complete,
                **({"stoppedBy": stopped} if stopped else {}),
                "progress": {"recorded": recorded, "planned": max(planned, recorded),
                             "backendsStarted": len(tallies), "backends": len(resolved)},
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

    summarise(complete=False)  # what a SIGKILL leaves behind says the run is incomplete
    try:
        for req, info, known in resolved:
            name = str(info.get("name", req.name))

            def wanted(file: str, case: str) -> bool:
                if record_key(name, file, case) in done:
                    return False
                return only is None or (file, case) in only.get(name, ())

            todo = [c for c in cases if wanted(c.file, c.name)]
            todo_errors = [e for e in errors if wanted(e.file, e.name)]
            tally = BackendTally(info)
            for r in folder.previous:
                if str(r.backend.get("name", "")) == name:
                    tally.add(r)
            if on_backend:
                on_backend(info, len(todo) + len(todo_errors))
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
            pool = executor(req.name, req.options, options, info)
            try:
                if todo:
                    pool.run_cases(todo, emit)
            finally:
                pool.close()
                tally.seconds = time.perf_counter() - t0
            reports[info["name"]] = known.report()
    except BaseException as exc:
        stopped = stop_reason(exc)
        raise
    finally:
        writer.close()
        summarise(complete=not stopped)
    return RunResult(tallies, errors, reports, out_dir, label, corpus_paths(case_paths),
                     resumed=len(folder.previous), dropped_lines=folder.problems)
