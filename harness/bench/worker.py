"""What runs inside the bench's worker process: one benchmark variant at a
time, on one backend. Each task is verified against the float64 reference
with the harness's own judge and tolerances before it is timed; a variant
whose outputs fail is recorded ``wrong`` and never timed.

Protocol: the worker protocol of harness/execution/pool.py, whose pool runs
this worker (harness/bench/driver.py), with tasks for cases: the worker
sends ("ready", info) or ("fatal", message) once; then for each
("batch", id, [Task]) it sends ("building", id), per task ("start", i) and
("record", i, record JSON), then ("done", id); ("stop",) ends it.
"""
from __future__ import annotations

import json
import os
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from webnn_harness.files.writes import safe_name
from webnn_harness.backends.base import Unsupported
from webnn_harness.bench.measure import TimingPolicy, clock, measure
from webnn_harness.bench.profile import profile_variant
from webnn_harness.outputs.bench_records import BenchRecord
from webnn_harness.bench.suite import Benchmark
from webnn_harness.bench.variants import prepare
from webnn_harness.bench.case_benchmarks import load_benchmark_case
from webnn_harness.loading.cases import Case, CaseError
from webnn_harness.spec.cost import graph_cost
from webnn_harness.verdict.judge import judge


@dataclass(frozen=True)
class Task:
    benchmark: Benchmark
    variant: str
    policy: TimingPolicy
    out_dir: str
    save_artifacts: bool = True
    profile_runs: int = 0  # bench --profile: profiled runs at least, after the timed ones (0: none)


def flops_and_bytes(graph) -> tuple[int | None, int | None]:
    """(flops, bytes) from the per-op cost functions (harness/spec/cost.py); none
    when an op of the graph has no cost function (no figure rather than a guess)."""
    try:
        cost = graph_cost(graph)
    except KeyError:
        return None, None
    return cost.flops, cost.bytes


class Verified:
    """A benchmark graph loaded as a case, with its reference outputs."""

    def __init__(self, benchmark: Benchmark, variant: str):
        from webnn_harness.execution.worker import expected_outputs

        case = load_benchmark_case(benchmark, variant, f"{benchmark.suite}:{benchmark.id}")
        if isinstance(case, CaseError):
            raise ValueError(str(case) if benchmark.source else f"graph of variant {variant}: {case.field}: {case.message}")
        self.case: Case = case
        self.expected, self.masks, _ = expected_outputs(case)

    def verify(self, actual: Mapping[str, np.ndarray]) -> tuple[bool, dict | None, str | None]:
        status, comparison, output = judge(self.case, actual, self.expected, self.masks)
        if comparison is None:
            return status == "pass", None, (f"no output {output!r}" if output else None)
        compared = sum(int(np.size(self.expected[n])) for n in self.case.graph.outputs) - comparison.uncompared
        verification = {"maxError": comparison.max_error, "metric": comparison.metric,
                        "budget": comparison.budget, "compared": compared, "output": output}
        message = None
        if status != "pass":
            message = (comparison.message or f"{output}: {comparison.metric} error {comparison.max_error:g} over budget "
                       f"{comparison.budget:g} at {list(comparison.worst_index or ())} (expected "
                       f"{comparison.expected_value}, got {comparison.actual_value})")
        return status == "pass", verification, message


