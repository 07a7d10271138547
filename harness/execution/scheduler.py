"""One scheduler for every executor: batches of items handed to slots (a
local worker process, a Ray actor) over a transport, each slot's progress
followed through the worker protocol, and a slot that dies or hangs turned
into its item's ``crash`` or ``timeout`` record, replaced, and the rest of its
batch queued again.

The transport (``Transport``) is the only part that differs: how a slot is
started, stopped and given a batch, and how its messages arrive (a pipe to a
worker: harness/execution/pool.py; a Ray actor's streaming task:
harness/execution/ray_cluster.py). The bench runs on both with its own
transports (harness/bench/driver.py, harness/bench/ray_cluster.py).

Worker protocol (harness/execution/worker.py): a slot says ("ready", info)
or ("fatal", message) once, then per batch ("building", id), ("start", 0),
per case ("record", i, Record), which also says that case i + 1 (if any)
has started, then ("done", id). A ("start", i) for a later case is
understood too (the bench's workers and actors send one per task). A
transport adds ("lost", message, start_message) for a slot whose process
ended: ``message`` for the case it was on, ``start_message`` when it ended
while starting.
"""
from __future__ import annotations

import itertools
import os
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Protocol, Sequence

from webnn_harness.backends.base import BackendError, preferred_batch_size
from webnn_harness.loading.cases import Case


@dataclass(frozen=True)
class RunOptions:
    workers: int = max(1, os.cpu_count() or 1)
    timeout: float = 60.0  # seconds per case (build of a batch gets this per case)
    batch_size: int | None = None  # cases per worker batch; None: the backend's preference
    start_timeout: float = 120.0  # a worker that cannot import its backend in this long is broken
    reference_cache: bool = True  # keep reference results on disk (harness/verdict/reference_cache.py)


@dataclass(eq=False)
class Slot:
    """The scheduler's bookkeeping of one worker or actor; a transport adds its handles."""
    placement: Any = None  # what the transport started it with; a replacement gets the same
    info: Mapping | None = None  # the backend info it reported when ready
    where: str = ""  # where it runs, for messages (a Ray actor's node and pid)
    batch: list | None = None
    phase: str = "starting"  # starting | idle | building | running
    current: int = -1  # index in batch of the item in progress
    done: set = field(default_factory=set)
    since: float = field(default_factory=time.monotonic)


class Transport(Protocol):
    """What the scheduler needs of where items run. ``slots``: the live ones
    (kept between calls: an idle worker is reused); ``kind``: "worker" or
    "actor", for messages; ``streams``: takes batches while items still load
    (else they are loaded whole first, as placing depends on their number)."""
    backend: str
    run: RunOptions
    info: Mapping
    slots: list
    kind: str
    streams: bool

    def placements(self, batches: int) -> list: ...
    def placement_alive(self, placement) -> bool: ...
    def spawn(self, placement) -> Slot: ...
    def kill(self, slot) -> None: ...
    def send(self, slot, batch: list) -> None: ...
    def messages(self, timeout: float) -> Iterator[tuple[Slot, tuple]]: ...
    def dead(self, slot) -> str | None: ...
    def failure_record(self, item, slot, status: str, message: str) -> Any: ...
    def received(self, slot, payload) -> Any: ...
    def counted(self, slot) -> None: ...


