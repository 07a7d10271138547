"""Running cases on a Ray cluster: one actor per backend instance.

Each actor creates its backend once (one device, opened once) and runs
batches as streaming tasks that yield the worker protocol of
harness/execution/pool.py (``batch_events`` in harness/execution/worker.py), so the driver
knows which case is in progress. Isolation is the local pool's: an actor
that dies mid-case (abort, segfault) gives a ``crash`` record for that case,
a case past the timeout is killed with its actor and gives ``timeout``; the
actor is replaced and the rest of its batch is queued again. Records reach
``on_record`` as they stream back.

Devices map to Ray resources: ``-o device=GPU.1`` makes every actor ask
for one unit of the custom resource ``webnn_device:GPU.1``, which only the
nodes that have that device advertise (``ray start --resources
'{"webnn_device:GPU.1": 1}'``), so the cases run where the device is.

The loop is the scheduler's (harness/execution/scheduler.py), shared with the
local pool; this module is its transport over Ray actors.
``bench --executor ray`` runs on the same loop with its own actors and
placement (one per node, a node at a time): harness/bench/ray_cluster.py.
"""
from __future__ import annotations

import logging
import os
import socket
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from webnn_harness.backends.base import BackendError
from webnn_harness.loading.cases import Case
from webnn_harness.verdict.record import Record
from webnn_harness.execution.scheduler import RunOptions, Scheduler, Slot
from webnn_harness.verdict.record import base_record

RESOURCE_PREFIX = "webnn_device:"
INSTALL_HINT = "the ray executor needs Ray: pip install 'webnn-harness[ray]'"


def ray_module():
    try:
        import ray
    except ImportError:
        raise BackendError(INSTALL_HINT) from None
    return ray


def device_resources(options: Mapping[str, str]) -> dict[str, float]:
    """The custom Ray resources an actor for these backend options needs.
    Every node has a CPU, so ``device=CPU`` (or no device) needs none."""
    device = options.get("device", "")
    if not device or device.upper() == "CPU":
        return {}
    return {RESOURCE_PREFIX + device: 1.0}


class BackendActor:
    """Lives in a Ray worker process; made a Ray actor class by ``actor_class``."""

    def __init__(self, backend: str, options: Mapping[str, str], reference_cache: bool = True):
        from webnn_harness import backends
        from webnn_harness.verdict import reference_cache as refcache

        refcache.configure(reference_cache)
        self.fatal = ""
        try:
            self.backend = backends.create(backend, options)
            self.info = self.backend.info().to_json()
        except Exception as exc:  # noqa: BLE001 - reported by ready(), as a worker's ("fatal", msg)
            self.fatal = f"{type(exc).__name__}: {exc}"

    def ready(self) -> tuple[str, dict | None, str]:
        """(fatal message or "", backend info, where: node id and pid)."""
        import ray

        where = f"node {ray.get_runtime_context().get_node_id()[:8]} pid {os.getpid()}"
        return self.fatal, (None if self.fatal else self.info), where

    def run_batch(self, batch_id: int, cases: Sequence[Case]):
        from webnn_harness.execution.worker import batch_events

        yield from batch_events(self.backend, self.info, batch_id, cases)


_ACTOR_CLASSES: dict[type, Any] = {}


def actor_class(cls: type = BackendActor):
    """``cls`` as a Ray actor class (made once per process)."""
    if cls not in _ACTOR_CLASSES:
        # max_restarts=0: the executor replaces a dead actor itself, after
        # recording the case that killed it.
        _ACTOR_CLASSES[cls] = ray_module().remote(max_restarts=0)(cls)
    return _ACTOR_CLASSES[cls]


def _describe_info(backend: str, options: Mapping[str, str]) -> dict:
    from webnn_harness import backends

    return backends.create(backend, options).info().to_json()


