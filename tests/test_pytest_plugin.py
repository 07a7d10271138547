"""The pytest plugin (harness/pytest_plugin.py), run the way a vendor runs it:
pytest in a subprocess, the plugin loaded through its pytest11 entry point,
the example backend (examples/numpy_float32) through its backends entry point.

The example's leakyRelu ignores alpha on purpose, so in leaky_relu.json the
float32 cases with alpha other than 0.01 fail (4), the float16 ones are
refused (6: it computes float32 only) and the rest pass (8).
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

LEAKY_RELU = REPO / "cases" / "elementwise" / "leaky_relu.json"
EXPECTATIONS = REPO / "examples" / "numpy_float32" / "expectations.json"
# Paths as --webnn-cases=PATH: pytest picks its rootdir (and config file) from
# path-like arguments before plugins parse their options, and skips "-..." ones.
EXAMPLE = ("--webnn-backend", "example-numpy", f"--webnn-cases={LEAKY_RELU}")
OUTCOME = re.compile(r"(\d+) (passed|failed|skipped|xfailed|xpassed|deselected|errors?)\b")


@pytest.fixture(scope="module", autouse=True)
def example_installed():
    from webnn_harness import backends

    if "example-numpy" not in backends.available():
        pytest.fail("the example backend is not installed: pip install -e ./examples/numpy_float32 "
                    "(the README's test command installs it)")


def run_pytest(cwd: Path, *args: str, timeout: float = 300) -> tuple[int, str, dict[str, int]]:
    """pytest in a subprocess in ``cwd`` (its own rootdir): exit code, output, outcome counts."""
    (cwd / "pytest.ini").write_text("[pytest]\n")
    # CI (or BUILD_NUMBER) makes pytest print its short summary untruncated, so
    # messages would be counted twice there: the inner pytest runs as at a terminal.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "XDIST_")) and k not in ("CI", "BUILD_NUMBER")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
    out = proc.stdout + proc.stderr
    last = [line for line in out.splitlines() if re.search(r" in [\d.]+s", line)]
    counts = {kind.rstrip("s") if kind.startswith("error") else kind: int(n)
              for n, kind in OUTCOME.findall(last[-1] if last else "")}
    return proc.returncode, out, counts


def test_without_webnn_backend_the_plugin_only_adds_its_options(tmp_path):
    (tmp_path / "test_own.py").write_text("def test_own():\n    pass\n")
    code, out, counts = run_pytest(tmp_path)
    assert (code, counts) == (0, {"passed": 1}), out
    assert "webnn-harness" not in out
    code, out, _ = run_pytest(tmp_path, "--help")
    assert code == 0 and "--webnn-backend" in out and "--webnn-expectations" in out


def test_usage_mistakes_are_one_line_errors(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = tmp_path / "bad.json"
    bad.write_text('[{"case": "x"}]')
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    for args, message in (
        # the option validators of the command line (harness/options.py), and the one reader (outputs/reading.py)
        ((*EXAMPLE, "--webnn-timeout", "-1"), "--webnn-timeout: must be a finite number of seconds above 0"),
        ((*EXAMPLE, "--webnn-timeout", "nan"), "--webnn-timeout: must be finite"),
        ((*EXAMPLE, f"--webnn-expectations={deep}"), "deep.json: JSON nested too deeply to read"),
        (("--webnn-backend", "no-such-backend"), "unknown backend 'no-such-backend'"),
        ((*EXAMPLE, "--webnn-option", "leaky_relu=maybe"), "leaky_relu must be one of buggy, fixed"),
        (("--webnn-backend", "example-numpy", "--webnn-cases=nowhere"), "nowhere: no such file or folder"),
        (("--webnn-backend", "example-numpy", f"--webnn-cases={empty}"), "no cases selected: no case files under"),
        ((*EXAMPLE, f"--webnn-expectations={bad}"), "bad.json: [0]: 'reason' is a required property"),
    ):
        code, out, _ = run_pytest(tmp_path, *args)
        assert code == pytest.ExitCode.USAGE_ERROR, out
        assert message in out and "Traceback" not in out


def test_node_ids_are_stable_case_ids_and_k_selects_by_name_op_and_data_type(tmp_path):
    code, out, _ = run_pytest(tmp_path, *EXAMPLE, "--collect-only")
    ids = [line for line in out.splitlines() if "::" in line]
    assert code == 0 and len(ids) == 18 and "18 tests collected" in out, out
    assert "cases/elementwise/leaky_relu.json::leakyRelu float32 alpha 0.5" in ids
    code, out, counts = run_pytest(tmp_path, *EXAMPLE, f"--webnn-expectations={EXPECTATIONS}",
                                   "-k", "leakyRelu and float32 and not generated")
    # default alpha passes; alpha 0.5 and alpha -1 are the listed bug
    assert (code, counts) == (0, {"passed": 1, "xfailed": 2, "deselected": 15}), out


def test_expectations_make_the_known_bug_xfail_and_unsupported_a_skip_also_under_xdist(tmp_path):
    code, out, counts = run_pytest(tmp_path, *EXAMPLE, f"--webnn-expectations={EXPECTATIONS}", "-n", "2")
    assert (code, counts) == (0, {"passed": 8, "skipped": 6, "xfailed": 4}), out
    assert "known failure: example-numpy's deliberate bug" in out  # the entry's reason
    assert "example-numpy computes float32 only, not float16" in out  # the backend's message


def test_a_stale_expectation_is_a_strict_xpass(tmp_path):
    code, out, counts = run_pytest(tmp_path, *EXAMPLE, f"--webnn-expectations={EXPECTATIONS}",
                                   "--webnn-option", "leaky_relu=fixed")
    assert (code, counts) == (1, {"failed": 4, "passed": 8, "skipped": 6}), out
    assert out.count("[XPASS(strict)] known failure: example-numpy's deliberate bug") == 4


def test_failures_say_expected_got_budget_and_reproduce_and_lf_reruns_them(tmp_path):
    code, out, counts = run_pytest(tmp_path, *EXAMPLE)
    assert (code, counts) == (1, {"failed": 4, "passed": 8, "skipped": 6}), out
    assert re.search(r"worst element output\[\d+\]: expected -?[\d.e-]+, got -?[\d.e-]+", out), out
    assert re.search(r"max ULP error [\d.e+]+ > budget [\d.]+", out), out
    commands = re.findall(r"reproduce: (webnn-harness run .*)", out)
    assert len(commands) == 4 and all("--backend example-numpy" in c for c in commands)

    code, out, counts = run_pytest(tmp_path, *EXAMPLE, "--lf")
    assert (code, counts) == (1, {"failed": 4, "deselected": 14}), out
    assert (tmp_path / ".pytest_cache").is_dir()  # the rootdir is here, not the case files' checkout

    # The printed command reproduces the failure with the harness's own CLI.
    from webnn_harness.cli import main
    from webnn_harness.outputs.run_folder import read_records_whole

    argv = shlex.split(commands[0])[1:]
    argv[argv.index("--out") + 1] = str(tmp_path / "rerun")  # it names a fresh folder; keep tests out of out/
    assert main([*argv, "--workers", "1", "-q"]) == 1
    (record,) = read_records_whole(tmp_path / "rerun" / "results.jsonl").records
    assert record.status == "fail" and record.case in out


def test_x_stops_at_the_first_failure(tmp_path):
    code, out, counts = run_pytest(tmp_path, *EXAMPLE, "-x")
    # file order: "default alpha" passes, then "alpha 0.5" fails
    assert (code, counts) == (1, {"failed": 1, "passed": 1}), out


def test_a_crash_or_a_hang_fails_its_own_item_and_the_session_goes_on(tmp_path):
    cases = [REPO / "cases" / "elementwise" / f"{op}.json" for op in ("relu", "abs", "neg")]
    code, out, counts = run_pytest(
        tmp_path, "--webnn-backend", "webnn_harness.backends.faulty:create",
        "--webnn-option", "crash_op=relu", "--webnn-option", "hang_op=neg", "--webnn-timeout", "2",
        *(f"--webnn-cases={c}" for c in cases), "-k", "float32 and 1D and generated")
    from webnn_harness.loading.cases import load_cases

    assert (code, counts) == (1, {"failed": 2, "passed": 1, "deselected": len(load_cases(cases)) - 3}), out
    assert "relu float32 1D generated: crash" in out and "killed by SIGABRT" in out
    assert "neg float32 1D generated: timeout" in out and "did not finish within 2 s" in out
    # the re-run command names the backend as it was given here, a module:factory target
    assert "reproduce: webnn-harness run --backend webnn_harness.backends.faulty:create -o crash_op=relu" in out


def test_a_case_that_does_not_load_fails_alone(tmp_path):
    good = {"name": "relu ok", "graph": {
        "inputs": {"x": {"data": [-1.0, 2.0], "descriptor": {"shape": [2], "dataType": "float32"}}},
        "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
        "expectedOutputs": {"y": {"data": [0.0, 2.0], "descriptor": {"shape": [2], "dataType": "float32"}}}}}
    bad = {"name": "relu broken", "graph": {**good["graph"], "operators": [{"name": "relu", "arguments": []}]}}
    corpus = tmp_path / "mycorpus"
    corpus.mkdir()
    import json

    (corpus / "relu.json").write_text(json.dumps({"tests": [good, bad]}))
    code, out, counts = run_pytest(tmp_path, "--webnn-backend", "example-numpy", f"--webnn-cases={corpus}")
    assert (code, counts) == (1, {"failed": 1, "passed": 1}), out
    assert re.search(r"case does not load: .*relu\.json: \"relu broken\": ", out), out


def test_the_worker_pool_serves_one_case_per_call_with_the_same_worker():
    # The plugin sends one case per item; a worker spawn per item would cost a backend import each.
    from webnn_harness import backends
    from webnn_harness.loading.cases import load_cases
    from webnn_harness.execution.pool import RunOptions, WorkerPool

    cases = load_cases([LEAKY_RELU])[:3]
    info = backends.create("example-numpy", {}).info().to_json()
    pool = WorkerPool("example-numpy", {}, RunOptions(workers=1, batch_size=1), info)
    records, pids = [], []
    try:
        for case in cases:
            pool.run_cases([case], records.append)
            pids.append(pool.workers[0].process.pid)
    finally:
        pool.close()
    assert len(set(pids)) == 1
    assert [r.case for r in records] == [c.name for c in cases]
