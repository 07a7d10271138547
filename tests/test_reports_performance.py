"""The performance report: bench folders (written here exactly as the bench
output contract says) -> the model's derived figures -> performance.html and
its SVG charts. The numbers in the fixtures are inputs; every expected figure
is computed in the test from those inputs."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from statistics import median

import pytest
from webnn_harness.reports import build_model, build_site
from webnn_harness.reports.charts import roofline_svg
from webnn_harness.reports.performance import (
    SLOW_TIER_FACTOR,
    build_performance,
    median_difference,
    strip_local_paths,
)

ORT = {"name": "onnxruntime", "version": "1.32.0", "device": "CPUExecutionProvider (x86_64)",
       "settings": {"threads": 2, "opset": 21}}
OV = {"name": "openvino", "version": "2026.4.1-22982-e213a14-releases/2026/4", "device": "CPU",
      "settings": {"inference_num_threads": 2, "precision": "exact"}}
PEAKS = {"memoryBandwidthBytesPerSecond": 1.0e10, "float32FlopsPerSecond": 1.0e11,
         "method": "numpy copy of 256 MiB; float32 matmul 2048x2048", "threads": 2,
         "noise": {"cv": 0.0625, "medianSeconds": 0.03, "samples": 33, "method": "numpy float32 1024x1024 matmul"}}


def latency(times: list[float]) -> dict:
    ordered = sorted(times)
    mean = sum(times) / len(times)
    sd = (sum((t - mean) ** 2 for t in times) / (len(times) - 1)) ** 0.5
    q = lambda f: ordered[int(f * (len(ordered) - 1))]  # noqa: E731 - a rough quantile is enough for a fixture
    return {"median": median(times), "mean": mean, "min": ordered[0], "max": ordered[-1], "p90": q(0.9),
            "iqr": q(0.75) - q(0.25), "cv": sd / mean, "samples": len(times), "times": times,
            "cpuMedian": 1.5 * median(times)}  # two threads, not both busy the whole call


def record(benchmark, variant, times, *, backend=ORT, kind="scenario", status="ok", op=None, data_type="float32",
           workload="1x100x100x100", flops=None, bytes_=None, published=None, message=None, verification=None,
           suite="seed", **params) -> dict:
    return {
        "benchmark": benchmark, "suite": suite, "kind": kind, "variant": variant,
        "title": f"{benchmark} <b>{variant}</b>", "op": op, "dataType": data_type,
        "params": {"workload": workload, **params}, "status": status, "message": message,
        "backend": backend, "buildSeconds": 0.0123, "firstRunSeconds": 0.0045,
        "latency": latency(times) if times else None, "flops": flops, "bytes": bytes_,
        "transferBytes": None, "artifact": f"artifacts/{benchmark}.{variant}.onnx",
        "verification": verification or {"maxError": 3.0, "metric": "ULP", "budget": 64, "compared": 1000},
        "published": published,
    }


def write_bench(folder: Path, records: list[dict], *, backends=(ORT,), complete=True, command=None) -> Path:
    folder.mkdir(parents=True)
    with open(folder / "bench.jsonl", "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    counts: dict[str, int] = {}
    for r in records:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    summary = {
        "header": {"harness": "webnn-harness", "harnessVersion": "0.1.0", "date": "2026-11-23T01:00:00+00:00",
                   "command": command or f"webnn-harness bench --backend onnxruntime --out {folder}",
                   "machine": {"cpu": "Test CPU @ 2 GHz", "cores": 2, "platform": "Linux-6.1-x86_64",
                               "memoryBytes": 8 * 2**30, "hostname": "bench-host"},
                   "peaks": PEAKS, "timerOverheadSeconds": 5e-8},
        "suite": records[0]["suite"], "backends": list(backends), "complete": complete, "counts": counts,
    }
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder


SEED_TIMES = {  # seconds, per variant
    "host": [0.060, 0.062, 0.064, 0.061, 0.063],
    "readback": [0.040, 0.041, 0.039, 0.042, 0.040],
    "deviceTensor": [0.023, 0.022, 0.024, 0.023, 0.022],
    "fused": [0.020, 0.021, 0.020, 0.022, 0.021],
    "opByOp": [0.030, 0.031, 0.032, 0.030, 0.031],
}
PUBLISHED = {"host": 0.0635, "readback": 0.0396, "deviceTensor": 0.0225, "fused": 0.0208}
SEED_FLOPS, SEED_BYTES = 2_000_000_000, 8_000_000
LAYOUT_TIMES = {
    ("1x100x100x100", "nchw"): [0.010, 0.011, 0.010, 0.012],
    ("1x100x100x100", "nhwc"): [0.013, 0.012, 0.013, 0.014],
    ("1x100x100x100", "nhwcTransposed"): [0.016, 0.015, 0.016, 0.017],
    ("1x8x8x16", "nchw"): [0.0010, 0.0011, 0.0010, 0.0012],
    ("1x8x8x16", "nhwc"): [0.0009, 0.0009, 0.0010, 0.0009],
    ("1x8x8x16", "nhwcTransposed"): [0.0011, 0.0012, 0.0010, 0.0011],
}
OP_TIMES = {
    ("conv2d", "float32"): [0.002, 0.0021, 0.002, 0.0022],
    ("conv2d", "float16"): [0.009, 0.0091, 0.0095, 0.0092],  # slower than float32 by more than the tier factor
    ("matmul", "float32"): [0.001, 0.0011, 0.001, 0.0012],
    ("matmul", "float16"): [0.0015, 0.0016, 0.0015, 0.0017],  # slower, but under the factor
}
WRONG_TIMES = [0.000123, 0.000123, 0.000123]  # a wrong result that was (wrongly) timed: must never show


def seed_records(backend=ORT) -> list[dict]:
    out = [record("seed-conv2d-add-relu", v, t, backend=backend, flops=SEED_FLOPS, bytes_=SEED_BYTES,
                  published={"seconds": PUBLISHED[v], "source": "WebNN WG, custom-ops interop measurements (WebGPU)"}
                  if v in PUBLISHED else None)
           for v, t in SEED_TIMES.items()]
    for (workload, variant), t in LAYOUT_TIMES.items():
        out.append(record(f"layout-conv-{workload}", variant, t, backend=backend, workload=workload))
    for (op, dt), t in OP_TIMES.items():
        out.append(record(f"op-{op}-{dt}", "graph", t, backend=backend, kind="op", op=op, data_type=dt,
                          suite="seed", workload="1x64x56x56", shape=[1, 64, 56, 56], flops=10**8, bytes_=10**6))
    out.append(record("op-relu-float32", "graph", WRONG_TIMES, backend=backend, kind="op", op="relu", status="wrong",
                      message="output 0 differs", verification={"maxError": 1e9, "metric": "ULP", "budget": 0,
                                                                "compared": 100}))
    out.append(record("op-gelu-float32", "graph", None, backend=backend, kind="op", op="gelu", status="crash",
                      message="worker died: Segmentation fault at /home/someone/build/libort.so"))
    return out


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    return write_bench(tmp_path_factory.mktemp("bench") / "bench-ort", seed_records())


@pytest.fixture(scope="module")
def site(bench) -> Path:
    """The site of the seed bench, rendered once for the tests that read it."""
    out = bench.parent / "site"
    build_site([bench], out)
    return out


def test_scenario_ratios_are_each_variant_over_fused(bench):
    perf = build_performance([bench])
    ratios = {r.variant: r for r in perf.ratios if r.benchmark == "seed-conv2d-add-relu"}
    fused = median(SEED_TIMES["fused"])
    assert set(ratios) == set(SEED_TIMES) - {"fused"}
    for variant, r in ratios.items():
        assert r.baseline == "fused"
        assert r.ratio == pytest.approx(median(SEED_TIMES[variant]) / fused)


def test_published_figures_sit_beside_ours_with_their_own_ratios(bench):
    perf = build_performance([bench])
    rows = {p.row.variant: p for p in perf.published_rows}
    assert set(rows) == set(PUBLISHED)
    assert rows["fused"].is_baseline
    for variant in ("host", "readback", "deviceTensor"):
        p = rows[variant]
        assert p.published.seconds == PUBLISHED[variant]
        assert p.published_ratio == pytest.approx(PUBLISHED[variant] / PUBLISHED["fused"])
        (ours,) = p.ratios
        assert ours.ratio == pytest.approx(median(SEED_TIMES[variant]) / median(SEED_TIMES["fused"]))


def test_layout_share_is_what_the_transposes_add_over_nchw(bench):
    perf = build_performance([bench])
    by_workload = {l.workload: l for l in perf.layout}
    assert set(by_workload) == {"1x100x100x100", "1x8x8x16"}
    for workload, l in by_workload.items():
        nchw = median(LAYOUT_TIMES[(workload, "nchw")])
        nhwc = median(LAYOUT_TIMES[(workload, "nhwc")])
        transposed = median(LAYOUT_TIMES[(workload, "nhwcTransposed")])
        assert l.transpose_seconds == pytest.approx(transposed - nchw)
        assert l.transpose_share == pytest.approx((transposed - nchw) / transposed)
        assert l.preferred == ("nchw" if nchw < nhwc else "nhwc")


def test_roofline_fraction_is_achieved_over_the_lower_roof(bench):
    perf = build_performance([bench])
    (roof,) = perf.roofline
    points = roof.points
    bandwidth, peak = PEAKS["memoryBandwidthBytesPerSecond"], PEAKS["float32FlopsPerSecond"]
    fused = next(p for p in points if p.variant == "fused")
    intensity = SEED_FLOPS / SEED_BYTES
    achieved = SEED_FLOPS / median(SEED_TIMES["fused"])
    assert fused.intensity == pytest.approx(intensity)
    assert fused.achieved == pytest.approx(achieved)
    assert fused.bound == pytest.approx(min(peak, intensity * bandwidth))
    assert fused.fraction == pytest.approx(achieved / min(peak, intensity * bandwidth))
    assert fused.memory_bound == (intensity * bandwidth < peak)
    conv = next(p for p in points if p.benchmark == "op-conv2d-float32")
    assert conv.fraction == pytest.approx((10**8 / median(OP_TIMES[("conv2d", "float32")]))
                                          / min(peak, 100 * bandwidth))


def test_speed_tier_marks_only_what_is_factor_times_slower_than_float32(bench):
    perf = build_performance([bench])
    expected = {op for (op, dt), t in OP_TIMES.items() if dt != "float32"
                and median(t) / median(OP_TIMES[(op, "float32")]) >= SLOW_TIER_FACTOR}
    assert {t.op for t in perf.speed_tiers} == expected == {"conv2d"}
    (tier,) = perf.speed_tiers
    assert tier.data_type == "float16"
    assert tier.factor == pytest.approx(median(OP_TIMES[("conv2d", "float16")]) / median(OP_TIMES[("conv2d", "float32")]))


def test_wrong_results_are_never_speeds(tmp_path, bench, site):
    perf = build_performance([bench])
    wrong = next(r for r in perf.records if r.status == "wrong")
    assert not wrong.is_speed and wrong.seconds is None and wrong.flops_per_second is None
    assert wrong.problem.startswith("wrong: max error")
    assert all(p.benchmark != "op-relu-float32" for roof in perf.roofline for p in roof.points)
    # A wrong baseline gives no ratios at all.
    records = [record("chain", "graph", [0.001, 0.001, 0.001], status="wrong"),
               record("chain", "opByOp", [0.002, 0.002, 0.002])]
    perf = build_performance([write_bench(tmp_path / "wrong", records)])
    (ratio,) = perf.ratios
    assert ratio.ratio is None and "wrong" in ratio.problem

    html = (site / "performance.html").read_text()
    row = re.search(r"<tr><td[^>]*>op-relu-float32.*?</tr>", html, re.S).group(0)
    assert "wrong" in row
    assert "123.0 µs" not in html  # the wrong run's median appears nowhere
    assert "op-relu-float32" not in (site / "charts" / "distribution-ops.svg").read_text()


def test_page_renders_without_local_paths_and_names_what_was_measured(bench, site):
    page = (site / "performance.html").read_text()
    for text in [page] + [p.read_text() for p in site.rglob("*.svg")]:
        assert str(bench.parent) not in text
        assert "/home/someone" not in text
    # The header names backend, version, device, threads, precision, harness, machine, date and the peaks.
    for needle in ("onnxruntime", "1.32.0", "CPUExecutionProvider (x86_64)", "Threads", "Precision",
                   "webnn-harness 0.1.0", "Test CPU @ 2 GHz", "2026-11-23 01:00 UTC", "10 GB/s", "100 GFLOP/s",
                   "Machine noise</th><td>CV 6.2%"):
        assert needle in page, needle
    assert "crash: worker died: Segmentation fault at libort.so" in page
    assert "<b>" not in page  # titles are escaped
    # Bench folders only: the performance page is the index, and linked from the nav.
    assert "<h1>Performance</h1>" in (site / "index.html").read_text()
    assert 'href="performance.html"' in page


def test_charts_are_deterministic_svg_with_no_external_references(bench, site):
    charts = sorted(p.name for p in (site / "charts").glob("*.svg"))
    assert "roofline-1.svg" in charts and "distribution-ops.svg" in charts
    assert "distribution-seed-conv2d-add-relu.svg" in charts
    page = (site / "performance.html").read_text()
    perf = build_performance([bench])
    again = {"roofline-1.svg": roofline_svg(perf.roofline[0].points, perf.roofline[0].peaks,
                                            {c.backend.slug: c.backend.label for c in perf.columns})}
    assert again["roofline-1.svg"] == (site / "charts" / "roofline-1.svg").read_text()
    for name in charts:
        svg = (site / "charts" / name).read_text()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
        assert not re.search(r"(href|src)=\"(https?:|//)", svg), name
        assert "url(http" not in svg and "<image" not in svg and "DOCTYPE" not in svg
        assert f'src="charts/{name}"' in page
    assert not re.search(r"(href|src)=\"(https?:|//)", page)


def test_versions_sit_side_by_side_and_speed_tiers_reach_the_capability_matrix(tmp_path, bench):
    newer = dict(ORT, version="1.33.0")
    other = write_bench(tmp_path / "bench-ort-new", seed_records(newer), backends=(newer,))
    perf = build_performance([other, bench])
    assert [c.backend.version for c in perf.columns] == ["1.32.0", "1.33.0"]
    assert all(len(row.cells) == 2 for row in perf.op_rows)
    # A probe of the same backend build: its matrix cell carries the tier.
    probe = tmp_path / "probe"
    probe.mkdir()
    header = {"backend": ORT, "harnessVersion": "0.1.0", "date": "2026-11-23T00:00:00+00:00"}
    limits = {"conv2d": {m: {"dataTypes": ["float32", "float16"], "rankRange": {"min": 4, "max": 4}}
                         for m in ("input", "filter", "output")}}
    (probe / "ort-opSupportLimits.json").write_text(json.dumps(limits))
    (probe / "ort-probe.json").write_text(json.dumps({"header": header, "combinations": []}))
    model = build_model([bench, probe])
    (slug,) = [p.backend.slug for p in model.probes]
    assert [t.op for t in model.speed_tiers[(slug, "conv2d")]] == ["conv2d"]
    site = tmp_path / "site"
    build_site([bench, probe], site)
    index = (site / "index.html").read_text()
    factor = median(OP_TIMES[("conv2d", "float16")]) / median(OP_TIMES[("conv2d", "float32")])
    assert f"f16 {factor:.2f}× slower" in index
    for page in site.rglob("*.html"):  # the probe's own page included
        assert str(tmp_path) not in page.read_text(), page.name


def test_an_interrupted_bench_says_so_and_keeps_its_records(tmp_path):
    folder = write_bench(tmp_path / "cut", seed_records()[:3], complete=False)
    with open(folder / "bench.jsonl", "a") as f:
        f.write('{"benchmark": "seed-conv2d-add-relu", "vari')  # the line being written when it stopped
    perf = build_performance([folder])
    assert not perf.runs[0].complete and len(perf.records) == 3
    site = tmp_path / "site"
    build_site([folder], site)
    assert "incomplete" in (site / "performance.html").read_text()


def test_a_bench_folder_without_its_summary_is_a_page_not_a_traceback(tmp_path):
    """bench.jsonl alone (a bench killed before it wrote summary.json, or
    records copied without it): the page says it is incomplete and names no
    machine it does not know."""
    folder = write_bench(tmp_path / "bare", seed_records()[:3])
    (folder / "summary.json").unlink()
    site = tmp_path / "site"
    build_site([folder], site)
    page = (site / "performance.html").read_text()
    assert "incomplete" in page and "Test CPU" not in page


def test_a_malformed_record_is_skipped_and_named_by_folder_and_line(tmp_path):
    # As every command reads an output folder (harness/files/reading.py): the line is skipped and said.
    folder = write_bench(tmp_path / "bad", seed_records()[:2])
    with open(folder / "bench.jsonl", "a") as f:
        f.write(json.dumps({"variant": "fused", "status": "ok"}) + "\n")
    model = build_model([folder])
    assert len(model.performance.records) == 2
    assert any("bad/bench.jsonl: line 3: " in w and "'benchmark' is a required property" in w for w in model.warnings)


def test_strip_local_paths_keeps_relative_paths_and_urls():
    assert strip_local_paths("webnn-harness bench --out /tmp/x/bench --suite seed") == \
        "webnn-harness bench --out bench --suite seed"
    assert strip_local_paths("artifacts/a.onnx and https://example.org/a/b") == "artifacts/a.onnx and https://example.org/a/b"


def test_without_matplotlib_the_page_keeps_its_tables_and_says_what_is_missing(tmp_path, bench, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    site = tmp_path / "site"
    build_site([bench], site)
    page = (site / "performance.html").read_text()
    assert "Charts need matplotlib" in page and "Scenario ratios" in page
    assert not list((site / "charts").glob("*.svg"))


def test_folders_of_one_backend_share_a_column_unless_they_measured_the_same_thing(tmp_path):
    records = seed_records()
    scenarios = [r for r in records if r["kind"] == "scenario"]
    ops = [r for r in records if r["kind"] == "op"]
    first = write_bench(tmp_path / "scenarios", scenarios)
    second = write_bench(tmp_path / "ops", ops)
    perf = build_performance([first, second])
    (column,) = perf.columns
    assert column.runs == (0, 1)
    assert all(cell.record is not None for row in perf.op_rows + perf.scenario_rows for cell in row.cells)
    # The same benchmarks measured again (another day): a second column, nothing overwritten.
    again = write_bench(tmp_path / "again", scenarios)
    perf = build_performance([first, again])
    assert [c.runs for c in perf.columns] == [(0,), (1,)]
    assert len({c.backend.label for c in perf.columns}) == 2


def _node(node_id: str, hostname: str, cpu: str, flops: float) -> dict:
    return {"id": node_id, "machine": {"cpu": cpu, "cores": 4, "platform": "Linux-6.1-x86_64",
                                       "memoryBytes": 16 * 2**30, "hostname": hostname},
            "peaks": {**PEAKS, "float32FlopsPerSecond": flops, "threads": 4}, "timerOverheadSeconds": 4e-8}


def test_a_column_never_mixes_machines_and_a_ray_bench_is_one_run_per_node(tmp_path, bench):
    """Folders of one backend from two machines: two columns, each naming its machine. A bench on
    a Ray cluster: one run per node with that node's machine and peaks, which its roofline uses."""
    scenarios = [r for r in seed_records() if r["kind"] == "scenario"]
    ops = [r for r in seed_records() if r["kind"] == "op"]
    elsewhere = write_bench(tmp_path / "elsewhere", ops)
    summary = json.loads((elsewhere / "summary.json").read_text())
    summary["header"]["machine"]["hostname"] = "other-host"
    (elsewhere / "summary.json").write_text(json.dumps(summary))
    perf = build_performance([write_bench(tmp_path / "here", scenarios), elsewhere])
    assert [c.runs for c in perf.columns] == [(0,), (1,)]
    assert [c.machine.split(",")[0] for c in perf.columns] == ["bench-host", "other-host"]

    a, b = _node("a" * 56, "farm-1", "CPU A", 2.0e11), _node("b" * 56, "farm-2", "CPU B", 3.0e11)
    on_ray = write_bench(tmp_path / "ray", [dict(r, node=a if i % 2 else b) for i, r in enumerate(ops)])
    summary = json.loads((on_ray / "summary.json").read_text())
    del summary["header"]["machine"], summary["header"]["peaks"]
    summary["header"].update(executor="ray", nodes=[a, b])
    (on_ray / "summary.json").write_text(json.dumps(summary))
    perf = build_performance([on_ray])
    assert [(r.machine["hostname"], r.peaks.flops) for r in perf.runs] == [("farm-2", 3.0e11), ("farm-1", 2.0e11)]
    assert [r.label.split(" on ")[1] for r in perf.runs] == ["farm-2 (Ray node bbbbbbbb)", "farm-1 (Ray node aaaaaaaa)"]
    assert [(c.runs, c.machine) for c in perf.columns] == [((0,), "farm-2, CPU B, 4 cores"), ((1,), "farm-1, CPU A, 4 cores")]
    assert [roof.peaks for roof in perf.roofline] == [run.peaks for run in perf.runs]
    for roof in perf.roofline:  # each under its own node's roof
        peak = roof.peaks.flops
        assert any(p.bound == peak for p in roof.points)
        for p in roof.points:
            assert p.bound == pytest.approx(min(peak, p.intensity * PEAKS["memoryBandwidthBytesPerSecond"]))
    assert sum(r.counts.get("ok", 0) for r in perf.runs) == sum(r["status"] == "ok" for r in ops)
    site = tmp_path / "site"
    build_site([on_ray], site)
    page = (site / "performance.html").read_text()
    assert "on farm-1, CPU A, 4 cores" in page and "farm-2 (Ray node bbbbbbbb)" in page


