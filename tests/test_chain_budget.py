"""The chain budget (harness/verdict/tolerance.py, "The chain rule"): an ancestor's
error in another metric or data type is carried to the output, so the two
false findings of the round-2 fuzz runs pass, and an error past the carried
budget still fails."""
import json

import numpy as np

from webnn_harness.backends.reference.evaluate import evaluate
from webnn_harness.loading.cases import load_cases
from webnn_harness.verdict.judge import budget_for, carried_nodes, judge
from webnn_harness.verdict.tolerance import narrowed_type, step_ulps

TINY = 1.401298464324817e-45  # the smallest float32 subnormal


def one_case(tmp_path, inputs, operators, name="c"):
    graph = {"inputs": {k: {"data": v, "descriptor": {"shape": list(np.shape(v)), "dataType": t}} for k, (v, t) in inputs.items()},
             "operators": operators}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"tests": [{"name": name, "graph": graph}]}))
    (case,) = load_cases([path])
    assert not hasattr(case, "field"), str(case)
    return case


def verdict(case, actual):
    """judge() as the worker calls it: expected values from the reference."""
    ref = evaluate(case.graph, case.inputs)
    expected = {n: ref[n].values for n in case.graph.outputs}
    (name,) = case.graph.outputs
    status, cmp, _ = judge(case, {name: np.asarray(actual, dtype=expected[name].dtype)}, expected, {})
    return status, cmp, expected[name]


def erf_min(tmp_path, x):
    return one_case(tmp_path, {"x": (x, "float32"), "b": ([[float("inf")] * 3] * 2, "float32")}, [
        {"name": "erf", "arguments": [{"input": "x"}], "outputs": "e"},
        {"name": "min", "arguments": [{"a": "e"}, {"b": "b"}], "outputs": "y"}])


def test_erf_then_min_carries_erfs_absolute_budget(tmp_path):
    # OpenVINO 2026.4 finding e97996ce6d: erf(1.4e-45) is 1.58e-45 (rounds to
    # the subnormal 1.4e-45) and OpenVINO gives 0. erf's budget is 1/1024
    # absolute; min is exact, so the old rule judged it with 0 ULP and failed.
    case = erf_min(tmp_path, [[TINY] * 3] * 2)
    assert budget_for(case, "y")[:2] == ("ULP", 0.0)
    assert [n.op for n in carried_nodes(case, "y")] == ["erf"]
    status, cmp, expected = verdict(case, np.zeros((2, 3)))
    assert expected[0, 0] == np.float32(TINY)
    assert status == "pass", cmp


def test_erf_then_min_past_erfs_budget_fails(tmp_path):
    case = erf_min(tmp_path, [[0.5, -0.25, 2.0]] * 2)
    _, _, expected = verdict(case, np.zeros((2, 3)))
    inside = expected.astype(np.float64) + [[1 / 1024 * 0.99, -1 / 1024 * 0.99, 1 / 1024 * 0.99]] * 2
    assert verdict(case, inside)[0] == "pass"
    outside = expected.copy()
    outside[1, 2] = np.float32(expected[1, 2] - 1.5 / 1024)  # erf(2) off by 1.5/1024
    status, cmp, _ = verdict(case, outside)
    assert status == "fail"
    assert cmp.worst_index == (1, 2) and cmp.expected_value == float(expected[1, 2])
    # the error is measured from the carried interval, and the record and its one-line detail say so
    from webnn_harness.verdict.comparison import compare

    from_expected = compare(expected, outside, "float32", cmp.metric, cmp.budget).max_error
    assert cmp.carried and 0 < cmp.max_error < from_expected
    from webnn_harness.verdict.record import base_record

    record = base_record(case, {"name": "t"}, status, metric=cmp.metric, budget=cmp.budget, max_error=cmp.max_error,
                         carried=cmp.carried)
    assert record.to_json()["carried"] is True and "beyond the carried interval" in record.detail
    assert record.from_json(record.to_json()).carried is True


