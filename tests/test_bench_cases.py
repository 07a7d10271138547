"""bench --cases DIR (harness/bench/case_benchmarks.py): each case of a case folder timed as one graph, named by its
stable case id, verified with the case's own tolerance before it is timed."""
from __future__ import annotations

import json

import numpy as np
import pytest

from webnn_harness.bench.case_benchmarks import KIND, WHOLE_GRAPH, case_suite
from webnn_harness.bench.driver import BenchOptions, run_bench
from webnn_harness.bench.measure import TimingPolicy
from webnn_harness.bench.worker import BenchWorker, Task
from webnn_harness.cli import main

QUICK = TimingPolicy(min_time=0.01, min_samples=3, warmup_time=0.0, max_time=1.0)
TINY_PEAKS = {"copy_bytes": 1 << 16, "matmul_size": 32, "repeats": 1, "noise_size": 32, "noise_seconds": 0.01}


def tensor(shape, values=None, constant=False):
    data = values if values is not None else {"generate": {"distribution": "uniform", "low": -1.0, "high": 1.0}}
    out = {"data": data, "descriptor": {"shape": list(shape), "dataType": "float32"}}
    return {**out, "constant": True} if constant else out


def add_relu_add(name, expected=None, tolerance=None):
    """x + c, relu, + c: three operators, two of them add."""
    graph = {"inputs": {"x": tensor([4], [-2.0, -0.5, 0.5, 2.0]), "c": tensor([4], [1.0, 1.0, 1.0, 1.0], constant=True)},
             "operators": [{"name": "add", "arguments": [{"a": "x"}, {"b": "c"}], "outputs": "y"},
                           {"name": "relu", "arguments": [{"input": "y"}], "outputs": "z"},
                           {"name": "add", "arguments": [{"a": "z"}, {"b": "c"}], "outputs": "out"}]}
    if expected is not None:
        graph["expectedOutputs"] = {"out": tensor([4], expected)}
    case = {"name": name, "graph": graph}
    return {**case, "tolerance": tolerance} if tolerance else case


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    exact = [1.0, 1.5, 2.5, 4.0]
    off = [1.0, 1.5, 2.5, 4.001]  # 4.001 is ~2100 ULP from 4.0: only a case tolerance lets it pass
    (folder / "graphs.json").write_text(json.dumps({"tests": [
        add_relu_add("exact", exact), add_relu_add("off but tolerated", off, {"metric": "ATOL", "value": 0.01}),
        add_relu_add("off", off)]}))
    (folder / "broken.json").write_text("{not json")
    return folder


def test_each_case_is_one_benchmark_named_by_its_case_id_with_its_operator_counts(corpus):
    suite = case_suite([corpus])
    assert [b.id for b in suite.benchmarks] == [
        "models/graphs.json::exact", "models/graphs.json::off but tolerated", "models/graphs.json::off"]
    bench = suite.benchmarks[0]
    assert bench.kind == KIND and bench.variants == (WHOLE_GRAPH,) and bench.suite == "models"
    assert bench.params["operators"] == {"add": 2, "relu": 1} and bench.params["nodes"] == 3
    assert str(corpus) not in json.dumps(dict(bench.params))  # params are published: no local path
    (error,) = suite.errors
    assert error.file == "models/broken.json" and "not valid JSON" in str(error)
    assert suite.name == "cases:models"


def test_the_worker_verifies_each_case_with_its_own_tolerance_then_times_it(corpus, tmp_path):
    from webnn_harness import backends

    backend = backends.create("reference", {})
    worker = BenchWorker(backend, backend.info().to_json())
    by_name = {b.title: b for b in case_suite([corpus]).benchmarks}
    record = lambda name: worker.run(Task(by_name[name], WHOLE_GRAPH, QUICK, str(tmp_path), False)).to_json()  # noqa: E731
    exact = record("exact")
    assert exact["status"] == "ok" and exact["latency"]["median"] > 0
    assert exact["buildSeconds"] is not None and exact["firstRunSeconds"] is not None
    assert exact["benchmark"] == "models/graphs.json::exact" and exact["kind"] == KIND
    assert record("off but tolerated")["status"] == "ok"  # the case's ATOL 0.01, read from its file
    off = record("off")
    assert off["status"] == "wrong" and off["latency"] is None and "over budget" in off["message"]


def test_run_bench_over_cases_writes_records_by_case_id(corpus, tmp_path):
    suite = case_suite([corpus / "graphs.json"])
    pytest.importorskip("onnxruntime")  # saves the timed model (the reference saves none)
    result = run_bench(suite, [("onnxruntime", {})], tmp_path / "out",
                       BenchOptions(policy=QUICK, peaks=TINY_PEAKS, name_filter="exact"))
    (record,) = result.records
    assert record["benchmark"] == "models/graphs.json::exact" and record["status"] == "ok"
    artifacts = list((tmp_path / "out" / "artifacts").iterdir())
    # named by the case's file and index: two names that differ only in symbols never share a file
    assert artifacts and all(p.name.startswith("models_graphs.json.0.graph") for p in artifacts)
    assert record["artifact"].startswith("artifacts/models_graphs.json.0.graph")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["suite"] == "cases:models" and summary["complete"] is True