def test_strip_local_paths_leaves_markup_in_messages_alone():
    # A backend message may hold markup; "</b>" is a closing tag, not a folder.
    assert strip_local_paths("error in </b> tag") == "error in </b> tag"
    assert strip_local_paths("<i>/tmp/run/a.onnx</i>") == "<i>a.onnx</i>"


def test_cpu_per_call_is_shown_beside_the_wall_median_and_older_records_go_without(bench, site, tmp_path):
    perf = build_performance([bench])
    fast = next(r for r in perf.records if r.is_speed)
    assert fast.latency.cpu_median == pytest.approx(1.5 * fast.latency.median)
    assert re.search(r"CV [0-9.]+%? · CPU [0-9.]+ [µm]?s", (site / "performance.html").read_text())
    older = record("chain", "graph", [0.001, 0.002, 0.003])
    del older["latency"]["cpuMedian"]  # written before the bench recorded CPU time
    (old,) = build_performance([write_bench(tmp_path / "older", [older])]).records
    assert old.latency.cpu_median is None


def test_an_accelerator_column_gets_no_host_roofline(tmp_path, bench):
    """The bench measures the host CPU's peaks: a backend timed on a GPU is
    left out of the roofline, and the page says so, naming it."""
    cuda = {**ORT, "device": "CUDAExecutionProvider (NVIDIA H100 80GB HBM3 #0)", "hostCpu": False,
            "settings": {**ORT["settings"], "provider": "CUDAExecutionProvider"}}
    gpu = write_bench(tmp_path / "bench-cuda", seed_records(cuda), backends=(cuda,))
    perf = build_performance([bench, gpu])
    (cpu_column, gpu_column) = sorted(perf.columns, key=lambda c: c.host_cpu, reverse=True)
    assert cpu_column.host_cpu and not gpu_column.host_cpu
    # Under the machine's peaks: the CPU folder's points, and the GPU folder's host variant (numpy on the host).
    machine_roofs = perf.roofline
    assert all(roof.source == "machine" for roof in machine_roofs)
    assert all(p.column == cpu_column.backend.slug or p.variant == "host" for roof in machine_roofs for p in roof.points)
    assert any(p.column == gpu_column.backend.slug and p.variant == "host" for p in machine_roofs[-1].points)
    assert perf.unroofed == (gpu_column,)
    out = tmp_path / "site"
    build_site([gpu], out)
    page = (out / "performance.html").read_text()
    assert "timed on an accelerator with no <code>peaks</code> suite bench of its own" in page


