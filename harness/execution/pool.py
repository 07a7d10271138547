"""Running cases on a backend in isolated worker processes.

Workers are long-lived processes that take batches of cases. They are
forked from multiprocessing's fork server (harness/execution/forkserver.py), a fresh
interpreter started with the first worker (``start_process``) while the parent still loads cases, which
imports the worker's modules and the backend's packages once: a spawned
worker imported numpy, onnx and onnxruntime again, about 0.5 CPU-s each. The server forks
before any backend is created, so no backend state is shared. Where there
is no fork server (Windows), workers are spawned. Isolation stays cheap because a batch crosses the
process boundary once, and stays exact because each worker says which case
it is on before starting it: when a worker dies (segfault, abort) or a case
runs past the timeout, that case is recorded as ``crash`` or ``timeout``, the
worker is replaced, and the rest of its batch is queued again. A batch that
dies while being built together is split into single cases, so the one that
breaks the build is found. Records reach ``on_record`` as they complete.

Worker protocol (harness/execution/worker.py): parent sends ("batch", id, [Case]) or
("stop",); worker sends ("ready", info) | ("fatal", msg) once, then per
batch ("building", id), ("start", 0), per case ("record", i, Record), which
also says that case i + 1 (if any) has started, then ("done", id). A
("start", i) for a later case is understood too (the bench's workers and Ray actors send
one per task: harness/bench/worker.py, harness/bench/ray_cluster.py).
"""
from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import select
import signal
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from webnn_harness.backends.base import BackendError, preferred_batch_size
from webnn_harness.loading.cases import Case
from webnn_harness.execution.forkserver import START_METHOD as _START, start_process
from webnn_harness.verdict.record import Record
from webnn_harness.spec.uniform import register_pickling
from webnn_harness.verdict.record import base_record
from webnn_harness.execution.worker import worker_main

register_pickling()  # a 144 MB one-value tensor goes to a worker as one value


@dataclass
class _Worker:
    process: mp.Process
    conn: object
    info: Mapping | None = None  # the backend info the worker reported when ready
    batch: list[Case] | None = None
    phase: str = "idle"  # idle | starting | building | running
    current: int = -1  # index in batch of the case in progress
    done: set = field(default_factory=set)
    since: float = 0.0


@dataclass(frozen=True)
class RunOptions:
    workers: int = max(1, os.cpu_count() or 1)
    timeout: float = 60.0  # seconds per case (build of a batch gets this per case)
    batch_size: int | None = None  # cases per worker batch; None: the backend's preference
    start_timeout: float = 120.0  # a worker that cannot import its backend in this long is broken
    reference_cache: bool = True  # keep reference results on disk (harness/verdict/reference_cache.py)


