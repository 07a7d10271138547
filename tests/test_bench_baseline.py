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


def test_a_baseline_capped_to_another_isa_on_the_same_cpu_is_another_machine(tmp_path, capsys):
    """Issue #47: the same CPU with its kernels capped (ONEDNN_MAX_CPU_ISA) is another machine, as diff
    says of two runs (cpu.machine_changes): bench --baseline / diff say what differs, and compare nothing."""
    features = ["avx", "avx2", "avx512f", "fma"]

    def facts(folder, env):
        header = {"machine": {"cpu": "CPU A", "cores": 8, "memoryBytes": 1 << 34, "hostname": "h",
                              "cpuFeatures": features, "isaClass": "AVX512_CORE", "kernelEnvironment": env}}
        (folder / "summary.json").write_text(json.dumps({"header": header}))
        return folder

    base = facts(_bench_folder(tmp_path / "base", [("relu", "ok", TIMES)]), {})
    capped = facts(_bench_folder(tmp_path / "capped", [("relu", "ok", [t * 2 for t in TIMES])]),
                   {"ONEDNN_MAX_CPU_ISA": "AVX2"})
    (change,) = compare_bench(base, capped).changes
    assert change.verdict == "notComparable"
    assert change.reason == "timed on different machines: ONEDNN_MAX_CPU_ISA: (not set) -> AVX2"
    assert main(["diff", str(base), str(capped)]) == 2
    assert "ONEDNN_MAX_CPU_ISA: (not set) -> AVX2" in capsys.readouterr().err
    native = facts(_bench_folder(tmp_path / "native", [("relu", "ok", [t * 2 for t in TIMES])]), {})
    (change,) = compare_bench(base, native).changes
    assert change.verdict == "slower"  # the same class and settings: one machine, compared
    # A baseline written before machine facts were recorded is compared on its hardware, as before.
    legacy = with_machine(_bench_folder(tmp_path / "legacy", [("relu", "ok", TIMES)]), "CPU A")
    (change,) = compare_bench(legacy, capped).changes
    assert change.verdict == "slower"


def test_a_bench_baseline_says_the_machines_differ_in_isa_class(tmp_path):
    from webnn_harness.bench.regressions import machine_difference

    avx512 = {"cpu": "CPU A", "cores": 8, "memoryBytes": 1, "cpuFeatures": ["avx2", "avx512f"],
              "isaClass": "AVX512_CORE", "kernelEnvironment": {}}
    avx2 = {**avx512, "cpu": "CPU B", "cpuFeatures": ["avx2"], "isaClass": "AVX2"}
    said = machine_difference(avx512, avx2)
    assert said == ("('CPU A', 8, 1) before, ('CPU B', 8, 1) now; isaClass: AVX512_CORE -> AVX2; "
                    "cpuFeatures: -avx512f")
    assert machine_difference(avx512, dict(avx512)) == "" and machine_difference(None, avx2) == ""
