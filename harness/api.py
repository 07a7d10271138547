"""The library API behind ``webnn-harness run``: load cases, run them on each
backend, write records as they complete, summarise.

    result = run(RunRequest(cases=("../wpt",), backends=(BackendRequest("onnxruntime"),),
                            out_dir=Path("out/run"), selection=CaseFilter(ops=("conv2d",))))

The CLI, the pytest plugin and the Ray path build a ``RunRequest``; the
progress display and other observers are ``RunEvents``."""
from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Container, Iterator, Mapping, Sequence

from webnn_harness import backends
from webnn_harness.backends import BackendError
from webnn_harness.loading.caseid import BUNDLED_CORPUS, corpus_root
from webnn_harness.loading.cases import Case, CaseError, bundled_corpus
from webnn_harness.execution.executors import ExecutorFactory, LocalExecutors
from webnn_harness.verdict.expectations import ExpectationSet
from webnn_harness.execution.lifecycle import stop_reason
from webnn_harness.outputs.rerun_commands import public_command
from webnn_harness.outputs.run_folder import Mode, OutputFolder, record_key
from webnn_harness.outputs.records import BackendTally, ResultWriter, write_summary
from webnn_harness.verdict.record import Record
from webnn_harness.execution.pool import RunOptions
from webnn_harness.loading.selection import CaseFilter, Selection
# What a run ran with has a module of its own (harness/run_setup.py); a BackendRequest is part of a RunRequest.
from webnn_harness.run_setup import BackendRequest, RunSetup  # noqa: F401 - BackendRequest: the API's


@dataclass(frozen=True)
class RunRequest:
    """Everything one run is asked to do."""
    cases: tuple[str | Path, ...]  # case files and folders (the bundled corpus: ``bundled_corpus()``)
    backends: tuple[BackendRequest, ...]
    out_dir: Path
    selection: CaseFilter = CaseFilter()
    options: RunOptions = RunOptions()  # workers, timeout, batch size, reference cache
    expectations: tuple[str | Path, ...] = ()  # expectations files, beside each backend's bundled one
    label: str | None = None  # the run's name in reports (default: its corpora)
    mode: Mode = "new"  # "new" refuses a folder holding a run, "overwrite" replaces it, "resume" continues it
    # Per backend name, the (file, case) pairs to run (``--rerun-failures``); None: every selected case.
    only: Mapping[str, Container[tuple[str, str]]] | None = None
    executor: ExecutorFactory | None = None  # where cases run (default: local worker processes)
    command: str | None = None  # the command line as summary.json records it (default: public_command(sys.argv))
    judge: str = "harness"  # whose verdict is each record's status: "harness" (ours) or "wpt" (harness/verdict/wpt.py)


@dataclass(frozen=True)
class RunEvents:
    """Who is told what as the run goes: ``on_record`` each record as written,
    ``progress(1)`` per record, ``on_backend(info, n)`` when a backend starts
    with ``n`` cases to run (None while they are still loading), ``on_total(n)``
    once loading ends."""
    on_record: Callable[[Record], None] | None = None
    progress: Callable[[int], object] | None = None
    on_backend: Callable[[Mapping, int | None], object] | None = None
    on_total: Callable[[int], object] | None = None


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


def run(request: RunRequest, events: RunEvents = RunEvents()) -> RunResult:
    """Run the selected cases on each backend into ``request.out_dir``, locked
    for the run. Raises SelectionError (a ValueError) before writing anything
    when the selection is malformed or empty, ExpectationsError when an
    expectations file is, and OutputFolderError when the folder cannot be used
    as asked.

    The cases load while the first backend runs (``Selection``): its workers
    get their first batch as soon as it is loaded. Nothing is written until
    the selection holds a case and every backend and expectations file has
    been checked. Where cases run: ``request.executor`` (default: local worker
    processes; harness/execution/executors.py).
    """
    requests, case_paths = request.backends, request.cases
    executor = request.executor or LocalExecutors()
    if isinstance(executor, LocalExecutors):
        # The first worker, describing the first backend while the cases load, starts the fork
        # server: it imports every backend's packages, once (harness/execution/forkserver.py).
        executor.preload = tuple(r.name for r in requests)
    folder = OutputFolder(Path(request.out_dir), request.mode)
    folder.precheck()
    selection = request.selection.selection(case_paths)
    resolved = _resolve_backends(requests, request.expectations, executor, selection)
    selection.first()
    label = request.label or default_label(case_paths)
    with folder:
        return _run_in(folder, selection, label, resolved, request, events, executor)


