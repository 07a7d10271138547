"""A case as the page reads it, and the page's outputs as numpy arrays.

The graph crosses into the page as JSON: each builder call's positional
arguments and options dictionary as WebNN's JS API takes them (the spec's
names, which are ours), operand references as ``{"$operand": name}``,
numbers JSON cannot hold as ``{"$number": "NaN"}`` and integers beyond 2^53
as ``{"$bigint": "<decimal>"}``. Tensor values cross as base64 of their
little-endian bytes with their data type; the page views them as the typed
array of that type (float16 as Float16Array where the browser has it, else as
Uint16Array bits, as WPT's utils.js does; int64 as BigInt64Array), and int4 /
uint4 packed two elements a byte, low nibble first, as Chromium reads them.
A tensor of one value repeated crosses as that value (``{"fill": base64}``),
both ways; a large input or constant as ``{"fetch": path}``, fetched by the
page from the browser's loopback server (backends/chromium/browser.py).
"""
from __future__ import annotations

import base64
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from webnn_harness.spec.catalog import operator
from webnn_harness.spec.dtypes import EXTENSION_DATA_TYPES, numpy_dtype
from webnn_harness.spec.graph import Graph, Node, OperandRef
from webnn_harness.spec.uniform import MIN_ELEMENTS, is_uniform, uniform_value

_SAFE_INTEGER = 2 ** 53
LARGE_BYTES = 256 << 10  # a tensor this large crosses as a fetch from the loopback server


def tensor_bytes(array: np.ndarray, data_type: str) -> bytes:
    """The bytes WebNN reads for ``array`` as ``data_type``: little-endian, int4 packed."""
    values = np.ascontiguousarray(array, dtype=numpy_dtype(data_type)).reshape(-1)
    if data_type in EXTENSION_DATA_TYPES:
        nibbles = values.astype(np.int8).view(np.uint8) & 0x0F
        if nibbles.size % 2:
            nibbles = np.append(nibbles, np.uint8(0))
        return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8).tobytes()
    return values.astype(values.dtype.newbyteorder("<"), copy=False).tobytes()


def tensor_from_bytes(data: bytes, data_type: str, shape: tuple[int, ...]) -> np.ndarray:
    """``tensor_bytes`` inverted: an array of exactly ``data_type`` and ``shape``."""
    dtype = numpy_dtype(data_type)
    count = math.prod(shape)
    if data_type in EXTENSION_DATA_TYPES:
        packed = np.frombuffer(data, np.uint8)
        nibbles = np.stack([packed & 0x0F, packed >> 4], axis=-1).reshape(-1)[:count].astype(np.int8)
        if data_type == "int4":
            nibbles = np.where(nibbles > 7, nibbles - 16, nibbles)
        return nibbles.astype(dtype).reshape(shape)
    return np.frombuffer(data, dtype.newbyteorder("<"), count=count).astype(dtype).reshape(shape)


@dataclass(frozen=True)
class LargeTensor:
    """A tensor's bytes too large for a page call's arguments (Playwright
    passes them at well under 1 MB/s): the page fetches them from the
    browser's loopback server instead (``served``)."""

    data: bytes


def encode_tensor(array: np.ndarray, data_type: str) -> str | dict | LargeTensor:
    """Base64 of the tensor's bytes; a uniform tensor (one value broadcast,
    harness/spec/uniform.py: WPT's 6000x6000 "large inputs") as its one
    element, ``{"fill": base64}``, which the page repeats; LARGE_BYTES or
    more as a LargeTensor."""
    if is_uniform(array) and array.size >= MIN_ELEMENTS and data_type not in EXTENSION_DATA_TYPES:
        return {"fill": base64.b64encode(tensor_bytes(uniform_value(array), data_type)).decode("ascii")}
    data = tensor_bytes(array, data_type)
    return LargeTensor(data) if len(data) >= LARGE_BYTES else base64.b64encode(data).decode("ascii")


