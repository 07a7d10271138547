"""WebNN graph -> OpenVINO ops: one lowering function per WebNN operator,
``fn(e, c: Call) -> output | (outputs)`` (backends/lowering.py), grouped by
family, joined into one table ``LOWER`` here. ``EMULATED`` says, per op,
where the lowering composes WebNN semantics from several OpenVINO ops.
OpenVINO's nodes are made by its opset functions, not by an emitter that
holds the model: ``e`` is None.

``lower_graph`` turns a harness Graph into OpenVINO Parameters and outputs;
the backend puts one or several lowered graphs into one ov.Model.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
import openvino as ov
import openvino.opset16 as ops

from webnn_harness.backends.lowering import LoweringMismatch, Unlowerable, lower_nodes
from webnn_harness.backends.openvino.lower.base import (
    NUMPY_OF, OPSET, OV_TYPES, carried, constant, data_type, output, shape,
)
from webnn_harness.spec.families import join
from webnn_harness.spec.graph import Graph, Node, TensorDesc


LOWER = join("webnn_harness.backends.openvino.lower", "LOWER")
EMULATED: Mapping[str, str] = join("webnn_harness.backends.openvino.lower", "EMULATED")


@dataclass
class LoweredGraph:
    parameters: list[ov.Node]  # in graph.inputs order
    results: list[ov.Output]  # in graph.outputs order


def _settled(node: Node, name: str, value, desc: TensorDesc) -> ov.Output:
    """``value`` as the Output the model keeps, its shape and type (which
    OpenVINO infers) checked against the create steps'."""
    value = output(value)
    got = (shape(value), data_type(value))
    if got != (tuple(desc.shape), carried(desc.data_type)):
        raise LoweringMismatch(f"{node.op} lowering gives {got[1]}{list(got[0])} for {name}, "
                               f"the spec's create steps say {desc}")
    return value


def lower_graph(graph: Graph, prefix: str = "") -> LoweredGraph:
    env: dict[str, ov.Output] = {}
    parameters = []
    for name in graph.inputs:
        desc = graph.descs[name]
        param = ops.parameter(list(desc.shape), OV_TYPES[desc.data_type], name=f"{prefix}{name}")
        parameters.append(param)
        env[name] = param.output(0)
    for name, value in graph.constants.items():
        desc = graph.descs[name]
        # Contiguous: a one-value tensor arrives as a broadcast view (harness/spec/uniform.py),
        # and ov.op.Constant (under ops.constant too) reads a non-contiguous float16 array as i16 (OpenVINO 2026.4).
        array = np.ascontiguousarray(np.asarray(value).astype(NUMPY_OF[desc.data_type])).reshape(desc.shape)
        env[name] = constant(array)
    lower_nodes(None, graph.nodes, env, graph.descs, LOWER, (ov.Node, ov.Output), "OpenVINO", _settled)
    return LoweredGraph(parameters, [env[name] for name in graph.outputs])


__all__ = ["EMULATED", "LOWER", "OPSET", "LoweredGraph", "LoweringMismatch", "Unlowerable", "lower_graph"]
