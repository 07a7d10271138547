"""``bench --profile``: what the backend actually ran inside a benchmark's
graph, node by node, as ``onnxruntime_perf_test -p``, ``benchmark_app -pc``
and ``benchmark_model --enable_op_profiling`` tell it. After a variant's
timed runs (never during them: profiling costs time), the variant is built
again with the backend's profiler on (backends/base.py profiling_session),
run once to warm up and ``runs`` times profiled; each node's time is its
median over the profiled runs.

The record's ``profile``::

    {"runs": N, "sessions": S,
     "nodes": [{"name", "op", "kernel", "seconds", "fallback"?: true, "fused"?: [names], "part"?: i}],
     "removed": [{"op", "name", "part"?}],
     "nodeSeconds": sum of the nodes' medians,
     "runSeconds": median wall time of a profiled run, "runNodeSeconds": median over the runs of their nodes' sum}

``nodeSeconds`` beside the timed median says how much of the graph's time
the profile accounts for; ``runNodeSeconds`` beside ``runSeconds`` says the
same run by run, like with like: on a busy machine a stall lands on a
different node each run, so every node's median can miss it while every
run's total holds one.

``part`` numbers the session (one per op in the op-by-op variants) where a
variant runs several. ``removed``: nodes of the model we gave the backend
that never ran as such (removed, constant-folded or fused into another).
A backend without a profiler gives ``{"unavailable": why}``; a profiling
failure ``{"error": message}``: the timed figures stand either way."""
from __future__ import annotations

import statistics
from typing import Any, Mapping

import numpy as np

from webnn_harness.backends.base import NodeTime, SessionProfile
from webnn_harness.bench.measure import clock
from webnn_harness.bench.variants import prepare
from webnn_harness.spec.graph import Graph

WARMUP_RUNS = 1  # the first run allocates and picks kernels: not the steady state


def profile_variant(variant: str, kind: str, graph: Graph, inputs: Mapping[str, np.ndarray], backend,
                    runs: int) -> dict | None:
    """The ``profile`` of one variant, None where it runs no backend graph
    (host, transfer). Raises Unsupported (no profiler) and what the build or
    a run raises."""
    if kind == "transfer" or variant == "host":
        return None
    prepared = prepare(variant, kind, graph, inputs, backend, None, profile=True)
    if not prepared.sessions:
        return None
    for _ in range(WARMUP_RUNS):
        prepared.step()
    wall = []
    for _ in range(runs):
        t0 = clock()
        prepared.step()
        wall.append(clock() - t0)
    return summarise([session.profile() for session in prepared.sessions], runs, statistics.median(wall))


def summarise(profiles: list[SessionProfile], runs: int, run_seconds: float) -> dict:
    """Per node, its median over the last ``runs`` runs of each session (the
    earlier ones warmed up)."""
    nodes: list[dict] = []
    removed: list[dict] = []
    run_totals = [0.0] * runs  # every session's nodes, run by run (a step runs each session once)
    several = len(profiles) > 1
    for part, profile in enumerate(profiles):
        if len(profile.runs) < runs:
            raise ValueError(f"session {part}: the profiler saw {len(profile.runs)} runs, not {runs}")
        times: dict[str, list[float]] = {}
        first: dict[str, NodeTime] = {}
        for index, run in enumerate(profile.runs[-runs:]):
            run_totals[index] += sum(node.seconds for node in run)
            for node in run:
                times.setdefault(node.name, []).append(node.seconds)
                first.setdefault(node.name, node)
        for name, node in first.items():
            entry: dict[str, Any] = {"name": name, "op": node.op, "kernel": node.kernel,
                                     "seconds": statistics.median(times[name])}
            if node.fallback:
                entry["fallback"] = True
            if node.fused:
                entry["fused"] = list(node.fused)
            if several:
                entry["part"] = part
            nodes.append(entry)
        removed.extend({"op": op, "name": name, **({"part": part} if several else {})}
                       for op, name in profile.removed)
    return {"runs": runs, "sessions": len(profiles), "nodes": nodes, "removed": removed,
            "nodeSeconds": sum(n["seconds"] for n in nodes), "runSeconds": run_seconds,
            "runNodeSeconds": statistics.median(run_totals)}


def node_share(record: Mapping) -> float | None:
    """The profiled nodes' summed time as a share of the record's timed
    median: how much of the graph's time the profile accounts for."""
    profile, latency = record.get("profile"), record.get("latency")
    if not isinstance(profile, Mapping) or not isinstance(latency, Mapping):
        return None
    seconds, median = profile.get("nodeSeconds"), latency.get("median")
    if not isinstance(seconds, (int, float)) or not isinstance(median, (int, float)) or median <= 0:
        return None
    return seconds / median
