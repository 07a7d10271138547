"""The bench: statistics, suites, variants verified before timing, the worker
process surviving crashes and hangs, the output contract, regressions.
Tiny graphs and short minimum times: seconds, not minutes."""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

from webnn_harness.bench.driver import BenchFolderExists, BenchOptions, run_bench

from webnn_harness.bench.measure import TimingPolicy

from webnn_harness.bench.suite import builtin_suites, load_suite
from webnn_harness.bench.regressions import compare_bench
from webnn_harness.bench.measure import Latency, measure, timer_overhead
from webnn_harness.bench.worker import BenchWorker, Task
from webnn_harness.loading.cases import CaseError, load_case
from webnn_harness.cli import main
from webnn_harness.spec.cost import graph_cost

FAULTY = "webnn_harness.backends.faulty:create"
QUICK = TimingPolicy(min_time=0.01, min_samples=3, warmup_time=0.0, max_time=1.0)
TINY_PEAKS = {"copy_bytes": 1 << 16, "matmul_size": 32, "repeats": 1, "noise_size": 32, "noise_seconds": 0.01}


def tensor(shape, low=-1.0, high=1.0, constant=False):
    out = {"data": {"generate": {"distribution": "uniform", "low": low, "high": high}},
           "descriptor": {"shape": list(shape), "dataType": "float32"}}
    return {**out, "constant": True} if constant else out


def conv_add_relu_graph():
    """The seed scenario's shape of graph, tiny: conv2d nhwc/hwio, add, relu."""
    return {
        "inputs": {"x": tensor([1, 5, 5, 3], 0.0, 1.0), "f": tensor([3, 3, 3, 4], 0.0, 0.2, constant=True),
                   "b": tensor([4], -0.1, 0.0, constant=True)},
        "operators": [
            {"name": "conv2d", "arguments": [{"input": "x"}, {"filter": "f"}, {"options": {
                "padding": [1, 1, 1, 1], "inputLayout": "nhwc", "filterLayout": "hwio"}}], "outputs": "y"},
            {"name": "add", "arguments": [{"a": "y"}, {"b": "b"}], "outputs": "z"},
            {"name": "relu", "arguments": [{"input": "z"}], "outputs": "out"}],
    }


def one_op_graph(op):
    return {"inputs": {"x": tensor([2, 3])}, "operators": [{"name": op, "arguments": [{"input": "x"}], "outputs": "y"}]}


def suite_file(tmp_path, benchmarks, name="tiny"):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"suite": name, "benchmarks": benchmarks}))
    return path


SEED_LIKE = {"id": "tiny-conv-add-relu", "kind": "scenario", "title": "tiny seed",
             "variants": ["host", "readback", "deviceTensor", "opByOpReadback", "fused"],
             "params": {"workload": "1x5x5x3"}, "graph": conv_add_relu_graph(),
             "published": {"fused": {"seconds": 0.0208, "source": "test"}}}


# --- statistics -----------------------------------------------------------------

def test_latency_statistics_match_numpy():
    times = [0.010, 0.012, 0.011, 0.030, 0.009, 0.010, 0.013, 0.011]
    lat = Latency.of(times).to_json()
    assert lat["median"] == pytest.approx(np.median(times))
    assert lat["mean"] == pytest.approx(np.mean(times))
    assert (lat["min"], lat["max"]) == (min(times), max(times))
    assert lat["p90"] == pytest.approx(np.percentile(times, 90))
    assert lat["iqr"] == pytest.approx(np.percentile(times, 75) - np.percentile(times, 25))
    assert lat["cv"] == pytest.approx(np.std(times, ddof=1) / np.mean(times))
    assert lat["samples"] == len(times) and lat["times"] == times


