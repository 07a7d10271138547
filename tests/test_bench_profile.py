"""bench --profile (issue #30): per-node times from the backends' own
profilers, read after the timed runs in sessions of their own; the nodes'
summed time reported beside the median."""
from __future__ import annotations

import datetime
import json
from collections import Counter
from dataclasses import replace

import pytest

from webnn_harness.backends.base import HostSession, NodeTime, SessionProfile
from webnn_harness.bench import worker as bench_worker
from webnn_harness.bench.console import record_line
from webnn_harness.bench.measure import TimingPolicy
from webnn_harness.bench.profile import node_share, summarise
from webnn_harness.bench.suite import load_suite
from webnn_harness.bench.worker import BenchWorker, Task, Verified
from webnn_harness.cli import main

QUICK = TimingPolicy(min_time=0.01, min_samples=3, warmup_time=0.0, max_time=1.0)


def tensor(shape, low=-1.0, high=1.0, constant=False):
    out = {"data": {"generate": {"distribution": "uniform", "low": low, "high": high}},
           "descriptor": {"shape": list(shape), "dataType": "float32"}}
    return {**out, "constant": True} if constant else out


def transposed_conv_graph():
    """The layout workloads' nhwcTransposed variant, small: nhwc input
    transposed to nchw for the conv2d and back, then add and relu."""
    return {
        "inputs": {"x": tensor([1, 8, 8, 16], 0.0, 1.0), "f": tensor([16, 16, 3, 3], 0.0, 0.05, constant=True),
                   "b": tensor([16], -0.1, 0.0, constant=True)},
        "operators": [
            {"name": "transpose", "arguments": [{"input": "x"}, {"options": {"permutation": [0, 3, 1, 2]}}],
             "outputs": "xt"},
            {"name": "conv2d", "arguments": [{"input": "xt"}, {"filter": "f"}, {"options": {
                "padding": [1, 1, 1, 1], "inputLayout": "nchw", "filterLayout": "oihw"}}], "outputs": "yt"},
            {"name": "transpose", "arguments": [{"input": "yt"}, {"options": {"permutation": [0, 2, 3, 1]}}],
             "outputs": "y"},
            {"name": "add", "arguments": [{"a": "y"}, {"b": "b"}], "outputs": "z"},
            {"name": "relu", "arguments": [{"input": "z"}], "outputs": "out"}],
    }


def benchmark(tmp_path, variants=("nhwcTransposed",)):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"suite": "tiny", "benchmarks": [
        {"id": "tiny-layout", "kind": "scenario", "title": "tiny layout", "variants": list(variants),
         "graph": transposed_conv_graph()}]}))
    (bench,) = load_suite(str(path)).benchmarks
    return path, bench


def profiled(backend_name, options, tmp_path, runs=4):
    from webnn_harness import backends

    pytest.importorskip(backend_name)
    backend = backends.create(backend_name, options)
    _, bench = benchmark(tmp_path)
    worker = BenchWorker(backend, backend.info().to_json())
    record = worker.run(Task(bench, "nhwcTransposed", QUICK, str(tmp_path), False, profile_runs=runs)).to_json()
    assert record["status"] == "ok", record["message"]
    return backend, Verified(bench, "nhwcTransposed").case.graph, record


def test_onnxruntime_profile_names_every_node_of_an_unoptimised_graph(tmp_path):
    """With ORT's graph optimisations off, the nodes that ran are exactly the
    nodes of the model we gave it, each timed."""
    backend, graph, record = profiled("onnxruntime", {"opt_level": "disable"}, tmp_path)
    profile = record["profile"]
    assert profile["runs"] >= 4 and profile["sessions"] == 1  # at least 4, and for QUICK's min_time
    lowered = Counter(node.op_type for node in backend.lower(graph).graph.node)
    assert Counter(node["op"] for node in profile["nodes"]) == lowered
    assert lowered["Transpose"] >= 2 and lowered["Conv"] == 1
    assert profile["removed"] == [] and profile["nodeTimes"] == "kernel"
    assert all(n["kernel"] == "CPUExecutionProvider" and not n.get("fallback") for n in profile["nodes"])
    assert profile["nodes"][[n["op"] for n in profile["nodes"]].index("Conv")]["seconds"] > 0
    # Each run's kernels fit in its wall time, so their medians do too.
    assert 0 < profile["runNodeSeconds"] <= profile["runSeconds"]