def lse_cast(tmp_path, x):
    return one_case(tmp_path, {"x": (x, "float16")}, [
        {"name": "reduceLogSumExp", "arguments": [{"input": "x"}], "outputs": "r"},
        {"name": "cast", "arguments": [{"input": "r"}, {"type": "float32"}], "outputs": "y"}])


def test_float16_error_is_counted_in_float16_ulps_through_a_cast(tmp_path):
    # reduceLogSumExp of float16 [0, 0] is ln 2 = 0.693359375 in float16; a
    # float16 neighbour within its 22 float16 ULPs passes through the cast
    # (an older rule added those 22 as float32 ULPs to the cast's 1).
    case = lse_cast(tmp_path, [0.0, 0.0])
    assert budget_for(case, "y")[:2] == ("ULP", 1.0)
    neighbour = step_ulps(np.array(np.float16(0.693359375)), -1).astype(np.float32)
    status, cmp, expected = verdict(case, neighbour)
    assert expected == np.float32(0.693359375)
    assert status == "pass", cmp


def test_a_widened_float16_result_holds_float16_values_only(tmp_path):
    # ONNX Runtime 1.32 finding 8694bf0c0a (CPU, all optimizations): it gives
    # the float32 0.6931472 for this graph, not a float16 value: the float16
    # rounding of reduceLogSumExp's output skipped. 3560 float32 ULPs from
    # the expected value, past WPT's 22 (WPT fails it); within 1 float16 ULP
    # (the chain rule passed it before the widened result was held to float16).
    case = lse_cast(tmp_path, [0.0, 0.0])
    assert narrowed_type(case.graph, "y") == "float16"
    status, cmp, _ = verdict(case, np.float32(0.6931471824645996))
    assert status == "fail" and cmp.max_error == 3560.0


def test_float16_error_past_its_ulps_fails_through_a_cast(tmp_path):
    case = lse_cast(tmp_path, [0.0, 0.0])
    expected16 = np.float16(0.693359375)
    at_budget = step_ulps(np.array(expected16), 22).astype(np.float32)  # 2*2 + 18 ULP for 2 elements
    assert verdict(case, at_budget)[0] == "pass"
    # the cast's own float32 ULP on top of the carried 22 float16 ULPs passes; one more fails
    assert verdict(case, step_ulps(at_budget, 1))[0] == "pass"
    status, cmp, _ = verdict(case, step_ulps(at_budget, 2))
    assert status == "fail" and cmp.max_error == 2.0  # float32 ULPs from the carried interval
    assert verdict(case, step_ulps(np.array(expected16), -23).astype(np.float32))[0] == "fail"


def test_linear_downstream_op_carries_the_sum_of_weighted_errors(tmp_path):
    # erf (absolute budget) into a matmul with weights of both
    # signs: the worst admissible output moves each erf element toward
    # its weight's sign. Moving every element the same way would find only
    # |sum w| * atol; the rule finds sum |w| * atol.
    w = [[3.0], [-2.0], [1.5], [-4.0]]
    case = one_case(tmp_path, {"x": ([[0.1, 0.7, -0.4, 0.2]], "float32"), "w": (w, "float32")}, [
        {"name": "erf", "arguments": [{"input": "x"}], "outputs": "n"},
        {"name": "matmul", "arguments": [{"a": "n"}, {"b": "w"}], "outputs": "y"}])
    assert [n.op for n in carried_nodes(case, "y")] == ["erf"]
    n = evaluate(case.graph, case.inputs)["y"].values.astype(np.float64)
    atol = 1 / 1024
    worst = n + 0.97 * atol * np.abs(np.asarray(w)).sum()
    assert abs(np.asarray(w).sum()) * atol < 0.5 * (worst - n).item()
    assert verdict(case, worst)[0] == "pass"
    assert verdict(case, n + 1.1 * atol * np.abs(np.asarray(w)).sum() + 1e-3)[0] == "fail"


