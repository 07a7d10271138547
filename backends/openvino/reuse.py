"""Compiled models reused for graphs that were compiled before: the same
operators, operands, shapes, data types, attributes and constant bytes, with
the same compile properties; only the input values differ.

The capability probe reruns every wrong combination with its special values
replaced (harness/probe/deviations.py): about 320 reruns of graphs already
compiled, some 15% of the OpenVINO probe's compile time (issue 14). A rerun
whose graph this worker compiled already runs on that compiled model, at
that case's own ports; compiling it again would give the same model.

The key is content-complete, so a hit is never false: every descriptor,
node, attribute (by type and exact value) and constant byte, the device and
every compile property go into a SHA-256 digest. A graph holding a value
whose repr might not be exact gets no key and is compiled as before. Memory is bounded: at most MAX_MODELS compiled models are kept,
least recently used first out, and only models of at most MAX_ELEMENTS tensor
elements (a batch of small case graphs, never the probe's 1 GiB relu). A
kept model of 64 probe graphs holds about 11 MB: all 16 add about 175 MB to
a worker's resident memory (measured over the probe's data-type sweep).
In the probe about 250 of 2,150 graphs reuse a model (most reruns; a rerun
whose original another worker compiled is compiled again).
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any, Mapping

import numpy as np

from webnn_harness.spec.graph import Graph

MAX_MODELS = 16
MAX_ELEMENTS = 400_000  # the batch cap of backends/openvino: one full batch at most


# Values whose repr() is exact and tells types apart (1, 1.0 and True; -0.0
# and 0.0; a list and a tuple): a graph's structure is hashed as its repr.
_EXACT = (type(None), bool, int, float, str)


def _exact(value: Any) -> bool:
    kind = type(value)
    if kind in _EXACT:
        return True
    if kind is tuple or kind is list:
        return all(_exact(v) for v in value)
    if kind is dict:
        return all(type(k) is str and _exact(v) for k, v in value.items())
    return False  # numpy values, objects: a repr may round or truncate them


def graph_elements(graph: Graph) -> int:
    """Tensor elements of every operand of ``graph``: what its share of a model holds."""
    return sum(d.size for d in graph.descs.values())


def structure_key(graph: Graph, device: str, config: Mapping[str, str]) -> bytes | None:
    """The digest of everything that decides the compiled model of ``graph``
    but its input values; None when a value's repr might not be exact, or
    when the graph alone is too large to be kept (no bytes hashed for nothing)."""
    if graph_elements(graph) > MAX_ELEMENTS:
        return None
    nodes = [(n.op, dict(n.operands), dict(n.attributes), tuple(n.outputs)) for n in graph.nodes]
    if not all(_exact(attributes) and _exact(operands) for _, operands, attributes, _ in nodes):
        return None
    descs = [(name, tuple(d.shape), d.data_type) for name, d in graph.descs.items()]
    structure = (device, dict(config), tuple(graph.inputs), tuple(graph.outputs), descs, nodes)
    if not _exact((device, dict(config), structure[2], structure[3], descs)):
        return None
    h = hashlib.sha256(repr(structure).encode())
    for name in sorted(graph.constants):
        array = np.asarray(graph.constants[name])
        h.update(f";{name!r}:{array.dtype.str}:{array.shape}:".encode())
        h.update(np.ascontiguousarray(array).view(np.uint8).reshape(-1))
    return h.digest()


class CompiledModels:
    """key -> a case's handle on a compiled model, least recently used
    model evicted first (with every key that points at it)."""

    def __init__(self, max_models: int = MAX_MODELS, max_elements: int = MAX_ELEMENTS):
        self.max_models, self.max_elements = max_models, max_elements
        self._handles: dict[bytes, Any] = {}
        self._models: OrderedDict[int, list[bytes]] = OrderedDict()  # id(batch) -> its keys
        self.hits = 0

    def get(self, key: bytes | None):
        handle = self._handles.get(key) if key is not None else None
        if handle is not None:
            self._models.move_to_end(id(handle.batch))
            self.hits += 1
        return handle

    def put(self, key: bytes | None, handle: Any) -> None:
        """Keep ``handle`` under ``key`` when its model is small enough."""
        if key is None or handle.batch.elements > self.max_elements or key in self._handles:
            return
        batch = id(handle.batch)
        self._handles[key] = handle
        self._models.setdefault(batch, []).append(key)
        self._models.move_to_end(batch)
        while len(self._models) > self.max_models:
            _, keys = self._models.popitem(last=False)
            for k in keys:
                del self._handles[k]

    def __len__(self) -> int:
        return len(self._models)
