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

The loop that hands out batches and pins a crash or hang on its case is the
scheduler's (harness/execution/scheduler.py), shared with the Ray executor;
this module is its transport over a pipe. The parent sends ("batch", id,
[Case]) or ("stop",); the worker answers in the worker protocol
(harness/execution/scheduler.py's docstring, harness/execution/worker.py).
"""
from __future__ import annotations

import multiprocessing as mp
import select
import signal
import time
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Callable, Iterable, Iterator, Mapping

from webnn_harness.loading.cases import Case
from webnn_harness.execution.forkserver import START_METHOD as _START, start_process
# The scheduler's pieces are named here too: pool is where the run, the bench and the tests import them from.
from webnn_harness.execution.scheduler import (  # noqa: F401
    BatchFeed, RunOptions, Scheduler, Slot, advance, batch_size, batches, overdue, requeue_lost,
)
from webnn_harness.verdict.record import Record
from webnn_harness.spec.uniform import register_pickling
from webnn_harness.verdict.record import base_record
from webnn_harness.execution.worker import worker_main

register_pickling()  # a 144 MB one-value tensor goes to a worker as one value


@dataclass(eq=False)
class _Worker(Slot):
    process: mp.Process | None = None
    conn: object = None


class WorkerPool:
    """Runs cases on worker processes (module docstring): the transport of
    the scheduler (harness/execution/scheduler.py) over a pipe to each worker.

    The bench (harness/bench/driver.py) subclasses it, changing only what a
    worker process runs (``worker_target``), with what environment
    (``environment``), and what a lost item's record and a received record
    are (``failure_record``, ``received``). ``preload``: the backends whose
    packages the fork server imports if this pool starts it
    (harness/execution/forkserver.py); this pool's own when empty."""

    kind = "worker"
    streams = True  # batches go out while the cases load

    def __init__(self, backend: str, options: Mapping[str, str], run: RunOptions, info: Mapping,
                 preload: Iterable[str] = ()):
        self.backend, self.options, self.run, self.info = backend, dict(options), run, info
        self.preload = tuple(preload) or (backend,)
        self.slots: list[_Worker] = []
        self._poller, self._polled, self._last_ready = None, (), set()

    @property
    def workers(self) -> list[_Worker]:
        return self.slots

    def _ready(self, timeout: float) -> set:
        """The workers' connections that have a message (or were closed).
        One poll object kept while the workers stay the same: a wait() per
        message built and tore down a selector each time, more CPU than
        handling the message (about 15,000 calls for both corpora)."""
        conns = [w.conn for w in self.slots]
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

    def counted(self, worker: _Worker) -> None:
        pass

    def placements(self, batches: int) -> list[None]:
        """A worker per batch cut so far, up to ``run.workers``."""
        return [None] * max(1, min(self.run.workers, batches))

    def placement_alive(self, placement) -> bool:
        return True

    def spawn(self, placement=None) -> _Worker:
        target, args = self.worker_target()
        proc, conn = start_process(target, args, self.preload, self.environment())
        w = _Worker(process=proc, conn=conn, phase="starting", since=time.monotonic())
        self.slots.append(w)
        return w

    def kill(self, w: _Worker) -> None:
        if w.process.is_alive():
            w.process.kill()
        w.process.join(5)
        try:
            w.conn.close()
        except OSError:
            pass
        self.slots.remove(w)

    def send(self, w: _Worker, batch: list) -> None:
        w.conn.send(("batch", 0, batch))

    def messages(self, timeout: float) -> Iterator[tuple[_Worker, tuple]]:
        """Every message already here, a worker at a time (one wait() per message cost more than the
        rest of the loop); a closed pipe is ("lost", ...)."""
        self._last_ready = ready = self._ready(timeout)
        for w in [w for w in self.slots if w.conn in ready]:
            while True:
                try:
                    msg = w.conn.recv()
                except (EOFError, OSError):
                    code = w.process.exitcode if not w.process.is_alive() else None
                    if w.phase != "starting":
                        w.process.join(1)
                        code = w.process.exitcode
                    yield w, ("lost", _describe_exit(code), f"workers keep dying at start-up (exit code {code})")
                    break
                yield w, msg
                if msg[0] in ("ready", "done", "fatal") or not w.conn.poll():
                    break  # an idle worker gets its next batch at the top of the loop

    def dead(self, w: _Worker) -> str | None:
        """Dead, and nothing left to read: a worker that sent "record"/"start" and then died
        after ``ready`` was taken has those messages read first (next turn, then EOF), so the
        crash is blamed on the case it had started, not on the one before."""
        if not w.process.is_alive() and w.conn not in self._last_ready and not w.conn.poll():
            return _describe_exit(w.process.exitcode)
        return None

    def close(self) -> None:
        for w in list(self.slots):
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
        for w in list(self.slots):
            if w.phase == "idle":  # told to stop; a busy one (hung, or after Ctrl-C) is killed at once
                w.process.join(2)
            self.kill(w)

    def run_cases(self, cases: Iterable[Case], on_record: Callable[[Record], None]) -> None:
        """``cases`` may be a generator that loads them (harness/api.py): batches are cut from it
        a turn at a time, so the workers compute the first while the parent loads the rest."""
        Scheduler(self, on_record).run(cases)


def describe_in_worker(backend: str, options: Mapping[str, str], preload: Iterable[str] = ()) -> dict | None:
    """The backend's info as a worker forked from the fork server reports it,
    so the run's own process need not import the backend's packages (onnx
    and onnxruntime: ~0.3 CPU-s); None without a fork server or when the
    backend cannot start (the caller then creates it here, for its error).
    ``preload`` as for ``WorkerPool``."""
    if _START != "forkserver":
        return None
    pool = WorkerPool(backend, options, RunOptions(workers=1), {}, preload)
    worker = pool.spawn()
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