def test_an_accelerator_is_drawn_under_the_peaks_it_attained_itself(tmp_path, bench):
    """With a ``peaks`` suite bench of the same backend and options, the
    accelerator's points sit under its own roofs: the best matmul flop rate
    and the best add byte rate it measured (resident on the device)."""
    cuda = {**ORT, "device": "CUDAExecutionProvider (NVIDIA H100 80GB HBM3 #0)", "hostCpu": False,
            "settings": {**ORT["settings"], "provider": "CUDAExecutionProvider"}}
    gpu = write_bench(tmp_path / "bench-cuda", seed_records(cuda), backends=(cuda,))
    matmul_flops, add_bytes = 2 * 2048**3, 3 * 4 * (32 << 20)
    peaks = write_bench(tmp_path / "peaks-cuda", [
        record("peak-matmul-2048", "resident", [0.0004, 0.0005, 0.0004], backend=cuda, kind="peak", op="matmul",
               suite="peaks", flops=matmul_flops, bytes_=3 * 4 * 2048**2, peak="flops"),
        record("peak-add-128MiB", "resident", [0.0002, 0.0002, 0.0003], backend=cuda, kind="peak", op="add",
               suite="peaks", flops=32 << 20, bytes_=add_bytes, peak="bandwidth")], backends=(cuda,))
    perf = build_performance([bench, gpu, peaks])
    assert not perf.unroofed
    *machine, own = perf.roofline
    assert [roof.source for roof in machine] == ["machine", "machine"] and own.source == "backend"
    assert not any(p.variant == "host" for p in own.points)  # numpy on the host is not under the GPU's roof
    assert own.peaks.flops == pytest.approx(matmul_flops / 0.0004)
    assert own.peaks.bandwidth == pytest.approx(add_bytes / 0.0002)
    fused = next(p for p in own.points if p.benchmark == "seed-conv2d-add-relu" and p.variant == "fused")
    assert fused.bound == pytest.approx(min(own.peaks.flops, SEED_FLOPS / SEED_BYTES * own.peaks.bandwidth))
    assert not any(p.benchmark.startswith("peak-") for roof in perf.roofline for p in roof.points)
    out = tmp_path / "site"
    build_site([gpu, peaks], out)
    page = (out / "performance.html").read_text()
    assert "attained by the backend" in page and "roofline-1.svg" in page