def test_onnxruntime_profile_on_the_cuda_provider(tmp_path):
    """On ORT's CUDA provider every node that ran is the provider's own (its
    CPU fallback is off: a node placed on the CPU refuses the build) and
    unflagged; the copies ORT adds between host and device, if any, are
    the provider's too. Needs onnxruntime-gpu on an NVIDIA GPU (the device
    check of issue #30); skipped elsewhere."""
    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("the CUDA provider is not installed (onnxruntime-gpu on an NVIDIA GPU)")
    options = {"ep": "CUDAExecutionProvider", "ep.use_tf32": "0", "opt_level": "disable"}
    backend, graph, record = profiled("onnxruntime", options, tmp_path)
    profile = record["profile"]
    ran = Counter(node["op"] for node in profile["nodes"] if not node["op"].startswith("Memcpy"))
    assert ran == Counter(node.op_type for node in backend.lower(graph).graph.node)
    assert all(n["kernel"] == "CUDAExecutionProvider" and not n.get("fallback") for n in profile["nodes"])
    assert 0 < profile["runNodeSeconds"] <= profile["runSeconds"]
    assert profile["nodeTimes"] == "launch"  # kernels run asynchronously: the trace times their launch


def test_onnxruntime_profile_says_which_nodes_its_optimiser_removed(tmp_path):
    """Optimised, every op of the model either ran or is counted removed."""
    backend, graph, record = profiled("onnxruntime", {}, tmp_path)
    profile = record["profile"]
    lowered = Counter(node.op_type for node in backend.lower(graph).graph.node)
    ran = Counter(node["op"] for node in profile["nodes"])
    removed = Counter(node["op"] for node in profile["removed"])
    for op, count in lowered.items():
        assert min(ran[op], count) + removed[op] == count, op
    assert ran["Conv"] + ran["FusedConv"] == 1


def test_openvino_profile_accounts_for_every_node_of_our_model(tmp_path):
    """Each node of the model we compiled ran as itself, ran fused into
    another (originalLayersNames) or is listed removed; none twice."""
    pytest.importorskip("openvino")
    import openvino as ov
    from webnn_harness.backends.openvino.device import NOT_WORK
    from webnn_harness.backends.openvino.lower import lower_graph

    _, graph, record = profiled("openvino", {}, tmp_path)
    profile = record["profile"]
    lowered = lower_graph(graph)
    model = ov.Model(lowered.results, lowered.parameters, "webnn_graph")
    # friendly names are numbered per process: compare the types of the work
    work = Counter(op.get_type_name() for op in model.get_ordered_ops() if op.get_type_name() not in NOT_WORK)
    ran_names = {name for n in profile["nodes"] for name in (n.get("fused") or [n["name"]])}
    assert work["Convolution"] == 1 and work["Transpose"] >= 2
    removed_names = {r["name"] for r in profile["removed"]}
    assert not ran_names & removed_names  # none both ran and removed
    # our model's work, by type: each node ran (as itself or fused) or is removed
    by_name = {name: n["op"] for n in profile["nodes"] for name in (n.get("fused") or [n["name"]])}
    ours = [name for name in ran_names if name.rsplit("_", 1)[0] in work] + sorted(removed_names)
    assert Counter(name.rsplit("_", 1)[0] for name in ours) == work, (by_name, profile["removed"])
    assert any(n["op"] == "Convolution" and n["seconds"] > 0 for n in profile["nodes"])
    # The nodes of a run fit in its wall time, to within what differencing
    # the CPU plugin's floored means allows: k - 1 microseconds a node at run k.
    rounding = len(profile["nodes"]) * (profile["runs"] + 1) * 1e-6
    assert 0 < profile["runNodeSeconds"] <= profile["runSeconds"] + rounding
    assert {r["op"] for r in profile["removed"]} <= set(work)