def test_measure_reaches_both_minimums_and_blocks_fast_calls():
    calls = []
    lat = measure(lambda: calls.append(1), TimingPolicy(min_time=0.02, min_samples=7, warmup_time=0.0))
    summary = lat.to_json()
    assert summary["samples"] >= 7 and summary["stoppedBy"] == "minimums"
    assert sum(lat.times) * summary["number"] >= 0.02 * 0.999
    # a call far below a millisecond is timed in blocks, each sample the mean of `number` calls
    assert summary["number"] > 1
    assert len(calls) >= summary["samples"] * summary["number"]


def test_measure_records_cpu_time_beside_wall_time():
    """A call that works keeps the CPU busy; one that sleeps does not: the
    record tells a slow sample that worked from one that waited."""
    def busy():  # 4 ms of CPU, however long a busy machine makes it take
        end = time.process_time() + 0.004
        while time.process_time() < end:
            pass

    policy = TimingPolicy(min_time=0.02, min_samples=3, warmup_time=0.0)
    working = measure(busy, policy).to_json()
    waiting = measure(lambda: time.sleep(0.004), policy).to_json()
    assert working["cpuMedian"] >= 0.004
    assert waiting["cpuMedian"] < 0.001 < 0.004 <= waiting["median"]


def test_measure_stops_at_the_sample_cap():
    lat = measure(lambda: None, TimingPolicy(min_time=100.0, min_samples=1, max_samples=5, warmup_time=0.0))
    assert lat.to_json()["samples"] == 5 and lat.stopped_by == "maxSamples"


def test_timer_overhead_is_measured():
    overhead = timer_overhead(200)
    assert 0 < overhead < 1e-3


# --- suites ---------------------------------------------------------------------------

def test_builtin_suites_load_and_every_graph_is_a_valid_case():
    assert {"seed", "ops", "default"} <= set(builtin_suites())
    seed = load_suite("seed")
    ids = {b.id for b in seed.benchmarks}
    assert "seed-conv2d-add-relu" in ids
    bench = next(b for b in seed.benchmarks if b.id == "seed-conv2d-add-relu")
    assert bench.variants == ("host", "readback", "deviceTensor", "fused")
    assert {v: p["seconds"] for v, p in bench.published.items()} == {
        "host": 0.0635, "readback": 0.0396, "deviceTensor": 0.0225, "fused": 0.0208}
    ops = load_suite("ops")
    data_types = {b.params["dataType"] for b in ops.benchmarks}
    assert data_types == {"float32", "float16"}
    for suite in (seed, ops):
        assert suite.errors == ()
        for b in suite.benchmarks:
            for variant, graph in b.graphs.items():
                # descriptors only (no data generated): a shape mistake fails here
                graph = {**graph, "inputs": {k: {**v, "data": 0} for k, v in graph["inputs"].items()}}
                case = load_case({"name": b.id, "graph": graph}, suite.name, 0)
                assert not isinstance(case, CaseError), f"{b.id} {variant}: {case}"


def test_a_malformed_benchmark_fails_alone_naming_its_field(tmp_path):
    path = suite_file(tmp_path, [
        {"id": "good", "kind": "op", "variants": ["graph"], "graph": one_op_graph("relu")},
        {"id": "bad-kind", "kind": "speed", "variants": ["graph"], "graph": one_op_graph("relu")},
        {"id": "bad-graphs", "kind": "scenario", "variants": ["nchw", "nhwc"], "graphs": {"nchw": {}}},
        {"id": "good", "kind": "op", "variants": ["graph"], "graph": one_op_graph("relu")},
    ])
    suite = load_suite(str(path))
    assert [b.id for b in suite.benchmarks] == ["good"]
    assert [(e.benchmark, e.field) for e in suite.errors] == [("bad-kind", "kind"), ("bad-graphs", "graphs"), ("good", "id")]


def test_unknown_suite_is_one_line_error():
    with pytest.raises(ValueError, match="no built-in suite 'nope'"):
        load_suite("nope")


# --- variants, verified before timing -------------------------------------------------

