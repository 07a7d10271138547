"""Bench records that name the node that timed them (bench --executor ray):
a comparison never calls two machines' times a regression."""
import json

from webnn_harness.bench.regressions import compare_bench
from webnn_harness.bench.measure import Latency


def _node(hostname, cpu):
    return {"id": hostname * 8, "machine": {"cpu": cpu, "cores": 4, "memoryBytes": 2**34, "hostname": hostname}}


def _folder(path, nodes, seconds):
    path.mkdir()
    times = [seconds * (1 + i / 1000) for i in range(30)]
    path.joinpath("bench.jsonl").write_text("".join(
        json.dumps({"benchmark": name, "variant": "graph", "status": "ok", "latency": Latency.of(times).to_json(),
                    "backend": {"name": "onnxruntime"}, "node": node}) + "\n" for name, node in nodes.items()))
    return path


def test_times_of_two_machines_are_not_comparable_but_identical_machines_compare(tmp_path):
    base = _folder(tmp_path / "base", {"same-type": _node("farm1", "CPU A"), "other-type": _node("farm1", "CPU A")},
                   0.010)
    new = _folder(tmp_path / "new", {"same-type": _node("farm2", "CPU A"), "other-type": _node("farm3", "CPU B")},
                  0.020)
    changes = {c.benchmark: c for c in compare_bench(base, new).changes}
    assert changes["same-type"].verdict == "slower"
    other = changes["other-type"]
    assert other.verdict == "notComparable" and other.ratio is None
    assert other.reason == "timed on different machines: ('CPU A', 4, 17179869184) before, ('CPU B', 4, 17179869184) now"
