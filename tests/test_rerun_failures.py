"""``run --rerun-failures OLD`` is the same run again on OLD's failures: OLD's backends, options,
expectations and corpora, only the required and listed cases that did not pass, and a word for each
setting the user's command replaces (issue 42); the run's summary prints the command."""
import json
import shlex
from pathlib import Path

import pytest

from webnn_harness.cli import main
from webnn_harness.outputs.run_folder import read_records_whole

FAULTY = "webnn_harness.backends.faulty:create"
RELU_IDS = ("vendorcases/act/relu.json::relu a", "vendorcases/act/relu.json::relu b")


def relu_case(name, expected=(0, 2, 0, 4)):
    return {"name": name, "graph": {
        "inputs": {"x": {"data": [-1, 2, -3, 4], "descriptor": {"shape": [4], "dataType": "float32"}}},
        "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
        "expectedOutputs": {"y": {"data": list(expected), "descriptor": {"shape": [4], "dataType": "float32"}}}}}


def abs_case(name):
    case = relu_case(name, (1, 2, 3, 4))
    case["graph"]["operators"][0]["name"] = "abs"
    return case


@pytest.fixture
def user_folder(tmp_path, monkeypatch):
    """A CI job's folder: a corpus of relu cases (one wrong), an abs case the faulty backend refuses
    with -o reject_op=abs, and an expectations file listing "relu b"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "vendorcases" / "act").mkdir(parents=True)
    (tmp_path / "vendorcases" / "act" / "relu.json").write_text(json.dumps({"tests": [
        relu_case("relu a"), relu_case("relu b"), relu_case("relu wrong", (0, 2, 0, 5)), abs_case("abs a")]}))
    (tmp_path / "exp.json").write_text(json.dumps([{"case": "relu b", "reason": "known"}]))
    return tmp_path


def records(folder):
    return {r.id: r for r in read_records_whole(Path(folder) / "results.jsonl").records}


def old_run(*extra):
    return main(["run", "-q", "--workers", "1", "--backend", FAULTY, "-o", "wrong_op=relu", "-o", "reject_op=abs",
                 "--cases", "vendorcases", "--expectations", "exp.json", "--out", "out/old", *extra])


def test_a_rerun_repeats_the_old_runs_options_expectations_and_corpus_on_its_failures_only(user_folder, capsys):
    assert old_run() == 1
    old = records("out/old")
    assert {i: r.status for i, r in old.items()} == {
        **{i: "fail" for i in RELU_IDS}, "vendorcases/act/relu.json::relu wrong": "fail",
        "vendorcases/act/relu.json::abs a": "unsupported"}
    out = capsys.readouterr().out
    # the run's summary prints the command that re-runs its failures, and it runs as printed
    (line,) = [line for line in out.splitlines() if line.startswith("re-run what failed: ")]
    command = line.removeprefix("re-run what failed: ")
    assert command == "webnn-harness run --rerun-failures out/old --out out/old-rerun"
    # a module:factory backend is named again (data chooses no code); its options, the corpus and
    # the expectations are the old run's
    assert main([*shlex.split(command)[1:], "-q", "--workers", "1", "--backend", FAULTY]) == 1
    captured = capsys.readouterr()
    assert "re-running 3 cases of out/old" in captured.out and "note:" not in captured.err
    again = records("out/old-rerun")
    assert set(again) == set(old) - {"vendorcases/act/relu.json::abs a"}  # not the unsupported case
    assert {i: r.status for i, r in again.items()} == {i: old[i].status for i in again}  # wrong_op=relu kept
    assert again[RELU_IDS[1]].known_failure == "known"  # the expectations kept
    assert again[RELU_IDS[0]].backend["settings"] == old[RELU_IDS[0]].backend["settings"]
    summary = json.loads(Path("out/old-rerun/summary.json").read_text())
    assert summary["request"] == {"backends": [{"name": FAULTY, "options": {"wrong_op": "relu", "reject_op": "abs"}}],
                                  "cases": ["vendorcases"], "expectations": ["exp.json"]}
    # a re-run of the re-run is the same run still
    assert main(["run", "-q", "--workers", "1", "--backend", FAULTY, "--rerun-failures", "out/old-rerun",
                 "--out", "out/third"]) == 1
    assert {i: r.status for i, r in records("out/third").items()} == {i: r.status for i, r in again.items()}


def test_a_rerun_says_which_of_the_old_runs_settings_the_user_replaces(user_folder, capsys):
    assert old_run() == 1
    capsys.readouterr()
    (user_folder / "other.json").write_text("[]")
    assert main(["run", "-q", "--workers", "1", "--backend", FAULTY, "--rerun-failures", "out/old", "-o",
                 "reject_op=abs", "--expectations", "other.json", "--out", "out/new"]) == 1
    err = capsys.readouterr().err
    assert "note: -o reject_op=abs instead of out/old's wrong_op=relu reject_op=abs" in err
    assert "note: --expectations other.json instead of out/old's exp.json" in err
    new = records("out/new")
    assert new[RELU_IDS[0]].status == "pass" and new[RELU_IDS[1]].status == "pass"
    assert not any(r.known_failure for r in new.values())


def test_a_rerun_of_a_merged_run_repeats_the_shards_options(user_folder, capsys):
    for i in (1, 2):
        old_run("--shard", f"{i}/2", "--out", f"out/shard-{i}")
    assert main(["merge", "out/shard-1", "out/shard-2", "--out", "out/merged"]) == 1
    assert main(["run", "-q", "--workers", "1", "--backend", FAULTY, "--rerun-failures", "out/merged",
                 "--out", "out/again"]) == 1
    assert {i: r.status for i, r in records("out/again").items()} == {
        **{i: "fail" for i in RELU_IDS}, "vendorcases/act/relu.json::relu wrong": "fail"}


def test_a_rerun_of_the_bundled_corpus_installed_from_a_wheel_finds_its_cases(tmp_path, monkeypatch, capsys):
    """Installed non-editable, the bundled corpus is the folder webnn_harness/corpus, its ids still
    cases/...: a re-run of a run of it reads it again (issue 41)."""
    import webnn_harness.api as api
    from webnn_harness.loading.cases import bundled_corpus

    real = bundled_corpus()
    installed = tmp_path / "site-packages" / "webnn_harness" / "corpus"
    installed.parent.mkdir(parents=True)
    installed.symlink_to(real, target_is_directory=True)
    monkeypatch.setattr(api, "bundled_corpus", lambda: installed)
    monkeypatch.setattr("webnn_harness.loading.cases.bundled_corpus", lambda: installed)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "-q", "--workers", "1", "-b", "example-numpy", "--op", "leakyRelu", "--out", "old"]) == 1
    failed = {i for i, r in records("old").items() if r.status == "fail"}
    assert failed and all(i.startswith("cases/") for i in failed)
    capsys.readouterr()
    assert main(["run", "-q", "--workers", "1", "--rerun-failures", "old", "--out", "new"]) == 1, capsys.readouterr().err
    assert set(records("new")) == failed
