"""Judging one case's outputs: which tolerance applies, what is expected,
and the verdict."""
from __future__ import annotations

from typing import Mapping

import numpy as np

from webnn_harness.cases import Case
from webnn_harness.compare import Comparison, compare
from webnn_harness.dtypes import is_float
from webnn_harness.graph import Graph
from webnn_harness.tolerance import node_budget


def ancestors(graph: Graph, output: str) -> list:
    """The nodes ``output`` depends on, producer first."""
    producer = {name: node for node in graph.nodes for name in node.outputs}
    seen, stack, out = set(), [output], []
    while stack:
        node = producer.get(stack.pop())
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        stack.extend(node.operand_names())
    return out


def _file_tolerance(case: Case, data_type: str) -> tuple[str, float] | None:
    ft = case.file_tolerance
    if not ft:
        return None
    value = ft.get("value", (ft.get("byDataType") or {}).get(data_type))
    # An expression of the case's shape ("shape[axis] - 1") is what the op's
    # own budget function computes; only plain numbers override it.
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ft["metric"], float(value)
    return None


def budget_for(case: Case, output: str) -> tuple[str, float, str]:
    """(metric, budget, where it comes from) for one output of a case.

    A multi-operator graph adds up the budgets of the nodes the output depends
    on that use the producing node's metric (WPT sums ULP budgets)."""
    data_type = case.graph.descs[output].data_type
    if case.tolerance:
        return case.tolerance.metric, float(case.tolerance.value), "case"
    if not is_float(data_type):
        return "exact", 0.0, "integer output"
    from_file = _file_tolerance(case, data_type)
    if from_file and len(case.graph.nodes) == 1:
        return (*from_file, "file")
    nodes = ancestors(case.graph, output)
    if not nodes:  # an input passed straight through
        return "ULP", 0.0, "graph input"
    budgets = [node_budget(node, case.graph) for node in nodes]
    metric = budgets[0].metric
    return metric, float(sum(b.value for b in budgets if b.metric == metric)), "ops"


def judge(
    case: Case,
    actual: Mapping[str, np.ndarray],
    expected: Mapping[str, np.ndarray],
    undefined: Mapping[str, np.ndarray | None],
) -> tuple[str, Comparison | None, str | None]:
    """(status, the worst output's comparison, that output's name)."""
    worst: tuple[Comparison, str] | None = None
    for name in case.graph.outputs:
        if name not in actual:
            return "fail", None, name
        metric, budget, _ = budget_for(case, name)
        result = compare(expected[name], actual[name], case.graph.descs[name].data_type, metric, budget, undefined.get(name))
        if worst is None or (not result.passed and worst[0].passed) or (result.passed == worst[0].passed and result.excess > worst[0].excess):
            worst = (result, name)
    if worst is None:
        return "pass", None, None
    return ("pass" if worst[0].passed else "fail"), worst[0], worst[1]