def _resolve_backends(requests: Sequence[BackendRequest], expectations: Sequence[str | Path],
                      executor: ExecutorFactory, selection: Selection,
                      ) -> list[tuple[BackendRequest, Mapping, ExpectationSet]]:
    """Every backend described and its expectations read, before anything is
    written. The cases load meanwhile: a local worker can describe its
    backend only once the fork server has imported it (harness/execution/pool.py),
    and a Ray task waits for its node. When a backend or an expectations
    file is refused, an empty selection is still said first, as it was
    when the cases were loaded before the backends were described."""
    described: list[Mapping] = []
    failed: list[BaseException] = []

    def describe() -> None:
        try:
            for req in requests:
                try:
                    described.append(executor.describe(req.name, req.options))
                except (ValueError, TypeError) as exc:  # a factory refusing its options; not a case problem
                    raise BackendError(f"{req.name}: {exc}") from exc
        except BaseException as exc:  # noqa: BLE001 - raised again below, in the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=describe, name="describe backends", daemon=True)
    thread.start()
    while thread.is_alive() and selection.load_next():
        pass
    thread.join()
    try:
        if failed:
            raise failed[0]
        return [(req, info, backends.known_failures(req.name, info["version"], req.options, expectations))
                for req, info in zip(requests, described)]
    except Exception:
        selection.finish()  # raises SelectionError when nothing is selected
        raise


def _run_in(folder: OutputFolder, selection: Selection, label: str, resolved, request: RunRequest,
            events: RunEvents, executor: ExecutorFactory) -> RunResult:
    progress = _RunInProgress(folder, selection, label, resolved, request, events)
    progress.summarise(complete=False)  # what a SIGKILL leaves behind says the run is incomplete
    try:
        for req, info, known in resolved:
            progress.run_backend(req, info, known, executor)
    except BaseException as exc:
        progress.stopped = stop_reason(exc)
        raise
    finally:
        progress.writer.close()
        progress.summarise(complete=not progress.stopped)
    return RunResult(progress.tallies, progress.load_errors(), progress.reports, folder.path, label,
                     corpus_paths(request.cases), resumed=len(folder.previous), dropped_lines=folder.problems)