def test_single_ops_and_exact_ancestors_carry_nothing(tmp_path):
    single = one_case(tmp_path, {"x": ([0.5, 1.0], "float32")}, [{"name": "erf", "arguments": [{"input": "x"}], "outputs": "y"}])
    assert carried_nodes(single, "y") == [] and budget_for(single, "y") == ("ATOL", 1 / 1024, "op")
    exact = one_case(tmp_path, {"x": ([[0.5, -1.0]], "float32")}, [
        {"name": "relu", "arguments": [{"input": "x"}], "outputs": "r"},
        {"name": "transpose", "arguments": [{"input": "r"}], "outputs": "t"},
        {"name": "sigmoid", "arguments": [{"input": "t"}], "outputs": "y"}])
    assert carried_nodes(exact, "y") == [] and budget_for(exact, "y") == ("ULP", 34.0, "op")
    assert not verdict(single, [0.5, 1.0])[1].carried and not verdict(exact, [[0.6, 0.3]])[1].carried


def mul_sub(tmp_path):
    """mul rounds 1.1 * 1.1; sub takes away exactly that rounded product."""
    product = float(np.float32(np.float32(1.1) * np.float32(1.1)))
    return one_case(tmp_path, {"a": ([1.1], "float32"), "c": ([product], "float32")}, [
        {"name": "mul", "arguments": [{"a": "a"}, {"b": "a"}], "outputs": "m"},
        {"name": "sub", "arguments": [{"a": "m"}, {"b": "c"}], "outputs": "y"}]), np.float32(product)


def test_cancellation_carries_an_ulp_of_the_intermediate_not_of_the_output(tmp_path):
    # The exact output is 0; mul's one ULP of 1.21 is 1.2e-7 after the sub,
    # millions of ULPs of a result near 0. WPT's sum (1 + 1 ULP of the
    # output) rejects what a 1-ULP mul and an exact sub give.
    case, product = mul_sub(tmp_path)
    assert [n.op for n in carried_nodes(case, "y")] == ["mul"] and budget_for(case, "y")[:2] == ("ULP", 1.0)
    one_ulp = float(np.spacing(product))
    assert verdict(case, [one_ulp])[0] == "pass"
    assert verdict(case, [-one_ulp])[0] == "pass"
    status, cmp, expected = verdict(case, [2 * one_ulp])
    assert expected[0] == 0 and status == "fail" and cmp.max_error > 1e6


def test_step_ulps_walks_bit_patterns_in_the_values_type():
    h = np.array([0.0, -0.0, 1.0, 65504.0, np.inf, -np.inf, np.nan], np.float16)
    up = step_ulps(h, 1)
    assert up.dtype == np.float16
    assert up[0] == up[1] == np.float16(2.0 ** -24)
    assert up[2] == np.float16(1.0009765625) and up[3] == np.inf and up[4] == np.inf
    assert up[5] == np.float16(-65504.0) and np.isnan(up[6])
    assert step_ulps(np.array([1.0], np.float32), -2)[0] == np.nextafter(np.nextafter(np.float32(1), np.float32(0)), np.float32(0))


def l2pool_argmax(tmp_path, value):
    """Channel 1 holds ``value`` in every window, channel 0 zeros: argMax over channels is 1."""
    x = np.zeros((1, 2, 3, 3))
    x[0, 1] = value
    return one_case(tmp_path, {"x": (x.tolist(), "float32")}, [
        {"name": "l2Pool2d", "arguments": [{"input": "x"}, {"options": {"windowDimensions": [3, 3]}}], "outputs": "p"},
        {"name": "argMax", "arguments": [{"input": "p"}, {"axis": 1}], "outputs": "y"}])


def test_integer_output_is_exact_within_the_carried_interval(tmp_path):
    # ONNX Runtime 1.32 fuzz finding 3d93f5286c: l2Pool2d of the subnormal
    # 1.4e-45 gives 0 (its squares underflow in float32), one ULP and inside
    # l2Pool2d's budget; argMax of the then tied channels is 0, not 1.
    case = l2pool_argmax(tmp_path, TINY)
    assert budget_for(case, "y")[:2] == ("exact", 0.0) and [n.op for n in carried_nodes(case, "y")] == ["l2Pool2d"]
    status, cmp, expected = verdict(case, [[[0]]])
    assert expected.reshape(-1).tolist() == [1] and status == "pass", cmp
    # Channel 1 at 1.0 is far beyond any budget: argMax 0 is wrong.
    status, cmp, _ = verdict(l2pool_argmax(tmp_path, 1.0), [[[0]]])
    assert status == "fail" and cmp.max_error == 1.0


