"""The library API behind ``webnn-harness run``: load cases, run them on each
backend, write records as they complete, summarise.

    result = run(RunRequest(cases=("../wpt",), backends=(BackendRequest("onnxruntime"),),
                            out_dir=Path("out/run"), selection=CaseFilter(ops=("conv2d",))))

The CLI, the pytest plugin and the Ray path build a ``RunRequest``; the
progress display and other observers are ``RunEvents``."""
from __future__ import annotations

import shlex
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Container, Iterator, Mapping, Sequence

from webnn_harness.backends import BackendError, available
from webnn_harness.loading.caseid import BUNDLED_CORPUS, corpus_root
from webnn_harness.loading.cases import Case, CaseError, bundled_corpus
from webnn_harness.execution.executors import ExecutorFactory, LocalExecutors
from webnn_harness.verdict.expectations import ExpectationSet
from webnn_harness.execution.lifecycle import stop_reason
from webnn_harness.files.reading import ReadError, read_json
from webnn_harness.outputs.run_folder import SUMMARY, Mode, OutputFolder, Rerun, record_key, rerun_failures
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.records import BackendTally, ResultWriter, write_summary
from webnn_harness.execution.pool import RunOptions
from webnn_harness.loading.selection import CaseFilter, Selection


@dataclass(frozen=True)
class BackendRequest:
    name: str
    options: Mapping[str, str] = field(default_factory=dict)


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
class RunSetup:
    """What a run ran with, as its summary records it (``"request"``), so that ``run --rerun-failures``
    runs it again the same way: its backends with their options, its corpora and its expectations
    files, the paths as ``shown_path`` names them (relative to where it ran; () for the bundled corpus)."""
    backends: tuple[BackendRequest, ...]
    cases: tuple[str, ...] = ()
    expectations: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"backends": [{"name": b.name, "options": dict(b.options)} for b in self.backends],
                "cases": list(self.cases), "expectations": list(self.expectations)}

    @classmethod
    def of_request(cls, request: "RunRequest") -> "RunSetup":
        from webnn_harness.outputs.rerun_commands import shown_path

        bundled = bundled_corpus()
        cases = tuple(shown_path(p)[0] for p in request.cases if corpus_root(Path(p), bundled)[0] != BUNDLED_CORPUS)
        return cls(tuple(request.backends), cases, tuple(shown_path(p)[0] for p in request.expectations))

    @classmethod
    def from_summary(cls, summary: Mapping) -> "RunSetup | None":
        """The setup a summary records; for a folder from before it did, read from its command line."""
        recorded = summary.get("request")
        if isinstance(recorded, Mapping):
            backends = tuple(BackendRequest(str(b.get("name", "")), {str(k): str(v) for k, v in (b.get("options") or {}).items()})
                             for b in recorded.get("backends") or () if isinstance(b, Mapping))
            return cls(backends, tuple(map(str, recorded.get("cases") or ())),
                       tuple(map(str, recorded.get("expectations") or ())))
        return _setup_from_command(summary)


def _setup_from_command(summary: Mapping) -> RunSetup | None:
    from webnn_harness.backends.base import parse_options
    from webnn_harness.outputs.rerun_commands import option_values, options_from_command, recorded_run_command

    command = recorded_run_command(summary)
    if not command:
        return None
    try:
        options = parse_options(options_from_command(command) or [])
    except ValueError:
        options = {}
    names = option_values(command, ("--backend", "-b"))
    return RunSetup(tuple(BackendRequest(n, options) for n in names), tuple(option_values(command, ("--cases",))),
                    tuple(option_values(command, ("--expectations",))))


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


# Options whose values are local paths: the recorded command names them as
# outputs/rerun_commands.shown_path does (relative as given; an absolute path
# outside the working folder by its last component only, and says so), so a
# published header names no folder of this machine and runs as printed.
PATH_OPTIONS = ("--cases", "--out", "--expectations", "--update-expectations", "--junit")


def public_command(argv: Sequence[str], cwd: str | Path | None = None) -> str:
    from webnn_harness.outputs.rerun_commands import shown_path, with_shortened_note

    out = ["webnn-harness"]
    args = list(argv[1:])
    shortened = False
    i = 0
    while i < len(args):
        a = args[i]
        key, eq, value = a.partition("=")
        if key in PATH_OPTIONS and eq:
            shown, cut = shown_path(value, cwd)
            out.append(f"{key}={shown}")
        elif a in PATH_OPTIONS and i + 1 < len(args):
            shown, cut = shown_path(args[i + 1], cwd)
            out += [a, shown]
            i += 1
        else:
            out.append(a)
            cut = False
        shortened |= cut
        i += 1
    return with_shortened_note(shlex.join(out), shortened)


class RerunError(ValueError):
    """``--rerun-failures RUN`` that the run it reads does not allow as given: one line, exit code 2."""