def test_a_backend_says_its_threads_and_precision_and_older_records_keep_their_labels(tmp_path):
    """BackendInfo's threads and precision, written in each record's backend,
    label its column whatever its settings call them; records written before
    backends said them (archives keep them) are labelled from their settings,
    as they always were."""
    vendor = {"name": "vendor-npu", "version": "3.1", "device": "CPU",
              "settings": {"cpu_threads": 3, "weights": "int8"}, "threads": 3, "precision": "int8 weights"}
    said = write_bench(tmp_path / "said", [record("seed", "host", [1e-3] * 5, backend=vendor)], backends=(vendor,))
    older = write_bench(tmp_path / "older", [record("seed", "host", [1e-3] * 5, backend=ORT),
                                              record("seed", "host", [1e-3] * 5, backend=OV)], backends=(ORT, OV))
    columns = {c.backend.name: (c.threads, c.precision) for c in build_performance([said, older]).columns}
    assert columns == {"vendor-npu": ("3", "int8 weights"), "onnxruntime": ("2", ""), "openvino": ("2", "exact")}


# ---- the browser (issue #38) -------------------------------------------------

CHROMIUM = {"name": "chromium", "version": "153.0.8010.0", "device": "cpu (Chromium WebNN)", "threads": 1,
            "settings": {"deviceType": "cpu", "packageVersion": "153.0.0"}}
