"""The models page (reports/models.py, templates/models.html): multi-op cases x backend from run and
bench --cases folders, joined by case id; op coverage weighted by how often the models call each op."""
from __future__ import annotations

import json

import pytest

from webnn_harness.outputs.bench_records import BenchRecord
from webnn_harness.verdict.record import Record
from webnn_harness.reports import build_model, build_site
from webnn_harness.reports.models import build_models, refusal
from webnn_harness.reports.pages import index_page

ORT = {"name": "onnxruntime", "version": "1.0", "device": "cpu", "settings": {"threads": 2}}
LITERT = {"name": "litert", "version": "2.0", "device": "cpu", "settings": {}}
NET = "models/net.json::net"  # conv2d x2, relu x2, add: 5 calls
PAIR = "wpt-extra/subgraph.json::conv2d + relu"  # 2 calls
SINGLE = "wpt/relu.json::relu 1D"  # one op: not a model
POOL = "models/pool.json::pool"  # averagePool2d, relu: litert errs on it


def run_record(cid, backend, status, ops, message="", max_error=None, budget=None):
    file, case = cid.split("::")
    return Record(file=file, case=case, ops=tuple(ops), data_types=("float32",), backend=backend, status=status,
                  required=True, metric="ULP" if max_error is not None else None, budget=budget, max_error=max_error,
                  message=message).to_json()


def bench_record(cid, backend, status, operators, median=None, message=None, variant="graph"):
    file, case = cid.split("::")
    latency = {"median": median, "iqr": median / 10, "samples": 10, "times": [median] * 10} if median else None
    return BenchRecord(benchmark=cid, suite=file.split("/")[0], kind="case", variant=variant, title=case, status=status,
                       backend=backend, params={"file": file, "case": case, "operators": operators,
                                                "nodes": sum(operators.values())},
                       message=message, build_seconds=0.01, first_run_seconds=0.002, latency=latency,
                       verification={"maxError": 3, "metric": "ULP", "budget": 8}).to_json()


def write_lines(folder, name, records):
    folder.mkdir()
    (folder / name).write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder


NET_OPS = {"conv2d": 2, "relu": 2, "add": 1}


@pytest.fixture
def folders(tmp_path):
    refused = ("TypeError: Failed to execute 'conv2d' on 'MLGraphBuilder': Unsupported data type float32 for "
               "argument filter")
    run = write_lines(tmp_path / "run", "results.jsonl", [
        run_record(NET, ORT, "pass", ["add", "conv2d", "relu"], max_error=3, budget=8),
        run_record(NET, LITERT, "unsupported", ["add", "conv2d", "relu"], message=refused),
        run_record(PAIR, ORT, "fail", ["conv2d", "relu"], max_error=40, budget=8),
        run_record(SINGLE, ORT, "pass", ["relu"], max_error=0, budget=0),
        run_record(POOL, LITERT, "error", ["averagePool2d", "relu"], message="build failed: no kernel")])
    bench = write_lines(tmp_path / "bench", "bench.jsonl", [
        bench_record(NET, ORT, "ok", NET_OPS, median=0.004),
        bench_record(NET, ORT, "ok", NET_OPS, median=0.003, variant="nhwc"),
        bench_record(NET, LITERT, "unsupported", NET_OPS, message=refused),
        bench_record("models/other.json::other", LITERT, "ok", {"matmul": 1, "add": 1}, median=0.001)])
    return run, bench


def test_refusal_names_the_op_operand_and_data_type():
    message = "TypeError: Failed to execute 'convTranspose2d' on 'MLGraphBuilder': Unsupported data type float16 for argument filter"
    assert refusal(message, ["conv2d", "convTranspose2d", "relu"]) == refusal(message, ["relu", "convTranspose2d", "conv2d"])
    found = refusal(message, ["conv2d", "convTranspose2d", "relu"])
    assert (found.op, found.operand, found.data_type) == ("convTranspose2d", "filter", "float16")
    # matmul's one-letter operands count only quoted: "a" is a word too
    assert refusal("matmul: a rank-5 operand is not supported", ["matmul"]).operand == ""
    assert refusal("matmul: operand 'b' must be rank 2", ["matmul"]).operand == "b"
    assert refusal("no lowering for gelu", ["conv2d", "add"]).op == ""