@pytest.mark.parametrize("backend_name", ["onnxruntime", "openvino", "reference"])
def test_every_seed_variant_is_verified_and_timed(tmp_path, backend_name):
    from webnn_harness import backends

    pytest.importorskip(backend_name if backend_name != "reference" else "numpy")
    backend = backends.create(backend_name, {})
    worker = BenchWorker(backend, backend.info().to_json())
    suite = load_suite(str(suite_file(tmp_path, [SEED_LIKE])))
    (bench,) = suite.benchmarks
    for variant in bench.variants:
        record = worker.run(Task(bench, variant, QUICK, str(tmp_path))).to_json()
        assert record["status"] == "ok", (variant, record["message"])
        assert record["verification"]["compared"] == 5 * 5 * 4
        assert record["verification"]["maxError"] <= record["verification"]["budget"]
        assert record["latency"]["samples"] >= 3 and record["firstRunSeconds"] > 0
        # conv 5x5 outputs x 4 channels x 3x3x3 multiply-adds, plus add and relu
        assert record["flops"] == graph_cost(load_case({"name": "g", "graph": bench.graphs[variant]}, "t", 0).graph).flops
        assert record["flops"] >= 2 * 5 * 5 * 4 * 27
    fused = worker.run(Task(bench, "fused", QUICK, str(tmp_path))).to_json()
    assert fused["published"] == {"seconds": 0.0208, "source": "test"}
    if backend_name == "onnxruntime":
        assert fused["artifact"] == "artifacts/tiny-conv-add-relu.fused.onnx"
        import onnx

        model = onnx.load(tmp_path / fused["artifact"])
        onnx.checker.check_model(model)
        assert fused["buildSettings"] == {"opset": model.opset_import[0].version}
    if backend_name == "openvino":
        assert fused["artifact"] == "artifacts/tiny-conv-add-relu.fused.xml"
        assert (tmp_path / "artifacts/tiny-conv-add-relu.fused.bin").is_file()
        # the sync API's settings, as the plugin applied them, for a native replay
        settings = fused["buildSettings"]
        assert settings["PERFORMANCE_HINT"] == "LATENCY" and settings["NUM_STREAMS"] == "1"
        assert settings["INFERENCE_PRECISION_HINT"] == "f32" and int(settings["INFERENCE_NUM_THREADS"]) >= 1
    device = worker.run(Task(bench, "deviceTensor", QUICK, str(tmp_path))).to_json()
    # one model per op: no single artifact to replay, every part listed
    assert device["artifact"] is None
    if backend_name != "reference":
        assert len([a for a in device["artifacts"] if not a.endswith(".bin")]) == 3


@pytest.mark.parametrize("backend_name", ["onnxruntime", "openvino"])
def test_device_sessions_share_host_inputs_and_copy_uploads_and_outputs(backend_name):
    """What a whole graph's step pays per call (issue #11): the host input is
    read in place, as session.run / CompiledModel.__call__ read numpy inputs;
    an upload and a download are one copy each; a whole graph's outputs are
    written by the backend into host arrays (run_to_host), copied by nobody."""
    from webnn_harness import backends
    from webnn_harness.backends.base import device_session

    pytest.importorskip(backend_name)
    backend = backends.create(backend_name, {"threads": "1"})
    case = load_case({"name": "relu", "graph": one_op_graph("relu")}, "t", 0)
    session = device_session(backend, case.graph)
    x = np.array([[-1, 2, -3], [4, -5, 6]], dtype=np.float32)

    def address(tensor) -> int:
        return tensor.data_ptr() if backend_name == "onnxruntime" else tensor.data.ctypes.data

    assert address(session.share("x", x)) == x.ctypes.data
    assert address(session.upload("x", x)) != x.ctypes.data
    for unshareable in (x.astype(np.float64), np.ones((2, 6), np.float32)[:, ::2]):
        shared = session.share("x", unshareable)
        assert address(shared) != unshareable.ctypes.data
        np.testing.assert_array_equal(session.download(shared), unshareable.astype(np.float32))
    out = session.run({"x": session.share("x", x)})["y"]
    first = session.download(out)
    np.testing.assert_array_equal(first, np.maximum(x, 0))
    session.run({"x": session.share("x", -x)})
    np.testing.assert_array_equal(first, np.maximum(x, 0))  # a download is the caller's own copy
    # run_to_host: the backend writes the outputs into host arrays the session
    # keeps (bound once), with no download per call
    downloads = []
    original = session.download
    session.download = lambda tensor: downloads.append(tensor) or original(tensor)
    host = session.run_to_host({"x": session.share("x", x)})["y"]
    np.testing.assert_array_equal(host, np.maximum(x, 0))
    again = session.run_to_host({"x": session.share("x", -x)})["y"]
    assert again is host and host.ctypes.data == again.ctypes.data
    np.testing.assert_array_equal(host, np.maximum(-x, 0))
    assert downloads == []
    if backend_name == "openvino":  # the plugin's output tensor is the host array's memory
        assert session._host_request.get_output_tensor(0).data.ctypes.data == host.ctypes.data
    np.testing.assert_array_equal(first, np.maximum(x, 0))  # run_to_host left the download alone


