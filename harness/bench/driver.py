"""Running a suite: every benchmark x variant x backend, one at a time, in a
worker process per backend, run by the run's own worker pool
(harness/execution/pool.py: ``BenchPool``), so no backend state leaks into
the parent. A worker that dies is a ``crash`` record and one that runs past
the timeout a ``timeout`` record; the worker is replaced and the bench goes on.
Records are appended to DIR/bench.jsonl and flushed as they complete;
DIR/summary.json is written first with ``complete: false`` and rewritten when
the bench ends, so a bench that is killed says it is incomplete. With
``executor`` (``bench --executor ray``: harness/bench/ray_cluster.py) the tasks run
elsewhere and their records come back to the same file."""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

from webnn_harness.files.writes import OutputFolderError, open_append, write_atomic
from webnn_harness.outputs.writing import OwnedFolder
from webnn_harness import __version__
from webnn_harness.backends import facts_or_defaults
from webnn_harness.bench.machine import machine_info, measure_peaks, usable_cores
from webnn_harness.bench.measure import TimingPolicy, timer_overhead
from webnn_harness.outputs.bench_records import STATUSES, BenchRecord
from webnn_harness.bench.suite import Suite
from webnn_harness.bench.worker import Task, worker_main
from webnn_harness.execution.pool import RunOptions, WorkerPool



class BenchExecutor(Protocol):
    """Where a bench's tasks run: local worker processes (``LocalBench``) or
    the nodes of a Ray cluster (harness/bench/ray_cluster.py). ``header``
    describes where (summary.json); ``run_backend`` hands each record, which
    names its backend info, to ``on_record`` as it completes."""

    def header(self, command: str, options: BenchOptions) -> dict[str, Any]: ...

    def run_backend(self, name: str, backend_options: Mapping[str, str], tasks: Sequence[Task],
                    options: BenchOptions, on_record: Callable[[dict], None]) -> None: ...


class BenchFolderExists(Exception):
    """The output folder already holds a bench (and --overwrite was not given)."""


@dataclass(frozen=True)
class BenchOptions:
    policy: TimingPolicy = TimingPolicy()
    timeout: float = 300.0  # seconds per variant, build, verification and timing included
    threads: int | None = None  # None: every usable core
    save_artifacts: bool = True
    name_filter: str | None = None  # regex on the benchmark id
    peaks: Mapping[str, int] = field(default_factory=dict)  # keyword arguments of measure_peaks
    start_timeout: float = 120.0
    profile_runs: int = 0  # bench --profile: profiled runs per variant at least, after its timed runs


FAILING_STATUSES = ("wrong", "error", "crash", "timeout")


@dataclass(frozen=True)
class BenchResult:
    out: Path
    records: tuple[dict, ...]
    backends: tuple[dict, ...]
    complete: bool

    @property
    def counts(self) -> dict[str, int]:
        tally = Counter(r["status"] for r in self.records)
        return {s: tally.get(s, 0) for s in STATUSES}

    @property
    def failures(self) -> int:
        """Records that fail the bench: wrong numbers, crashes, hangs and harness errors; a backend
        refusing a graph does not."""
        return sum(self.counts[s] for s in FAILING_STATUSES)