class _RunInProgress:
    """One run into its locked folder: each backend's records written and tallied as they come
    (``run_backend``), and summary.json rewritten at each step (``summarise``)."""

    def __init__(self, folder: OutputFolder, selection: Selection, label: str, resolved, request: RunRequest,
                 events: RunEvents):
        self.folder, self.selection, self.label, self.resolved = folder, selection, label, resolved
        self.request, self.events = request, events
        self.writer = ResultWriter(folder.path, append=folder.mode == "resume")
        self.tallies: list[BackendTally] = []
        self.reports: dict[str, list[dict]] = {}
        self.started = time.perf_counter()
        self.started_planned = 0  # what the backends started so far will have recorded when they finish
        self.stopped = ""
        self.setup = RunSetup.of_request(request).to_json()

    def load_errors(self) -> list[CaseError]:
        return sorted((c for c in self.selection.items if isinstance(c, CaseError)), key=lambda e: (e.file, e.index))

    def summarise(self, complete: bool) -> None:
        loaded, request, shard = self.selection.items, self.request, self.request.selection.shard
        recorded = sum(sum(t.counts.values()) for t in self.tallies)
        # Backends not started yet count every loaded case (an upper bound under --resume/--rerun-failures).
        planned = self.started_planned + len(loaded) * (len(self.resolved) - len(self.tallies))
        files_run = sorted({c.file for c in loaded})
        write_summary(self.folder.path, self.tallies, {
            "complete": complete,
            **({"stoppedBy": self.stopped} if self.stopped else {}),
            "progress": {"recorded": recorded, "planned": max(planned, recorded),
                         "backendsStarted": len(self.tallies), "backends": len(self.resolved),
                         # Still loading: "planned" counts only the cases loaded so far.
                         **({} if self.selection.finished else {"loading": True})},
            "label": self.label,
            "shard": str(shard) if shard else None,
            "cases": len(loaded),
            "caseFiles": len(files_run),
            "caseFileIds": files_run,
            "loadErrors": sorted(str(e) for e in self.load_errors()),
            "expectations": self.reports,
            "seconds": round(time.perf_counter() - self.started, 3),
            "command": request.command if request.command is not None else public_command(sys.argv),
            **({"judge": request.judge} if request.judge != "harness" else {}),
            "request": self.setup,
        })

    def run_backend(self, req: BackendRequest, info: Mapping, known: ExpectationSet, executor: ExecutorFactory) -> None:
        """``req``'s cases on its executor, each record judged against ``known``, written and tallied."""
        name = str(info.get("name", req.name))
        tally = BackendTally(info)
        for r in self.folder.previous:
            if str(r.backend.get("name", "")) == name:
                tally.add(r)
        self.tallies.append(tally)
        counted = sum(tally.counts.values())
        emit = self._emitter(tally, known)
        wanted = self._wanted(name)
        if self.selection.finished:
            n = sum(map(wanted, self.selection.items))
            self.started_planned += counted + n
        else:
            n = None
            self.started_planned += counted
        if self.events.on_backend:
            self.events.on_backend(info, n)
        t0 = time.perf_counter()
        pool = executor(req.name, req.options, self.request.options, info)
        try:
            pool.run_cases(self._todo(info, tally, wanted, emit, streamed=n is None), emit)
        finally:
            pool.close()
            tally.seconds = time.perf_counter() - t0
        self.reports[info["name"]] = known.report()

    def _emitter(self, tally: BackendTally, known: ExpectationSet) -> Callable[[Record], None]:
        judge, writer, events = self.request.judge, self.writer, self.events

        def emit(record: Record) -> None:
            if judge == "wpt":
                record = record.judged_by_wpt()
            record = known.apply(record)
            writer.write(record)
            tally.add(record)
            if events.on_record:
                events.on_record(record)
            if events.progress:
                events.progress(1)
        return emit

    def _wanted(self, name: str) -> Callable[[Case | CaseError], bool]:
        """Whether backend ``name`` runs an item: not recorded already (resume), and asked for (re-run)."""
        done, only = self.folder.done, self.request.only

        def wanted(item: Case | CaseError) -> bool:
            if record_key(name, item.file, item.name) in done:
                return False
            return only is None or (item.file, item.name) in only.get(name, ())
        return wanted

    def _todo(self, info: Mapping, tally: BackendTally, wanted, emit, streamed: bool) -> Iterator[Case]:
        """The cases this backend runs, as they load; the load errors it has not recorded become
        its error records on the way. Once loading ends, the count is known."""
        n = 0
        for item in _timed(self.selection, tally):
            if not wanted(item):
                continue
            n += 1
            if streamed:  # "planned" grows with what has loaded
                self.started_planned += 1
            if isinstance(item, CaseError):
                emit(error_record(item, info))
            else:
                yield item
        if streamed:
            self.summarise(complete=False)  # now with every case loaded
            if self.events.on_total:
                self.events.on_total(n)


def _timed(selection: Selection, tally: BackendTally) -> Iterator[Case | CaseError]:
    """``selection``'s items, the time spent loading them added to the tally's loading_seconds."""
    items = iter(selection)
    while True:
        t0 = time.perf_counter()
        try:
            item = next(items)
        except StopIteration:
            return
        finally:
            tally.loading_seconds += time.perf_counter() - t0
        yield item
