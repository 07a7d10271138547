"""The graph every backend builds: operands with descriptors, nodes with
resolved attributes, constants with values.

A ``Graph`` is produced from a case by ``harness.builder.build_graph``, which
runs the spec's create steps (``harness.opspec``) for each node, so a backend
sees every operand's descriptor and every option with its default resolved to
a concrete value (no "axes absent means all axes" left to guess).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from typing import Any, Mapping

import numpy as np

from webnn_harness.spec.dtypes import byte_size


@dataclass(frozen=True)
class TensorDesc:
    shape: tuple[int, ...]
    data_type: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return prod(self.shape)

    @property
    def byte_length(self) -> int:
        return self.size * byte_size(self.data_type)

    def to_json(self) -> dict:
        return {"shape": list(self.shape), "dataType": self.data_type}

    def __str__(self) -> str:
        return f"{self.data_type}{list(self.shape)}"


OperandRef = str | tuple[str, ...]


@dataclass(frozen=True)
class Node:
    """One builder call. ``operands`` maps parameter or option name to operand
    name(s) (only those given); ``attributes`` holds every other parameter and
    option, resolved by the op's create steps."""

    op: str
    operands: Mapping[str, OperandRef]
    attributes: Mapping[str, Any]
    outputs: tuple[str, ...]

    def operand_names(self) -> list[str]:
        names: list[str] = []
        for ref in self.operands.values():
            names.extend(ref if isinstance(ref, tuple) else (ref,))
        return names


@dataclass(frozen=True, eq=False)
class Graph:
    inputs: tuple[str, ...]  # graph inputs, values given at compute time
    constants: Mapping[str, np.ndarray]  # constant operands, values known at build time
    nodes: tuple[Node, ...]
    outputs: tuple[str, ...]
    descs: Mapping[str, TensorDesc] = field(default_factory=dict)  # every operand

    @property
    def ops(self) -> list[str]:
        return sorted({n.op for n in self.nodes})

    @property
    def data_types(self) -> list[str]:
        from webnn_harness.spec.dtypes import in_spec_order

        return in_spec_order(d.data_type for d in self.descs.values())