@dataclass(frozen=True)
class RerunPlan:
    """``--rerun-failures OLD``: the same run again on the cases worth re-running, with OLD's backends,
    options, corpora and expectations unless the user gave their own (``overrides`` says which)."""
    only: Mapping[str, Container[tuple[str, str]]]  # backend name -> (file, case) to run again
    files: tuple[str, ...]  # the case file ids those are in (only these are loaded)
    backends: tuple[BackendRequest, ...]
    cases: tuple[str, ...]  # () the bundled corpus
    expectations: tuple[str, ...]
    overrides: tuple[str, ...]  # one line per setting of OLD that the user's command replaces
    cases_to_run: int


@dataclass(frozen=True)
class GivenSetup:
    """What the user's ``run --rerun-failures`` command gives itself (None: not given, OLD's is used)."""
    backends: Sequence[str] | None = None
    options: Mapping[str, str] | None = None
    cases: Sequence[str] | None = None
    expectations: Sequence[str] | None = None


def rerun_of(run_dir: str | Path, out: Path, given: GivenSetup = GivenSetup(),
             on_problem: Callable[[str], object] = lambda problem: None) -> RerunPlan:
    """``--rerun-failures RUN``: the required and listed cases that did not pass in ``run_dir`` (not
    the unsupported ones: the same backend refuses them again), for a new run into ``out``, with
    RUN's backends, options, corpora and expectations (its summary's ``request``), each replaced by
    what ``given`` gives. A backend read from RUN is run again only when it is a registered one.
    Lines of its results.jsonl that cannot be read go to ``on_problem``. Raises OutputFolderError or
    RerunError (ValueErrors, one line)."""
    rerun = rerun_failures(Path(run_dir), out)
    for problem in rerun.problems:
        on_problem(problem)
    try:  # a run's summary is not needed to re-run its records (an interrupted run may have none)
        summary = read_json(Path(run_dir) / SUMMARY)
    except ReadError:
        summary = {}
    old = RunSetup.from_summary(summary if isinstance(summary, Mapping) else {})
    source = str(run_dir)
    overrides: list[str] = []
    backends = _rerun_backends(old, rerun, given, source, overrides)
    if given.cases is not None:
        cases = tuple(given.cases)
        if old is not None and tuple(old.cases) != cases:
            overrides.append(f"--cases {' '.join(cases)} instead of {source}'s {' '.join(old.cases) or 'bundled corpus'}")
    else:
        cases = _old_cases(old, Path(run_dir), rerun.files, summary)
    if given.expectations is not None:
        expectations = tuple(given.expectations)
        if old is not None and tuple(old.expectations) != expectations:
            overrides.append(f"--expectations {' '.join(expectations)} instead of {source}'s "
                             f"{' '.join(old.expectations) or 'none'}")
    else:
        expectations = tuple(old.expectations) if old is not None else ()
        missing = [e for e in expectations if not Path(e).is_file()]
        if missing:
            raise RerunError(f"{source} ran with --expectations {missing[0]}, which is not here: give it with --expectations")
    return RerunPlan(rerun.only, tuple(rerun.files), backends, cases, expectations, tuple(overrides),
                     sum(len(v) for v in rerun.only.values()))


def _rerun_backends(old: RunSetup | None, rerun: Rerun, given: GivenSetup, source: str,
                    overrides: list[str]) -> tuple[BackendRequest, ...]:
    """OLD's backends that have cases to re-run, with OLD's options, unless the user names others or gives -o."""
    recorded = {b.name: b for b in old.backends} if old is not None else {}
    if given.backends:
        names = list(given.backends)
        ran = list(recorded) or rerun.backends  # as OLD was asked (a module:factory path), else as its records say
        if sorted(names) not in (sorted(ran), sorted(rerun.backends)):
            overrides.append(f"--backend {' '.join(names)} instead of {source}'s {' '.join(ran)}")
    else:
        names = [n for n in (recorded or rerun.backends) if n in rerun.only] or rerun.backends
        _check_registered(names, source)  # first: a results file never chooses code (issue 26)
    requests = [recorded.get(n, BackendRequest(n)) for n in names]
    if given.options is not None:
        if len(requests) > 1:
            raise RerunError("-o options apply to a single --backend; run each backend separately")
        before = dict(requests[0].options)
        if before != dict(given.options):
            overrides.append(f"-o {_pairs(given.options) or '(none)'} instead of {source}'s {_pairs(before) or 'no options'}")
        requests = [BackendRequest(requests[0].name, dict(given.options))]
    return tuple(requests)