def test_openvino_marks_a_reference_kernel_as_fallback():
    pytest.importorskip("openvino")
    import openvino as ov
    from webnn_harness.backends.openvino.device import OpenVINOProfilingSession

    def info(name, exec_type, status=ov.ProfilingInfo.Status.EXECUTED):
        p = ov.ProfilingInfo()
        p.node_name, p.node_type, p.exec_type, p.status = name, "Gather", exec_type, status
        p.real_time = datetime.timedelta(microseconds=250)
        return p

    class Request:
        def get_profiling_info(self):
            return [info("fast", "jit_avx2_f32"), info("slow", "ref_any_f32"),
                    info("gone", "undef", ov.ProfilingInfo.Status.NOT_RUN)]

    session = OpenVINOProfilingSession.__new__(OpenVINOProfilingSession)
    session._ov, session._original = ov, {"fast": ("a", "fast")}
    nodes = session._counters(Request())
    assert [(n.name, n.fallback, n.fused, n.seconds) for n in nodes] == [
        ("fast", False, ("a", "fast"), 250e-6), ("slow", True, (), 250e-6)]


def trace(tmp_path, events):
    path = tmp_path / "trace_2026.json"
    path.write_text(json.dumps(events))
    return str(path)


class _Model:
    class graph:  # the ModelProto attribute it stands for
        node = [type("Node", (), {"op_type": op})() for op in ("Transpose", "Conv", "Relu")]


def test_ort_trace_groups_kernels_by_run_and_marks_another_provider_fallback(tmp_path):
    from webnn_harness.backends.onnxruntime.profile import trace_profile

    def kernel(name, op, ts, dur, provider="CUDAExecutionProvider"):
        return {"cat": "Node", "name": f"{name}_kernel_time", "ts": ts, "dur": dur,
                "args": {"op_name": op, "provider": provider}}

    events = [{"cat": "Session", "name": "session_initialization", "ts": 0, "dur": 5},
              {"cat": "Session", "name": "model_run", "ts": 10, "dur": 100},
              kernel("conv", "Conv", 12, 50), kernel("relu", "Relu", 70, 20, "CPUExecutionProvider"),
              {"cat": "Session", "name": "model_run", "ts": 200, "dur": 100},
              kernel("relu", "Relu", 260, 30, "CPUExecutionProvider"), kernel("conv", "Conv", 202, 40)]
    profile = trace_profile(trace(tmp_path, events), "CUDAExecutionProvider", _Model)
    assert [[(n.name, n.seconds) for n in run] for run in profile.runs] == [
        [("conv", 50e-6), ("relu", 20e-6)], [("conv", 40e-6), ("relu", 30e-6)]]
    assert [n.fallback for n in profile.runs[0]] == [False, True]
    assert profile.removed == (("Transpose", ""),)


@pytest.mark.parametrize("events, message", [
    ("not json", "trace_2026.json: not a JSON trace"),
    ({"cat": "Node"}, "trace_2026.json: not a list of trace events"),
    ([{"cat": "Session", "name": "model_run", "ts": "soon", "dur": 1}], "event 0: field 'ts' is not a non-negative"),
    ([{"cat": "Node", "name": "x_kernel_time", "ts": 1, "dur": 1, "args": {}}], "event 0: field 'args' lacks"),
    ([{"cat": "Node", "name": "x_kernel_time", "ts": 1, "dur": 1, "args": {"op_name": "Relu", "provider": "p"}}],
     "node 'x' at 1 us is in no model_run"),
])
def test_a_malformed_ort_trace_is_one_line_naming_file_event_and_field(tmp_path, events, message):
    from webnn_harness.backends.onnxruntime.profile import TraceError, trace_profile

    path = tmp_path / "trace_2026.json"
    path.write_text(events if isinstance(events, str) else json.dumps(events))
    with pytest.raises(TraceError) as info:
        trace_profile(str(path), "CPUExecutionProvider", _Model)
    assert message in str(info.value) and "\n" not in str(info.value) and str(tmp_path) not in str(info.value)


