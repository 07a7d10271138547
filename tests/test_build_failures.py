"""A refusal is not a failure (issue 25, item 3): a backend that lacks an
op, a data type or an option makes a case ``unsupported``; a spec-valid graph
it has everything for but fails to build (ORT's optimizer breaking a
quantized nhwc conv2d it computes right at a lower optimization level) is
``error``, counted against the exit code when required, with the backend's
message and the level at which it builds."""
from __future__ import annotations

import json

import pytest

from webnn_harness.backends.base import BuildFailure, Unsupported
from webnn_harness.cli import main
from webnn_harness.loading.cases import load_cases


def scalar(value, data_type, rank=4):
    return {"data": [value], "descriptor": {"shape": [1] * rank, "dataType": data_type}, "constant": True}


def quantized_nhwc_conv2d():
    """dequantizeLinear -> conv2d (nhwc, ohwi) -> quantizeLinear -> dequantizeLinear, every
    operand in the spec's required data types and ranks (our own values, WPT's shape)."""
    def qdq(name, scale, zero_point, output):
        return [{"name": "quantizeLinear", "arguments": [{"input": name}, {"scale": scale}, {"zeroPoint": zero_point}],
                 "outputs": f"q_{output}"},
                {"name": "dequantizeLinear", "arguments": [{"input": f"q_{output}"}, {"scale": scale}, {"zeroPoint": zero_point}],
                 "outputs": output}]
    return {"name": "quantized nhwc conv2d", "graph": {
        "inputs": {
            "x": {"data": [0.25, 0.5, 0.75, 0.125, 0.375, 0.625], "descriptor": {"shape": [1, 1, 2, 3], "dataType": "float32"}},
            "s": scale_of(0.00390625), "z": scale_of(-128, "int8"),
            "w": {"data": [2, -3, 4], "descriptor": {"shape": [1, 1, 1, 3], "dataType": "int8"}, "constant": True},
            "ws": scale_of(0.0234375), "wz": scale_of(0, "int8"),
            "os": scale_of(0.0078125), "oz": scale_of(0, "int8")},
        "operators": [
            *qdq("x", "s", "z", "dx"),
            {"name": "dequantizeLinear", "arguments": [{"input": "w"}, {"scale": "ws"}, {"zeroPoint": "wz"}], "outputs": "dw"},
            {"name": "conv2d", "arguments": [{"input": "dx"}, {"filter": "dw"},
                                             {"options": {"inputLayout": "nhwc", "filterLayout": "ohwi"}}], "outputs": "c"},
            *qdq("c", "os", "oz", "y")]}}


def scale_of(value, data_type="float32"):
    return scalar(value, data_type)


def write(tmp_path, cases):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"tests": cases}))
    return path


def test_the_case_is_required_and_valid(tmp_path):
    (case,) = load_cases([write(tmp_path, [quantized_nhwc_conv2d()])])
    assert not hasattr(case, "field"), str(case)
    assert case.required


def test_ort_optimizer_failure_is_an_error_naming_the_level_that_builds(tmp_path):
    pytest.importorskip("onnxruntime")
    out = tmp_path / "out"
    code = main(["run", "-q", "--workers", "1", "--overwrite", "--out", str(out), "--backend", "onnxruntime",
                 "--cases", str(write(tmp_path, [quantized_nhwc_conv2d()]))])
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert record["status"] == "error", record
    assert record["message"].startswith("build failed: onnxruntime fails to build at opt_level=all")
    assert "TypeInferenceError" in record["message"]  # ORT's own message
    assert record["buildSettings"]["builds_at_opt_level"] in ("basic", "extended", "layout")
    assert code == 1, "a required case's build failure counts against the exit code"


def test_ort_at_the_level_it_builds_computes_the_case_right(tmp_path):
    pytest.importorskip("onnxruntime")
    out = tmp_path / "out"
    code = main(["run", "-q", "--workers", "1", "--overwrite", "--out", str(out), "--backend", "onnxruntime",
                 "-o", "opt_level=basic", "--cases", str(write(tmp_path, [quantized_nhwc_conv2d()]))])
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert (record["status"], code) == ("pass", 0), record


def test_ort_refusal_stays_unsupported_when_no_level_builds_it():
    pytest.importorskip("onnxruntime")
    from webnn_harness import backends
    from webnn_harness.probe.synth import to_case
    import webnn_harness.probe.plan as plan

    backend = backends.create("onnxruntime", {})
    # ONNX's Conv has no integer form: a refusal at every level.
    combos, _ = plan.combos_for("conv2d", 4, sweeps=("types",))
    (combo,) = [c for c in combos if c.id == "conv2d/input.dataType=int32"]
    with pytest.raises(Unsupported):
        backend.build(to_case(combo, 0).graph)


def test_probe_counts_a_build_failure_as_an_error_not_a_rejection():
    from webnn_harness.execution.worker import build_record
    from webnn_harness.probe.driver import outcome_of
    from webnn_harness.probe.synth import to_case
    import webnn_harness.probe.plan as plan

    combos, _ = plan.combos_for("relu", 4, sweeps=("types",))
    case = to_case(combos[0], 0)
    failed = build_record(case, {"name": "x"}, BuildFailure("optimizer broke", {"builds_at_opt_level": "basic"}), 0.0)
    assert (failed.status, failed.build_settings) == ("error", {"builds_at_opt_level": "basic"})
    assert outcome_of(failed, {}) == "error"
    # beyond the spec (OpenVINO's ConvertNegative on uint32 neg) it is only a rejection
    assert outcome_of(failed, {}, in_spec=False) == "rejected"
    refused = build_record(case, {"name": "x"}, Unsupported("no kernel"), 0.0)
    assert outcome_of(refused, {}) == "rejected"


@pytest.mark.parametrize("message, refused", [
    ("Exception from src/plugins/intel_cpu/src/node.cpp:1: [ NOT_IMPLEMENTED ] Unsupported operation of type: Foo", True),
    ("Exception from src/plugins/intel_cpu/src/nodes/conv.cpp:9: Convolution node doesn't support precision i32", True),
    ("Exception from src/plugins/intel_cpu/src/graph.cpp:4: Check 'ports_match' failed: edge has mismatched precisions",
     False),
])
def test_openvino_compile_failure_is_a_refusal_only_where_the_plugin_lacks_an_implementation(message, refused):
    pytest.importorskip("openvino")
    from webnn_harness.backends.openvino.refusals import compile_failure

    outcome = compile_failure(RuntimeError(message))
    assert isinstance(outcome, Unsupported if refused else BuildFailure)
    assert str(outcome).startswith("OpenVINO compile_model failed: ")
