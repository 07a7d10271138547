"""A bench comparison that compared nothing is not green (issue 25, item 8):
no benchmark in common, or a baseline timed on another machine (read from
the bench folder's header locally, from each record's node on Ray), is exit
2 with a message, not "0 regression(s)" and exit 0."""
from __future__ import annotations

import json

from test_bench import TINY_PEAKS, _bench_folder, one_op_graph, suite_file  # noqa: F401

from webnn_harness.bench.regressions import compare_bench
from webnn_harness.cli import main

TIMES = [0.010 * (1 + i / 1000) for i in range(30)]


def with_machine(folder, cpu):
    header = {"machine": {"cpu": cpu, "cores": 8, "memoryBytes": 1 << 34, "hostname": "h"}}
    (folder / "summary.json").write_text(json.dumps({"header": header}))
    return folder


def test_no_benchmark_in_common_compares_nothing_and_diff_exits_2(tmp_path, capsys):
    base = _bench_folder(tmp_path / "base", [("relu", "ok", TIMES)])
    new = _bench_folder(tmp_path / "new", [("gelu", "ok", TIMES)])
    comparison = compare_bench(base, new)
    assert comparison.regressions == () and comparison.compared == ()
    assert "no benchmark in common" in comparison.nothing_compared()
    assert main(["diff", str(base), str(new)]) == 2
    assert "no benchmark in common" in capsys.readouterr().err


def test_a_local_baseline_from_another_machine_is_not_comparable(tmp_path, capsys):
    base = with_machine(_bench_folder(tmp_path / "base", [("relu", "ok", TIMES)]), "CPU A")
    new = with_machine(_bench_folder(tmp_path / "new", [("relu", "ok", [t * 2 for t in TIMES])]), "CPU B")
    (change,) = compare_bench(base, new).changes
    assert change.verdict == "notComparable" and "different machines" in change.reason
    assert main(["diff", str(base), str(new)]) == 2
    assert "is comparable with the baseline" in capsys.readouterr().err
    same = with_machine(_bench_folder(tmp_path / "same", [("relu", "ok", [t * 2 for t in TIMES])]), "CPU A")
    (change,) = compare_bench(base, same).changes
    assert change.verdict == "slower"
    assert main(["diff", str(base), str(same)]) == 1


def test_bench_with_a_baseline_sharing_nothing_exits_2(tmp_path, capsys, monkeypatch):
    import webnn_harness.bench.driver as bench_run
    from webnn_harness.bench.machine import measure_peaks

    monkeypatch.setattr(bench_run, "measure_peaks", lambda **_: measure_peaks(**TINY_PEAKS))
    path = suite_file(tmp_path, [{"id": "relu", "kind": "op", "variants": ["graph"], "graph": one_op_graph("relu")}])
    base = with_machine(_bench_folder(tmp_path / "base", [("gelu", "ok", TIMES)]), "CPU A")  # a baseline names it
    code = main(["bench", "-b", "reference", "--suite", str(path), "--out", str(tmp_path / "new"), "--min-time", "0.01",
                 "--baseline", str(base), "-q"])
    assert code == 2
    assert "nothing was compared" in capsys.readouterr().err