# An integer output's carried set (issue 25, item 1): the values the graph
# reaches when each carried ancestor moves within its budget, never the
# expected value widened by moves added up. Each chain below has two or more
# carried ancestors (or a non-elementwise op whose single-element moves add),
# so the old added-up interval admitted values no implementation can give.

def dq(name):
    """dequantizeLinear of uint8 input ``name`` (scale 0.1, zero point 0): 1 ULP of float32 budget."""
    return {"name": "dequantizeLinear", "arguments": [{"input": name}, {"scale": "s"}, {"zeroPoint": "z"}],
            "outputs": f"dq_{name}"}


def dq_inputs(**uint8):
    return {**{k: (v, "uint8") for k, v in uint8.items()}, "s": ([[0.1] * 2] * 2, "float32"), "z": ([[0] * 2] * 2, "uint8")}


COMPARISONS = ("equal", "notEqual", "greater", "greaterOrEqual", "lesser", "lesserOrEqual")


def comparison_chain(tmp_path, op):
    """cast(op(dequantizeLinear(a), dequantizeLinear(b)), int32) with a == b
    in row 0 and a > b in row 1: each dequantizeLinear may move 1 ULP."""
    return one_case(tmp_path, dq_inputs(a=[[3, 7], [9, 9]], b=[[3, 7], [1, 2]]), [
        dq("a"), dq("b"),
        {"name": op, "arguments": [{"a": "dq_a"}, {"b": "dq_b"}], "outputs": "c"},
        {"name": "cast", "arguments": [{"input": "c"}, {"type": "int32"}], "outputs": "y"}], name=op)


def logical_chain(tmp_path, op):
    """op over equal(...) (and greaterOrEqual(...)) of dequantized operands, cast to int32."""
    first = {"name": "equal", "arguments": [{"a": "dq_a"}, {"b": "dq_b"}], "outputs": "e"}
    second = {"name": "greaterOrEqual", "arguments": [{"a": "dq_b"}, {"b": "dq_a"}], "outputs": "g"}
    if op in ("logicalNot", "isNaN", "isInfinite"):
        operand = "e" if op == "logicalNot" else "dq_a"
        nodes = [first, {"name": op, "arguments": [{"input": operand}], "outputs": "c"}]
    else:
        nodes = [first, second, {"name": op, "arguments": [{"a": "e"}, {"b": "g"}], "outputs": "c"}]
    dequantized = [dq("a"), dq("b")]
    if op in ("isNaN", "isInfinite"):
        nodes, dequantized = nodes[1:], dequantized[:1]
    return one_case(tmp_path, dq_inputs(a=[[3, 7], [9, 9]], b=[[3, 7], [1, 2]]), [
        *dequantized, *nodes,
        {"name": "cast", "arguments": [{"input": "c"}, {"type": "int32"}], "outputs": "y"}], name=op)


def assert_only_reached_values_pass(case, impossible):
    status, cmp, expected = verdict(case, 0)  # the expected values, computed once
    assert verdict(case, expected)[0] == "pass"
    for value in impossible:
        planted = expected.copy()
        planted[0, 0] = value
        status, cmp, _ = verdict(case, planted)
        assert status == "fail", (case.id, value, cmp)


def test_comparisons_reach_only_0_or_1(tmp_path):
    for op in COMPARISONS:
        case = comparison_chain(tmp_path, op)
        assert {n.op for n in carried_nodes(case, "y")} == {"dequantizeLinear"}
        assert_only_reached_values_pass(case, (-1, 2, 3))


