"""The bench on the chromium backend (issue #38): every variant built and
timed in the page, its samples summarised by the harness as any backend's,
each record saying where it was timed and which WebNN calls. The browser
tests are small (a tiny conv2d + add + relu, a few milliseconds of samples)
and skip without an installed Chromium."""
from __future__ import annotations

import shutil

import pytest

from webnn_harness.backends.base import Samples
from webnn_harness.backends.chromium import install
from webnn_harness.bench.measure import TimingPolicy, timed_elsewhere
from webnn_harness.bench.suite import load_suite
from webnn_harness.bench.variants import PLAN_KINDS, timed_plan
from webnn_harness.bench.worker import BenchWorker, Task
from webnn_harness.loading.cases import load_case
from test_bench import SEED_LIKE, suite_file

QUICK = TimingPolicy(min_time=0.01, min_samples=3, warmup_time=0.0, max_time=2.0)

real = pytest.mark.skipif(not install.installed() or shutil.which("node") is None,
                          reason="no Chromium installed for the chromium backend: "
                                 "run 'webnn-harness browsers install' (CI installs it)")


def _graph():
    case = load_case({"name": "g", "graph": SEED_LIKE["graph"]}, "t", 0)
    return case.graph, case.inputs


# ---- without a browser ---------------------------------------------------------

def test_op_by_op_variants_plan_one_graph_per_op_and_whole_ones_one_graph():
    graph, inputs = _graph()
    host, device, fused = (timed_plan(v, graph, inputs) for v in ("host", "deviceTensor", "fused"))
    assert (host.kind, device.kind, fused.kind) == ("perOp", "dispatch", "chain")
    assert [p.ops for p in host.parts] == [["conv2d"], ["add"], ["relu"]] and fused.parts == (graph,)
    assert host.outputs == fused.outputs == ("out",)
    # the intermediates name one tensor across parts: conv2d's y is add's input
    assert host.parts[0].outputs == ("y",) and "y" in host.parts[1].inputs
    assert timed_plan("readback", graph, inputs).kind == "chain" and len(timed_plan("readback", graph, inputs).parts) == 3


def test_every_variant_of_the_suites_has_a_plan():
    for name in ("seed", "ops", "peaks"):
        for bench in load_suite(name).benchmarks:
            assert set(bench.variants) <= set(PLAN_KINDS), (name, bench.id)


def test_samples_timed_elsewhere_get_the_harness_statistics_and_say_where():
    samples = Samples((0.003, 0.001, 0.002), 4, "minimums", "page performance.now()", "dispatch(graph)",
                      {"plan": "dispatch"})
    latency = timed_elsewhere(samples).to_json()
    assert latency["median"] == 0.002 and latency["samples"] == 3 and latency["number"] == 4
    assert latency["timed"] == {"timer": "page performance.now()", "calls": "dispatch(graph)", "plan": "dispatch"}
    assert "cpuMedian" not in latency  # the page has no process CPU clock


# ---- the real browser ----------------------------------------------------------

@pytest.fixture(scope="module")
def chromium():
    from webnn_harness import backends

    backend = backends.create("chromium", {})
    yield backend
    backend.browser.close()


@real
def test_every_seed_variant_is_verified_and_timed_in_the_page(tmp_path, chromium):
    worker = BenchWorker(chromium, chromium.info().to_json())
    (bench,) = load_suite(str(suite_file(tmp_path, [SEED_LIKE]))).benchmarks
    calls = {}
    for variant in bench.variants:
        record = worker.run(Task(bench, variant, QUICK, str(tmp_path))).to_json()
        assert record["status"] == "ok", (variant, record["message"])
        assert record["verification"]["compared"] == 5 * 5 * 4
        latency = record["latency"]
        assert latency["samples"] >= 3 and latency["median"] > 0 and latency["stoppedBy"] == "minimums"
        timed = latency["timed"]
        assert timed["timer"] == "page performance.now()" and timed["crossOriginIsolated"] is True
        calls[variant] = (timed["plan"], timed["graphs"], timed["calls"])
    assert calls["host"][:2] == calls["opByOpReadback"][:2] == ("perOp", 3)
    assert calls["readback"][:2] == ("chain", 3) and calls["fused"][:2] == ("chain", 1)
    assert calls["deviceTensor"][:2] == ("dispatch", 3)
    assert "writeTensor" not in calls["deviceTensor"][2].split(";")[0]
    assert calls["host"][2].startswith("per op: writeTensor")


@real
def test_the_page_times_the_webnn_calls_not_a_playwright_round_trip(chromium):
    """A tiny fused graph's page median is below the fastest of its steps
    timed from Python, each a page call (the same WebNN calls plus the round
    trip and the outputs' encoding)."""
    import time

    from webnn_harness.bench.variants import prepare

    graph, inputs = _graph()
    prepared = prepare("fused", "scenario", graph, inputs, chromium, None)
    round_trips = []
    for _ in range(5):
        t0 = time.perf_counter()
        prepared.step()
        round_trips.append(time.perf_counter() - t0)
    latency = prepared.measure(QUICK).to_json()
    assert latency["median"] < min(round_trips), (latency["median"], round_trips)


@real
def test_transfers_are_timed_and_a_refused_graph_is_unsupported_in_the_page(tmp_path, chromium):
    worker = BenchWorker(chromium, chromium.info().to_json())
    transfer = {"id": "t", "kind": "transfer", "title": "t", "variants": ["upload", "download"],
                "graph": {"inputs": {"x": {"data": {"generate": {"distribution": "uniform", "low": 0, "high": 1}},
                                           "descriptor": {"shape": [1024], "dataType": "float32"}}},
                          "operators": [{"name": "identity", "arguments": [{"input": "x"}], "outputs": "y"}]}}
    refused = {"id": "r", "kind": "op", "title": "r", "variants": ["graph"],
               "graph": {"inputs": {"x": {"data": [1, -2], "descriptor": {"shape": [2], "dataType": "int64"}}},
                         "operators": [{"name": "abs", "arguments": [{"input": "x"}], "outputs": "y"}]}}
    suite = load_suite(str(suite_file(tmp_path, [transfer, refused])))
    for bench in suite.benchmarks:
        for variant in bench.variants:
            record = worker.run(Task(bench, variant, QUICK, str(tmp_path))).to_json()
            if bench.id == "t":
                assert record["status"] == "ok" and record["latency"]["timed"]["plan"] == variant, record["message"]
            else:  # abs on int64: outside the context's declared limits, refused when the page builds it
                assert record["status"] == "unsupported" and record["latency"] is None, record["message"]
                assert record["message"].startswith("builder.abs threw TypeError"), record["message"]
