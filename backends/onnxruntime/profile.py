"""Reading ONNX Runtime's session profile (SessionOptions.enable_profiling:
what ``onnxruntime_perf_test -p`` writes): a chrome-trace JSON list of
events. Per run, a ``Session`` event named ``model_run`` spans the run and
each node that ran has a ``Node`` event named ``<node>_kernel_time`` whose
``args`` name its ``op_name`` and ``provider``, ``dur`` in microseconds.

The file is ORT's, written into a folder of ours, but read as any file is:
bounded in size, every field checked, a malformed event one line naming the
file, the event and the field."""
from __future__ import annotations

import os
from collections import Counter
from typing import Any

from webnn_harness.backends.base import NodeTime, SessionProfile
from webnn_harness.files.reading import loads

MAX_TRACE_BYTES = 64 << 20  # a trace of a few hundred runs of a large graph is a few MB
KERNEL_SUFFIX = "_kernel_time"


class TraceError(ValueError):
    """A trace ORT wrote that the harness cannot read."""


def _number(event: dict, key: str, where: str) -> float:
    value = event.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise TraceError(f"{where}: field {key!r} is not a non-negative number")
    return float(value)


def read_trace(path: str) -> list[dict]:
    name = os.path.basename(path)
    size = os.path.getsize(path)
    if size > MAX_TRACE_BYTES:
        raise TraceError(f"{name}: {size} bytes, over the {MAX_TRACE_BYTES} bytes read")
    try:
        with open(path, "rb") as f:
            events = loads(f.read(), name)  # nesting bounded (harness/files/reading.py)
    except (OSError, ValueError) as exc:
        raise TraceError(f"{name}: not a JSON trace: {' '.join(str(exc).split())}") from None
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise TraceError(f"{name}: not a list of trace events")
    return events


def trace_profile(path: str, requested_provider: str, model: Any, node_times: str = "kernel") -> SessionProfile:
    """The runs of an ORT trace, nodes as ORT ran them (after its graph
    optimisations); ``removed``: the op types of ``model`` (the ONNX model we
    gave ORT) that ran fewer times than the model has them, by count, since
    ORT's node names do not say which original node a fused one came from."""
    name = os.path.basename(path)
    runs: list[tuple[float, float]] = []
    kernels: list[tuple[float, NodeTime]] = []
    for index, event in enumerate(read_trace(path)):
        where = f"{name}: event {index}"
        if event.get("cat") == "Session" and event.get("name") == "model_run":
            start = _number(event, "ts", where)
            runs.append((start, start + _number(event, "dur", where)))
        elif event.get("cat") == "Node" and str(event.get("name", "")).endswith(KERNEL_SUFFIX):
            args = event.get("args")
            if not isinstance(args, dict) or not isinstance(args.get("op_name"), str) \
                    or not isinstance(args.get("provider"), str):
                raise TraceError(f"{where}: field 'args' lacks op_name or provider")
            provider = args["provider"]
            node = NodeTime(name=event["name"][:-len(KERNEL_SUFFIX)], op=args["op_name"], kernel=provider,
                            seconds=_number(event, "dur", where) / 1e6,
                            fallback=provider != requested_provider)
            kernels.append((_number(event, "ts", where), node))
    runs.sort()
    per_run: list[list[NodeTime]] = [[] for _ in runs]
    for ts, node in sorted(kernels, key=lambda k: k[0]):
        owner = next((i for i, (start, end) in enumerate(runs) if start <= ts <= end), None)
        if owner is None:
            raise TraceError(f"{name}: node {node.name!r} at {ts:g} us is in no model_run")
        per_run[owner].append(node)
    ran = Counter(node.op for node in per_run[-1]) if per_run else Counter()
    lowered = Counter(node.op_type for node in model.graph.node)
    removed = tuple((op, "") for op, count in lowered.items() for _ in range(count - ran.get(op, 0)))
    return SessionProfile(tuple(tuple(nodes) for nodes in per_run), removed, node_times)
