"""How each variant runs a benchmark's graph. A variant prepares (builds
what it needs, timed as build) and returns a ``step``: one call computes the
graph's outputs from its host inputs and returns them as host arrays, so
every variant pays for the same work end to end and its outputs can be
verified against the reference before it is timed.

The graph's host inputs enter every backend variant the same way: the
session reads them in place where its device can (``share``, what
InferenceSession.run and OpenVINO's CompiledModel.__call__ do with numpy
inputs on a CPU), and each output the step returns is read back into a host
array: by the backend itself where its session can (``run_to_host``: the
output is bound to the host array, so on a CPU, where it already is host
memory, it costs no copy, as in the backends' own run loops), else one copy
into a new host array (``download``). The arrays of ``run_to_host`` are the
session's and the next call rewrites them: the bench reads a step's outputs
before it steps again. Only the transfer benchmarks and opByOpReadback's
intermediates are uploaded (copied into a backend tensor) on purpose.

    graph (fused, backend, nchw, nhwc, ...): the whole graph as one backend graph
    deviceTensor / opByOp: one backend graph per op, tensors handed from op to
        op in the backend's own memory; only the graph's outputs are read back
    opByOpReadback: one backend graph per op, every intermediate read back to
        the host and uploaded again
    readback: the first op on the backend, its output read back, the rest in
        host numpy (harness/bench/host.py)
    host: every op in host numpy
    upload / download: (kind transfer) copying the graph's input into a
        backend tensor / a backend tensor back to a new host array
    resident: (kind peak) the whole graph on inputs uploaded once, its
        outputs left in the backend's memory: the device's own rate, with no
        host copy or transfer timed (outputs are read back only to verify)

A backend whose calls cannot be timed from Python (chromium: a Playwright
round trip each) builds and times the variant where it runs from a TimedPlan
(PLAN_KINDS: host and opByOpReadback cross the host around every op, the
backend computing each op; readback reads back only at the end;
deviceTensor and opByOp keep every tensor on the device), and hands back its
samples (backends/base.py, ``timed_plan``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from webnn_harness.backends.base import TimedPlan, Unsupported, device_session, profiling_session, share, to_host
from webnn_harness.bench.measure import Latency, TimingPolicy, timed_elsewhere
from webnn_harness.bench.host import missing_host_ops, run_nodes
from webnn_harness.spec.graph import Graph, Node


@dataclass(frozen=True)
class Prepared:
    step: Callable[[], Mapping[str, np.ndarray]]
    build_seconds: float | None
    artifacts: tuple[str, ...] = ()  # every file saved
    artifact: str | None = None  # the model a native tool replays: set when the variant runs one graph
    # kind transfer: ``step`` moves data only; ``check`` returns the outputs to verify
    check: Callable[[], Mapping[str, np.ndarray]] | None = None
    build_settings: Mapping[str, Any] | None = None  # per-build choices (ORT: opset), a list where parts differ
    sessions: tuple[Any, ...] = ()  # the device sessions one step runs, each once, in build order
    # timed where it runs (a backend's timed_plan): the timed loop, given the policy, in place of measure()
    measure: Callable[[TimingPolicy], Latency] | None = None


def node_graph(graph: Graph, node: Node) -> Graph:
    """One node of ``graph`` as a graph of its own: its non-constant operands
    become inputs, constants stay constants."""
    names = node.operand_names()
    inputs = tuple(dict.fromkeys(n for n in names if n not in graph.constants))
    constants = {n: graph.constants[n] for n in names if n in graph.constants}
    descs = {n: graph.descs[n] for n in (*names, *node.outputs)}
    return Graph(inputs=inputs, constants=constants, nodes=(node,), outputs=node.outputs, descs=descs)


class _Sessions:
    """Builds device sessions, timing the builds and saving each model;
    with ``profile``, sessions with the backend's profiler on."""

    def __init__(self, backend, artifact_stem: str | None, profile: bool = False):
        self.backend, self.stem, self.profile = backend, artifact_stem, profile
        self.sessions: list[Any] = []
        self.build_seconds = 0.0
        self.artifacts: list[str] = []
        self.models: list[str] = []  # the first file of each saved model (.onnx, or OpenVINO's .xml)
        self.settings: list[Mapping[str, Any]] = []

    def session(self, graph: Graph, part: int | None = None):
        t0 = time.perf_counter()
        session = (profiling_session if self.profile else device_session)(self.backend, graph)
        self.build_seconds += time.perf_counter() - t0
        self.sessions.append(session)
        settings = getattr(session, "build_settings", None)
        if settings is not None:
            self.settings.append(settings())
        if self.stem is not None:
            stem = self.stem if part is None else f"{self.stem}.part{part}"
            files = tuple(session.save(stem))
            self.artifacts.extend(files)
            self.models.extend(files[:1])
        return session

    def prepared(self, step, check=None) -> "Prepared":
        artifact = self.models[0] if len(self.models) == 1 else None
        merged = None
        if self.settings:
            keys = dict.fromkeys(k for s in self.settings for k in s)
            values = {k: list(dict.fromkeys(s.get(k) for s in self.settings)) for k in keys}
            merged = {k: v[0] if len(v) == 1 else v for k, v in values.items()}
        return Prepared(step, self.build_seconds, tuple(self.artifacts), artifact, check, merged, tuple(self.sessions))