class WorkerPool:
    """Runs cases on worker processes (module docstring).

    The loop is written for any work a worker does in the worker protocol:
    the bench (harness/bench/driver.py) subclasses it, changing only what a
    worker process runs (``worker_target``), with what environment
    (``environment``), and what a lost item's record and a received record
    are (``failure_record``, ``received``), as the Ray executor's subclass
    does. ``preload``: the backends whose packages the fork server imports if
    this pool starts it (harness/execution/forkserver.py); this pool's own
    when empty."""

    def __init__(self, backend: str, options: Mapping[str, str], run: RunOptions, info: Mapping,
                 preload: Iterable[str] = ()):
        self.backend, self.options, self.run, self.info = backend, dict(options), run, info
        self.preload = tuple(preload) or (backend,)
        self.workers: list[_Worker] = []
        self._poller, self._polled = None, ()

    def _ready(self, timeout: float) -> set:
        """The workers' connections that have a message (or were closed).
        One poll object kept while the workers stay the same: a wait() per
        message built and tore down a selector each time, more CPU than
        handling the message (about 15,000 calls for both corpora)."""
        conns = [w.conn for w in self.workers]
        if not hasattr(select, "poll"):
            return set(wait(conns, timeout=timeout))
        by_fd = {c.fileno(): c for c in conns}
        if tuple(by_fd) != self._polled:
            self._poller, self._polled = select.poll(), tuple(by_fd)
            for fd in by_fd:
                self._poller.register(fd, select.POLLIN)
        return {by_fd[fd] for fd, _ in self._poller.poll(timeout * 1000)}

    def worker_target(self) -> tuple[Callable, tuple]:
        """What a worker process runs: the function and its arguments after the connection."""
        return worker_main, (self.backend, self.options, self.run.reference_cache)

    def environment(self) -> Mapping[str, str]:
        """Environment variables a worker process gets over this process's own."""
        return {}

    def failure_record(self, item: Case, worker: _Worker, status: str, message: str):
        """The record of the item a worker died or hung on."""
        return base_record(item, self.info, status, message=message)

    def received(self, worker: _Worker, record):
        """The record to hand on, from what the worker sent."""
        return record

    def _spawn(self) -> _Worker:
        target, args = self.worker_target()
        proc, conn = start_process(target, args, self.preload, self.environment())
        w = _Worker(proc, conn, phase="starting", since=time.monotonic())
        self.workers.append(w)
        return w

    def _kill(self, w: _Worker) -> None:
        if w.process.is_alive():
            w.process.kill()
        w.process.join(5)
        try:
            w.conn.close()
        except OSError:
            pass
        self.workers.remove(w)

    def close(self) -> None:
        for w in list(self.workers):
            try:  # a worker whose last record came in is about to say "done": let it stop cleanly
                if w.batch and len(w.done) == len(w.batch) and w.conn.poll(2) and w.conn.recv()[0] == "done":
                    w.phase, w.batch = "idle", None
            except (OSError, EOFError):
                pass
            try:
                if w.phase == "idle":
                    w.conn.send(("stop",))
            except (OSError, BrokenPipeError):
                pass
        for w in list(self.workers):
            if w.phase == "idle":  # told to stop; a busy one (hung, or after Ctrl-C) is killed at once
                w.process.join(2)
            self._kill(w)

    def run_cases(self, cases: Iterable[Case], on_record: Callable[[Record], None]) -> None:
        """``cases`` may be a generator that loads them (harness/api.py): batches are cut from it
        a turn at a time, so the workers compute the first while the parent loads the rest."""
        feed = BatchFeed(cases, batch_size(self.run, self.info))
        queue = feed.queue
        remaining = 0
        start_failures = 0

        def n_workers() -> int:
            return max(1, min(self.run.workers, feed.made))

        def finish(w: _Worker, status: str, message: str) -> None:
            """Worker ``w`` died or hung: record its case, requeue the rest."""
            nonlocal remaining
            culprit = requeue_lost(queue, w.batch or [], w.phase, w.current, w.done)
            self._kill(w)
            if culprit is not None:
                on_record(self.failure_record(culprit, w, status, message))
                remaining -= 1
            if queue or any(x.batch for x in self.workers):
                if len(self.workers) < n_workers():
                    self._spawn()

        while True:
            for w in self.workers:
                if w.phase == "idle" and queue:
                    w.batch, w.current, w.done = queue.popleft(), -1, set()
                    w.phase, w.since = "building", time.monotonic()
                    w.conn.send(("batch", 0, w.batch))
            remaining += feed.pull()  # while cases load, one batch a turn, between the workers' messages
            if remaining == 0 and feed.exhausted:
                break
            # Workers left idle by an earlier call are reused (the probe runs in passes, the pytest plugin
            # sends one case per call, and a spawn costs a backend import).
            for _ in range(n_workers() - len(self.workers)):
                self._spawn()
            ready = self._ready(0.25 if feed.exhausted else 0)
            for w in [w for w in self.workers if w.conn in ready]:
                while True:  # every message already here: one wait() per message cost more than the rest of the loop
                    try:
                        msg = w.conn.recv()
                    except (EOFError, OSError):
                        code = w.process.exitcode if not w.process.is_alive() else None
                        if w.phase == "starting":
                            start_failures += 1
                            self._kill(w)
                            if start_failures > 3:
                                raise BackendError(f"{self.backend} workers keep dying at start-up (exit code {code})")
                            self._spawn()
                            break
                        w.process.join(1)
                        code = w.process.exitcode
                        finish(w, "crash", _describe_exit(code))
                        break
                    kind = msg[0]
                    if kind == "ready":
                        w.phase, w.info = "idle", msg[1]
                    elif kind == "fatal":
                        self._kill(w)
                        raise BackendError(f"{self.backend} cannot start in a worker: {msg[1]}")
                    elif (record := advance(w, msg)) is not None:
                        on_record(self.received(w, record))
                        remaining -= 1
                    if kind in ("ready", "done") or not w.conn.poll():
                        break  # an idle worker gets its next batch at the top of the loop
            now = time.monotonic()
            for w in list(self.workers):
                if hung := overdue(w, self.run.timeout, now):
                    finish(w, "timeout", hung)
                elif w.phase == "starting" and now - w.since > self.run.start_timeout:
                    self._kill(w)
                    raise BackendError(f"{self.backend} worker did not start within {self.run.start_timeout:g} s")
                elif w.phase != "starting" and not w.process.is_alive() and w.conn not in ready and not w.conn.poll():
                    # Dead, and nothing left to read: a worker that sent "record"/"start" and then died
                    # after ``ready`` was taken has those messages read first (next turn, then EOF), so the
                    # crash is blamed on the case it had started, not on the one before.
                    finish(w, "crash", _describe_exit(w.process.exitcode))


