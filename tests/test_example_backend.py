"""The example out-of-tree backend (examples/numpy_float32), installed as a
vendor installs theirs and found through the ``webnn_harness.backends``
entry point: listed, run with and without its expectations file, probed."""
from __future__ import annotations

import json

import pytest

from conftest import REPO
from test_bench import QUICK, TINY_PEAKS, one_op_graph, suite_file
from webnn_harness import backends
from webnn_harness.bench.driver import BenchOptions, run_bench, thread_options
from webnn_harness.bench.suite import load_suite
from webnn_harness.cli import main
from webnn_harness.backends import options_from_settings
from webnn_harness.outputs.rerun_commands import rerun_command
from webnn_harness.outputs.run_folder import read_records_whole

EXAMPLE = REPO / "examples" / "numpy_float32"
LEAKY_RELU = REPO / "cases" / "elementwise" / "leaky_relu.json"


@pytest.fixture(scope="module", autouse=True)
def example_installed():
    if "example-numpy" not in backends.available():
        pytest.fail("the example backend is not installed: pip install -e ./examples/numpy_float32 "
                    "(the README's test command installs it)")


def test_backends_lists_it_through_its_entry_point(capsys):
    assert backends.available()["example-numpy"] == "webnn_example_numpy:create"
    assert main(["backends", "--json"]) == 0
    (row,) = [r for r in json.loads(capsys.readouterr().out) if r["name"] == "example-numpy"]
    assert row["version"] == "0.1.0" and row["settings"] == {"leaky_relu": "buggy", "precision": "float32", "threads": 1}


def test_its_bug_fails_the_run_and_its_expectations_file_makes_it_pass(tmp_path, capsys):
    common = ["run", "--backend", "example-numpy", "--cases", str(LEAKY_RELU), "--workers", "1", "-q"]
    assert main([*common, "--out", str(tmp_path / "bare")]) == 1
    failing = {r.case for r in read_records_whole(tmp_path / "bare" / "results.jsonl").records if r.status == "fail"}
    assert failing == {"leakyRelu float32 alpha 0.5", "leakyRelu float32 alpha -1 gives the absolute value",
                       "leakyRelu float32 alpha 0.2 generated", "leakyRelu float32 alpha 1.5 generated"}

    assert main([*common, "--out", str(tmp_path / "known"), "--expectations", str(EXAMPLE / "expectations.json")]) == 0
    records = read_records_whole(tmp_path / "known" / "results.jsonl").records
    known = {r.case for r in records if r.known_failure}
    assert known == failing  # the entry names exactly the buggy cases, no passing one
    assert all("deliberate bug" in r.known_failure for r in records if r.known_failure)


def test_an_invalid_option_is_a_one_line_usage_error(tmp_path, capsys):
    code = main(["run", "--backend", "example-numpy", "-o", "leaky_relu=maybe", "--cases", str(LEAKY_RELU),
                 "--out", str(tmp_path), "-q"])
    assert code == 2
    assert "leaky_relu must be one of buggy, fixed, not 'maybe'" in capsys.readouterr().err


def test_probe_finds_float32_only_and_the_emulated_sigmoid(tmp_path):
    assert main(["probe", "--backend", "example-numpy", "--op", "leakyRelu", "--op", "sigmoid", "--out", str(tmp_path),
                 "--no-layout", "--no-bytes", "--workers", "1", "-q"]) == 0
    limits = json.loads((tmp_path / "example-numpy-opSupportLimits.json").read_text())
    evidence = json.loads((tmp_path / "example-numpy-probe.json").read_text())
    for op in ("leakyRelu", "sigmoid"):
        assert limits[op]["input"]["dataTypes"] == ["float32"]
        assert limits[op]["output"]["dataTypes"] == ["float32"]
    assert evidence["header"]["emulations"] == {"sigmoid": "1 / (1 + exp(-x)) in float32"}
    outcomes = evidence["summary"]["outcomes"]
    assert outcomes["emulated"] > 0 and outcomes["supported"] > 0 and outcomes["rejected"] > 0
    gaps = {(g["op"], dt) for g in evidence["conformanceGaps"] for dt in g["dataTypes"]}
    assert gaps == {("leakyRelu", "float16"), ("sigmoid", "float16")}  # float16 is required by the spec


def readme_ci_recipe() -> list[str]:
    """The webnn-harness command lines of the README's CI recipe, as written."""
    text = (REPO / "README.md").read_text()
    section = text[text.index("### A backend vendor's CI"):]
    block = section[section.index("```sh") + 5:]
    block = block[:block.index("```")]
    return [line for line in block.splitlines() if line.startswith("webnn-harness ")]


