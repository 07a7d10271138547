"""Judging one case's outputs: which tolerance applies, what is expected,
and the verdict."""
from __future__ import annotations

from dataclasses import replace
from typing import Mapping

import numpy as np

from webnn_harness.loading.cases import Case
from webnn_harness.verdict.comparison import INF, Comparison, compare, wrong_zero_sign
from webnn_harness.spec.dtypes import is_float
from webnn_harness.spec.graph import Graph
from webnn_harness.spec.opspec import ops_where
from webnn_harness.spec.values import encode_number
from webnn_harness.verdict.tolerance import carried_interval, node_budget
from webnn_harness.verdict import model_rule


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

    In a multi-operator graph this is the producing node's own budget; the
    errors its ancestors' budgets allow are carried to the output
    (``carried_nodes``, harness/verdict/tolerance.py "The chain rule")."""
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
    own = node_budget(nodes[0], case.graph)
    return own.metric, float(own.value), "op, carried" if carried_nodes(case, output) else "op"


def carried_nodes(case: Case, output: str) -> list:
    """The ancestors of ``output`` whose error is carried to it: every node
    it depends on but its producer, with a non-zero budget and a float
    output. None under a case tolerance."""
    if case.tolerance:
        return []
    return [n for n in ancestors(case.graph, output)[1:]
            if node_budget(n, case.graph).value and any(is_float(case.graph.descs[o].data_type) for o in n.outputs)]


def _judged_against(case: Case, name: str, expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """What ``actual`` is compared with: the expected values, or with a
    carried error the nearest point of the carried interval."""
    carried = carried_nodes(case, name)
    interval = carried_interval(case.graph, case.inputs, name, carried) if carried else None
    if interval is None or np.shape(actual) != np.shape(expected) or np.asarray(actual).dtype != np.asarray(expected).dtype:
        return expected
    return interval.nearest(expected, actual)


# Ops whose result is one of their input values, converted at most: a zero
# keeps its sign (WPT's zero-ULP list for data movement, and cast).
SIGN_KEEPING_OPS = frozenset(ops_where(lambda spec: spec.keeps_zero_sign))


def _trusted_zero_sign(case: Case, name: str, expected: np.ndarray, suspects: np.ndarray) -> np.ndarray:
    """Of the zeros of the wrong sign, those whose expected sign can be
    trusted: a -0 always; a +0 only where the reference computes +0 too (a
    case file converted from WPT's JavaScript lost its -0s: ../shared/wpt's
    README, "Negative zero became 0")."""
    from webnn_harness.spec import evaluation_memo as memo

    positive = suspects & ~np.signbit(expected)
    if not positive.any():
        return suspects
    try:
        reference = np.asarray(memo.current().evaluate(case.graph, case.inputs)[name].values)
    except Exception:  # noqa: BLE001 - without the reference only the -0s are trusted
        return suspects & np.signbit(expected)
    return suspects & (np.signbit(expected) | ~np.signbit(reference))


def _zero_sign_checked(case: Case, name: str, expected: np.ndarray, actual: np.ndarray, result: Comparison) -> Comparison:
    """``result``, failed at the first zero of the wrong sign where the output's producer keeps signs."""
    producer = next((n for n in case.graph.nodes if name in n.outputs), None)
    if producer is None or producer.op not in SIGN_KEEPING_OPS or case.tolerance:
        return result
    wrong = wrong_zero_sign(expected, actual)
    if not wrong.any():
        return result
    wrong = _trusted_zero_sign(case, name, np.asarray(expected), wrong)
    if not wrong.any():
        return result
    index = tuple(int(i) for i in np.argwhere(wrong)[0])
    return replace(result, passed=False, max_error=INF, worst_index=index,
                   expected_value=encode_number(np.asarray(expected)[index]),
                   actual_value=encode_number(np.asarray(actual)[index]),
                   message=f"a zero of the wrong sign ({producer.op} hands on the sign of a zero)")


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
        if model_rule.judged_by_model_rule(case, name):  # a deep graph (an imported model): verdict/model_rule.py
            result = model_rule.compare_model(expected[name], actual[name], case.graph.descs[name].data_type,
                                              undefined.get(name))
        else:
            metric, budget, _ = budget_for(case, name)
            against = _judged_against(case, name, expected[name], actual[name])
            result = compare(against, actual[name], case.graph.descs[name].data_type, metric, budget, undefined.get(name))
            if against is not expected[name]:
                result = replace(result, carried=True)
                if result.worst_index is not None:  # report the expected value itself
                    result = replace(result, expected_value=encode_number(np.asarray(expected[name])[result.worst_index]))
        result = _zero_sign_checked(case, name, expected[name], actual[name], result)
        if worst is None or (not result.passed and worst[0].passed) or (result.passed == worst[0].passed and result.excess > worst[0].excess):
            worst = (result, name)
    if worst is None:
        return "pass", None, None
    return ("pass" if worst[0].passed else "fail"), worst[0], worst[1]