LITERT = {"name": "litert", "version": "2.1.0", "device": "CPU (XNNPACK)", "threads": 1,
          "settings": {"threads": 1, "delegate": "xnnpack"}}
OP_SIZES = {  # benchmark -> (flops, chromium times, litert times): the browser adds about 0.3 ms a dispatch
    "op-small": (10**5, [0.00040, 0.00042, 0.00041, 0.00043, 0.00040], [0.00010, 0.00011, 0.00010, 0.00012, 0.00011]),
    "op-large": (10**9, [0.0203, 0.0204, 0.0202, 0.0205, 0.0203], [0.0200, 0.0201, 0.0199, 0.0200, 0.0201]),
}


def test_the_nchw_graph_over_the_nhwc_one_has_its_interval(bench):
    for l in build_performance([bench]).layout:
        nchw, nhwc = (LAYOUT_TIMES[(l.workload, v)] for v in ("nchw", "nhwc"))
        d = l.nchw_over_nhwc
        assert d.seconds == pytest.approx(median(nchw) - median(nhwc))
        # the interval lies between the extremes a resample of medians can reach
        assert min(nchw) - max(nhwc) <= d.low <= d.seconds <= d.high <= max(nchw) - min(nhwc)
    fixed = median_difference([2.0, 2.0, 2.0], [1.0, 1.0, 1.0])
    assert (fixed.seconds, fixed.low, fixed.high, fixed.excludes_zero) == (1.0, 1.0, 1.0, True)
    assert median_difference([1.0], [1.0, 2.0]) is None


