"""The performance page's per-node breakdown of profiled benchmarks (bench
--profile, issue #30): the nodes that ran, fused or not, their share, the
fallbacks, and the layout workloads' transposes from inside the graph. The
figures in the fixtures are inputs; every expected figure is computed here
from them."""
from __future__ import annotations

import re
from statistics import median

import pytest

from test_reports_performance import ORT, OV, record, write_bench
from webnn_harness.reports import build_site
from webnn_harness.reports.performance import build_performance
from webnn_harness.reports.render import _pct, _seconds

TIMES = [0.020, 0.021, 0.020, 0.022, 0.021]
NCHW_TIMES = [0.018, 0.019, 0.018, 0.017, 0.019]
ORT_FUSED = {"runs": 10, "sessions": 1, "nodes": [
    {"name": "ReorderInput", "op": "ReorderInput", "kernel": "CPUExecutionProvider", "seconds": 0.0012},
    {"name": "ort:Conv:3_nchwc", "op": "Conv", "kernel": "CPUExecutionProvider", "seconds": 0.0160},
    {"name": "ReorderOutput", "op": "ReorderOutput", "kernel": "CPUExecutionProvider", "seconds": 0.0008},
    {"name": "Add_4", "op": "Add", "kernel": "CPUExecutionProvider", "seconds": 0.0007},
    {"name": "Relu_5", "op": "Relu", "kernel": "CPUExecutionProvider", "seconds": 0.0004}],
    "removed": [{"op": "Transpose", "name": ""}, {"op": "Transpose", "name": ""}, {"op": "Identity", "name": ""}],
    "nodeSeconds": 0.0191, "runSeconds": 0.0199, "runNodeSeconds": 0.0195, "plainSeconds": 0.0190}
OV_TRANSPOSED = {"runs": 10, "sessions": 1, "nodes": [
    {"name": "Convolution_12", "op": "Convolution", "kernel": "brgconv_avx2_f32", "seconds": 0.0140},
    {"name": "Transpose_15", "op": "Transpose", "kernel": "unknown_f32", "seconds": 0.0030},
    {"name": "Relu_17", "op": "Subgraph", "kernel": "jit_avx2_f32", "seconds": 0.0005, "fused": ["Add_16", "Relu_17"]},
    {"name": "Gather_20", "op": "Gather", "kernel": "ref_any_f32", "seconds": 0.0001, "fallback": True},
    {"name": "Relu_17_acdb_abcd_Result_18", "op": "Reorder", "kernel": "jit_uni_f32", "seconds": 0.0020}],
    "removed": [{"op": "Transpose", "name": "Transpose_8"}], "nodeSeconds": 0.0196, "runSeconds": 0.021}


def profiled(benchmark, variant, profile, backend, **fields):
    return {**record(benchmark, variant, TIMES, backend=backend, **fields), "profile": profile}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("profiles")
    ort = write_bench(root / "ort", [
        profiled("seed-conv2d-add-relu", "fused", ORT_FUSED, ORT),
        profiled("layout-56x56x64-3x3", "nhwcTransposed", ORT_FUSED, ORT, workload="1x56x56x64"),
        profiled("layout-14x14x256-3x3", "nhwcTransposed", {"unavailable": "reference: no profiler the harness reads"},
                 ORT, workload="1x14x14x256"),
        record("seed-conv2d-add-relu", "host", TIMES)])
    ov = write_bench(root / "ov", [profiled("layout-56x56x64-3x3", "nhwcTransposed", OV_TRANSPOSED, OV,
                                            workload="1x56x56x64"),
                                   record("layout-56x56x64-3x3", "nchw", NCHW_TIMES, backend=OV, workload="1x56x56x64")],
                     backends=(OV,))
    return root, ort, ov



