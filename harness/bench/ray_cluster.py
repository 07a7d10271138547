"""``bench --executor ray``: benchmarks timed on the nodes of a Ray cluster.

The loop is the Ray executor's (harness/execution/ray_cluster.py: actors, streaming
tasks, crash and timeout records, replacement), with a bench actor that runs
one benchmark variant per task through the bench worker's own code
(harness/bench/worker.py), so what is verified and timed is what a local
bench verifies and times.

One benchmark at a time per node: every bench actor and every node
description asks for *all* the CPUs the node lends to Ray, pinned to that
node (``NodeAffinitySchedulingStrategy``, not soft). While one holds a node,
Ray schedules nothing else that needs a CPU there, neither a second bench
actor of ours nor another job's task; nodes run in parallel. A node that
lends no CPU (a head started with ``--num-cpus 0``) runs nothing.

Per node, before any timing: a task on that node describes it (CPU model,
cores, memory, host name) and measures its peaks, and every record timed
there carries that description as ``node``; the header of summary.json
lists the nodes. A node's bench threads are ``--threads`` or the CPUs it
lends to Ray, set for the backend and for numpy's BLAS (the host side of the
scenarios) through the actor's environment, as the local bench does.

Artifacts are written on the node in a temporary folder, returned as bytes
with the record and written to the driver's ``DIR/artifacts/`` under the
name the record gives, exactly as locally.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from webnn_harness.files.writes import confined, write_atomic
from webnn_harness import __version__
from webnn_harness.backends.base import BackendError
from webnn_harness.bench.driver import HOST_THREAD_VARIABLES, BenchOptions, bench_info, failure_record, thread_options
from webnn_harness.bench.worker import Task
from webnn_harness.execution.ray_cluster import RayExecutor, RayExecutors, actor_class, check_capacity, ray_module
from webnn_harness.execution.pool import RunOptions


def describe_node(peaks: Mapping[str, int], threads: int) -> dict[str, Any]:
    """Runs on the node it describes: its machine, its measured peaks (with
    ``threads`` for BLAS, as the node's benchmarks get) and its timer's cost."""
    import ray

    from webnn_harness.bench.machine import machine_info, measure_peaks
    from webnn_harness.bench.measure import timer_overhead

    return {"id": ray.get_runtime_context().get_node_id(), "machine": machine_info(),
            "peaks": dict(measure_peaks(**peaks), threads=threads), "timerOverheadSeconds": timer_overhead()}


class BenchActor:
    """One backend on one node; made a Ray actor class by ``actor_class``."""

    def __init__(self, backend: str, options: Mapping[str, str], threads: int, node: Mapping[str, Any]):
        from webnn_harness import backends
        from webnn_harness.bench.worker import BenchWorker

        self.node, self.fatal = dict(node), ""
        try:
            created = backends.create(backend, options)
            self.worker = BenchWorker(created, bench_info(created.info().to_json(), options, threads))
        except Exception as exc:  # noqa: BLE001 - reported by ready(), as a worker's ("fatal", msg)
            self.fatal = f"{type(exc).__name__}: {exc}"

    def ready(self) -> tuple[str, dict | None, str]:
        """(fatal message or "", backend info, where: node id and pid)."""
        where = f"node {self.node['id'][:8]} pid {os.getpid()}"
        return self.fatal, (None if self.fatal else self.worker.info), where

    def run_batch(self, batch_id: int, tasks: Sequence[Task]):
        """The worker protocol of harness/execution/pool.py, one task per case; each
        record comes with the bytes of its artifacts. "start" comes before the
        build, so the timeout covers the whole variant as locally."""
        from webnn_harness.bench.worker import task_record

        yield ("building", batch_id)
        for i, task in enumerate(tasks):
            yield ("start", i)
            with tempfile.TemporaryDirectory(prefix="webnn-bench-") as folder:
                record = task_record(self.worker, replace(task, out_dir=folder))
                files = {name: (Path(folder) / name).read_bytes() for name in record["artifacts"]}
            yield ("record", i, (dict(record, node=self.node), files))
        yield ("done", batch_id)


class RayBenchExecutor(RayExecutor):
    """One bench actor per node that can run the backend; tasks go to
    whichever node is free."""

    def __init__(self, backend: str, options: Mapping[str, str], run: RunOptions, nodes: Sequence[Mapping],
                 threads: int | None, out_dir: Path, cases_per_node):
        super().__init__(backend, options, run, {}, cases_per_node)
        self.nodes = {n["id"]: n for n in nodes}
        self.threads, self.out_dir = threads, out_dir

    def placements(self, batches: int) -> list[dict[str, Any]]:
        able = [n for n in self.nodes.values()
                if all(n["resources"].get(name, 0) >= amount for name, amount in self.resources.items())]
        if not able:
            check_capacity(self.resources)  # names the resource no node advertises
            raise BackendError(f"no node of the Ray cluster that lends a CPU has {', '.join(self.resources)}")
        return [{"node": n["id"]} for n in able[:batches]]

    def _node_threads(self, node: Mapping) -> int:
        return self.threads or int(node["resources"]["CPU"])

    def new_actor(self, placement: Mapping[str, Any]):
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        node = self.nodes[placement["node"]]
        threads = self._node_threads(node)
        return actor_class(BenchActor).options(
            num_cpus=node["resources"]["CPU"], resources=self.resources,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node["id"], soft=False),
            runtime_env={"env_vars": {name: str(threads) for name in HOST_THREAD_VARIABLES}},
        ).remote(self.backend, thread_options(self.backend, self.options, threads), threads, node["description"])

    def failure_record(self, item: Task, slot, status: str, message: str) -> dict:
        return dict(failure_record(item, slot.info or {}, status, message),
                    node=self.nodes[slot.placement["node"]]["description"])

    def placement_alive(self, placement: Mapping[str, Any]) -> bool:
        """The node this placement pins its actor to is still in the cluster."""
        return any(n.get("NodeID") == placement["node"] and n.get("Alive") for n in ray_module().nodes())

    def received(self, slot, payload) -> dict:
        record, files = payload
        for name, data in files.items():
            path = confined(self.out_dir, name)  # a name from the node never leads outside DIR
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, data)
        return record


class RayBench:
    """The bench's executor on a Ray session (``RayExecutors``): describes
    the nodes once, then runs each backend's tasks over them."""

    def __init__(self, session: RayExecutors):
        self.session = session
        self.nodes: list[dict] = []  # id, resources, description

    def header(self, command: str, options: BenchOptions) -> dict[str, Any]:
        """summary.json's header: no machine or peaks of the driver's (it
        times nothing), the nodes' instead."""
        from datetime import datetime, timezone

        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from webnn_harness.bench.machine import machine_info

        ray = ray_module()
        alive = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1]
        if not alive:
            raise BackendError("no node of the Ray cluster lends a CPU")
        describe = ray.remote(max_retries=0)(describe_node)
        refs = []
        for node in alive:
            threads = options.threads or int(node["Resources"]["CPU"])
            refs.append(describe.options(
                num_cpus=node["Resources"]["CPU"],
                scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False),
                runtime_env={"env_vars": {name: str(threads) for name in HOST_THREAD_VARIABLES}},
            ).remote(dict(options.peaks), threads))
        try:
            descriptions = ray.get(refs, timeout=options.start_timeout)
        except (ray.exceptions.RayError, TimeoutError) as exc:
            raise BackendError(f"cannot describe the Ray cluster's nodes: {str(exc).splitlines()[0][:300]}") from None
        self.nodes = [{"id": node["NodeID"], "resources": dict(node["Resources"]), "description": description}
                      for node, description in zip(alive, descriptions)]
        return {
            "harness": "webnn-harness", "harnessVersion": __version__,
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "command": command,
            "executor": "ray", "driver": machine_info(), "nodes": descriptions,
        }

    def run_backend(self, name: str, backend_options: Mapping[str, str], tasks: Sequence[Task],
                    options: BenchOptions, on_record: Callable[[dict], None]) -> None:
        run = RunOptions(workers=len(self.nodes), timeout=options.timeout, batch_size=1,
                         start_timeout=options.start_timeout)
        out_dir = Path(tasks[0].out_dir) if tasks else Path(".")
        executor = RayBenchExecutor(name, backend_options, run, self.nodes, options.threads, out_dir,
                                    self.session.cases_per_node)
        try:
            executor.run_cases(tasks, on_record)
        finally:
            executor.close()


def bench_executor(factory: Any) -> RayBench | None:
    """Where ``bench`` runs for an executor factory: on the nodes of its Ray
    cluster, or None (the local worker pool: harness/bench/driver.py, ``BenchPool``)."""
    return RayBench(factory) if isinstance(factory, RayExecutors) else None
