"""The Ray executor on a local two-node Ray cluster: the same records as the
local worker pool (timings aside), crash, segfault and hang isolated, work
spread over the nodes, devices placed by resource; the same for the bench,
whose records also name the node that timed them and whose artifacts arrive. Kept small for a 2-core
CI machine: one CPU per node, small object stores, no dashboard."""
import json
import socket
import subprocess
import sys
import time

import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed: pip install -e '.[ray]'")

from ray.cluster_utils import Cluster  # noqa: E402

from webnn_harness.backends.base import BackendError  # noqa: E402
from webnn_harness.bench.driver import BenchOptions, run_bench  # noqa: E402
from webnn_harness.bench.suite import load_suite  # noqa: E402
from webnn_harness.bench.ray_cluster import bench_executor  # noqa: E402
from webnn_harness.execution.executors import LocalExecutors, executors  # noqa: E402
from webnn_harness.execution.ray_cluster import RESOURCE_PREFIX, RayExecutors, device_resources  # noqa: E402
from webnn_harness.api import BackendRequest, RunEvents, RunRequest, run  # noqa: E402
from webnn_harness.loading.selection import CaseFilter  # noqa: E402
from webnn_harness.execution.pool import RunOptions  # noqa: E402

from test_cli import case, write  # noqa: E402

FAULTY = "webnn_harness.backends.faulty:create"
FAULTS = {"crash_op": "abs", "segv_op": "sign", "hang_op": "neg"}
NODE_ARGS = {"num_cpus": 1, "object_store_memory": 80 * 1024 * 1024}
TIMINGS = ("buildSeconds", "computeSeconds")


@pytest.fixture(scope="module")
def cluster():
    """A head node and a worker node that advertises the device FAKE.1."""
    c = Cluster(initialize_head=True, head_node_args={**NODE_ARGS, "include_dashboard": False})
    device_node = c.add_node(**NODE_ARGS, resources={RESOURCE_PREFIX + "FAKE.1": 1})
    ray.init(address=c.address, log_to_driver=False, logging_level="WARNING")
    c.wait_for_nodes()
    yield c, device_node.node_id
    ray.shutdown()
    c.shutdown()