def test_a_session_without_run_to_host_is_read_back_by_download():
    """A backend without ``run_to_host`` (HostSession) still has its whole
    graph read back: one download per output, a new array per call."""
    from webnn_harness import backends
    from webnn_harness.backends.base import HostSession
    from webnn_harness.bench.variants import to_host

    backend = backends.create("reference", {})
    case = load_case({"name": "relu", "graph": one_op_graph("relu")}, "t", 0)
    session = HostSession(backend, case.graph)
    assert not hasattr(session, "run_to_host")
    x = np.array([[-1, 2, -3], [4, -5, 6]], dtype=np.float32)
    first = to_host(session, {"x": session.upload("x", x)})["y"]
    second = to_host(session, {"x": session.upload("x", -x)})["y"]
    np.testing.assert_array_equal(first, np.maximum(x, 0))
    np.testing.assert_array_equal(second, np.maximum(-x, 0))


def test_wrong_outputs_are_recorded_wrong_and_never_timed(tmp_path):
    from webnn_harness import backends

    backend = backends.create(FAULTY, {"wrong_op": "relu", "crash_op": "", "hang_op": ""})
    worker = BenchWorker(backend, backend.info().to_json())
    (bench,) = load_suite(str(suite_file(tmp_path, [SEED_LIKE]))).benchmarks
    wrong = worker.run(Task(bench, "fused", QUICK, str(tmp_path))).to_json()
    assert wrong["status"] == "wrong" and wrong["latency"] is None
    assert "over budget" in wrong["message"] and wrong["verification"]["maxError"] > wrong["verification"]["budget"]
    # the host variant does not touch the faulty backend: it stays right
    assert worker.run(Task(bench, "host", QUICK, str(tmp_path))).status == "ok"


def test_transfer_variants_move_the_bytes(tmp_path):
    from webnn_harness import backends

    pytest.importorskip("onnxruntime")
    graph = {"inputs": {"x": tensor([1024])}, "operators": [{"name": "identity", "arguments": [{"input": "x"}], "outputs": "y"}]}
    (bench,) = load_suite(str(suite_file(tmp_path, [
        {"id": "transfer-4KiB", "kind": "transfer", "variants": ["upload", "download"], "graph": graph}]))).benchmarks
    backend = backends.create("onnxruntime", {})
    worker = BenchWorker(backend, backend.info().to_json())
    for variant in ("upload", "download"):
        record = worker.run(Task(bench, variant, QUICK, str(tmp_path))).to_json()
        assert record["status"] == "ok" and record["transferBytes"] == 4096
        assert record["verification"]["maxError"] == 0