def test_an_oversized_ort_trace_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from webnn_harness.backends.onnxruntime import profile as ort_profile

    monkeypatch.setattr(ort_profile, "MAX_TRACE_BYTES", 10)
    with pytest.raises(ort_profile.TraceError, match="over the 10 bytes read"):
        ort_profile.trace_profile(trace(tmp_path, [{"cat": "Session"}]), "CPUExecutionProvider", _Model)


def test_the_ort_trace_folder_is_deleted_after_reading(tmp_path):
    pytest.importorskip("onnxruntime")
    import os

    from webnn_harness import backends
    from webnn_harness.backends.base import share, to_host

    backend = backends.create("onnxruntime", {})
    _, bench = benchmark(tmp_path)
    verified = Verified(bench, "nhwcTransposed")
    session = backend.profiling_session(verified.case.graph)
    folder = session._folder
    to_host(session, {"x": share(session, "x", verified.case.inputs["x"])})
    assert len(session.profile().runs) == 1
    assert not os.path.exists(folder)


# --- the profiled runs never touch the timed ones ----------------------------------

class _LoggedSession:
    def __init__(self, inner, kind, log):
        self.inner, self.kind, self.log, self.runs = inner, kind, log, 0

    def save(self, stem):
        return ()

    def upload(self, name, array):
        return self.inner.upload(name, array)

    def run(self, inputs):
        self.log.append(f"run {self.kind}")
        self.runs += 1
        return self.inner.run(inputs)

    def download(self, tensor):
        return self.inner.download(tensor)

    def profile(self):
        node = NodeTime(name="relu_0", op="Relu", kernel="numpy", seconds=0.001)
        return SessionProfile(tuple((node,) for _ in range(self.runs)), (("Identity", "id_0"),))


class _LoggedBackend:
    """The reference backend, its sessions logging which kind ran when."""

    def __init__(self, log):
        from webnn_harness import backends

        self.inner, self.log = backends.create("reference", {}), log

    def info(self):
        return self.inner.info()

    def device_session(self, graph):
        self.log.append("build timed")
        return _LoggedSession(HostSession(self.inner, graph), "timed", self.log)

    def profiling_session(self, graph):
        self.log.append("build profiled")
        return _LoggedSession(HostSession(self.inner, graph), "profiled", self.log)