def advance(slot, msg: tuple) -> Record | None:
    """One message of the worker protocol (module docstring) applied to the
    bookkeeping of the worker or Ray actor ``slot`` (phase, current case,
    cases done, since when): the record, for a "record" message. "ready" and
    "fatal" are the local pool's own."""
    kind = msg[0]
    if kind == "building":
        slot.since = time.monotonic()
    elif kind == "start":
        slot.phase, slot.current, slot.since = "running", msg[1], time.monotonic()
    elif kind == "record":
        slot.done.add(msg[1])
        if msg[1] + 1 < len(slot.batch or ()):  # the next case starts at once (worker.batch_events)
            slot.phase, slot.current, slot.since = "running", msg[1] + 1, time.monotonic()
        return msg[2]
    elif kind == "done":
        slot.phase, slot.batch = "idle", None
    return None


def overdue(slot, timeout: float, now: float) -> str | None:
    """Why ``slot``'s batch is hung, or None: its build past ``timeout`` per
    case of the batch, or its current case past ``timeout``."""
    if slot.phase == "building" and now - slot.since > timeout * max(1, len(slot.batch or [])):
        return f"build did not finish within {timeout:g} s"
    if slot.phase == "running" and now - slot.since > timeout:
        return f"did not finish within {timeout:g} s"
    return None


def describe_in_worker(backend: str, options: Mapping[str, str], preload: Iterable[str] = ()) -> dict | None:
    """The backend's info as a worker forked from the fork server reports it,
    so the run's own process need not import the backend's packages (onnx
    and onnxruntime: ~0.3 CPU-s); None without a fork server or when the
    backend cannot start (the caller then creates it here, for its error).
    ``preload`` as for ``WorkerPool``."""
    if _START != "forkserver":
        return None
    pool = WorkerPool(backend, options, RunOptions(workers=1), {}, preload)
    worker = pool._spawn()
    try:
        if worker.conn.poll(pool.run.start_timeout):
            msg = worker.conn.recv()
            if msg[0] == "ready":
                worker.phase = "idle"  # told to stop by close()
                return msg[1]
    except (EOFError, OSError):
        pass
    finally:
        pool.close()
    return None


def batch_size(run: RunOptions, info: Mapping) -> int:
    """Cases per worker batch: ``run.batch_size``, or the size the backend
    prefers (backends/base.py) when the run does not set one."""
    return run.batch_size or preferred_batch_size(info)


def batches(cases: Sequence[Case], run: RunOptions, info: Mapping) -> deque[list[Case]]:
    """``cases`` in worker batches of ``batch_size``, all cut at once."""
    feed = BatchFeed(cases, batch_size(run, info))
    while feed.pull():
        pass
    return feed.queue


class BatchFeed:
    """Worker batches of ``size`` cut from ``cases`` a batch at a time
    (``pull``), into ``queue`` (``batches`` pulls them all). ``cases`` may be
    a generator that loads each case as it is asked for: then loading happens
    a batch a turn of the pool's loop, between the workers' messages, while
    the workers compute."""

    def __init__(self, cases: Iterable[Case], size: int):
        self._cases: Iterator[Case] | None = iter(cases)
        self.size = size
        self.queue: deque[list[Case]] = deque()
        self.made = 0  # batches cut so far

    @property
    def exhausted(self) -> bool:
        return self._cases is None

    def pull(self) -> int:
        """Cut the next batch into ``queue``: how many cases it holds (0 once exhausted)."""
        if self._cases is None:
            return 0
        batch = list(itertools.islice(self._cases, self.size))
        if len(batch) < self.size:
            self._cases = None
        if batch:
            self.queue.append(batch)
            self.made += 1
        return len(batch)


def requeue_lost(queue: deque, batch: list[Case], phase: str, current: int, done: set) -> Case | None:
    """A worker died or hung on ``batch``: queue again, in front, what it did
    not finish, and return the case to blame; None when the batch died being
    built together (each case is then queued alone, to find the culprit)."""
    if phase == "building" and len(batch) > 1:
        queue.extendleft([c] for c in reversed(batch))
        return None
    if not batch:
        return None
    culprit = 0 if phase == "building" else current
    rest = [c for i, c in enumerate(batch) if i > culprit and i not in done]
    if rest:
        queue.appendleft(rest)
    return batch[culprit]


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "worker process died"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"worker process killed by {name}"
    return f"worker process exited with code {code}"