def test_models_join_run_and_bench_records_by_case_id(folders):
    run, bench = folders
    mm = build_models([run], [bench])
    assert [c.key for c in mm.columns] == ["litert 2.0", "onnxruntime 1.0"]
    rows = {r.id: r for r in mm.rows}
    assert set(rows) == {NET, PAIR, POOL, "models/other.json::other"}  # the one-op case is not a model
    litert, ort = rows[NET].cells
    assert ort.status == "pass" and ort.judged_by == "run" and (ort.max_error, ort.budget) == (3, 8)
    assert ort.latency == {"graph": 0.004, "nhwc": 0.003} and ort.build_seconds == 0.01
    assert ort.nhwc_ratio == pytest.approx(0.75)
    assert litert.status == "unsupported" and (litert.refusal.op, litert.refusal.operand) == ("conv2d", "filter")
    assert rows[NET].nodes == 5 and rows[NET].operators == NET_OPS
    # only run records: each distinct op once, and no latency
    assert rows[PAIR].nodes is None and rows[PAIR].operators == {"conv2d": 1, "relu": 1}
    assert rows[PAIR].cells[0] is None and rows[PAIR].cells[1].status == "fail" and not rows[PAIR].cells[1].latency
    # only a bench record: the bench's verification is the verdict
    other = rows["models/other.json::other"].cells[0]
    assert other.status == "pass" and other.judged_by == "bench" and other.max_error == 3
    assert mm.counted_by_presence == 2


def test_op_coverage_is_weighted_by_calls(folders):
    run, bench = folders
    mm = build_models([run], [bench])
    uses = {u.op: u for u in mm.ops}
    # conv2d: 2 (net) + 1 (pair); relu: 2 + 1 + 1 (pool); add: 1 (net) + 1 (other); matmul: 1 (other); averagePool2d: 1
    assert {op: u.calls for op, u in uses.items()} == {"conv2d": 3, "relu": 4, "add": 2, "matmul": 1, "averagePool2d": 1}
    assert [u.op for u in mm.ops] == ["relu", "conv2d", "add", "averagePool2d", "matmul"]  # most called first
    assert uses["conv2d"].share == pytest.approx(3 / 11)
    assert uses["conv2d"].support == ("refused", "runs")  # litert refused net naming conv2d; ort ran both
    assert uses["relu"].support == ("fails", "runs")  # litert's refusal names conv2d, not relu; it errs on pool
    assert uses["averagePool2d"].support == ("fails", "untested")
    assert uses["matmul"].support == ("runs", "untested")
    # litert: tried on relu (4, fails), conv2d (3, refused), add (2, runs: other), averagePool2d (1, fails),
    # matmul (1, runs) -> 3 of 11 calls
    assert mm.coverage == (pytest.approx(3 / 11), pytest.approx(1.0))


def test_the_site_links_the_models_page_beside_the_matrix_and_never_makes_it_the_index(folders, tmp_path):
    run, bench = folders
    index = build_site([run, bench], tmp_path / "site")
    page = (tmp_path / "site" / "models.html").read_text()
    assert "net" in page and "conv2d" in page and "refused" in page and "weighted coverage" in page
    assert str(tmp_path) not in page  # no local path published
    assert 'href="models.html"' in index.read_text()
    model = build_model([run, bench])
    assert index_page(model).name != "models.html"


def test_no_models_page_without_multi_op_cases(tmp_path):
    run = write_lines(tmp_path / "run", "results.jsonl", [run_record(SINGLE, ORT, "pass", ["relu"], max_error=0, budget=0)])
    model = build_model([run])
    assert not model.has_models
    build_site([run], tmp_path / "site")
    assert not (tmp_path / "site" / "models.html").exists()
    assert 'href="models.html"' not in (tmp_path / "site" / "conformance.html").read_text()