def test_logical_ops_reach_only_0_or_1(tmp_path):
    from webnn_harness.spec.opspec.elementwise import LOGICAL

    for op in set(LOGICAL) - set(COMPARISONS):
        assert_only_reached_values_pass(logical_chain(tmp_path, op), (-1, 2, 3))


def test_a_tie_of_twins_does_not_break(tmp_path):
    # Both sides are dequantizeLinear of the same uint8 value, scale and zero
    # point (twins): one function, so 1 ULP off together; equal stays 1.
    case = comparison_chain(tmp_path, "equal")
    _, _, expected = verdict(case, 0)
    assert expected.tolist() == [[1, 1], [0, 0]]
    assert verdict(case, [[0, 1], [0, 0]])[0] == "fail"
    assert verdict(case, [[1, 1], [1, 0]])[0] == "fail"  # 0.9 against 0.1 is far from any budget


def test_a_tie_of_two_different_ops_the_budgets_allow_to_break_still_passes(tmp_path):
    # 0.7 dequantized against 0.7 times 1 (a mul, no twin of a dequantizeLinear):
    # each may round its own way by its 1 ULP, so equal may be 0 where it is 1.
    case = one_case(tmp_path, {**dq_inputs(a=[[3, 7], [9, 9]]), "f": ([[0.3, 0.7], [0.1, 0.2]], "float32"),
                               "one": ([[1.0] * 2] * 2, "float32")}, [
        dq("a"), {"name": "mul", "arguments": [{"a": "f"}, {"b": "one"}], "outputs": "m"},
        {"name": "equal", "arguments": [{"a": "dq_a"}, {"b": "m"}], "outputs": "c"},
        {"name": "cast", "arguments": [{"input": "c"}, {"type": "int32"}], "outputs": "y"}])
    _, _, expected = verdict(case, 0)
    assert expected[0].tolist() == [1, 1]
    assert verdict(case, [[0, 1], [0, 0]])[0] == "pass"
    assert verdict(case, [[1, 1], [1, 0]])[0] == "fail"


def argmax_chain(tmp_path):
    """argMax over 3 tied sums of two dequantized operands: any index is
    reached when one element moves up; 3 and beyond are not indices."""
    return one_case(tmp_path, {"a": ([[5, 5, 5]], "uint8"), "b": ([[2, 2, 2]], "uint8"),
                               "s": ([[0.1] * 3], "float32"), "z": ([[0] * 3], "uint8")}, [
        dq("a"), dq("b"),
        {"name": "add", "arguments": [{"a": "dq_a"}, {"b": "dq_b"}], "outputs": "t"},
        {"name": "argMax", "arguments": [{"input": "t"}, {"axis": 1}], "outputs": "y"}])


def test_arg_ops_reach_only_indices(tmp_path):
    case = argmax_chain(tmp_path)
    _, _, expected = verdict(case, 0)
    assert expected.tolist() == [0]
    for index in (0, 1, 2):
        assert verdict(case, [index])[0] == "pass", index
    for value in (-1, 3, 4):
        assert verdict(case, [value])[0] == "fail", value


def test_a_cast_reaches_the_cast_of_its_carried_interval(tmp_path):
    # cast(reduceSum(sqrt(x)), int32) with x = 9: sqrt is exact (3) and may be
    # 1 ULP low; the sum 12 may then be a little below 12, which truncates
    # to 11. Each element's move alone gives 11, so adding them up reached 8.
    case = one_case(tmp_path, {"x": ([[9.0] * 4], "float32")}, [
        {"name": "sqrt", "arguments": [{"input": "x"}], "outputs": "r"},
        {"name": "reduceSum", "arguments": [{"input": "r"}, {"options": {"axes": [1]}}], "outputs": "t"},
        {"name": "cast", "arguments": [{"input": "t"}, {"type": "int32"}], "outputs": "y"}])
    _, _, expected = verdict(case, 0)
    assert expected.tolist() == [12]
    assert verdict(case, [11])[0] == "pass"
    for value in (8, 9, 10, 13, -1):
        assert verdict(case, [value])[0] == "fail", value