class BenchWorker:
    def __init__(self, backend, info: Mapping[str, Any]):
        self.backend, self.info = backend, dict(info)
        self._verified: dict[tuple[str, str], Verified] = {}

    def _verified_for(self, benchmark: Benchmark, variant: str) -> Verified:
        key = (benchmark.id, json.dumps(benchmark.graphs[variant], sort_keys=True))
        if key not in self._verified:
            self._verified = {k: v for k, v in self._verified.items() if k[0] == benchmark.id}
            self._verified[key] = Verified(benchmark, variant)
        return self._verified[key]

    def run(self, task: Task) -> BenchRecord:
        bench, variant = task.benchmark, task.variant
        base = dict(benchmark=bench.id, suite=bench.suite, kind=bench.kind, variant=variant, title=bench.title,
                    op=bench.op, params=bench.params, backend=self.info, published=bench.published.get(variant))
        try:
            verified = self._verified_for(bench, variant)
        except Exception as exc:  # noqa: BLE001 - a bad graph or a reference failure is this record's error
            return BenchRecord(status="error", message=_one_line(exc), **base)
        graph = verified.case.graph
        base["data_type"] = graph.descs[graph.outputs[0]].data_type
        if bench.kind == "transfer":
            base["transfer_bytes"] = graph.descs[graph.inputs[0]].byte_length
        else:
            base["flops"], base["bytes"] = flops_and_bytes(graph)
        stem = None
        if task.save_artifacts:
            folder = Path(task.out_dir) / "artifacts"
            folder.mkdir(parents=True, exist_ok=True)
            # an id from a suite file never leads out; a case's by its index, as names may differ only in symbols
            named = bench.id if bench.source is None else f"{bench.source.file}.{bench.source.index}"
            stem = str(folder / safe_name(f"{named}.{variant}"))
        try:
            prepared = prepare(variant, bench.kind, graph, verified.case.inputs, self.backend, stem)
        except Unsupported as exc:
            return BenchRecord(status="unsupported", message=_one_line(exc), **base)
        except Exception as exc:  # noqa: BLE001
            return BenchRecord(status="error", message=f"build: {_one_line(exc)}", **base)
        relative = lambda path: os.path.relpath(path, task.out_dir)  # noqa: E731
        base.update(build_seconds=prepared.build_seconds, artifacts=tuple(map(relative, prepared.artifacts)),
                    build_settings=prepared.build_settings,
                    artifact=relative(prepared.artifact) if prepared.artifact else None)
        try:
            t0 = clock()
            outputs = prepared.step()
            base["first_run_seconds"] = clock() - t0
            if prepared.check is not None:
                outputs = prepared.check()
        except Exception as exc:  # noqa: BLE001
            return BenchRecord(status="error", message=f"first run: {_one_line(exc)}", **base)
        passed, verification, message = verified.verify(outputs)
        base["verification"] = verification
        if not passed:
            return BenchRecord(status="wrong", message=message, **base)
        load_before = _load_average()
        try:
            latency = prepared.measure(task.policy) if prepared.measure else measure(prepared.step, task.policy)
        except Exception as exc:  # noqa: BLE001
            return BenchRecord(status="error", message=f"timed run: {_one_line(exc)}", **base)
        load = (load_before, _load_average()) if load_before is not None else None
        # Only now, the timed runs done and their figures kept: profiling
        # costs time. The timed sessions stay to run between the profiled
        # runs' blocks (the profiler's own cost); idle, they cost nothing (ORT's
        # spinning is off in the bench; OpenVINO's idle compiled models
        # sleep: benchmarks/idle_sessions.py).
        del outputs
        profile = _profile(task, graph, verified.case.inputs, self.backend, prepared) if task.profile_runs else None
        return BenchRecord(status="ok", latency=latency.to_json(), load_average=load, profile=profile, **base)


def _profile(task: Task, graph, inputs, backend, timed) -> dict | None:
    """The variant's profile; a backend without a profiler or a profiling
    failure is said in it, never at the expense of the timed figures."""
    try:
        return profile_variant(task.variant, task.benchmark.kind, graph, inputs, backend, task.profile_runs,
                               task.policy, timed)
    except Unsupported as exc:
        return {"unavailable": _one_line(exc)}
    except Exception as exc:  # noqa: BLE001 - the timed record stands
        return {"error": _one_line(exc)}


def _load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # not on every platform
        return None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:1000] if not isinstance(exc, (Unsupported, ValueError)) else text[:1000]


def worker_main(conn, backend_name: str, options: Mapping[str, str], environ: Mapping[str, str] | None = None) -> None:
    """Entry point of a bench worker process; ``environ`` as for the run's
    workers (harness/execution/worker.py)."""
    from webnn_harness.execution.forkserver import take_environment
    from webnn_harness.execution.worker import open_backend

    opened = open_backend(conn, backend_name, options, take_environment(environ))
    if opened is None:
        return
    worker = BenchWorker(*opened)
    while True:
        msg = conn.recv()
        if msg[0] == "stop":
            return
        _, batch_id, tasks = msg
        for event in task_events(worker, batch_id, tasks):
            conn.send(event)


def task_events(worker: BenchWorker, batch_id, tasks):
    """The worker protocol's messages for a batch of tasks. "start" comes
    before each task's build, so the pool's timeout covers the whole variant
    (build, verification, timing), as the Ray bench actor's does."""
    yield ("building", batch_id)
    for i, task in enumerate(tasks):
        yield ("start", i)
        yield ("record", i, task_record(worker, task))
    yield ("done", batch_id)


def task_record(worker: BenchWorker, task: Task) -> dict:
    """The record JSON of one task; a harness bug is an error record, not a
    dead bench. Shared by the worker process and the Ray actor
    (harness/bench/ray_cluster.py)."""
    try:
        record = worker.run(task)
    except Exception as exc:  # noqa: BLE001
        where = traceback.extract_tb(exc.__traceback__)[-1]
        record = BenchRecord(benchmark=task.benchmark.id, suite=task.benchmark.suite, kind=task.benchmark.kind,
                             variant=task.variant, title=task.benchmark.title, status="error", backend=worker.info,
                             message=f"harness error: {_one_line(exc)} ({where.filename}:{where.lineno})")
    return record.to_json()
