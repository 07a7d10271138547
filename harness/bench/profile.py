"""``bench --profile``: what the backend actually ran inside a benchmark's
graph, node by node, as ``onnxruntime_perf_test -p``, ``benchmark_app -pc``
and ``benchmark_model --enable_op_profiling`` tell it. After a variant's
timed runs (never during them: profiling costs time), the variant is built
again with the backend's profiler on (backends/base.py profiling_session),
warmed up as the timed runs were (``warmup_time`` seconds of calls,
measure.warm_up) and run at least ``runs`` times, for at least the timed
runs' ``min_time`` (a median over as long a stretch of the machine's
weather as the timed one), in blocks that alternate with blocks of the timed
sessions' runs (kept for it): the same graph without the profiler, at the
same moments. Each node's time is its median over the profiled runs.

The record's ``profile``::

    {"runs": N, "sessions": S, "nodeTimes": "kernel" | "launch",
     "nodes": [{"name", "op", "kernel", "seconds", "fallback"?: true, "fused"?: [names], "part"?: i}],
     "removed": [{"op", "name", "part"?}],
     "nodeSeconds": sum of the nodes' medians,
     "runSeconds": median wall time of a profiled run, "runNodeSeconds": median over the runs of their nodes' sum,
     "plainSeconds": median wall time of the timed sessions' runs in the blocks between the profiled ones}

``nodeSeconds`` beside the timed median says how much of the graph's time
the profile accounts for; ``runNodeSeconds`` beside ``runSeconds`` says the
same run by run, like with like: on a busy machine a stall lands on a
different node each run, so every node's median can miss it while every
run's total holds one. ``runSeconds`` over ``plainSeconds`` is what the
profiler itself costs, the two taken side by side; ``plainSeconds`` beside
the timed median is how much the machine changed between the timed and the
profiled runs (on our 2-core VM, medians of twenty runs of one graph taken
seconds apart differed by up to 2x). ``nodeTimes`` "launch": the backend's node times are the
host's time to enqueue each node on an asynchronous device (ORT on CUDA),
so their sum is no share of the graph's time (backends/base.py
SessionProfile).

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
from webnn_harness.bench.measure import TimingPolicy, clock, warm_up
from webnn_harness.bench.variants import Prepared, prepare
from webnn_harness.spec.graph import Graph

# Profiled runs come in blocks of about this long, each followed by a block
# of the timed sessions' runs: both see the same machine, and a block keeps
# its session's buffers in the cache (alternating single runs of the two
# sessions, our 2-core VM gave plain runs of ORT's 0.5-3 ms layout graphs
# 23-47% slower than their timed median, and of OpenVINO's maxpool 75%).
BLOCK_SECONDS = 0.05
# A bound on the profiled runs of a very short graph: ORT's trace holds a
# few events per node and run (backends/onnxruntime/profile.py reads 64 MiB).
MAX_RUNS = 2000

def profile_variant(variant: str, kind: str, graph: Graph, inputs: Mapping[str, np.ndarray], backend,
                    runs: int, policy: TimingPolicy, timed: Prepared | None = None) -> dict | None:
    """The ``profile`` of one variant, None where it runs no backend graph
    (host, transfer): at least ``runs`` profiled runs, for at least the
    policy's ``min_time`` as the timed runs were, in blocks that alternate
    with blocks of ``timed`` (the variant's timed sessions: ``plainSeconds``).
    Raises Unsupported (no profiler) and what the build or a run raises."""
    if kind == "transfer" or variant == "host":
        return None
    profiled = prepare(variant, kind, graph, inputs, backend, None, profile=True)
    if not profiled.sessions:
        return None
    single = warm_up(profiled.step, policy.warmup_time)
    block = max(1, min(round(BLOCK_SECONDS / max(single, 1e-9)), MAX_RUNS // 10))
    wall, plain = [], []
    spent, end = 0.0, clock() + policy.max_time
    while len(wall) < runs or (spent < policy.min_time and len(wall) < MAX_RUNS and clock() < end):
        times = [_timed_step(profiled) for _ in range(block)]
        wall.extend(times)
        spent += sum(times)
        if timed is not None:
            plain.extend(_timed_step(timed) for _ in range(block))
    summary = summarise([session.profile() for session in profiled.sessions], len(wall), statistics.median(wall))
    if plain:
        summary["plainSeconds"] = statistics.median(plain)
    return summary


def _timed_step(prepared: Prepared) -> float:
    t0 = clock()
    prepared.step()
    return clock() - t0


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
    node_times = "launch" if any(p.node_times == "launch" for p in profiles) else "kernel"
    return {"runs": runs, "sessions": len(profiles), "nodeTimes": node_times, "nodes": nodes, "removed": removed,
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
