"""Tolerance budgets: per op, shape-dependent, summed over a graph, overridden per case."""
import json

from webnn_harness.loading.cases import load_cases
from webnn_harness.verdict.judge import budget_for, carried_nodes


def graph_case(tmp_path, operators, inputs, extra=None, file_extra=None):
    case = {"name": "c", "graph": {"inputs": inputs, "operators": operators}, **(extra or {})}
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"tests": [case], **(file_extra or {})}))
    (c,) = load_cases([p])
    assert not hasattr(c, "field"), str(c)
    return c


def tensor(shape, dtype="float32"):
    return {"data": {"generate": {"distribution": "uniform", "seed": 1}}, "descriptor": {"shape": shape, "dataType": dtype}}


def test_fixed_and_float16_specific_budgets(tmp_path):
    c = graph_case(tmp_path, [{"name": "sigmoid", "arguments": [{"input": "x"}], "outputs": "y"}], {"x": tensor([3])})
    assert budget_for(c, "y")[:2] == ("ULP", 34)
    c = graph_case(tmp_path, [{"name": "sigmoid", "arguments": [{"input": "x"}], "outputs": "y"}], {"x": tensor([3], "float16")})
    assert budget_for(c, "y")[:2] == ("ULP", 10)


def test_shape_dependent_budgets(tmp_path):
    # matmul: K * 2 with K = 5
    c = graph_case(tmp_path, [{"name": "matmul", "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "y"}],
                   {"a": tensor([2, 5]), "b": tensor([5, 3])})
    assert budget_for(c, "y")[:2] == ("ULP", 10)
    # conv2d: kernelH * kernelW * inputChannels/groups * 2 = 3*3*4*2
    c = graph_case(tmp_path, [{"name": "conv2d", "arguments": [{"input": "x"}, {"filter": "w"}], "outputs": "y"}],
                   {"x": tensor([1, 4, 5, 5]), "w": tensor([2, 4, 3, 3])})
    assert budget_for(c, "y")[:2] == ("ULP", 72)
    # reduceSum over 6 elements: R
    c = graph_case(tmp_path, [{"name": "reduceSum", "arguments": [{"input": "x"}], "outputs": "y"}], {"x": tensor([2, 3])})
    assert budget_for(c, "y")[:2] == ("ULP", 6)


def test_graph_budgets_are_the_producers_and_the_path_is_carried(tmp_path):
    """harness/verdict/tolerance.py, "The chain rule": the output's producer keeps its
    own budget; the ancestors with a budget on its path are carried."""
    ops = [
        {"name": "matmul", "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "m"},  # K=4 -> 8
        {"name": "add", "arguments": [{"a": "m"}, {"b": "m"}], "outputs": "s"},  # 1
        {"name": "relu", "arguments": [{"input": "s"}], "outputs": "y"},  # 0
        {"name": "sigmoid", "arguments": [{"input": "a"}], "outputs": "z"},  # 34, not on y's path
    ]
    c = graph_case(tmp_path, ops, {"a": tensor([2, 4]), "b": tensor([4, 2])})
    assert budget_for(c, "y") == ("ULP", 0, "op, carried")
    assert [n.op for n in carried_nodes(c, "y")] == ["add", "matmul"]
    assert budget_for(c, "z") == ("ULP", 34, "op") and carried_nodes(c, "z") == []


def test_integer_outputs_are_exact_whatever_the_op_budget(tmp_path):
    c = graph_case(tmp_path, [{"name": "add", "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "y"}],
                   {"a": {"data": [1, 2], "descriptor": {"shape": [2], "dataType": "int32"}},
                    "b": {"data": [1, 2], "descriptor": {"shape": [2], "dataType": "int32"}}})
    assert budget_for(c, "y")[:2] == ("exact", 0)


def test_case_override_and_file_tolerance(tmp_path):
    op = [{"name": "cos", "arguments": [{"input": "x"}], "outputs": "y"}]
    c = graph_case(tmp_path, op, {"x": tensor([3])}, extra={"tolerance": {"metric": "ULP", "value": 7, "reason": "test"}})
    assert budget_for(c, "y") == ("ULP", 7, "case")
    c = graph_case(tmp_path, op, {"x": tensor([3], "float16")},
                   file_extra={"fileTolerance": {"metric": "ATOL", "byDataType": {"float32": 0.5, "float16": 0.25}}})
    assert budget_for(c, "y") == ("ATOL", 0.25, "file")