def test_the_readme_ci_recipe_runs_as_written_on_the_example(tmp_path, monkeypatch, capsys):
    import glob
    import shlex
    import shutil

    # The recipe's corpus "wpt" is a folder of case files; one of ours stands in for it.
    (tmp_path / "wpt").mkdir()
    shutil.copy(LEAKY_RELU, tmp_path / "wpt" / "leaky_relu.json")
    (tmp_path / "my-backend").mkdir()
    monkeypatch.chdir(tmp_path)
    # "the last run on main": the bug was fixed there, so this pipeline's runs regress
    assert main(["run", "--backend", "example-numpy", "-o", "leaky_relu=fixed", "--cases", "wpt",
                 "--out", "main-run", "-q"]) == 0

    codes = []
    for line in readme_ci_recipe():
        argv = [a.replace("mybackend", "example-numpy") for a in shlex.split(line)][1:]
        for i in ("1", "2") if "$I/$N" in argv else (None,):
            args = [a.replace("$I/$N", f"{i}/2").replace("$I", i or "") for a in argv]
            args = [m for a in args for m in (sorted(glob.glob(a)) if "*" in a else [a])]
            codes.append((args[0], main(args)))
    # the first run is judged against the expectations it wrote: green (issue 28)
    assert codes == [("run", 0), ("run", 0), ("run", 0), ("merge", 0), ("junit", 0), ("run", 0), ("diff", 1),
                     ("report", 0)]
    expectations = json.loads((tmp_path / "my-backend" / "expectations.json").read_text())
    assert {e["case"] for e in expectations} == {
        "leakyRelu float32 alpha 0.5", "leakyRelu float32 alpha -1 gives the absolute value",
        "leakyRelu float32 alpha 0.2 generated", "leakyRelu float32 alpha 1.5 generated"}
    assert "4 regressions" in (tmp_path / "out" / "diff.md").read_text()
    assert (tmp_path / "out" / "site" / "index.html").is_file()
    assert len(read_records_whole(tmp_path / "out" / "run" / "results.jsonl").records) == 18
    # the re-run is the same run on its listed failures: still listed, with the same options
    rerun = read_records_whole(tmp_path / "out" / "rerun" / "results.jsonl").records
    assert len(rerun) == 4 and all(r.known_failure and r.status == "fail" for r in rerun)


def test_the_bench_sets_its_threads_through_the_facts_it_declares(tmp_path):
    """Its factory's facts (backends/base.py, "Facts") say it takes -o threads=N:
    the bench sets it as for our own backends, and its info says the threads
    and precision the performance pages show."""
    declared = backends.facts("example-numpy")
    assert declared.threads_option and declared.preload == () and dict(declared.bench_options) == {}
    assert thread_options("example-numpy", {}, 3) == {"threads": "3"}
    assert thread_options("example-numpy", {"threads": "2", "leaky_relu": "fixed"}, 3) == {
        "threads": "2", "leaky_relu": "fixed"}  # -o wins

    suite = load_suite(str(suite_file(tmp_path, [
        {"id": "relu", "kind": "op", "variants": ["graph"], "graph": one_op_graph("relu")}])))
    result = run_bench(suite, [("example-numpy", {})], tmp_path / "out", BenchOptions(policy=QUICK, threads=2,
                                                                                     peaks=TINY_PEAKS))
    (record,) = result.records
    assert record["status"] == "ok"
    backend = record["backend"]
    assert backend["threads"] == 2 and backend["precision"] == "float32"
    assert backend["settings"]["threads"] == 2 and backend["settings"]["hostThreads"] == 2


def test_a_rerun_command_repeats_its_options_through_the_facts_it_declares(tmp_path):
    """Where a run's command line is not recorded, the options of a re-run
    command come from the record's settings as its facts map them back
    (rerun_options): the options it ran with, not its defaults."""
    common = ["run", "--backend", "example-numpy", "--cases", str(LEAKY_RELU), "--workers", "1", "-q"]
    assert main([*common, "--out", str(tmp_path / "fixed"), "-o", "leaky_relu=fixed", "-o", "threads=2"]) == 0
    assert main([*common, "--out", str(tmp_path / "default")]) == 1
    fixed = read_records_whole(tmp_path / "fixed" / "results.jsonl").records[0]
    assert options_from_settings(fixed.backend) == ["leaky_relu=fixed", "threads=2"]
    assert "--backend example-numpy -o leaky_relu=fixed -o threads=2 " in rerun_command(
        fixed.backend, options_from_settings(fixed.backend), fixed.file, fixed.case)
    default = read_records_whole(tmp_path / "default" / "results.jsonl").records[0]
    assert options_from_settings(default.backend) == []  # its defaults are not repeated