class Scheduler:
    """One ``run_cases`` call of an executor over ``transport`` (module docstring)."""

    def __init__(self, transport: Transport, on_record: Callable[[Any], None]):
        self.t, self.on_record = transport, on_record
        self.queue: deque[list] = deque()
        self.placements: list = []
        self.remaining = 0
        self.start_failures = 0

    def run(self, items: Iterable) -> None:
        """``items`` may be a generator that loads them (harness/api.py): for a streaming transport
        batches are cut from it a turn at a time, so the workers compute the first while the rest load."""
        feed = BatchFeed(items, batch_size(self.t.run, self.t.info))
        self.queue = feed.queue
        while not self.t.streams and feed.pull():
            pass
        self.remaining = sum(map(len, self.queue))
        placed_for = -1
        while True:
            self._dispatch()
            self.remaining += feed.pull()  # while items load, one batch a turn, between the workers' messages
            if self.remaining == 0 and feed.exhausted:
                break
            if feed.made != placed_for:  # a placement whose node is gone is dropped (``_respawn``)
                placed_for, self.placements = feed.made, list(self.t.placements(feed.made))
            self._fill()
            for slot, msg in self.t.messages(0.25 if feed.exhausted else 0):
                self._handle(slot, msg)
            self._check(time.monotonic())

    def _dispatch(self) -> None:
        for slot in self.t.slots:
            if slot.phase == "idle" and self.queue:
                slot.batch, slot.current, slot.done = self.queue.popleft(), -1, set()
                slot.phase, slot.since = "building", time.monotonic()
                self.t.send(slot, slot.batch)

    def _fill(self) -> None:
        """A slot for every placement: workers left idle by an earlier call are reused (the probe runs
        in passes, the pytest plugin sends one case per call, and a spawn costs a backend import)."""
        missing = list(self.placements)
        for slot in self.t.slots:
            if slot.placement in missing:
                missing.remove(slot.placement)
        for placement in missing:
            self.t.spawn(placement)

    def _handle(self, slot: Slot, msg: tuple) -> None:
        kind = msg[0]
        if kind == "lost":
            if slot.phase == "starting":
                self._start_failed(slot, msg[2])
            else:
                self._finish(slot, "crash", msg[1])
        elif kind == "ready":
            slot.phase, slot.info = "idle", msg[1]
        elif kind == "fatal":
            self.t.kill(slot)
            raise BackendError(f"{self.t.backend} {msg[1]}")
        elif (record := advance(slot, msg)) is not None:
            self.on_record(self.t.received(slot, record))
            self.t.counted(slot)
            self.remaining -= 1

    def _check(self, now: float) -> None:
        """Slots hung on a batch, stuck starting, or dead with nothing left to say."""
        for slot in list(self.t.slots):
            if hung := overdue(slot, self.t.run.timeout, now):
                self._finish(slot, "timeout", hung)
            elif slot.phase == "starting" and now - slot.since > self.t.run.start_timeout:
                self.t.kill(slot)
                if not self.t.placement_alive(slot.placement):
                    self._respawn(slot)
                    continue
                raise BackendError(f"{self.t.backend} {self.t.kind} did not start within {self.t.run.start_timeout:g} s")
            elif slot.phase != "starting" and (message := self.t.dead(slot)):
                self._finish(slot, "crash", message)

    def _start_failed(self, slot: Slot, message: str) -> None:
        self.t.kill(slot)
        if not self.t.placement_alive(slot.placement):  # cannot be placed: its node is gone
            self._respawn(slot)
            return
        self.start_failures += 1
        if self.start_failures > 3:
            raise BackendError(f"{self.t.backend} {message}")
        self.t.spawn(slot.placement)

    def _finish(self, slot: Slot, status: str, message: str) -> None:
        """``slot`` died or hung: record its item, requeue the rest."""
        culprit = requeue_lost(self.queue, slot.batch or [], slot.phase, slot.current, slot.done)
        self.t.kill(slot)
        if culprit is not None:
            self.on_record(self.t.failure_record(culprit, slot, status, message))
            self.t.counted(slot)
            self.remaining -= 1
        if (self.queue or any(s.batch for s in self.t.slots)) and len(self.t.slots) < len(self.placements):
            self._respawn(slot)

    def _respawn(self, slot: Slot) -> None:
        """A slot in place of ``slot``, unless its placement's node is gone: then the other
        placements carry on without it, and when none is left the queued items cannot run."""
        if self.t.placement_alive(slot.placement):
            self.t.spawn(slot.placement)
        elif slot.placement in self.placements:
            self.placements.remove(slot.placement)
        if not self.placements and not self.t.slots:
            for item in itertools.chain.from_iterable(self.queue):
                self.on_record(self.t.failure_record(item, slot, "crash", "not run: every Ray node that could run "
                                                     "it is gone"))
                self.remaining -= 1
            self.queue.clear()


def advance(slot, msg: tuple) -> Any:
    """One message of the worker protocol (module docstring) applied to the
    bookkeeping of ``slot`` (phase, current item, items done, since when):
    the record, for a "record" message."""
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
    a batch a turn of the scheduler's loop, between the workers' messages,
    while the workers compute."""

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
