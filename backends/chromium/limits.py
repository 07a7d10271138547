"""The browser's own declared limits (``MLContext.opSupportLimits()``): where
a graph falls outside them, and the declared table ``probe`` writes.

Blink throws a ``TypeError`` for an operand whose data type or rank the
context does not declare: outside the declared limits that TypeError is the
browser's refusal (``unsupported``); inside them, on a graph our spec tables
say is valid, it is a validation bug (``error``).
"""
from __future__ import annotations

from typing import Any, Mapping

from webnn_harness.spec.catalog import operator
from webnn_harness.spec.graph import Graph, TensorDesc

def _outside_member(limits: Mapping[str, Any], where: str, desc: TensorDesc) -> str | None:
    """Why ``desc`` is outside one declared member (``{"dataTypes", "rankRange"}``), or None."""
    types = limits.get("dataTypes")
    if isinstance(types, list) and desc.data_type not in types:
        return f"{where} is {desc.data_type}, declared {', '.join(types) or 'none'}"
    ranks = limits.get("rankRange")
    if isinstance(ranks, Mapping) and not int(ranks.get("min", 0)) <= desc.rank <= int(ranks.get("max", desc.rank)):
        return f"{where} has rank {desc.rank}, declared {ranks.get('min')} to {ranks.get('max')}"
    return None


def _node_members(graph: Graph):
    """(op, member, operand name) for every operand and result of every node."""
    for node in graph.nodes:
        for member, ref in node.operands.items():
            for name in ref if isinstance(ref, tuple) else (ref,):
                yield node.op, member, name
        outputs = operator(node.op).output_members or ("output",)
        for i, name in enumerate(node.outputs):
            yield node.op, outputs[min(i, len(outputs) - 1)], name


def outside_declared(graph: Graph, declared: Mapping[str, Any]) -> str | None:
    """Why ``graph`` is outside the context's declared limits (its graph
    inputs, constants and outputs, each node's operands, maxTensorByteLength),
    or None when it is inside them."""
    roles = [("input", graph.inputs), ("constant", tuple(graph.constants)), ("output", graph.outputs)]
    for role, names in roles:
        for name in names:
            if why := _outside_member(declared.get(role) or {}, f"graph {role} {name!r}", graph.descs[name]):
                return why
    for op, member, name in _node_members(graph):
        if op not in declared:
            return f"{op} is not in the context's opSupportLimits()"
        if why := _outside_member((declared[op] or {}).get(member) or {}, f"{op} {member} {name!r}", graph.descs[name]):
            return why
    largest = declared.get("maxTensorByteLength")
    if isinstance(largest, int):
        for name, desc in graph.descs.items():
            if desc.byte_length > largest:
                return f"operand {name!r} is {desc.byte_length} bytes, declared maxTensorByteLength {largest}"
    return None


def declared_table(limits: Mapping[str, Any], browser: str, version: str, device: str) -> dict:
    """The context's opSupportLimits() as the spec shapes it, with where it came from."""
    return {"$provenance": {"source": "MLContext.opSupportLimits()", "browser": browser, "version": version,
                            "deviceType": device}, **limits}