def _pairs(options: Mapping[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in options.items())


def _old_cases(old: RunSetup | None, old_run: Path, files: Sequence[str], summary) -> tuple[str, ...]:
    """OLD's corpora, as its summary names them, when they are here; else what to give."""
    if old is not None and old.cases and all(Path(c).exists() for c in old.cases):
        return tuple(old.cases)
    _check_rerun_corpora(old_run, files, summary)
    return ()


def _check_registered(names: Sequence[str], source: str) -> None:
    """Backends named by a file we read must be registered ones: a ``module:factory`` written in a results
    file is never imported (data does not choose code); the user can still name it with --backend."""
    foreign = [n for n in names if n not in available()]
    if foreign:
        raise RerunError(f"{source}: its records name backend {foreign[0]!r}, which is not installed; "
                         "give the backend to re-run with --backend")


def _check_rerun_corpora(old_run: Path, files: Sequence[str], summary) -> None:
    """Without OLD's corpora here (nor ``--cases``) the bundled corpus is read: when OLD ran another
    corpus, say so with OLD's command rather than list every id the bundled corpus lacks. The
    bundled corpus is named by its id (``cases``) however it is installed (as ``webnn_harness/corpus``
    from a wheel: issue 41)."""
    others = sorted({f.split("/", 1)[0] for f in files} - {BUNDLED_CORPUS})
    if not others:
        return
    command = summary.get("command") if isinstance(summary, Mapping) else None  # only to quote it
    raise RerunError(f"{old_run} ran the corpus {', '.join(others)}, not the bundled one: pass the same --cases as it did"
                     + (f" (its command: {command})" if isinstance(command, str) else ""))


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
        return [(req, info, ExpectationSet.for_backend(req.name, info["version"], req.options, expectations))
                for req, info in zip(requests, described)]
    except Exception:
        selection.finish()  # raises SelectionError when nothing is selected
        raise


def _run_in(folder: OutputFolder, selection: Selection, label: str, resolved, request: RunRequest,
            events: RunEvents, executor: ExecutorFactory) -> RunResult:
    out_dir = folder.path
    shard, options, only, case_paths = request.selection.shard, request.options, request.only, request.cases
    on_record, progress, on_backend, on_total = events.on_record, events.progress, events.on_backend, events.on_total
    done = folder.done
    writer = ResultWriter(out_dir, append=folder.mode == "resume")
    tallies: list[BackendTally] = []
    reports: dict[str, list[dict]] = {}
    started = time.perf_counter()
    started_planned = [0]  # what the backends started so far will have recorded when they finish
    stopped = ""
    setup = RunSetup.of_request(request).to_json()

    def load_errors() -> list[CaseError]:
        return sorted((c for c in selection.items if isinstance(c, CaseError)), key=lambda e: (e.file, e.index))

    def summarise(complete: bool) -> None:
        loaded = selection.items
        recorded = sum(sum(t.counts.values()) for t in tallies)
        # Backends not started yet count every loaded case (an upper bound under --resume/--rerun-failures).
        planned = started_planned[0] + len(loaded) * (len(resolved) - len(tallies))
        files_run = sorted({c.file for c in loaded})
        write_summary(
            out_dir,
            tallies,
            {
                "complete": complete,
                **({"stoppedBy": stopped} if stopped else {}),
                "progress": {"recorded": recorded, "planned": max(planned, recorded),
                             "backendsStarted": len(tallies), "backends": len(resolved),
                             # Still loading: "planned" counts only the cases loaded so far.
                             **({} if selection.finished else {"loading": True})},
                "label": label,
                "shard": str(shard) if shard else None,
                "cases": len(loaded),
                "caseFiles": len(files_run),
                "caseFileIds": files_run,
                "loadErrors": sorted(str(e) for e in load_errors()),
                "expectations": reports,
                "seconds": round(time.perf_counter() - started, 3),
                "command": request.command if request.command is not None else public_command(sys.argv),
                **({"judge": request.judge} if request.judge != "harness" else {}),
                "request": setup,
            },
        )

    summarise(complete=False)  # what a SIGKILL leaves behind says the run is incomplete
    try:
        for req, info, known in resolved:
            name = str(info.get("name", req.name))
            tally = BackendTally(info)
            for r in folder.previous:
                if str(r.backend.get("name", "")) == name:
                    tally.add(r)
            tallies.append(tally)
            counted = sum(tally.counts.values())

            def emit(record: Record) -> None:
                if request.judge == "wpt":
                    record = record.judged_by_wpt()
                record = known.apply(record)
                writer.write(record)
                tally.add(record)
                if on_record:
                    on_record(record)
                if progress:
                    progress(1)

            def wanted(item: Case | CaseError) -> bool:
                if record_key(name, item.file, item.name) in done:
                    return False
                return only is None or (item.file, item.name) in only.get(name, ())

            def todo(streamed: bool) -> Iterator[Case]:
                """The cases this backend runs, as they load; the load errors it has not recorded become
                its error records on the way. Once loading ends, the count is known."""
                n = 0
                for item in _timed(selection, tally):
                    if not wanted(item):
                        continue
                    n += 1
                    if streamed:  # "planned" grows with what has loaded
                        started_planned[0] += 1
                    if isinstance(item, CaseError):
                        emit(error_record(item, info))
                    else:
                        yield item
                if streamed:
                    summarise(complete=False)  # now with every case loaded
                    if on_total:
                        on_total(n)

            if selection.finished:
                n = sum(map(wanted, selection.items))
                started_planned[0] += counted + n
            else:
                n = None
                started_planned[0] += counted
            if on_backend:
                on_backend(info, n)
            t0 = time.perf_counter()
            pool = executor(req.name, req.options, options, info)
            try:
                pool.run_cases(todo(streamed=n is None), emit)
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
    return RunResult(tallies, load_errors(), reports, out_dir, label, corpus_paths(case_paths),
                     resumed=len(folder.previous), dropped_lines=folder.problems)


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