def _whole(graph: Graph, inputs, sessions: _Sessions) -> Callable:
    session = sessions.session(graph)

    def step():
        outs = to_host(session, {name: share(session, name, inputs[name]) for name in graph.inputs})
        return {name: outs[name] for name in graph.outputs}

    return step


def _op_by_op(graph: Graph, inputs, sessions: _Sessions, read_back: bool) -> Callable:
    parts = [(node_graph(graph, node), None) for node in graph.nodes]
    parts = [(g, sessions.session(g, i)) for i, (g, _) in enumerate(parts)]
    wanted = set(graph.outputs)
    consumed = {name for part, _ in parts for name in part.inputs}
    # A part whose every output is a graph output no later op reads (the
    # chain's last op) is read back as the whole graph's outputs are.
    last = [all(name in wanted and name not in consumed for name in part.outputs) for part, _ in parts]

    def step():
        # tensors: operand name -> (session that owns it, backend tensor)
        tensors: dict[str, tuple[Any, Any]] = {}
        host: dict[str, np.ndarray] = {}
        for (part, session), read_to_host in zip(parts, last):
            feeds = {}
            for name in part.inputs:
                if name in tensors:
                    owner, tensor = tensors[name]
                    feeds[name] = session.upload(name, owner.download(tensor)) if read_back else tensor
                else:
                    feeds[name] = share(session, name, inputs[name])
            if read_to_host:
                host.update(to_host(session, feeds))
                continue
            for name, tensor in session.run(feeds).items():
                tensors[name] = (session, tensor)
        return {name: host[name] if name in host else tensors[name][0].download(tensors[name][1])
                for name in graph.outputs}

    return step


def _readback(graph: Graph, inputs, sessions: _Sessions) -> Callable:
    first, rest = graph.nodes[0], graph.nodes[1:]
    if not rest:
        raise ValueError("readback needs a graph of at least two ops (the first on the backend, the rest on the host)")
    _require_host(rest)
    part = node_graph(graph, first)
    session = sessions.session(part)

    def step():
        values = dict(graph.constants)
        values.update(inputs)
        values.update(to_host(session, {name: share(session, name, inputs[name]) for name in part.inputs}))
        values = run_nodes(graph, rest, values)
        return {name: values[name] for name in graph.outputs}

    return step


def _host(graph: Graph, inputs) -> Callable:
    _require_host(graph.nodes)

    def step():
        values = dict(graph.constants)
        values.update(inputs)
        values = run_nodes(graph, graph.nodes, values)
        return {name: values[name] for name in graph.outputs}

    return step


def _require_host(nodes) -> None:
    missing = missing_host_ops(nodes)
    if missing:
        raise Unsupported(f"no host implementation of {', '.join(missing)}")


def _transfer(graph: Graph, inputs, sessions: _Sessions, direction: str) -> Prepared:
    (name,) = graph.inputs
    session = sessions.session(graph)
    source = inputs[name]
    on_device = session.upload(name, source)

    if direction == "upload":
        step = lambda: session.upload(name, source)  # noqa: E731
        check = lambda: {graph.outputs[0]: session.download(session.run({name: session.upload(name, source)})[graph.outputs[0]])}  # noqa: E731
    else:
        step = lambda: session.download(on_device)  # noqa: E731
        check = lambda: {graph.outputs[0]: session.download(on_device)}  # noqa: E731
    return sessions.prepared(step, check)


