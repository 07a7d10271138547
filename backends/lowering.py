"""What the lowering functions of the backends that write a model
(onnxruntime, litert) share: the ``Call`` one WebNN node is seen as, made
by ``node_call`` from the names (or tensor indices) its operands were given,
the loop over a graph's nodes (``lower_nodes``), and an MLNumber option as a
value of its operand's type."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from webnn_harness.spec.dtypes import integer_range, is_float
from webnn_harness.spec.graph import Node, TensorDesc


@dataclass
class Call:
    """One WebNN node as a lowering function sees it."""

    node: Node
    inputs: Mapping[str, Any]  # param -> the backend's value (a list for sequence operands)
    in_descs: Mapping[str, Any]  # param -> TensorDesc (a list for sequence operands)
    out_descs: Sequence[TensorDesc]

    def __getitem__(self, param: str):
        return self.inputs[param]

    def get(self, param: str, default=None):
        return self.inputs.get(param, default)

    def has(self, param: str) -> bool:
        return param in self.inputs

    def desc(self, param: str) -> TensorDesc:
        return self.in_descs[param]

    def attr(self, key: str, default=None):
        """A resolved attribute; ``default`` stands in where the value is None
        (a create step that has not resolved it yet)."""
        value = self.node.attributes.get(key)
        return default if value is None else value

    @property
    def out(self) -> TensorDesc:
        return self.out_descs[0]


def node_call(node: Node, env: Mapping[str, Any], descs: Mapping[str, TensorDesc]) -> Call:
    """``node`` with each operand as ``env`` names it (its value in the model being written)."""
    inputs, in_descs = {}, {}
    for param, ref in node.operands.items():
        if isinstance(ref, tuple):
            inputs[param] = [env[r] for r in ref]
            in_descs[param] = [descs[r] for r in ref]
        else:
            inputs[param] = env[ref]
            in_descs[param] = descs[ref]
    return Call(node, inputs, in_descs, [descs[o] for o in node.outputs])


def lower_nodes(emitter, nodes: Sequence[Node], env: dict[str, Any], descs: Mapping[str, TensorDesc],
                lower: Mapping[str, Any], value_type: type) -> None:
    """Each node through its op's lowering function (``lower[op](emitter,
    call)``), its outputs then named in ``env``. A function returns one value
    of ``value_type`` (an ONNX tensor name, a TFLite tensor index) or a
    sequence, one per output."""
    for node in nodes:
        result = lower[node.op](emitter, node_call(node, env, descs))
        results = [result] if isinstance(result, value_type) else list(result)
        if len(results) != len(node.outputs):
            raise RuntimeError(f"lowering of {node.op} gave {len(results)} outputs for {len(node.outputs)}")
        env.update(zip(node.outputs, results))


def number_bound(value, data_type: str):
    """An MLNumber bound (clamp's minValue, pad's value) as a value of the
    operand's type: the spec casts MLNumber to the operand's data type; on an
    integer type an infinite bound is the type's limit, a NaN none (None)."""
    if is_float(data_type):
        return float(value)
    low, high = integer_range(data_type)
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return low if value < 0 else high
        value = math.trunc(value)
    return min(max(int(value), low), high)
