"""Running a suite: every benchmark x variant x backend, one at a time, in an
isolated worker process per backend (spawned, so no backend state leaks into
the parent). A worker that dies is a ``crash`` record and one that runs past
the timeout a ``timeout`` record; the worker is replaced and the bench goes on.
Records are appended to DIR/bench.jsonl and flushed as they complete;
DIR/summary.json is written first with ``complete: false`` and rewritten when
the bench ends, so a bench that is killed says it is incomplete. With
``executor`` (``bench --executor ray``: harness/bench/ray_cluster.py) the tasks run
elsewhere and their records come back to the same file."""
from __future__ import annotations

import json
import multiprocessing as mp
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

from webnn_harness.outputs.writing import OutputFolderError, OwnedFolder, open_append, write_atomic
from webnn_harness import __version__
from webnn_harness.backends.base import BackendError
from webnn_harness.bench.machine import machine_info, measure_peaks, usable_cores
from webnn_harness.bench.measure import TimingPolicy, timer_overhead
from webnn_harness.outputs.bench_records import STATUSES, BenchRecord
from webnn_harness.bench.suite import Suite
from webnn_harness.bench.worker import Task, worker_main
from webnn_harness.execution.lifecycle import child_environment

_CTX = mp.get_context("spawn")
# Backends whose ``threads`` option the bench sets (to every usable core
# unless -o threads= or --threads says otherwise); others get only their -o.
THREADED = ("onnxruntime", "openvino")
# Options the bench sets unless -o says otherwise. ORT's intra-op threads
# spin while idle by default; the op-by-op and deviceTensor variants keep a
# session per op alive, and on a few cores every idle session's spinning pool
# steals the cores from the one running (seed deviceTensor: 63 ms spinning
# vs 31 ms not, 2 cores), so the bench turns spinning off: a figure
# that measures ORT's ops, not its pools fighting. -o spinning=1 restores
# ORT's default; the record's settings say which was used (issue #11).
BENCH_DEFAULTS = {"onnxruntime": {"spinning": "0"}}


class BenchExecutor(Protocol):
    """Runs a bench's tasks somewhere other than a local worker process
    (harness/bench/ray_cluster.py). ``header`` describes where (summary.json);
    ``run_backend`` hands each record to ``on_record`` as it completes and
    returns the backend infos it ran with."""

    def header(self, command: str, options: BenchOptions) -> dict[str, Any]: ...

    def run_backend(self, name: str, backend_options: Mapping[str, str], tasks: Sequence[Task],
                    options: BenchOptions, on_record: Callable[[dict], None]) -> list[dict]: ...


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


# numpy's OpenBLAS reads these when it loads: the host side of the scenarios
# (host, readback variants) gets the bench's thread count too.
HOST_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class _Worker:
    def __init__(self, backend: str, options: Mapping[str, str], start_timeout: float, host_threads: int):
        parent, child = _CTX.Pipe()
        self.process = _CTX.Process(target=worker_main, args=(child, backend, dict(options)), daemon=True)
        with child_environment({name: str(host_threads) for name in HOST_THREAD_VARIABLES}):
            self.process.start()
        child.close()
        self.conn = parent
        if not parent.poll(start_timeout):
            self.close()
            raise BackendError(f"{backend}: worker did not start in {start_timeout:.0f} s")
        try:
            kind, payload = parent.recv()
        except EOFError:
            raise BackendError(f"{backend}: worker died while starting (exit code {self.process.exitcode})") from None
        if kind == "fatal":
            self.close()
            raise BackendError(f"{backend}: {payload}")
        self.info = payload

    def run(self, task: Task, timeout: float) -> tuple[str, object]:
        """("record", json) | ("crash", message) | ("timeout", message)."""
        try:
            self.conn.send(("task", task))
        except (BrokenPipeError, OSError):
            self.process.join(5)
            return "crash", f"worker died before the task (exit code {self.process.exitcode})"
        if not self.conn.poll(timeout):
            self.close()
            return "timeout", f"no result after {timeout:.0f} s (worker killed)"
        try:
            return self.conn.recv()
        except (EOFError, ConnectionResetError):
            self.process.join(5)
            return "crash", f"worker died (exit code {self.process.exitcode})"

    def close(self) -> None:
        if self.process.is_alive():
            try:
                self.conn.send(("stop",))
            except (BrokenPipeError, OSError):
                pass
            self.process.join(2)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)


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
    """The backend options a bench uses: ``threads`` set where the bench sets
    it, and the bench's defaults (BENCH_DEFAULTS), unless -o gave them."""
    backend_options = dict(backend_options)
    if name in THREADED:
        backend_options.setdefault("threads", str(threads))
    for key, value in BENCH_DEFAULTS.get(name, {}).items():
        backend_options.setdefault(key, value)
    return backend_options


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


def _run_bench(suite: Suite, backends, out: Path, options: BenchOptions, command: str,
               on_record: Callable[[dict], None], executor: BenchExecutor | None, selected) -> BenchResult:
    threads = options.threads or usable_cores()
    tasks = [Task(bench, variant, options.policy, str(out), options.save_artifacts, options.profile_runs)
             for bench in selected for variant in bench.variants]
    header = (executor.header(command, options) if executor is not None
              else bench_header(command, measure_peaks(**options.peaks), threads))
    records: list[dict] = []
    infos: list[dict] = []
    _write_summary(out, header, suite, infos, records, complete=False)
    with open_append(out / "bench.jsonl") as sink:
        def keep(record: dict) -> None:
            sink.write(json.dumps(record) + "\n")
            sink.flush()
            records.append(record)
            on_record(record)

        for name, backend_options in backends:
            if executor is not None:
                try:
                    infos.extend(executor.run_backend(name, backend_options, tasks, options, keep))
                finally:
                    _write_summary(out, header, suite, infos, records, complete=False)
                continue
            backend_options = thread_options(name, backend_options, threads)
            worker = _Worker(name, backend_options, options.start_timeout, threads)
            info = bench_info(worker.info, backend_options, threads)
            infos.append(info)
            try:
                for task in tasks:
                    kind, payload = worker.run(task, options.timeout)
                    if kind == "record":
                        record = dict(payload, backend=info)
                    else:
                        record = failure_record(task, info, kind, payload)
                        worker.close()
                        worker = _Worker(name, backend_options, options.start_timeout, threads)
                    keep(record)
            finally:
                worker.close()
                _write_summary(out, header, suite, infos, records, complete=False)
    _write_summary(out, header, suite, infos, records, complete=True)
    return BenchResult(out, tuple(records), tuple(infos), complete=True)