def _resident(graph: Graph, inputs, sessions: _Sessions) -> Prepared:
    session = sessions.session(graph)
    feeds = {name: session.upload(name, inputs[name]) for name in graph.inputs}
    step = lambda: session.run(feeds)  # noqa: E731
    check = lambda: {name: session.download(tensor) for name, tensor in step().items()  # noqa: E731
                     if name in graph.outputs}
    return sessions.prepared(step, check)


def _check_kind(variant: str, kind: str) -> None:
    """The transfer and peak kinds have their own variants (ValueError otherwise)."""
    if kind == "transfer" and variant not in ("upload", "download"):
        raise ValueError(f"transfer variants are upload and download, not {variant!r}")
    if kind == "peak" and variant != "resident":
        raise ValueError(f"the peak variant is resident, not {variant!r}")


WHOLE_GRAPH = ("graph", "fused", "backend", "cells", "nchw", "nhwc", "nhwcTransposed")


# The variants as a backend that times them where they run does them
# (backends/base.py, TimedPlan): op-by-op through the host (host: the ops
# computed by the backend, their operands crossing the host), op-by-op on the
# device read back at the end, op-by-op on tensors that never leave it, or
# the whole graph.
PLAN_KINDS = {
    "host": "perOp", "opByOpReadback": "perOp",
    "readback": "chain",
    "deviceTensor": "dispatch", "opByOp": "dispatch",
    **{variant: "chain" for variant in WHOLE_GRAPH},
    "resident": "dispatch",
    "upload": "upload", "download": "download",
}
OP_BY_OP_PLANS = ("host", "opByOpReadback", "readback", "deviceTensor", "opByOp")


def timed_plan(variant: str, graph: Graph, inputs: Mapping[str, np.ndarray]) -> TimedPlan:
    """``variant`` of ``graph`` as a TimedPlan (ValueError for a variant it has none for)."""
    if variant not in PLAN_KINDS:
        raise ValueError(f"unknown variant {variant!r}")
    parts = tuple(node_graph(graph, node) for node in graph.nodes) if variant in OP_BY_OP_PLANS else (graph,)
    return TimedPlan(PLAN_KINDS[variant], parts, dict(inputs), tuple(graph.outputs))


def _timed_in_place(backend, variant: str, graph: Graph, inputs) -> Prepared:
    """A variant a backend times where it runs (``backend.timed_plan``)."""
    timed = backend.timed_plan(timed_plan(variant, graph, inputs))
    measure = lambda policy: timed_elsewhere(timed.measure(policy.to_json()))  # noqa: E731
    return Prepared(timed.step, timed.build_seconds, measure=measure)


def prepare(variant: str, kind: str, graph: Graph, inputs: Mapping[str, np.ndarray], backend,
            artifact_stem: str | None, profile: bool = False) -> Prepared:
    """Build ``variant`` of a benchmark (``profile``: its sessions with the
    backend's profiler on, harness/bench/profile.py). Raises Unsupported (the
    backend or the host cannot run it) or ValueError (the variant does not
    apply). A backend with ``timed_plan`` builds and times it where it runs
    (the profiled runs, which run in Python, excepted)."""
    if not profile and getattr(backend, "timed_plan", None) is not None:
        _check_kind(variant, kind)
        return _timed_in_place(backend, variant, graph, inputs)
    sessions = _Sessions(backend, artifact_stem, profile)
    _check_kind(variant, kind)
    if kind == "transfer":
        return _transfer(graph, inputs, sessions, variant)
    if kind == "peak":
        return _resident(graph, inputs, sessions)
    if variant == "host":
        return Prepared(_host(graph, inputs), None)
    if variant in WHOLE_GRAPH:
        step = _whole(graph, inputs, sessions)
    elif variant in ("deviceTensor", "opByOp"):
        step = _op_by_op(graph, inputs, sessions, read_back=False)
    elif variant == "opByOpReadback":
        step = _op_by_op(graph, inputs, sessions, read_back=True)
    elif variant == "readback":
        step = _readback(graph, inputs, sessions)
    else:
        raise ValueError(f"unknown variant {variant!r}")
    return sessions.prepared(step)