def served(value: Any, serve: Callable[[bytes], str]) -> Any:
    """``value`` with every LargeTensor replaced by ``{"fetch": path}``, its
    bytes handed to ``serve`` (which answers the path they are fetched at)."""
    if isinstance(value, LargeTensor):
        return {"fetch": serve(value.data)}
    if isinstance(value, Mapping):
        return {k: served(v, serve) for k, v in value.items()}
    if isinstance(value, list):
        return [served(v, serve) for v in value]
    return value


def decode_tensor(value: str | dict | bytes, data_type: str, shape: tuple[int, ...]) -> np.ndarray:
    """``encode_tensor`` inverted (the page answers a uniform output as one
    element too; an output taken back in chunks arrives as its bytes)."""
    if isinstance(value, bytes):
        return tensor_from_bytes(value, data_type, shape)
    if isinstance(value, dict):
        one = tensor_from_bytes(base64.b64decode(value["fill"]), data_type, ())
        return np.broadcast_to(one, shape)
    return tensor_from_bytes(base64.b64decode(value), data_type, shape)


def encoded_size(value: Any) -> int:
    """Characters of the tensors in a payload: what a page call carries."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, LargeTensor):
        return len(value.data)
    if isinstance(value, Mapping):
        return sum(encoded_size(v) for v in value.values())
    if isinstance(value, list):
        return sum(encoded_size(v) for v in value)
    return 0


def encode_value(value: Any) -> Any:
    """An option or argument value as JSON the page decodes (module docstring)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value) if abs(int(value)) < _SAFE_INTEGER else {"$bigint": str(int(value))}
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return {"$number": "NaN"}
        if math.isinf(value):
            return {"$number": "Infinity" if value > 0 else "-Infinity"}
        return value
    if isinstance(value, (list, tuple)):
        return [encode_value(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): encode_value(v) for k, v in value.items()}
    raise TypeError(f"cannot pass {type(value).__name__} {value!r} to the page")


def _operand(ref: OperandRef) -> Any:
    if isinstance(ref, tuple):
        return [{"$operand": name} for name in ref]
    return {"$operand": ref}


def node_call(node: Node) -> dict:
    """One builder call: ``builder[op](...args, options)``. Arguments come from
    the op's signature, options from the rest, an option resolved to None
    (no value: resample2d's sizes when scales are given) left out."""
    spec = operator(node.op)
    args = [_operand(node.operands[p.name]) if p.is_operand or p.is_operand_list
            else encode_value(node.attributes[p.name]) for p in spec.signature]
    options = {name: _operand(node.operands[name]) if opt.is_operand else encode_value(node.attributes[name])
               for name, opt in spec.options.items()
               if (node.operands.get(name) if opt.is_operand else node.attributes.get(name)) is not None}
    return {"op": node.op, "args": args, "options": options, "outputs": list(node.outputs)}


def graph_payload(graph: Graph) -> dict:
    """The graph as the page builds it: inputs as ``builder.input()``,
    constants as ``builder.constant()`` with their values, one call per node."""
    def desc(name: str) -> dict:
        d = graph.descs[name]
        return {"name": name, "dataType": d.data_type, "shape": list(d.shape)}

    return {
        "inputs": [desc(name) for name in graph.inputs],
        "constants": [{**desc(name), "data": encode_tensor(value, graph.descs[name].data_type)}
                      for name, value in graph.constants.items()],
        "nodes": [node_call(node) for node in graph.nodes],
        "outputs": [desc(name) for name in graph.outputs],
    }


def feeds_payload(graph: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, str]:
    """The graph inputs' values, written by ``writeTensor``."""
    return {name: encode_tensor(inputs[name], graph.descs[name].data_type) for name in graph.inputs}


def decode_outputs(graph: Graph, outputs: Mapping[str, str]) -> dict[str, np.ndarray]:
    """The page's ``readTensor`` results as arrays of the outputs' descriptors."""
    return {name: decode_tensor(outputs[name], graph.descs[name].data_type, tuple(graph.descs[name].shape))
            for name in graph.outputs}