def cases_file(tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    ops = ["relu", "abs", "relu", "sign", "relu", "neg", "relu", "relu", "relu", "relu"]
    return write(tmp_path, [case(f"{i} {op}", op=op) for i, op in enumerate(ops)])


def records(out):
    return sorted((json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()),
                  key=lambda r: r["case"])


def test_on_a_two_node_cluster(cluster, tmp_path):
    """One test, so pytest-xdist never starts a second cluster in another worker."""
    records_equal_local_records_and_spread_over_nodes(cluster, tmp_path / "records")
    a_device_runs_only_on_the_node_that_advertises_it(cluster, tmp_path / "device")
    probe_on_ray_finds_what_the_local_probe_finds(cluster, tmp_path / "probe")
    bench_on_ray_equals_local_bench_with_nodes_and_artifacts(cluster, tmp_path / "bench")
    bench_of_a_device_runs_on_its_node(cluster, tmp_path / "bench-device")


def records_equal_local_records_and_spread_over_nodes(cluster, tmp_path):
    path = cases_file(tmp_path)
    opts = RunOptions(workers=2, timeout=3, batch_size=3)
    request = (BackendRequest(FAULTY, FAULTS),)
    local = run(RunRequest((path,), request, tmp_path / "local", options=opts, executor=LocalExecutors()))
    factory = RayExecutors(cluster[0].address)
    arrivals = []
    ray_run = run(RunRequest((path,), request, tmp_path / "ray", options=opts, executor=factory),
                  RunEvents(on_record=lambda r: arrivals.append((time.monotonic(), r.case))))
    factory.close()
    assert ray.is_initialized(), "joining a running Ray session must not shut it down"
    expected, got = records(tmp_path / "local"), records(tmp_path / "ray")
    assert [r["case"] for r in got] == [r["case"] for r in expected]
    status = {r["case"]: r["status"] for r in got}
    assert status == {"0 relu": "pass", "1 abs": "crash", "2 relu": "pass", "3 sign": "crash", "4 relu": "pass",
                      "5 neg": "timeout", "6 relu": "pass", "7 relu": "pass", "8 relu": "pass", "9 relu": "pass"}
    for r_local, r_ray in zip(expected, got):
        if r_ray["status"] == "crash":
            # Locally the parent sees the signal; Ray reports only that the process ended.
            assert "worker process killed by" in r_local["message"]
            assert r_ray["message"].startswith("worker process died (node ") and "SYSTEM_ERROR" in r_ray["message"]
            r_local, r_ray = {**r_local, "message": ""}, {**r_ray, "message": ""}
        assert {k: v for k, v in r_ray.items() if k not in TIMINGS} == \
               {k: v for k, v in r_local.items() if k not in TIMINGS}
    assert [t.counts for t in ray_run.tallies] == [t.counts for t in local.tallies]
    # Streamed: the records before the hang arrived well before the run's last one.
    assert arrivals[0][0] < arrivals[-1][0] - 2
    nodes = {n.node_id[:8] for n in cluster[0].list_all_nodes()}
    assert {k.split()[1] for k in factory.cases_per_node} == nodes
    assert sum(factory.cases_per_node.values()) == 10


def a_device_runs_only_on_the_node_that_advertises_it(cluster, tmp_path):
    path = cases_file(tmp_path)
    factory = RayExecutors(cluster[0].address)
    run(RunRequest((path,), (BackendRequest(FAULTY, {"device": "FAKE.1", "hang_op": "", "crash_op": ""}),), tmp_path / "dev",
                   selection=CaseFilter(ops=("relu",)), options=RunOptions(workers=2, timeout=10, batch_size=2),
                   executor=factory))
    got = records(tmp_path / "dev")
    assert len(got) == 7 and {r["status"] for r in got} == {"pass"}
    assert {r["backend"]["device"] for r in got} == {"FAKE.1 (delegates to reference)"}
    assert dict(factory.cases_per_node) == {f"node {cluster[1][:8]}": 7}
    with pytest.raises(BackendError, match="no node of the Ray cluster advertises the resource 'webnn_device:GPU.7'"):
        run(RunRequest((path,), (BackendRequest(FAULTY, {"device": "GPU.7"}),), tmp_path / "none", executor=factory))


def test_device_resources():
    assert device_resources({}) == {} and device_resources({"device": "cpu"}) == {}
    assert device_resources({"device": "GPU.1", "precision": "f16"}) == {"webnn_device:GPU.1": 1.0}


def test_ray_address_needs_the_ray_executor():
    with pytest.raises(ValueError, match="--ray-address needs --executor ray"):
        executors("local", "127.0.0.1:6379")


def test_an_address_where_nothing_listens_is_one_line(tmp_path):
    """Exit 2 and one line, not Ray retrying for minutes (its own process: this one may hold a session)."""
    with socket.socket() as s:  # a free port, then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.run([sys.executable, "-m", "webnn_harness", "run", "-q", "--executor", "ray", "--ray-address",
                           f"127.0.0.1:{port}", "-b", "reference", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == f"webnn-harness run: error: cannot join the Ray cluster at 127.0.0.1:{port}: Connection refused"


def test_cli_without_address_starts_and_stops_its_own_ray(tmp_path):
    """A separate process (this one may hold the cluster's session): the run passes,
    names the node it ran on, and leaves no Ray behind."""
    path = write(tmp_path, [case("0 relu"), case("1 relu")])
    out = tmp_path / "out"
    script = (
        "import sys, ray; from webnn_harness.cli import main; "
        f"code = main(['run', '-q', '--executor', 'ray', '--workers', '1', '-b', 'reference', '--cases', {str(path)!r}, "
        f"'--out', {str(out)!r}]); print('initialized after:', ray.is_initialized()); sys.exit(code)"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "initialized after: False" in proc.stdout
    assert "ray: 2 on node " in proc.stderr
    assert [r["status"] for r in records(out)] == ["pass", "pass"]


def probe_on_ray_finds_what_the_local_probe_finds(cluster, tmp_path):
    from webnn_harness.probe.driver import probe

    # No crashes here (each costs an actor start; test_ray_records_... covers them): abs accepted but wrong.
    kwargs = dict(options={"crash_op": "", "hang_op": "", "wrong_op": "abs"}, ops=["abs", "relu"], max_rank=1, layout=False,
                  byte_search=False, run=RunOptions(workers=2, timeout=5, batch_size=32))
    local = probe(FAULTY, out_dir=tmp_path / "local", **kwargs)
    factory = RayExecutors(cluster[0].address)
    on_ray = probe(FAULTY, out_dir=tmp_path / "ray", executor=factory, **kwargs)
    outcomes = [{e["id"]: e["outcome"] for e in p.evidence["combinations"]} for p in (local, on_ray)]
    assert outcomes[0] == outcomes[1] and {"wrong", "supported"} <= set(outcomes[0].values())
    assert on_ray.limits == local.limits


# --- bench --------------------------------------------------------------------------------

BENCH_TIMINGS = ("buildSeconds", "firstRunSeconds", "latency", "loadAverage")


def tiny_bench_suite(tmp_path):
    from test_bench import one_op_graph, suite_file

    tmp_path.mkdir(parents=True, exist_ok=True)
    op = lambda name, op, variants=("graph",): {"id": name, "kind": "op", "op": op, "variants": list(variants),  # noqa: E731
                                                "graph": one_op_graph(op)}
    return load_suite(str(suite_file(tmp_path, [op("relu", "relu"), op("abs-crashes", "abs"), op("neg-hangs", "neg"),
                                                op("sigmoid", "sigmoid", ("graph", "host"))])))


def bench_on_ray_equals_local_bench_with_nodes_and_artifacts(cluster, tmp_path):
    """The faulty backend (crash on abs, hang on neg) and ONNX Runtime (artifacts): the same
    records as a local bench but for timings, the node fields and the crash and timeout wording."""
    from test_bench import QUICK, TINY_PEAKS

    suite = tiny_bench_suite(tmp_path)
    backends = [(FAULTY, {"hang_seconds": "60"}), ("onnxruntime", {})]
    options = BenchOptions(policy=QUICK, timeout=4, threads=1, peaks=TINY_PEAKS)
    local = run_bench(suite, backends, tmp_path / "local", options)
    factory = RayExecutors(cluster[0].address)
    arrivals = []
    on_ray = run_bench(suite, backends, tmp_path / "ray", options, executor=bench_executor(factory),
                       on_record=lambda r: arrivals.append(time.monotonic()))
    factory.close()
    key = lambda r: (r["backend"]["name"], r["benchmark"], r["variant"])  # noqa: E731
    expected, got = sorted(local.records, key=key), sorted(on_ray.records, key=key)
    assert [key(r) for r in got] == [key(r) for r in expected]
    assert [r["status"] for r in got if r["backend"]["name"] == "faulty"] == ["crash", "timeout", "ok", "ok",
                                                                              "unsupported"]
    nodes = {n.node_id for n in cluster[0].list_all_nodes()}
    for r_local, r_ray in zip(expected, got):
        node = r_ray.pop("node")
        assert node["id"] in nodes and node["machine"]["cpu"] and node["machine"]["cores"] >= 1
        assert node["peaks"]["float32FlopsPerSecond"] > 0 and node["peaks"]["threads"] == 1
        if r_ray["status"] in ("crash", "timeout"):
            assert r_ray["message"].startswith("worker process died (node " if r_ray["status"] == "crash"
                                               else "did not finish within 4 s"), r_ray["message"]
            r_local, r_ray = {**r_local, "message": ""}, {**r_ray, "message": ""}
        assert {k: v for k, v in r_ray.items() if k not in BENCH_TIMINGS} == \
               {k: v for k, v in r_local.items() if k not in BENCH_TIMINGS}
    artifacts = [r["artifact"] for r in got if r["artifact"]]
    assert "artifacts/relu.graph.onnx" in artifacts
    for name in artifacts:  # the model timed on the node, byte for byte the local one
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    header = json.loads((tmp_path / "ray" / "summary.json").read_text())["header"]
    assert header["executor"] == "ray" and {n["id"] for n in header["nodes"]} == nodes
    assert "peaks" not in header, "the driver timed nothing: its peaks would mislead"
    assert {json.loads(line)["node"]["id"] for line in (tmp_path / "ray" / "bench.jsonl").read_text().splitlines()} \
        == nodes, "both nodes time benchmarks"
    assert arrivals[0] < arrivals[-1] - 2, "records stream as they complete, not after the hang"


def bench_of_a_device_runs_on_its_node(cluster, tmp_path):
    from test_bench import QUICK, TINY_PEAKS

    factory = RayExecutors(cluster[0].address)
    result = run_bench(tiny_bench_suite(tmp_path), [(FAULTY, {"device": "FAKE.1"})], tmp_path / "out",
                       BenchOptions(policy=QUICK, timeout=10, peaks=TINY_PEAKS, name_filter="^relu$"),
                       executor=bench_executor(factory))
    (record,) = result.records
    assert record["status"] == "ok" and record["node"]["id"] == cluster[1]
    assert record["backend"]["settings"]["hostThreads"] == 1, "threads default to the CPUs the node lends"
    with pytest.raises(BackendError, match="no node of the Ray cluster advertises the resource 'webnn_device:GPU.7'"):
        run_bench(tiny_bench_suite(tmp_path), [(FAULTY, {"device": "GPU.7"})], tmp_path / "none",
                  BenchOptions(policy=QUICK, peaks=TINY_PEAKS), executor=bench_executor(factory))


def test_a_bench_goes_on_without_a_node_that_is_gone(cluster, tmp_path, monkeypatch):
    """A node described at the start and gone before its actor is placed:
    its placement is dropped and the other nodes run every benchmark (the
    bench used to start a replacement on the dead node until it gave up)."""
    from test_bench import QUICK, TINY_PEAKS

    from webnn_harness.bench.ray_cluster import RayBench

    c = cluster[0]
    extra = c.add_node(**NODE_ARGS)
    c.wait_for_nodes()
    describe = RayBench.header

    def describe_then_lose_a_node(self, command, options):
        header = describe(self, command, options)
        assert extra.node_id in {n["id"] for n in self.nodes}
        c.remove_node(extra)
        return header

    monkeypatch.setattr(RayBench, "header", describe_then_lose_a_node)
    factory = RayExecutors(c.address)
    try:
        result = run_bench(tiny_bench_suite(tmp_path), [(FAULTY, {})], tmp_path / "out",
                           BenchOptions(policy=QUICK, timeout=10, peaks=TINY_PEAKS, name_filter="^(relu|sigmoid)$"),
                           executor=bench_executor(factory))
    finally:
        factory.close()
    assert sorted((r["benchmark"], r["variant"], r["status"]) for r in result.records) == [
        ("relu", "graph", "ok"), ("sigmoid", "graph", "ok"), ("sigmoid", "host", "unsupported")]  # no host sigmoid
    assert extra.node_id not in {r["node"]["id"] for r in result.records}


def test_bench_ray_address_needs_the_ray_executor(capsys):
    from webnn_harness.cli import main

    assert main(["bench", "-b", "reference", "--ray-address", "127.0.0.1:6379"]) == 2
    assert "--ray-address needs --executor ray" in capsys.readouterr().err


def test_a_bench_actor_holds_every_cpu_its_node_lends_and_stays_on_it(monkeypatch):
    """One benchmark at a time per node: the actor asks for all the node's CPUs, pinned to that node;
    threads default to those CPUs (backend and the host's BLAS alike)."""
    import webnn_harness.bench.ray_cluster as ray_bench

    started = []

    class Recorder:
        def options(self, **options):
            started.append(options)
            return self

        def remote(self, *args):
            started.append(args)

    monkeypatch.setattr(ray_bench, "actor_class", lambda cls: Recorder())
    node = {"id": "1a" * 28, "resources": {"CPU": 4.0, RESOURCE_PREFIX + "GPU.0": 1.0}, "description": {"id": "1a" * 28}}
    other = {"id": "2b" * 28, "resources": {"CPU": 8.0}, "description": {"id": "2b" * 28}}
    executor = ray_bench.RayBenchExecutor("onnxruntime", {"device": "GPU.0"}, RunOptions(workers=2), [node, other],
                                          None, None, None)
    (placement,) = executor.placements(batches=5)  # only the node with the device
    executor.new_actor(placement)
    options, args = started
    assert options["num_cpus"] == 4.0 and options["resources"] == {RESOURCE_PREFIX + "GPU.0": 1.0}
    assert options["scheduling_strategy"].node_id == node["id"] and options["scheduling_strategy"].soft is False
    assert options["runtime_env"]["env_vars"]["OPENBLAS_NUM_THREADS"] == "4"
    # threads from the node's CPUs, and the bench's defaults as a local bench has them (ORT spinning off)
    assert args == ("onnxruntime", {"device": "GPU.0", "threads": "4", "spinning": "0"}, 4, node["description"])