class RayExecutors:
    """The Ray session of one command: joins ``address`` or starts a local
    instance (shut down by ``close``), and makes one executor per backend."""

    def __init__(self, address: str | None = None, num_cpus: int | None = None):
        if address:
            _check_reachable(address)  # before importing Ray: a wrong address fails fast
        ray = ray_module()
        self.started = False
        self.cases_per_node: Counter = Counter()
        if not ray.is_initialized():
            try:
                if address:
                    ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
                else:
                    # address="local": a new private instance, never a cluster
                    # that happens to run on this machine (ray.init()'s default).
                    ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                             logging_level=logging.WARNING)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise BackendError(f"cannot {'join the Ray cluster at ' + address if address else 'start Ray'}: "
                                   f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
            self.started = True

    def __call__(self, backend: str, options: Mapping[str, str], run: RunOptions, info: Mapping) -> "RayExecutor":
        return RayExecutor(backend, options, run, info, self.cases_per_node)

    def describe(self, backend: str, options: Mapping[str, str]) -> dict[str, Any]:
        """The backend's info, created where its device is (a node advertising its resource)."""
        ray = ray_module()
        resources = device_resources(options)
        check_capacity(resources)
        task = ray.remote(max_retries=0)(_describe_info).options(num_cpus=1, resources=resources)
        try:
            return ray.get(task.remote(backend, dict(options)))
        except ray.exceptions.RayTaskError as exc:
            raise BackendError(f"{backend} cannot start on the Ray cluster: {exc.cause}") from None

    def close(self) -> None:
        if self.started:
            ray_module().shutdown()
            self.started = False


def _check_reachable(address: str, seconds: float = 10.0) -> None:
    """Fail in one line when nothing listens at a ``host:port`` address:
    ray.init keeps retrying an unreachable GCS for minutes (Ray 2.60)."""
    host, sep, port = address.rpartition(":")
    if not sep or "://" in address or not port.isdigit():
        return  # "auto", ray:// client addresses: left to Ray
    try:
        socket.create_connection((host, int(port)), timeout=seconds).close()
    except OSError as exc:
        raise BackendError(f"cannot join the Ray cluster at {address}: {exc.strerror or exc}") from None


def check_capacity(resources: Mapping[str, float]) -> int:
    """How many actors with ``resources`` (and one CPU) the cluster holds; none is an error."""
    total = ray_module().cluster_resources()
    capacity = int(total.get("CPU", 0))
    for name, amount in resources.items():
        if name not in total:
            raise BackendError(f"no node of the Ray cluster advertises the resource {name!r}: start the node that has "
                               f"the device with ray start --resources '{{\"{name}\": 1}}'")
        capacity = min(capacity, int(total[name] / amount))
    if capacity < 1:
        raise BackendError(f"the Ray cluster has no CPU for a backend actor (resources: {dict(total)})")
    return capacity


@dataclass(eq=False)
class _Slot(Slot):
    actor: Any = None
    ready_ref: Any = None  # the ready() call while starting
    stream: Any = None  # the run_batch generator while busy


class RayExecutor:
    """Runs cases on Ray actors; the same contract as ``WorkerPool``: the
    transport of the scheduler (harness/execution/scheduler.py) over Ray
    actors' streaming tasks.

    The bench (harness/bench/ray_cluster.py) subclasses it, changing only
    where actors go (``placements``), how one is made (``new_actor``), and
    what a lost item's record and a streamed record are (``failure_record``,
    ``received``)."""

    kind = "actor"
    streams = False  # how many actors to place depends on how many batches there are

    def __init__(self, backend: str, options: Mapping[str, str], run: RunOptions, info: Mapping,
                 cases_per_node: Counter | None = None):
        self.backend, self.options, self.run, self.info = backend, dict(options), run, info
        self.resources = device_resources(options)
        self.slots: list[_Slot] = []
        self.cases_per_node = cases_per_node if cases_per_node is not None else Counter()

    def placements(self, batches: int) -> list[dict[str, Any]]:
        """The Ray options of each actor to start: one CPU and the device's resource."""
        n_actors = max(1, min(self.run.workers, batches, check_capacity(self.resources)))
        return [{"num_cpus": 1, "resources": self.resources}] * n_actors

    def new_actor(self, placement: Mapping[str, Any]):
        return actor_class().options(**placement).remote(self.backend, self.options, self.run.reference_cache)

    def failure_record(self, item: Case, slot: _Slot, status: str, message: str) -> Any:
        """The record of the item an actor died or hung on."""
        return base_record(item, self.info, status, message=message)

    def received(self, slot: _Slot, payload: Any) -> Any:
        """The record to hand on, from what the actor streamed."""
        return payload

    def counted(self, slot: _Slot) -> None:
        self.cases_per_node[slot.where.split(" pid")[0]] += 1

    def placement_alive(self, placement: Mapping[str, Any]) -> bool:
        """Whether an actor can still start with ``placement``: Ray places
        these anywhere; the bench pins its actors to a node, which may be gone."""
        return True

    def spawn(self, placement: Mapping[str, Any]) -> _Slot:
        actor = self.new_actor(placement)
        slot = _Slot(placement=placement, actor=actor, ready_ref=actor.ready.remote())
        self.slots.append(slot)
        return slot

    def kill(self, slot: _Slot) -> None:
        ray_module().kill(slot.actor, no_restart=True)
        self.slots.remove(slot)

    def send(self, slot: _Slot, batch: list) -> None:
        slot.stream = slot.actor.run_batch.remote(0, batch)

    def dead(self, slot: _Slot) -> str | None:
        return None  # Ray says so on the actor's stream

    def close(self) -> None:
        for slot in list(self.slots):
            self.kill(slot)

    def run_cases(self, cases: Iterable[Case], on_record: Callable[[Record], None]) -> None:
        """A selection still loading (harness/api.py) is loaded whole first (``streams``)."""
        Scheduler(self, on_record).run(cases)

    def messages(self, timeout: float) -> Iterator[tuple[_Slot, tuple]]:
        """The actors' answers ready within ``timeout``: a started actor's, as "ready" or "fatal"; a
        batch's next message; ("done",) at a stream's end; ("lost", ...) for an actor that died."""
        ray = ray_module()
        waiting = {id(s.ready_ref if s.phase == "starting" else s.stream): s
                   for s in self.slots if s.phase == "starting" or s.stream is not None}
        refs = [s.ready_ref if s.phase == "starting" else s.stream for s in waiting.values()]
        if not refs:
            time.sleep(0.05)
            return
        ready, pending = ray.wait(refs, num_returns=1, timeout=timeout)
        if pending:
            ready += ray.wait(pending, num_returns=len(pending), timeout=0)[0]
        for ref in ready:
            slot = waiting[id(ref)]
            yield slot, (self._started(slot) if slot.phase == "starting" else self._next(slot))

    def _started(self, slot: _Slot) -> tuple:
        ray = ray_module()
        try:
            fatal, info, slot.where = ray.get(slot.ready_ref)
        except ray.exceptions.RayError as exc:  # died, or cannot be placed (its node is gone)
            return ("lost", "", f"actors keep dying at start-up: {_reason(exc)}")
        slot.ready_ref = None
        if fatal:
            return ("fatal", f"cannot start in a Ray actor ({slot.where}): {fatal}")
        return ("ready", info)

    def _next(self, slot: _Slot) -> tuple:
        ray = ray_module()
        try:
            msg = ray.get(next(slot.stream))
        except StopIteration:
            msg = ("done", 0)
        except ray.exceptions.RayActorError as exc:
            return ("lost", f"worker process died ({slot.where}): {_reason(exc)}", "")
        except ray.exceptions.RayError as exc:  # the stream itself failed (e.g. a record Ray cannot pickle)
            return ("lost", f"worker failed ({slot.where}): {str(exc).splitlines()[-1][:300]}", "")
        if msg[0] == "done":
            slot.stream = None
        return msg


def _reason(exc: BaseException) -> str:
    """Ray's one-line account of why an actor's process ended."""
    text = str(exc)
    marker = "Worker exit type:"
    if marker in text:
        detail = text[text.index(marker):].split(". ")[0]
        return detail.replace("\n", " ")[:300]
    return text.splitlines()[0][:300] if text else type(exc).__name__
