"""What a graph costs: floating-point operations and tensor bytes, from the
ops' records (one cost function per op beside its create steps;
what they count is written in harness/spec/opspec/base.py). The bench divides these
by measured latency for GFLOP/s, GB/s and the share of the machine's roofline."""
from __future__ import annotations

from functools import reduce
from typing import Mapping

from webnn_harness.spec.graph import Graph, Node, TensorDesc
from webnn_harness.spec.opspec import COST
from webnn_harness.spec.opspec.base import Cost


def node_cost(node: Node, descs: Mapping[str, TensorDesc]) -> Cost:
    fn = COST.get(node.op)
    if fn is None:
        raise KeyError(f"no cost function defined for {node.op}")
    return fn(node, descs)


def graph_cost(graph: Graph) -> Cost:
    """The sum of every node's cost. Bytes count each node's own reads and
    writes, so an intermediate value is counted when written and again when
    read: the traffic of running the graph op by op."""
    return reduce(lambda total, node: total + node_cost(node, graph.descs), graph.nodes, Cost(0, 0))


__all__ = ["COST", "Cost", "graph_cost", "node_cost"]
