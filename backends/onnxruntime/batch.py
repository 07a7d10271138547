"""Many case graphs in one ONNX Runtime session.

Creating a session costs about half a millisecond however small the model
(ORT 1.32 on CPU: 640 one-node sessions take 10x the time of 10 sessions of
64 nodes each), which made session creation the largest cost of a corpus
run. ``merge_models`` puts independent case graphs side by side in one model,
each one's names prefixed ``case<k>:`` so nothing collides; the merged session
is run once with every case's inputs and returns every case's outputs.

ORT does not prune a run to the requested outputs (every node runs, and every
graph input must be fed), so a merged session is only useful for computing
all its cases at once: ``OnnxRuntimeBackend.compute_batch``. Whatever fails
in a merged session (a build error, a compute error such as integer division
by zero) is redone case by case in sessions of their own, so each case's
verdict and message are what a session of its own gives.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

# Graphs with more elements than this build alone: their initializers would
# be copied once more into the merged model, and protobuf caps a model at 2 GB.
MAX_ELEMENTS_TO_MERGE = 1 << 20
MAX_GRAPHS_PER_SESSION = 64


@dataclass(eq=False)
class MergedSession:
    session: Any  # ort.InferenceSession over the merged model
    input_types: dict[str, np.dtype]  # prefixed input name -> dtype ORT expects


@dataclass(eq=False)
class MergedCase:
    """One case's place in a merged session (``compute_batch`` runs it)."""

    graph: Any  # webnn_harness.spec.graph.Graph
    merged: MergedSession
    prefix: str
    opset: int  # the opset this case's graph was emitted at (build_settings)


def _prefixed(prefix: str, names) -> list[str]:
    return [prefix + n if n else n for n in names]  # "" is an omitted optional input


def merge_models(models: Sequence[Any], prefixes: Sequence[str]):
    """One ModelProto holding every model's graph, names prefixed. All models
    come from one lowering, so they share opset and IR version."""
    from onnx import ModelProto

    merged = ModelProto()
    merged.CopyFrom(models[0])
    graph = merged.graph
    for field in ("input", "output", "initializer", "node", "value_info"):
        graph.ClearField(field)
    graph.name = "webnn_cases"
    for model, prefix in zip(models, prefixes):
        g = model.graph
        for source, target in ((g.input, graph.input), (g.output, graph.output),
                               (g.value_info, graph.value_info), (g.initializer, graph.initializer)):
            for item in source:
                copy = target.add()
                copy.CopyFrom(item)
                copy.name = prefix + item.name
        for j, node in enumerate(g.node):
            copy = graph.node.add()
            copy.CopyFrom(node)
            copy.input[:] = _prefixed(prefix, node.input)
            copy.output[:] = _prefixed(prefix, node.output)
            # Named, so that ORT's refusal ("... node with name 'case3:n1'")
            # says which case it is about.
            copy.name = prefix + (node.name or f"n{j}")
    return merged


def prefix_of(k: int) -> str:
    return f"case{k}:"


def culprit(message: str, count: int) -> int | None:
    """Which of ``count`` merged cases an ORT error message names, if any."""
    match = _PREFIX.search(message)
    return int(match.group(1)) if match and int(match.group(1)) < count else None


_PREFIX = re.compile(r"\bcase(\d+):")


def well_typed(model) -> bool:
    """Whether ONNX's strict type and shape inference accepts ``model``. ORT
    refuses a model it rejects ("INVALID_GRAPH ... Type Error"); one it
    rejects wrongly is only built alone, which gives the same verdict."""
    import onnx

    try:
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    except Exception:  # noqa: BLE001 - onnx raises InferenceError, ValidationError and kin
        return False
    return True


def mergeable(graph) -> bool:
    return sum(desc.size for desc in graph.descs.values()) <= MAX_ELEMENTS_TO_MERGE


def chunks(indices: Sequence[int]) -> list[list[int]]:
    return [list(indices[i:i + MAX_GRAPHS_PER_SESSION]) for i in range(0, len(indices), MAX_GRAPHS_PER_SESSION)]


def merged_feed(cases: Sequence[MergedCase], inputs: Sequence[Any]) -> dict[str, np.ndarray]:
    feed = {}
    types = cases[0].merged.input_types
    for case, values in zip(cases, inputs):
        for name in case.graph.inputs:
            key = case.prefix + name
            value, dtype = values[name], types[key]
            feed[key] = value if isinstance(value, np.ndarray) and value.dtype == dtype else np.asarray(value, dtype)
    return feed