def test_profiling_runs_after_the_timed_runs_in_sessions_of_its_own(tmp_path, monkeypatch):
    log: list[str] = []
    timed = bench_worker.measure

    def logged_measure(call, policy):
        log.append("measure start")
        latency = timed(call, policy)
        log.append("measure end")
        logged_measure.latency = latency
        return latency

    monkeypatch.setattr(bench_worker, "measure", logged_measure)
    _, bench = benchmark(tmp_path, variants=("opByOp",))
    backend = _LoggedBackend(log)
    worker = BenchWorker(backend, backend.info().to_json())
    record = worker.run(Task(bench, "opByOp", QUICK, str(tmp_path), False, profile_runs=3)).to_json()
    assert record["status"] == "ok", record["message"]
    end = log.index("measure end")
    assert "build profiled" not in log[:end] and "run profiled" not in log[:end]
    after = log[end + 1:]
    assert "build timed" not in after and after.count("build profiled") == 5  # one session per op
    # a warm-up step (QUICK warms up for no time: one call), then blocks of
    # profiled steps, each followed by a block of as many steps of the timed
    # sessions, kept for it
    steps = [entry.split()[1] for entry in after[5::5]]
    assert after[5:] == [f"run {kind}" for kind in steps for _ in range(5)]
    assert steps[0] == "profiled" and steps[1:].count("profiled") == steps.count("timed") >= 3
    blocks = "".join(kind[0] for kind in steps[1:])
    size = blocks.index("t")
    assert blocks == ("p" * size + "t" * size) * (len(blocks) // (2 * size))
    # the record's figures are exactly what the timed runs measured
    assert record["latency"] == logged_measure.latency.to_json()
    profile = record["profile"]
    assert profile["runs"] == steps.count("timed") and profile["sessions"] == 5
    assert [n["part"] for n in profile["nodes"]] == [0, 1, 2, 3, 4]
    assert profile["removed"][0] == {"op": "Identity", "name": "id_0", "part": 0}
    assert profile["nodeSeconds"] == pytest.approx(0.005) and profile["runNodeSeconds"] == pytest.approx(0.005)
    assert profile["plainSeconds"] > 0 and profile["runSeconds"] > 0 and profile["nodeTimes"] == "kernel"


def test_a_backend_without_a_profiler_keeps_its_timed_record(tmp_path):
    from webnn_harness import backends

    backend = backends.create("reference", {})
    _, bench = benchmark(tmp_path, variants=("nhwcTransposed", "host"))
    worker = BenchWorker(backend, backend.info().to_json())
    record = worker.run(Task(bench, "nhwcTransposed", QUICK, str(tmp_path), False, profile_runs=2)).to_json()
    assert record["status"] == "ok" and record["latency"]["samples"] >= 3
    assert record["profile"] == {"unavailable": "reference: no profiler the harness reads"}
    host = worker.run(Task(bench, "host", QUICK, str(tmp_path), False, profile_runs=2)).to_json()
    assert host["status"] == "ok" and host["profile"] is None  # no backend graph to profile
    plain = worker.run(Task(bench, "nhwcTransposed", QUICK, str(tmp_path), False)).to_json()
    assert plain["profile"] is None


# --- the sum of node times beside the median -----------------------------------------

def test_node_medians_and_their_sum_beside_the_median():
    def node(seconds):
        return NodeTime(name="conv", op="Conv", kernel="k", seconds=seconds)

    runs = ((node(9.0),), (node(0.002),), (node(0.004),), (node(0.003),))  # the first run warmed up
    profile = summarise([SessionProfile(runs)], runs=3, run_seconds=0.0035)
    assert profile["nodes"] == [{"name": "conv", "op": "Conv", "kernel": "k", "seconds": 0.003}]
    assert profile["nodeSeconds"] == 0.003 and profile["runSeconds"] == 0.0035
    assert profile["runNodeSeconds"] == 0.003
    record = {"backend": {"name": "b"}, "benchmark": "g", "variant": "fused", "status": "ok", "profile": profile,
              "latency": {"median": 0.004, "iqr": 0.0, "cv": 0.0, "samples": 10}}
    assert node_share(record) == pytest.approx(0.75)
    assert "nodes 3.000 ms (75% of the median, 86% of a profiled run, 1 nodes)" in record_line(record)
    # a stall on a different node each run: every node's median misses it, every run's total holds one
    a, b = (NodeTime(name=n, op="Op", kernel="k", seconds=0.001) for n in "ab")
    stalled = [(a, b), (replace(a, seconds=0.005), b), (a, replace(b, seconds=0.005))]
    both = summarise([SessionProfile(((a, b),) + tuple(stalled))], runs=3, run_seconds=0.006)
    assert both["nodeSeconds"] == pytest.approx(0.002) and both["runNodeSeconds"] == pytest.approx(0.006)
    with pytest.raises(ValueError, match="the profiler saw 4 runs, not 5"):
        summarise([SessionProfile(runs)], runs=5, run_seconds=0.0)


def test_the_profilers_cost_and_launch_times_in_the_record_line():
    """The paired plain runs give the profiler's own cost; a provider whose
    node times are launches on the host says so beside the share."""
    node = NodeTime(name="conv", op="Conv", kernel="CUDAExecutionProvider", seconds=0.0001)
    launch = SessionProfile(((node,), (node,)), (), "launch")
    profile = {**summarise([launch], runs=2, run_seconds=0.0012), "plainSeconds": 0.001}
    assert profile["nodeTimes"] == "launch"
    record = {"backend": {"name": "b"}, "benchmark": "g", "variant": "fused", "status": "ok", "profile": profile,
              "latency": {"median": 0.001, "iqr": 0.0, "cv": 0.0, "samples": 10}}
    assert ("(10% of the median, 10% of the graph run beside them, 8% of a profiled run; the profiler +20% a run; "
            "launch times on the host, 1 nodes)") in record_line(record)
    kernel = summarise([SessionProfile(((node,), (node,)))], runs=2, run_seconds=0.0012)
    assert kernel["nodeTimes"] == "kernel" and "launch" not in record_line({**record, "profile": kernel})


def test_ort_trace_of_a_device_provider_is_launch_times(tmp_path):
    """A trace read as launch times says so in its profile (an
    OrtProfilingSession on a provider of device memory, ORT's CUDA, reads it
    so: tests on a GPU check that end); kernel times by default."""
    from webnn_harness.backends.onnxruntime import profile as ort_profile

    events = [{"cat": "Session", "name": "model_run", "ts": 0, "dur": 100},
              {"cat": "Node", "name": "Conv_0_kernel_time", "ts": 10, "dur": 5,
               "args": {"op_name": "Conv", "provider": "CUDAExecutionProvider"}}]
    path = trace(tmp_path, events)
    assert ort_profile.trace_profile(path, "CUDAExecutionProvider", _Model, "launch").node_times == "launch"
    assert ort_profile.trace_profile(path, "CUDAExecutionProvider", _Model).node_times == "kernel"


def test_cli_bench_profile_records_node_times(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    suite, _ = benchmark(tmp_path)
    out = tmp_path / "bench"
    code = main(["bench", "-b", "onnxruntime", "--suite", str(suite), "--out", str(out), "--profile", "3",
                 "--min-time", "0.01", "--min-samples", "3", "--no-artifacts"])
    assert code == 0, capsys.readouterr()
    (record,) = [json.loads(line) for line in (out / "bench.jsonl").read_text().splitlines()]
    assert record["profile"]["runs"] >= 3 and record["profile"]["nodes"]
    assert "% of the median" in capsys.readouterr().out
    with pytest.raises(SystemExit) as usage:
        main(["bench", "--suite", str(suite), "--profile", "0", "--out", str(tmp_path / "x")])
    assert usage.value.code == 2 and "--profile: must be 1 or more" in capsys.readouterr().err


def test_openvino_cpu_means_since_compile_become_each_runs_own_times():
    """The CPU plugin's counters hold each node's mean since compile (the
    figures of a 1x1 conv seen here); differencing the totals gives each
    run's own time."""
    pytest.importorskip("openvino")
    from webnn_harness.backends.openvino.device import runs_from_means

    def run(*means):
        return tuple(NodeTime(name=name, op="Op", kernel="k", seconds=mean * 1e-6)
                     for name, mean in zip(("conv", "transpose"), means))

    # conv ran 33870, 698, 1516 us; the transpose 7882, 3188, 17256 us
    own = runs_from_means([run(33870, 7882), run(17284, 5535), run(12028, 9442)])
    assert [[round(n.seconds * 1e6) for n in r] for r in own] == [[33870, 7882], [698, 3188], [1516, 17256]]
