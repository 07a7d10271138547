"""WPT's subgraph files pass several arguments in one object (issue 25,
item 2): ``{"scale": "s", "zeroPoint": "z"}``, each key in order the next
positional argument (WPT webnn/resources/utils.js, buildAndExecuteGraph). The
schema, the builder and the probe accept it as WPT does, and the one-key
form stays."""
from __future__ import annotations

import json

import numpy as np
import pytest

from webnn_harness.backends.reference.evaluate import evaluate
from webnn_harness.loading.cases import load_cases
from webnn_harness.spec.builder import argument_values


def t(data, shape, data_type, constant=True):
    return {"data": data, "descriptor": {"shape": shape, "dataType": data_type}, "constant": constant}


def qdq_add(joined: bool):
    """quantizeLinear -> dequantizeLinear on each side of an add, then again: WPT's
    'quantized element-wise binary add' shape, with our own values."""
    def sz(scale, zero_point):
        return [{"scale": scale, "zeroPoint": zero_point}] if joined else [{"scale": scale}, {"zeroPoint": zero_point}]
    return {"name": f"qdq add {'joined' if joined else 'one key'}", "graph": {
        "inputs": {"a": t([0.5, -0.25, 0.125, 1.0], [2, 2], "float32", constant=False),
                   "b": t([3, -7, 12, 100], [2, 2], "int8"),
                   "s": t([0.0625], [1, 1], "float32"), "z": t([2], [1, 1], "int8")},
        "operators": [
            {"name": "quantizeLinear", "arguments": [{"input": "a"}, *sz("s", "z")], "outputs": "qa"},
            {"name": "dequantizeLinear", "arguments": [{"input": "qa"}, *sz("s", "z")], "outputs": "da"},
            {"name": "dequantizeLinear", "arguments": [{"input": "b"}, *sz("s", "z")], "outputs": "db"},
            {"name": "add", "arguments": [{"inputA": "da"}, {"inputB": "db"}], "outputs": "sum"},
            {"name": "quantizeLinear", "arguments": [{"input": "sum"}, *sz("s", "z")], "outputs": "qs"},
            {"name": "dequantizeLinear", "arguments": [{"input": "qs"}, *sz("s", "z")], "outputs": "y"}],
        # (q(a) - 2) * 1/16 + (b - 2) / 16, requantized: [0.5 + 0.0625, -0.25 - 0.5625, 0.125 + 0.625, 1 + 6.125]
        "expectedOutputs": {"y": t([0.5625, -0.8125, 0.75, 7.125], [2, 2], "float32", constant=False)}}}


def load(tmp_path, cases, name="c.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"tests": cases}))
    return load_cases([path])


def test_wpt_joined_arguments_load_and_match_the_one_key_form(tmp_path):
    joined, one_key = load(tmp_path, [qdq_add(True), qdq_add(False)])
    for case in (joined, one_key):
        assert not hasattr(case, "field"), str(case)
    assert [(n.op, dict(n.operands)) for n in joined.graph.nodes] == [(n.op, dict(n.operands)) for n in one_key.graph.nodes]
    got = evaluate(joined.graph, joined.inputs)["y"].values
    np.testing.assert_array_equal(got, np.asarray(joined.expected["y"]))


def test_argument_values_takes_every_key_in_order():
    assert argument_values([{"input": "x"}, {"scale": "s", "zeroPoint": "z"}, {"options": {"label": "q"}}]) == (
        ["x", "s", "z"], {"label": "q"})


@pytest.mark.parametrize("arguments, problem", [
    ([{"input": "a"}, {"scale": "s", "zeroPoint": "z", "extra": "s"}], "takes 3 arguments besides options, got 4"),
    ([{"input": "a"}, {"scale": "s"}], "missing argument(s) zeroPoint"),
])
def test_too_many_or_too_few_joined_arguments_fail_alone_with_one_line(tmp_path, arguments, problem):
    bad = qdq_add(True)
    bad["name"] = "bad"
    bad["graph"]["operators"][0]["arguments"] = arguments
    bad_case, good = load(tmp_path, [bad, qdq_add(True)])
    assert problem in str(bad_case) and "operators[0]" in str(bad_case)
    assert not hasattr(good, "field")


def test_probe_writes_quantize_arguments_as_wpt_does_and_builds_the_same_graph():
    import webnn_harness.probe.plan as plan
    from webnn_harness.probe.synth import _operators_json, to_case

    for op in ("quantizeLinear", "dequantizeLinear"):
        combos, _ = plan.combos_for(op, 4, sweeps=("types",))
        baseline = next(c for c in combos if c.in_spec)
        (call,) = _operators_json(baseline, 1)
        assert {"scale": "scale", "zeroPoint": "zeroPoint"} in call["arguments"], call
        graph = to_case(baseline, 0).graph
        assert set(graph.nodes[0].operands) == {"input", "scale", "zeroPoint"}


def test_findings_page_shows_each_joined_argument():
    from webnn_harness.reports.findings import summarise_case

    calls, _ = summarise_case(qdq_add(True))
    assert calls[0] == "quantizeLinear(a, s, z) -> qa"
