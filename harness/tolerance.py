"""Tolerance budgets: per op (from the op families' TOLERANCE tables), summed
over a multi-operator graph, overridden per case."""
from __future__ import annotations

from typing import Mapping

from webnn_harness.graph import Graph, Node
from webnn_harness.families import join
from webnn_harness.opspec.base import Budget, BudgetFn

TOLERANCE: Mapping[str, BudgetFn] = join("webnn_harness.opspec", "TOLERANCE")


def node_budget(node: Node, graph: Graph) -> Budget:
    fn = TOLERANCE.get(node.op)
    if fn is None:
        raise KeyError(f"no tolerance budget defined for {node.op}")
    return fn(node, graph.descs)