def test_profiles_become_views_with_the_node_sum_beside_the_median(folders):
    _, ort, ov = folders
    perf = build_performance([ort, ov])
    views = {(v.benchmark, v.variant, perf.column(v.column).backend.name): v for v in perf.profiles}
    assert len(views) == 4  # the host variant has no profile
    fused = views[("seed-conv2d-add-relu", "fused", "onnxruntime")]
    node_sum = sum(n["seconds"] for n in ORT_FUSED["nodes"])
    assert fused.profile.node_seconds == pytest.approx(node_sum)
    assert fused.share_of_median == pytest.approx(node_sum / median(TIMES))
    assert fused.share_of_run == pytest.approx(ORT_FUSED["runNodeSeconds"] / ORT_FUSED["runSeconds"])
    assert fused.transposes_ran == 0 and fused.transposes_removed == 2
    assert fused.transpose_note == "the backend removed or folded all 2 transposes: none ran"
    assert fused.layout_seconds == pytest.approx(0.0012 + 0.0008)
    assert fused.ran_as == "ReorderInput → Conv → ReorderOutput → Add → Relu"
    ov_view = views[("layout-56x56x64-3x3", "nhwcTransposed", "openvino")]
    assert ov_view.transpose_seconds == pytest.approx(0.0030) and ov_view.transposes_removed == 1
    assert ov_view.transpose_note == f"1 ran ({0.0030 / median(TIMES):.1%} of the median); 1 removed or folded"
    assert ov_view.by_subtraction == pytest.approx(median(TIMES) - median(NCHW_TIMES))
    assert fused.by_subtraction is None  # no nchw graph beside it
    assert [n.name for n in ov_view.fallbacks] == ["Gather_20"]
    assert [n.fused for n in ov_view.fused] == [("Add_16", "Relu_17")]
    assert views[("layout-14x14x256-3x3", "nhwcTransposed", "onnxruntime")].profile.problem.startswith("unavailable")
    # the profiler's own cost: profiled runs over the graph's own runs in blocks between them
    assert fused.profiler_cost == pytest.approx(ORT_FUSED["runSeconds"] / ORT_FUSED["plainSeconds"] - 1)
    assert fused.share_of_plain == pytest.approx(node_sum / ORT_FUSED["plainSeconds"])
    assert ov_view.profiler_cost is None  # a record from before the paired runs


def test_page_shows_nodes_fusions_fallbacks_and_the_transposes(folders):
    root, ort, ov = folders
    out = root / "site"
    build_site([ort, ov], out)
    page = (out / "performance.html").read_text()
    section = page[page.index('id="profiles"'):page.index('id="ops"') if 'id="ops"' in page else len(page)]
    node_sum = sum(n["seconds"] for n in ORT_FUSED["nodes"])
    # the nodes' sum beside the timed median, and its share
    assert f"{_seconds(node_sum)} summed, {_pct(node_sum / median(TIMES))} of the {_seconds(median(TIMES))} median" \
        in section
    assert "Add_16 + Relu_17 → Subgraph" in section
    assert "Convolution → Transpose → Subgraph → Gather → Reorder" in section  # what the graph became
    assert re.search(r"ref_any_f32 <span class=\"badge bad\">fallback</span>", section)
    assert "the backend removed or folded all 2 transposes: none ran" in section
    assert f"1 ran ({0.0030 / median(TIMES):.1%} of the median); 1 removed or folded" in section
    assert "not profiled" in section and "reference: no profiler the harness reads" in section
    assert "Transpose <code>Transpose_8</code>" in section  # a removed node named
    cost = ORT_FUSED["runSeconds"] / ORT_FUSED["plainSeconds"] - 1
    assert f">{_pct(node_sum / ORT_FUSED['plainSeconds'])}</td>" in section
    assert f">{cost * 100:+.0f}%</td>" in section and "launch times</span>" not in section.split("</table>")[-2]
    assert str(root) not in page


@pytest.mark.parametrize("profile, field", [
    ({"runs": 3, "nodes": [{"name": "a", "op": "Conv", "kernel": "k", "seconds": -1}]}, "'nodes[0].seconds'"),
    ({"runs": 3, "nodes": [{"name": "a", "op": "Conv", "seconds": 0.1}]}, "'nodes[0].kernel'"),
    ({"runs": 3, "nodes": {"a": 1}}, "'nodes' is not a list"),
    ({"runs": True, "nodes": []}, "'runs'"),
    ({"runs": 3, "nodes": [], "removed": [{"op": 5}]}, "'removed[0].op'"),
    ([1, 2], "field 'profile' is not an object"),
    ({"runs": 3, "nodes": [], "nodeTimes": "gpu"}, "'nodeTimes' is not one of kernel, launch"),
    ({"runs": 3, "nodes": [], "plainSeconds": "1"}, "'plainSeconds'"),
])
def test_a_malformed_profile_is_one_line_naming_folder_line_and_field(tmp_path, profile, field):
    folder = write_bench(tmp_path / "bench", [record("s", "host", TIMES),
                                              {**record("s", "fused", TIMES), "profile": profile}])
    model = build_performance([folder])  # the line is left out alone (issue 50), the good one beside it kept
    (message,) = model.problems
    assert message.startswith("bench/bench.jsonl line 2: ") and field in message and "\n" not in message
    assert [r.variant for r in model.records] == ["host"]