# numpy's OpenBLAS reads these when it loads: the host side of the scenarios
# (host, readback variants) gets the bench's thread count too. numpy loads in
# the fork server, which the bench's first worker starts with them
# (harness/execution/forkserver.py start_process); a server some earlier work
# of this process started keeps the thread count it started with.
HOST_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class BenchPool(WorkerPool):
    """One backend's bench tasks on the run's worker pool: one worker and one
    task a batch, so nothing is timed beside a timed variant, and a worker
    that dies or hangs on a task is that task's ``crash`` or ``timeout``
    record and is replaced (harness/execution/pool.py). What a task does, its
    timed loop included, is the bench worker's (harness/bench/worker.py).
    ``preload``: every backend of the bench, for the fork server."""

    def __init__(self, backend: str, options: Mapping[str, str], threads: int, bench: BenchOptions,
                 preload: Sequence[str]):
        run = RunOptions(workers=1, timeout=bench.timeout, batch_size=1, start_timeout=bench.start_timeout)
        super().__init__(backend, options, run, {}, preload)
        self.threads = threads

    def worker_target(self):
        return worker_main, (self.backend, self.options)

    def environment(self) -> dict[str, str]:
        return {name: str(self.threads) for name in HOST_THREAD_VARIABLES}

    def failure_record(self, item: Task, worker, status: str, message: str) -> dict:
        return failure_record(item, self.backend_info(worker), status, message)

    def received(self, worker, record: dict) -> dict:
        return dict(record, backend=self.backend_info(worker))

    def backend_info(self, worker) -> dict:
        """The backend info of ``worker``'s records: what it reported when ready, with the bench's threads."""
        return bench_info(worker.info, self.options, self.threads)


def bench_folder(out: Path, overwrite: bool) -> OwnedFolder:
    """The bench's output folder, owned (harness/outputs/writing.py): a folder holding a bench is refused
    unless asked to overwrite, another kind of output always; --overwrite removes only what a bench writes."""
    folder = OwnedFolder(Path(out), "overwrite" if overwrite else "new", kind="bench")
    try:
        return folder.open()
    except OutputFolderError as exc:
        raise BenchFolderExists(str(exc)) from None


def bench_header(command: str, peaks: Mapping, threads: int) -> dict:
    return {
        "harness": "webnn-harness", "harnessVersion": __version__,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "command": command,
        "machine": machine_info(), "peaks": dict(peaks, threads=threads),
        "timerOverheadSeconds": timer_overhead(),
    }


def _write_summary(out: Path, header: dict, suite: Suite, backends, records, complete: bool) -> None:
    tally = Counter(r["status"] for r in records)
    summary = {"header": header, "suite": suite.name, "backends": list(backends), "complete": complete,
               "counts": {s: tally.get(s, 0) for s in STATUSES},
               "loadErrors": [str(e) for e in suite.errors]}
    write_atomic(out / "summary.json", json.dumps(summary, indent=1) + "\n")


def thread_options(name: str, backend_options: Mapping[str, str], threads: int) -> dict[str, str]:
    """The backend options a bench uses, unless -o gave them: ``threads``
    (to every usable core unless -o threads= or --threads says otherwise) for
    a backend that takes it, and the options it asks the bench to set; both
    from the backend's facts (backends/base.py, "Facts"). A backend that
    cannot be loaded gets none: its worker says why."""
    declared = facts_or_defaults(name)
    backend_options = dict(backend_options)
    if declared.threads_option:
        backend_options.setdefault("threads", str(threads))
    for key, value in declared.bench_options.items():
        backend_options.setdefault(key, value)
    return backend_options


def bench_threads(threads: int | None, backend_options: Sequence[Mapping[str, str]]) -> int | None:
    """``--threads`` merged with the backends' ``-o threads=N``: one setting, and a
    numeric -o value (the last given) wins."""
    for options in backend_options:
        if "threads" in options:
            threads = int(options["threads"]) if options["threads"].isdigit() else threads
    return threads


def bench_info(info: Mapping, backend_options: Mapping[str, str], threads: int) -> dict:
    """A worker's backend info with the thread settings the bench chose."""
    info = dict(info)
    info["settings"] = {**info["settings"], "hostThreads": threads}
    if "threads" in backend_options:
        info["settings"]["threads"] = int(backend_options["threads"])
    return info


def failure_record(task: Task, info: Mapping, status: str, message: str) -> dict:
    bench = task.benchmark
    return BenchRecord(benchmark=bench.id, suite=bench.suite, kind=bench.kind, variant=task.variant,
                       title=bench.title, status=status, backend=info, op=bench.op, params=bench.params,
                       message=message, published=bench.published.get(task.variant)).to_json()


