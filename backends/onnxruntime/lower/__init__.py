"""WebNN graph -> ONNX model.

One lowering function per WebNN op, ``fn(e: Emitter, c: Call) -> name | [names]``,
grouped by family like harness/opspec; the families' ``LOWER`` tables join
into one here. ``EMULATED`` says, per op, where the lowering composes WebNN
semantics from several ONNX ops instead of mapping to one native op (probing
and reports show it).
"""
from __future__ import annotations

from typing import Mapping

from onnx import helper

from webnn_harness.backends.lowering import lower_nodes
from webnn_harness.backends.onnxruntime.emitter import Emitter, Unlowerable, value_info
from webnn_harness.spec.families import join
from webnn_harness.spec.graph import Graph


LOWER = join("webnn_harness.backends.onnxruntime.lower", "LOWER")
EMULATED: Mapping[str, str] = join("webnn_harness.backends.onnxruntime.lower", "EMULATED")


def lower_graph(graph: Graph, opset: int, ir_version: int, external_uniform: bool = False):
    """The ONNX ModelProto for ``graph``. Graph inputs stay inputs (same
    names), constants become initializers (same names), outputs keep their
    names. Raises Unlowerable for an op or option the lowering refuses.
    ``external_uniform``: large one-value constants hold no bytes (see
    emitter.uniform_external; ``OnnxRuntimeBackend.session`` supplies them)."""
    descs = graph.descs
    e = Emitter(opset, set(descs), external_uniform)
    env: dict[str, str] = {name: name for name in graph.inputs}
    for name, value in graph.constants.items():
        # The descriptor is the truth (a 0-D constant may arrive as shape [1]).
        env[name] = e.initializer(name, value.reshape(descs[name].shape))
    lower_nodes(e, graph.nodes, env, descs, LOWER, str, "ONNX")
    for name in graph.outputs:
        if env[name] != name:
            e.op("Identity", [env[name]], [name])
    onnx_graph = helper.make_graph(
        e.nodes,
        "webnn",
        [value_info(n, descs[n]) for n in graph.inputs],
        [value_info(n, descs[n]) for n in graph.outputs],
        initializer=e.initializers,
    )
    return helper.make_model(
        onnx_graph,
        opset_imports=[helper.make_opsetid("", opset)],
        ir_version=ir_version,
        producer_name="webnn-harness",
    )


__all__ = ["EMULATED", "LOWER", "Unlowerable", "lower_graph"]