def test_op_by_op_sits_beside_what_the_fused_graph_became(tmp_path):
    parts = {"runs": 5, "sessions": 3, "nodes": [
        {"name": "Convolution_1", "op": "Convolution", "kernel": "brgconv_avx2_f32", "seconds": 0.010, "part": 0},
        {"name": "Add_2", "op": "Eltwise", "kernel": "jit_avx2_f32", "seconds": 0.002, "part": 1},
        {"name": "Relu_3", "op": "Eltwise", "kernel": "jit_avx2_f32", "seconds": 0.001, "part": 2}],
        "removed": [], "nodeSeconds": 0.013, "runSeconds": 0.014}
    fused = {"runs": 5, "sessions": 1, "nodes": [
        {"name": "Convolution_1", "op": "Convolution", "kernel": "brgconv_avx2_f32", "seconds": 0.009,
         "fused": ["Convolution_1", "Add_2", "Relu_3"]}], "removed": [], "nodeSeconds": 0.009, "runSeconds": 0.0095}
    folder = write_bench(tmp_path / "ov", [profiled("chain", "deviceTensor", parts, OV),
                                           profiled("chain", "fused", fused, OV)], backends=(OV,))
    perf = build_performance([folder])
    (pair,) = perf.fusion_pairs
    assert (pair.op_by_op.variant, pair.fused.variant) == ("deviceTensor", "fused")
    out = tmp_path / "site"
    build_site([folder], out)
    page = (out / "performance.html").read_text()
    section = page[page.index('id="profiles-fusion"'):page.index('id="profiles-summary"')]
    assert "deviceTensor: 3 nodes in 3 graphs" in section
    assert "1 nodes: Convolution<br>Convolution_1 + Add_2 + Relu_3 → Convolution" in section
    assert _seconds(0.013) in section and _seconds(0.009) in section


def test_launch_times_on_an_asynchronous_device_are_no_share_of_the_graph(tmp_path):
    """ORT's profiler on CUDA times each node's launch on the host (the H100
    check of issue #30: the seed's fused graph's nodes summed to 13% of its
    median): the page says so instead of a share, for the transposes too."""
    cuda = {**ORT, "device": "CUDAExecutionProvider (NVIDIA H100 80GB HBM3 #0)", "hostCpu": False,
            "settings": {**ORT["settings"], "provider": "CUDAExecutionProvider"}}
    nodes = [{"name": n, "op": op, "kernel": "CUDAExecutionProvider", "seconds": s}
             for n, op, s in (("Transpose_0", "Transpose", 4e-5), ("Conv_2", "Conv", 5e-5),
                              ("Transpose_3", "Transpose", 2e-5))]
    launch = {"runs": 20, "sessions": 1, "nodeTimes": "launch", "nodes": nodes, "removed": [],
              "nodeSeconds": 1.1e-4, "runSeconds": 0.0012, "runNodeSeconds": 1.1e-4, "plainSeconds": 0.00115}
    folder = write_bench(tmp_path / "cuda", [profiled("layout-56x56x64-3x3", "nhwcTransposed", launch, cuda,
                                                      workload="1x56x56x64")], backends=(cuda,))
    (view,) = build_performance([folder]).profiles
    assert view.profile.launch_times and view.transposes_ran == 2
    assert view.transpose_note == "2 ran (the profile has their launch on the host, not their time on the device)"
    out = tmp_path / "site"
    build_site([folder], out)
    page = (out / "performance.html").read_text()
    section = page[page.index('id="profiles"'):]
    assert section.count('<span class="badge soft">launch times</span></td>') == 2  # layout and summary tables
    summary = section.split('id="profiles-summary"')[1].split("</table>")[0]
    assert _pct(view.share_of_median) not in summary and _pct(view.share_of_run) not in summary
    assert "node times are launches on the host" in section