def run_bench(
    suite: Suite,
    backends: Sequence[tuple[str, Mapping[str, str]]],
    out: Path,
    options: BenchOptions = BenchOptions(),
    command: str = "",
    overwrite: bool = False,
    on_record: Callable[[dict], None] = lambda record: None,
    executor: BenchExecutor | None = None,
) -> BenchResult:
    """Run ``suite`` on each backend; raises BenchFolderExists, BackendError,
    or ValueError (nothing selected). KeyboardInterrupt leaves summary.json
    with complete: false and propagates. ``executor``: where the benchmarks
    run when not in a local worker process (Ray: harness/bench/ray_cluster.py)."""
    pattern = re.compile(options.name_filter) if options.name_filter else None
    selected = [b for b in suite.benchmarks if not pattern or pattern.search(b.id)]
    if not selected:
        raise ValueError(f"suite {suite.name!r}: no benchmark selected"
                         + (f" by --filter {options.name_filter!r}" if pattern else ""))
    out = Path(out)
    with bench_folder(out, overwrite):
        return _run_bench(suite, backends, out, options, command, on_record, executor, selected)


@dataclass(frozen=True)
class BenchRequest:
    """Everything one bench is asked to do (``webnn-harness bench``): ``run_bench``'s parameters as one value."""
    suite: Suite
    backends: tuple[tuple[str, Mapping[str, str]], ...]  # (name, options), benched in this order
    out: Path
    options: BenchOptions = BenchOptions()
    command: str = ""  # the command line as summary.json records it
    overwrite: bool = False  # replace a bench already in ``out``
    executor: BenchExecutor | None = None  # None: local worker processes


def bench_requested(request: BenchRequest, on_record: Callable[[dict], None] = lambda record: None) -> BenchResult:
    """``run_bench`` as ``request`` asks, each record given to ``on_record`` as it completes."""
    return run_bench(request.suite, request.backends, request.out, request.options, command=request.command,
                     overwrite=request.overwrite, on_record=on_record, executor=request.executor)


def _run_bench(suite: Suite, backends, out: Path, options: BenchOptions, command: str,
               on_record: Callable[[dict], None], executor: BenchExecutor | None, selected) -> BenchResult:
    threads = options.threads or usable_cores()
    tasks = [Task(bench, variant, options.policy, str(out), options.save_artifacts, options.profile_runs)
             for bench in selected for variant in bench.variants]
    executor = executor or LocalBench(threads, [n for n, _ in backends])
    header = executor.header(command, options)
    records: list[dict] = []
    infos: list[dict] = []  # every backend info the records name, in the order they first came
    _write_summary(out, header, suite, infos, records, complete=False)
    with open_append(out / "bench.jsonl") as sink:
        def keep(record: dict) -> None:
            if record["backend"] not in infos:
                infos.append(record["backend"])
            sink.write(json.dumps(record) + "\n")
            sink.flush()
            records.append(record)
            on_record(record)

        for name, backend_options in backends:
            try:
                executor.run_backend(name, backend_options, tasks, options, keep)
            finally:
                _write_summary(out, header, suite, infos, records, complete=False)
    _write_summary(out, header, suite, infos, records, complete=True)
    return BenchResult(out, tuple(records), tuple(infos), complete=True)


class LocalBench:
    """The bench's executor on this machine: each backend's tasks on a ``BenchPool``, its worker's
    threads ``threads``; ``preload``: every backend of the bench, for the fork server."""

    def __init__(self, threads: int, preload: Sequence[str]):
        self.threads, self.preload = threads, tuple(preload)

    def header(self, command: str, options: BenchOptions) -> dict[str, Any]:
        return bench_header(command, measure_peaks(**options.peaks), self.threads)

    def run_backend(self, name: str, backend_options: Mapping[str, str], tasks: Sequence[Task],
                    options: BenchOptions, on_record: Callable[[dict], None]) -> None:
        pool = BenchPool(name, thread_options(name, backend_options, self.threads), self.threads, options,
                         self.preload)
        try:
            pool.run_cases(tasks, on_record)
        finally:
            pool.close()