def test_the_browser_sits_beside_its_runtime_per_dispatch_smallest_op_first(tmp_path):
    records = {backend["name"]: [record(b, "graph", times, backend=backend, kind="op", op="conv2d", flops=flops,
                                        suite="ops")
                                 for b, (flops, *pair) in OP_SIZES.items()
                                 for times in [pair[0 if backend is CHROMIUM else 1]]]
               for backend in (CHROMIUM, LITERT)}
    folders = [write_bench(tmp_path / name, rs, backends=(backend,))
               for (name, rs), backend in zip(records.items(), (CHROMIUM, LITERT))]
    perf = build_performance(folders)
    assert [o.benchmark for o in perf.browser_overheads] == ["op-small", "op-large"]
    for o in perf.browser_overheads:
        _, browser, runtime = OP_SIZES[o.benchmark]
        assert o.per_dispatch.seconds == pytest.approx(median(browser) - median(runtime))
        assert o.per_dispatch.excludes_zero
        assert perf.column(o.browser).backend.name == "chromium" and perf.column(o.runtime).threads == "1"
    site = tmp_path / "site"
    build_site(folders, site)
    page = (site / "performance.html").read_text()
    assert 'id="browser"' in page and "graph_impl_tflite.cc" in page and "per dispatch" in page


def test_transposes_a_backend_removed_cost_none_not_a_negative_time(tmp_path):
    """Issue #42: a transposed graph faster than its nchw twin (the backend removed the transposes)
    shows "none" with by how much it was faster, never a negative cost or share."""
    times = {"nchw": [0.0100, 0.0101, 0.0100, 0.0102], "nhwc": [0.0080, 0.0081, 0.0080, 0.0082],
             "nhwcTransposed": [0.0070, 0.0071, 0.0070, 0.0072]}
    folder = write_bench(tmp_path / "bench", [record("layout-conv-1x8x8x16", variant, t, backend=ORT, workload="1x8x8x16")
                                              for variant, t in times.items()])
    (layout,) = build_performance([folder]).layout
    assert layout.transpose_seconds < 0
    assert layout.transpose_seconds == pytest.approx(median(times["nhwcTransposed"]) - median(times["nchw"]))
    build_site([folder], tmp_path / "site")
    page = (tmp_path / "site" / "performance.html").read_text()
    row = re.search(r"<tr><td>layout-conv-1x8x8x16</td>.*?</tr>", page, flags=re.S).group(0)
    assert 'data-v="0">none<' in row and "the transposed graph was 3.000 ms faster" in row
    assert 'data-v="0">0%<' in row  # the share is none too, not a negative percentage
