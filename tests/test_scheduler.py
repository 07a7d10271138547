"""The one scheduler (harness/execution/scheduler.py) on an in-memory transport: what the local
pool and the Ray executor share (a crash pinned on its case, the rest of the batch queued again, a
batch that dies building split to find its culprit, a hang, start-up failures, placements gone)
is checked here without processes; tests/test_faults.py and tests/test_ray_executor.py run it on
real workers and actors."""
from __future__ import annotations

import time

import pytest

from webnn_harness.backends.base import BackendError
from webnn_harness.execution.scheduler import RunOptions, Scheduler, Slot


class FakeTransport:
    """Slots that answer at once: an item named "crash" ends its slot when it starts, "hang" never
    answers, "crash-build" ends its slot while its batch builds; anything else is recorded "ok"."""
    kind = "worker"
    streams = True

    def __init__(self, workers=2, batch_size=2, timeout=60.0, start=("ready",), alive=True):
        self.backend, self.info = "fake", {}
        self.run = RunOptions(workers=workers, timeout=timeout, batch_size=batch_size, start_timeout=60.0)
        self.slots: list[Slot] = []
        self.pending: dict[int, list[tuple]] = {}
        self.start, self.alive, self.spawned = start, alive, 0

    def placements(self, batches):
        return [None] * max(1, min(self.run.workers, batches))

    def placement_alive(self, placement):
        return self.alive

    def spawn(self, placement):
        slot = Slot(placement=placement)
        self.slots.append(slot)
        self.spawned += 1
        self.pending[id(slot)] = [("ready", {"name": "fake"}) if self.start == ("ready",)
                                  else ("lost", "died", "workers keep dying at start-up (exit code 1)")]
        return slot

    def kill(self, slot):
        self.slots.remove(slot)
        self.pending.pop(id(slot), None)

    def send(self, slot, batch):
        msgs = [("building", 0)]
        if any(item == "crash-build" for item in batch):
            self.pending[id(slot)] = msgs + [("lost", "worker process died", "")]
            return
        msgs.append(("start", 0))
        for i, item in enumerate(batch):
            if item == "hang":
                break
            if item == "crash":
                msgs.append(("lost", "worker process died", ""))
                break
            msgs.append(("record", i, (item, "ok", "")))
        else:
            msgs.append(("done", 0))
        self.pending[id(slot)] = msgs

    def messages(self, timeout):
        time.sleep(0.001)
        for slot in list(self.slots):
            msgs, self.pending[id(slot)] = self.pending.get(id(slot), []), []
            for msg in msgs:
                yield slot, msg
                if msg[0] == "lost":
                    break

    def dead(self, slot):
        return None

    def failure_record(self, item, slot, status, message):
        return (item, status, message)

    def received(self, slot, payload):
        return payload

    def counted(self, slot):
        pass


def scheduled(transport, items):
    records = []
    Scheduler(transport, records.append).run(iter(items))
    return sorted(records)


def test_a_crash_is_its_cases_record_and_the_rest_of_its_batch_runs_again():
    records = scheduled(FakeTransport(), ["a", "b", "crash", "d", "e"])
    assert records == [("a", "ok", ""), ("b", "ok", ""), ("crash", "crash", "worker process died"),
                       ("d", "ok", ""), ("e", "ok", "")]


def test_a_batch_that_dies_building_is_split_to_find_the_case_that_breaks_the_build():
    records = scheduled(FakeTransport(batch_size=3), ["a", "crash-build", "c"])
    assert records == [("a", "ok", ""), ("c", "ok", ""), ("crash-build", "crash", "worker process died")]


def test_a_case_past_the_timeout_is_a_timeout_record_and_the_rest_goes_on():
    records = scheduled(FakeTransport(batch_size=1, timeout=0.05), ["a", "hang", "c"])
    assert records == [("a", "ok", ""), ("c", "ok", ""), ("hang", "timeout", "did not finish within 0.05 s")]


def test_workers_that_keep_dying_at_start_up_stop_the_run_with_one_message():
    transport = FakeTransport(workers=1, start=("lost",))
    with pytest.raises(BackendError, match="fake workers keep dying at start-up"):
        scheduled(transport, ["a"])
    assert transport.spawned == 4  # the first and three replacements


def test_when_no_placement_is_left_the_queued_cases_are_recorded_as_not_run():
    transport = FakeTransport(workers=1, batch_size=1, alive=False)
    transport.streams = False  # as Ray's: every batch cut before any is placed
    records = scheduled(transport, ["crash", "b", "c"])
    assert records == [("b", "crash", "not run: every Ray node that could run it is gone"),
                       ("c", "crash", "not run: every Ray node that could run it is gone"),
                       ("crash", "crash", "worker process died")]


def test_nothing_to_run_starts_nothing():
    transport = FakeTransport()
    assert scheduled(transport, []) == []
    assert transport.spawned == 0
