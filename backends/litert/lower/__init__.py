"""WebNN graph -> TFLite model.

One lowering function per WebNN op, ``fn(e: Emitter, c: Call) -> tensor | [tensors]``,
grouped by family like harness/spec/opspec; the families' ``LOWER`` tables
join into one here. ``EMULATED`` names, per op, where the lowering composes
WebNN semantics from several TFLite ops instead of mapping to one builtin.
The reference lowering is Chromium's services/webnn/tflite/graph_builder_tflite.cc;
each family module says where this one differs.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from webnn_harness.backends.litert.emitter import OP, Emitter, Unlowerable
from webnn_harness.backends.lowering import lower_nodes
from webnn_harness.spec.families import join
from webnn_harness.spec.graph import Graph, TensorDesc

LOWER = join("webnn_harness.backends.litert.lower", "LOWER")
EMULATED: Mapping[str, str] = join("webnn_harness.backends.litert.lower", "EMULATED")

# float16 handling (-o float16=...): "native" emits float16 tensors and lets
# the chosen path run them (XNNPACK has float16 kernels, many builtin kernels
# do not); "float32" computes in float32 between a cast at every float16
# graph input and constant and a cast back at every float16 output, as
# Chromium's TFLite backend does for most ops.
FLOAT16_MODES = ("native", "float32")


def _computed(desc: TensorDesc, float16: str) -> TensorDesc:
    """The descriptor a tensor has inside the model (float16 as float32 when cast)."""
    if float16 == "float32" and desc.data_type == "float16":
        return TensorDesc(desc.shape, "float32")
    return desc


def lower_graph(graph: Graph, float16: str = "native") -> tuple[bytes, list[int], list[int]]:
    """The TFLite flatbuffer for ``graph``, with the tensor indices of its
    inputs (in ``graph.inputs`` order) and outputs (``graph.outputs`` order).
    Raises Unlowerable for an op or option the lowering refuses."""
    e = Emitter()
    descs = {name: _computed(desc, float16) for name, desc in graph.descs.items()}
    env: dict[str, int] = {}
    input_tensors = []
    for name in graph.inputs:
        index = e.tensor(graph.descs[name], name)
        input_tensors.append(index)
        env[name] = e.cast(index, descs[name].data_type)
    for name, value in graph.constants.items():
        desc = descs[name]
        env[name] = e.constant(np.asarray(value).reshape(desc.shape), desc.data_type, name)
    lower_nodes(e, graph.nodes, env, descs, LOWER, int, "LiteRT")
    output_tensors: list[int] = []
    for name in graph.outputs:
        index = e.cast(env[name], graph.descs[name].data_type)
        if index in input_tensors or index in e.values or index in output_tensors:
            # An output that is an input, a constant or another output needs a
            # tensor of its own: TFLite would otherwise alias them.
            index = e.op(OP.RESHAPE, [index, e.i32(graph.descs[name].shape)], e.like(index))
        e.tensors[index].name = name
        output_tensors.append(index)
    return e.finish(input_tensors, output_tensors), input_tensors, output_tensors


__all__ = ["EMULATED", "FLOAT16_MODES", "LOWER", "Unlowerable", "lower_graph"]