def test_a_case_that_no_longer_loads_is_an_error_record_naming_it(corpus, tmp_path):
    from webnn_harness import backends

    backend = backends.create("reference", {})
    worker = BenchWorker(backend, backend.info().to_json())
    bench = case_suite([corpus]).benchmarks[0]
    (corpus / "graphs.json").write_text(json.dumps({"tests": [{"name": "exact", "graph": {"inputs": {}}}]}))
    record = worker.run(Task(bench, WHOLE_GRAPH, QUICK, str(tmp_path), False)).to_json()
    assert record["status"] == "error" and record["message"].startswith("models/graphs.json: \"exact\": ")


def test_cli_bench_cases_usage(tmp_path, corpus, capsys, monkeypatch):
    import webnn_harness.bench.driver as driver
    from webnn_harness.bench.machine import measure_peaks

    monkeypatch.setattr(driver, "measure_peaks", lambda **_: measure_peaks(**TINY_PEAKS))
    assert main(["bench", "-b", "reference", "--cases", str(corpus), "--suite", "seed"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["bench", "-b", "reference", "--cases", str(tmp_path / "nowhere")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["bench", "-b", "reference", "--cases", str(corpus), "--filter", "zzz", "--out", str(tmp_path / "a")]) == 2
    # a file that cannot be read is named and makes the exit 2 (as a suite's load error), the others are timed
    code = main(["bench", "-b", "reference", "--cases", str(corpus), "--filter", "exact",
                 "--out", str(tmp_path / "b"), "--min-time", "0.01", "--min-samples", "2"])
    captured = capsys.readouterr()
    assert code == 2 and "models/broken.json" in captured.err
    assert "1 ok" in captured.out


def image_case():
    """mul by a per-channel constant, conv2d nchw, + a [1, C, 1, 1] bias, relu, averagePool2d, reshape: what
    an ONNX image model's stem looks like; the input is read only by layout-free and layout ops."""
    def const(shape):
        return {**tensor(shape), "constant": True}
    return {"name": "stem", "graph": {
        "inputs": {"x": tensor([1, 3, 6, 6]), "scale": const([1, 3, 1, 1]), "w": const([4, 3, 3, 3]),
                   "bias": const([1, 4, 1, 1])},
        "operators": [
            {"name": "mul", "arguments": [{"a": "x"}, {"b": "scale"}], "outputs": "scaled"},
            {"name": "conv2d", "arguments": [{"input": "scaled"}, {"filter": "w"}, {"options": {"padding": [1, 1, 1, 1]}}],
             "outputs": "conv"},
            {"name": "add", "arguments": [{"a": "conv"}, {"b": "bias"}], "outputs": "biased"},
            {"name": "relu", "arguments": [{"input": "biased"}], "outputs": "act"},
            {"name": "averagePool2d", "arguments": [{"input": "act"}], "outputs": "pooled"},
            {"name": "reshape", "arguments": [{"input": "pooled"}, {"newShape": [1, 4]}], "outputs": "flat"},
            {"name": "add", "arguments": [{"a": "act"}, {"b": "act"}], "outputs": "twice"},
            {"name": "concat", "arguments": [{"inputs": ["conv", "act"]}, {"axis": 1}], "outputs": "joined"}]}}


def test_the_nhwc_variant_computes_the_same_outputs_with_the_activations_channels_last(tmp_path):
    from webnn_harness.bench.case_benchmarks import NHWC, load_benchmark_case
    from webnn_harness.execution.worker import expected_outputs

    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "stem.json").write_text(json.dumps({"tests": [image_case(), add_relu_add("no image op")]}))
    stem, flat = case_suite([folder]).benchmarks
    assert stem.variants == (WHOLE_GRAPH, NHWC) and flat.variants == (WHOLE_GRAPH,)  # nothing to change in the other
    nchw, nhwc = (load_benchmark_case(stem, v, "") for v in (WHOLE_GRAPH, NHWC))
    graph = nhwc.graph
    nodes = {n.outputs[0]: n for n in graph.nodes}
    assert nodes["conv"].attributes["inputLayout"] == "nhwc" and nodes["pooled"].attributes["layout"] == "nhwc"
    assert graph.descs["x"].shape == (1, 6, 6, 3)  # the input is given nhwc: no transpose at the entrance
    assert graph.descs["conv"].shape == (1, 6, 6, 4) and graph.descs[nodes["biased"].operands["b"]].shape == (1, 1, 1, 4)
    # reshape and an output computed nhwc get nchw back, a transpose each; the same outputs as the nchw graph's
    transposes = [n for n in graph.nodes if n.op == "transpose"]
    assert [t.operands["input"] for t in transposes] == ["pooled", "twice__nhwc", "joined__nhwc"]
    assert nodes["joined__nhwc"].attributes["axis"] == 3  # concat on channels: axis 1 nchw is 3 nhwc
    assert graph.outputs == nchw.graph.outputs == ("flat", "twice", "joined")
    assert graph.descs["twice"] == nchw.graph.descs["twice"]
    np.testing.assert_array_equal(nhwc.inputs["x"], nchw.inputs["x"].transpose(0, 2, 3, 1))
    want, got = expected_outputs(nchw)[0], expected_outputs(nhwc)[0]
    for name in graph.outputs:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-6, atol=1e-6)