def test_peak_benchmarks_time_the_device_alone(tmp_path, monkeypatch):
    """Kind "peak" (the ``peaks`` suite) runs the graph on inputs uploaded
    once and leaves its outputs on the device: a timed call moves no bytes
    between host and backend; the outputs are read back only to verify."""
    from webnn_harness import backends
    from webnn_harness.backends.onnxruntime.device import OrtDeviceSession
    from webnn_harness.bench.variants import prepare

    pytest.importorskip("onnxruntime")
    graph = {"inputs": {"a": tensor([64, 64], 0.0, 1.0), "b": tensor([64, 64], 0.0, 1.0 / 64, constant=True)},
             "operators": [{"name": "matmul", "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "y"}]}
    (bench,) = load_suite(str(suite_file(tmp_path, [
        {"id": "peak-matmul-64", "kind": "peak", "variants": ["resident"], "params": {"peak": "flops"},
         "graph": graph}]))).benchmarks
    backend = backends.create("onnxruntime", {})
    record = BenchWorker(backend, backend.info().to_json()).run(Task(bench, "resident", QUICK, str(tmp_path))).to_json()
    assert record["status"] == "ok" and record["flops"] == 2 * 64**3 and record["verification"]["maxError"] is not None
    moved = []
    for method in ("upload", "share", "download"):
        original = getattr(OrtDeviceSession, method)
        monkeypatch.setattr(OrtDeviceSession, method,
                            lambda self, *a, _m=method, _o=original: moved.append(_m) or _o(self, *a))
    case = load_case({"name": "peak", "graph": graph}, "t", 0)
    prepared = prepare("resident", "peak", case.graph, case.inputs, backend, None)
    assert moved == ["upload"]  # once, before timing
    for _ in range(3):
        prepared.step()
    assert moved == ["upload"]
    prepared.check()
    assert moved == ["upload", "download"]


# --- the bench run: worker process, crash, hang, output contract ---------------------

CONTRACT_KEYS = {"benchmark", "suite", "kind", "variant", "title", "op", "dataType", "params", "status", "message",
                 "backend", "buildSeconds", "firstRunSeconds", "latency", "flops", "bytes", "transferBytes",
                 "artifact", "verification", "published"}


def test_run_bench_survives_crash_and_hang_and_writes_the_contract(tmp_path):
    suite = load_suite(str(suite_file(tmp_path, [
        {"id": "relu", "kind": "op", "op": "relu", "variants": ["graph"], "graph": one_op_graph("relu")},
        {"id": "abs-crashes", "kind": "op", "op": "abs", "variants": ["graph"], "graph": one_op_graph("abs")},
        {"id": "neg-hangs", "kind": "op", "op": "neg", "variants": ["graph"], "graph": one_op_graph("neg")},
        {"id": "sigmoid", "kind": "op", "op": "sigmoid", "variants": ["graph", "host"], "graph": one_op_graph("sigmoid")},
    ])))
    out = tmp_path / "out"
    options = BenchOptions(policy=QUICK, timeout=4, peaks=TINY_PEAKS)
    result = run_bench(suite, [(FAULTY, {"hang_seconds": "60"})], out, options, command="test")
    status = {(r["benchmark"], r["variant"]): r["status"] for r in result.records}
    assert status == {("relu", "graph"): "ok", ("abs-crashes", "graph"): "crash", ("neg-hangs", "graph"): "timeout",
                      ("sigmoid", "graph"): "ok", ("sigmoid", "host"): "unsupported"}
    lines = [json.loads(line) for line in (out / "bench.jsonl").read_text().splitlines()]
    assert [(r["benchmark"], r["variant"]) for r in lines] == list(status)
    for record in lines:
        assert CONTRACT_KEYS <= set(record)
        assert {"name", "version", "device", "settings"} <= set(record["backend"])
    assert len(lines[0]["loadAverage"]) == 2
    ok = lines[0]["latency"]
    assert {"median", "mean", "min", "max", "p90", "iqr", "cv", "samples", "times"} <= set(ok)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is True and summary["suite"] == "tiny"
    assert summary["counts"]["ok"] == 2 and summary["counts"]["crash"] == 1 and summary["counts"]["timeout"] == 1
    header = summary["header"]
    assert header["machine"]["cores"] >= 1 and header["machine"]["cpu"]
    assert header["peaks"]["memoryBandwidthBytesPerSecond"] > 0 and header["peaks"]["float32FlopsPerSecond"] > 0
    noise = header["peaks"]["noise"]  # the machine's own spread, timed as benchmarks are
    assert noise["samples"] >= 10 and noise["cv"] >= 0 and noise["medianSeconds"] > 0 and "matmul" in noise["method"]
    assert header["timerOverheadSeconds"] > 0
    with pytest.raises(BenchFolderExists):
        run_bench(suite, [(FAULTY, {})], out, options)


def test_run_bench_sets_threads_and_records_them(tmp_path):
    pytest.importorskip("onnxruntime")
    suite = load_suite(str(suite_file(tmp_path, [
        {"id": "relu", "kind": "op", "variants": ["graph"], "graph": one_op_graph("relu")}])))
    result = run_bench(suite, [("onnxruntime", {})], tmp_path / "out",
                       BenchOptions(policy=QUICK, threads=1, peaks=TINY_PEAKS))
    settings = result.records[0]["backend"]["settings"]
    assert settings["threads"] == 1 and settings["intra_op_threads"] == 1 and settings["hostThreads"] == 1
    # the bench turns ORT's idle spinning off unless asked (its facts' bench_options: backends/onnxruntime)
    assert settings["intra_op_spinning"] is False
    result = run_bench(suite, [("onnxruntime", {"spinning": "1"})], tmp_path / "out",
                       BenchOptions(policy=QUICK, threads=1, peaks=TINY_PEAKS), overwrite=True)
    assert result.records[0]["backend"]["settings"]["intra_op_spinning"] is True


def test_interrupted_bench_says_incomplete(tmp_path):
    suite = load_suite(str(suite_file(tmp_path, [
        {"id": "relu", "kind": "op", "variants": ["graph"], "graph": one_op_graph("relu")},
        {"id": "sigmoid", "kind": "op", "variants": ["graph"], "graph": one_op_graph("sigmoid")}])))

    def interrupt(record):
        raise KeyboardInterrupt

    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_bench(suite, [("reference", {})], out, BenchOptions(policy=QUICK, peaks=TINY_PEAKS), on_record=interrupt)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and summary["counts"]["ok"] == 1
    assert len((out / "bench.jsonl").read_text().splitlines()) == 1


# --- CLI --------------------------------------------------------------------------------

def test_cli_bench_usage_errors_exit_2(tmp_path, capsys):
    path = suite_file(tmp_path, [{"id": "relu", "kind": "op", "variants": ["graph"], "graph": one_op_graph("relu")}])
    assert main(["bench", "-b", "reference", "--suite", "nope"]) == 2
    assert main(["bench", "-b", "reference", "--suite", str(path), "--filter", "zzz", "--out", str(tmp_path / "a")]) == 2
    assert "no benchmark selected" in capsys.readouterr().err
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "bench.jsonl").write_text("")
    assert main(["bench", "-b", "reference", "--suite", str(path), "--out", str(tmp_path / "b")]) == 2
    assert "holds an earlier bench (bench.jsonl)" in capsys.readouterr().err
    assert (tmp_path / "b" / "bench.jsonl").read_text() == ""  # nothing overwritten


# --- regressions ------------------------------------------------------------------------

def _bench_folder(path, records):
    path.mkdir()
    with open(path / "bench.jsonl", "w") as f:
        for benchmark, status, times in records:
            latency = None
            if times is not None:
                latency = Latency.of(times).to_json()
            f.write(json.dumps({"benchmark": benchmark, "variant": "graph", "status": status, "latency": latency,
                                "backend": {"name": "onnxruntime"}, "message": None}) + "\n")
    return path


def test_compare_flags_only_significant_slowdowns_beyond_the_threshold(tmp_path):
    rng = np.random.default_rng(0)
    base_times = list(0.010 + rng.normal(0, 0.0001, 30))
    base = _bench_folder(tmp_path / "base", [
        ("slower", "ok", base_times), ("noise", "ok", base_times), ("tiny-change", "ok", base_times),
        ("faster", "ok", base_times), ("broken", "ok", base_times), ("gone", "ok", base_times)])
    new = _bench_folder(tmp_path / "new", [
        ("slower", "ok", [t * 1.2 for t in base_times]),
        ("noise", "ok", list(0.010 + rng.normal(0, 0.0001, 30))),
        ("tiny-change", "ok", [t * 1.02 for t in base_times]),  # significant but under 5%
        ("faster", "ok", [t * 0.7 for t in base_times]),
        ("broken", "wrong", None)])
    result = compare_bench(base, new)
    verdicts = {c.benchmark: c.verdict for c in result.changes}
    assert verdicts == {"slower": "slower", "noise": "same", "tiny-change": "same", "faster": "faster",
                        "broken": "broken", "gone": "missing"}
    assert {c.benchmark for c in result.regressions} == {"slower", "broken"}
    slower = next(c for c in result.changes if c.benchmark == "slower")
    assert slower.ratio == pytest.approx(1.2, rel=1e-6) and slower.p_value < 0.01
    with pytest.raises(Exception):
        result.threshold = 1  # frozen


@pytest.fixture
def cheap_peaks(monkeypatch):
    """The CLI measures the machine's peaks with large arrays (seconds): tiny ones here."""
    import webnn_harness.bench.driver as bench_run
    from webnn_harness.bench.machine import measure_peaks

    monkeypatch.setattr(bench_run, "measure_peaks", lambda **_: measure_peaks(**TINY_PEAKS))


def test_cli_bench_exits_1_when_a_variant_is_wrong(tmp_path, capsys, cheap_peaks):
    path = suite_file(tmp_path, [{"id": "relu", "kind": "op", "variants": ["graph", "host"], "graph": one_op_graph("relu")}])
    code = main(["bench", "-b", FAULTY, "-o", "wrong_op=relu", "-o", "crash_op=", "-o", "hang_op=", "--suite", str(path),
                 "--out", str(tmp_path / "out"), "--min-time", "0.01"])
    out = capsys.readouterr().out
    assert code == 1
    assert "wrong" in out and "1 ok, 1 wrong" in out


def test_bench_with_baseline_exits_1_on_a_regression(tmp_path, capsys, cheap_peaks):
    path = suite_file(tmp_path, [{"id": "relu", "kind": "op", "variants": ["graph"], "graph": one_op_graph("relu")}])
    # a baseline 1000x faster than anything the reference can do, with many samples
    base = _bench_folder(tmp_path / "base", [("relu", "ok", [1e-9 * (1 + i / 100) for i in range(30)])])
    for line in (base / "bench.jsonl").read_text().splitlines():
        record = json.loads(line)
        record["backend"]["name"] = "reference"
        (base / "bench.jsonl").write_text(json.dumps(record) + "\n")
    from webnn_harness.bench.machine import machine_info  # a baseline names its machine: this one

    (base / "summary.json").write_text(json.dumps({"header": {"machine": machine_info()}}))
    code = main(["bench", "-b", "reference", "--suite", str(path), "--out", str(tmp_path / "new"), "--min-time", "0.01",
                 "--min-samples", "10", "--baseline", str(base), "-q"])
    assert code == 1
    assert "slower" in capsys.readouterr().out


# --- the host framework's float32 ops --------------------------------------------------

@pytest.mark.parametrize("input_layout,filter_layout,groups,strides,dilations,padding", [
    ("nhwc", "hwio", 1, [1, 1], [1, 1], [1, 1, 1, 1]),
    ("nchw", "oihw", 1, [2, 2], [1, 1], [0, 1, 0, 1]),
    ("nhwc", "ohwi", 2, [1, 1], [2, 2], [2, 2, 2, 2]),
    ("nchw", "oihw", 4, [1, 2], [1, 1], [1, 1, 1, 1]),  # depthwise: one channel per group
])
def test_host_conv2d_matches_the_reference(input_layout, filter_layout, groups, strides, dilations, padding):
    from webnn_harness.backends.reference.ops.convolution import conv2d as reference_conv2d
    from webnn_harness.bench.host import conv2d

    rng = np.random.default_rng(1)
    channels, out_channels = 4, 4
    x_nchw = rng.random((2, channels, 7, 6), dtype=np.float32)
    w_oihw = rng.random((out_channels, channels // groups, 3, 3), dtype=np.float32)
    x = np.ascontiguousarray(np.transpose(x_nchw, ["nchw".index(c) for c in input_layout]))
    w = np.ascontiguousarray(np.transpose(w_oihw, ["oihw".index(c) for c in filter_layout]))
    bias = rng.random(out_channels, dtype=np.float32)
    options = dict(padding=padding, strides=strides, dilations=dilations, groups=groups,
                   inputLayout=input_layout, filterLayout=filter_layout)
    ours = conv2d(x, w, bias=bias, **options)
    expected = reference_conv2d(x.astype(np.float64), w.astype(np.float64), bias=bias.astype(np.float64), **options)
    assert ours.dtype == np.float32 and ours.shape == expected.shape
    np.testing.assert_allclose(ours, expected, rtol=1e-5)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_diff_on_two_bench_folders_exits_1_on_a_significant_slowdown(tmp_path, capsys, fmt):
    rng = np.random.default_rng(1)
    base_times = list(0.010 + rng.normal(0, 0.0001, 30))
    base = _bench_folder(tmp_path / "base", [("conv", "ok", base_times), ("relu", "ok", base_times)])
    new = _bench_folder(tmp_path / "new", [("conv", "ok", [t * 1.3 for t in base_times]), ("relu", "ok", base_times)])
    assert main(["diff", str(base), str(new), "--format", fmt]) == 1
    out = capsys.readouterr().out
    assert "conv" in out and ("slower" in out or '"slower"' in out)
    if fmt == "json":
        assert json.loads(out)["regressions"] == 1
    # the same folders compared with a threshold above the slowdown: nothing counts
    assert main(["diff", str(base), str(new), "--threshold", "0.5"]) == 0


def test_diff_refuses_a_bench_folder_against_a_run_folder(tmp_path, capsys):
    base = _bench_folder(tmp_path / "base", [("conv", "ok", [0.01] * 10)])
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.jsonl").write_text("")
    assert main(["diff", str(base), str(run)]) == 2
    assert "not one of each" in capsys.readouterr().err


def test_machine_noise_is_the_spread_of_a_fixed_workload(monkeypatch):
    """measure_noise times one unchanging call as a benchmark is timed: its
    CV is that of the samples. Here the "matmul" takes 4 and 12 ms in turn
    on a fake clock: a CV of about 0.5 (stdev 4 ms over a mean of 8 ms)."""
    from webnn_harness.bench import machine, measure

    durations = iter([0.004, 0.012] * 1000)
    now = [0.0]

    class Matrix:  # what the fake generator hands measure_noise: its product advances the clock
        def __matmul__(self, other):
            now[0] += next(durations)
            return self

    class Generator:
        def random(self, *args, **kwargs):
            return Matrix()

    monkeypatch.setattr(measure, "clock", lambda: now[0])
    monkeypatch.setattr(machine.np.random, "default_rng", lambda seed: Generator())
    noise = machine.measure_noise(8, seconds=0.2)
    assert noise["samples"] >= 10 and noise["medianSeconds"] in (0.004, 0.008, 0.012)
    assert noise["cv"] == pytest.approx(0.5, rel=0.15)


def test_threads_and_the_option_threads_are_one_setting():
    """bench --threads N and -o threads=N: a numeric -o value wins; another leaves --threads (harness/bench/driver.py)."""
    from webnn_harness.bench.driver import bench_threads

    assert bench_threads(None, [{}]) is None
    assert bench_threads(3, [{"spinning": "0"}]) == 3
    assert bench_threads(3, [{"threads": "2"}]) == 2
    assert bench_threads(None, [{"threads": "auto"}]) is None
