"""WebNN graph -> OpenVINO ops: one lowering function per WebNN operator,
grouped by family, joined into one table ``LOWER`` here.

``lower_graph`` turns a harness Graph into OpenVINO Parameters and outputs;
the backend puts one or several lowered graphs into one ov.Model.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import openvino as ov
import openvino.opset16 as ops

from webnn_harness.spec.families import join
from webnn_harness.backends.openvino.lower.base import (
    NUMPY_OF, OPSET, OV_TYPES, LoweringUnsupported, carried, constant, data_type, output, shape,
)
from webnn_harness.spec.graph import Graph


LOWER = join("webnn_harness.backends.openvino.lower", "LOWER")
EMULATIONS = join("webnn_harness.backends.openvino.lower", "EMULATIONS")


class LoweringMismatch(RuntimeError):
    """A lowering produced a shape or type other than the spec's create steps
    computed: a bug in this adapter, not a verdict on OpenVINO."""


@dataclass
class LoweredGraph:
    parameters: list[ov.Node]  # in graph.inputs order
    results: list[ov.Output]  # in graph.outputs order


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
    for node in graph.nodes:
        fn = LOWER.get(node.op)
        if fn is None:
            raise LoweringUnsupported(f"no OpenVINO lowering for {node.op}")
        kwargs = {}
        for param, ref in node.operands.items():
            kwargs[param] = [env[r] for r in ref] if isinstance(ref, tuple) else env[ref]
        kwargs.update(node.attributes)
        descs = tuple(graph.descs[o] for o in node.outputs)
        result = fn(descs, **kwargs)
        results = result if isinstance(result, tuple) else (result,)
        if len(results) != len(node.outputs):
            raise LoweringMismatch(f"{node.op} lowering returned {len(results)} outputs, expected {len(node.outputs)}")
        for name, value, desc in zip(node.outputs, results, descs):
            value = output(value)
            got = (shape(value), data_type(value))
            if got != (tuple(desc.shape), carried(desc.data_type)):
                raise LoweringMismatch(f"{node.op} lowering gives {got[1]}{list(got[0])} for {name}, "
                                       f"the spec's create steps say {desc}")
            env[name] = value
    return LoweredGraph(parameters, [env[name] for name in graph.outputs])


__all__ = ["EMULATIONS", "LOWER", "OPSET", "LoweredGraph", "LoweringMismatch", "LoweringUnsupported", "lower_graph"]
