"""Every command block of the README runs as written, in order, from a folder
laid out like a checkout beside ``../shared/wpt`` (issue 28: the pytest
example ended "3 failed" and the "Using it" commands collided in out/run).

Each ``webnn-harness`` line runs through ``main`` with its argv as written,
except for these substitutions, each to bound the cost of a test and none
changing what a command means:

- ``mybackend`` is the example backend ``example-numpy`` (as in
  tests/test_example_backend.py's CI recipe test), and ``$I`` of a shard
  line runs for each I of its N;
- the corpora are small: ``../shared/wpt`` is a folder of two case files (``../shared/wpt-extra`` two: relu and sign),
  and the bundled corpus is three of its files (same ids);
- ``fuzz --time 300`` searches for 8 seconds (when that finds nothing, the
  replay of its findings is the usage error it then is); ``probe`` probes two
  operators without layout timing or byte search; a bench suite keeps two
  benchmarks (and the ops suite's first one), timed briefly, under tiny measured peaks;
- ``--backend chromium -o version=V`` of the Chromium releases recipe is
  ``tests/releases_standin.py`` at milestone V (STANDINS).

The ``pytest`` lines run as a subprocess in that folder (pytest-xdist's
``-n auto`` as two workers). Lines that need what a test cannot have (a
fresh venv, a Ray cluster, a GPU) are listed in NOT_RUN with the reason; a
README line this file neither runs nor lists fails the test.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from webnn_harness.cli import main

# Substrings of README commands this test does not run, and why.
NOT_RUN = {
    "python3 -m venv": "installing into a fresh venv is what .ci/run does on every CI run",
    "/pip install": "installing into a fresh venv is what .ci/run does on every CI run",
    "python -m pytest -n auto": "the whole test suite, which is this test's own run (.ci/run)",
    "tools/refresh_constraints.sh": "it builds a fresh venv and runs the whole suite",
    "ray start": "needs machines to form a Ray cluster",
    "--ray-address HEAD:6379": "needs a Ray cluster at HEAD",
    "ep=CUDAExecutionProvider": "needs an NVIDIA GPU and onnxruntime-gpu",
    "git clone https://example.com/": "the vendor's own archive repository (the archive itself is a plain folder here)",
    "git -C archive": "the vendor's own archive repository",
    "python benchmarks/": "a benchmark script that times for minutes (benchmarks print numbers; they are not tests)",
    "browsers install": "downloads a 70 MB npm package (tests/test_chromium_backend.py installs a fake one from a fake npm)",
    "--backend chromium": "needs the installed browser (tests/test_chromium_backend.py runs it where one is installed)",
    "import-wpt ~/wpt": "needs a WPT checkout (tests/test_wpt_import.py runs it on WPT-shaped files of our own)",
    "--cases out/wpt-import": "runs what the import above wrote",
    "--out out/ov-wpt": "tests/test_wpt_accounting.py runs both WPT corpora on all five backends",
    "tools/wpt_accounting.py": "tests/test_wpt_accounting.py accounts for those runs",
    "tools/onnx_blocks.py": "tests/test_onnx_import.py writes and imports the blocks",
    "LIGHT=": "a shell variable for the import below",
    "print(os.path.dirname(onnx.__file__))": "the second half of the LIGHT= line (the splitter cuts it at ';')",
    "import-onnx $LIGHT": "two minutes of reference runs; tests/test_onnx_import.py imports SqueezeNet and the blocks",
    "--cases out/models": "runs what the import above wrote",
    "tools/model_refusals.py": "reads the run above (tests/test_onnx_import.py checks the predictions)",
    "import-onnx models/": "needs ONNX model files (import-onnx's own tests import models of their own)",
    "out/models": "runs, benches and reports what the import above wrote (tests/test_bench_cases.py and "
                  "tests/test_models_page.py run bench --cases and the models page on small cases)",
}
# Substrings of README commands run with a stand-in, checked before NOT_RUN: (replacement, why).
STANDINS = {
    "--backend chromium -o version=": ("--backend releases_standin:create -o version=",
                                       "the recipe of Chromium releases on tests/releases_standin.py, a reference that "
                                       "changes from release to release (no browser, four releases in seconds)"),
}
# The vendor CI recipe has its own as-written test (it runs on the example backend there).
TESTED_ELSEWHERE = {"### A backend vendor's CI": "tests/test_example_backend.py::test_the_readme_ci_recipe_runs_as_written_on_the_example"}
STANDIN_BUNDLED = ("elementwise/relu.json", "elementwise/leaky_relu.json", "convolution/conv2d.json")


def readme_commands() -> list[tuple[str, str]]:
    """(section, command) for every command of every ```sh block, in order:
    continuation lines joined, comments dropped, `a && b; c` split in three."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    commands = []
    section, block = "", None  # block: the lines of the ```sh block being read
    for line in text.splitlines():
        if block is None:
            if line.startswith("#"):
                section = line.strip()
            elif line.strip() == "```sh":
                block = []
            continue
        if line.strip() != "```":
            block.append(line)
            continue
        for joined in "\n".join(block).replace("\\\n", " ").splitlines():
            joined = re.sub(r"(^|\s)#.*$", "", joined).strip()  # a comment (none of ours has # inside quotes)
            commands += [(section, c) for c in re.split(r"\s*(?:&&|;)\s+", joined) if c]
        block = None
    return commands


def _standin_checkout(root: Path) -> Path:
    """root/checkout (the working folder) beside root/shared/wpt and root/shared/wpt-extra."""
    wpt = root / "shared" / "wpt"
    wpt.mkdir(parents=True)
    relu = {"name": "relu float32 1D tensor", "graph": {
        "inputs": {"x": {"data": [-1, 2, -3, 4.5], "descriptor": {"shape": [4], "dataType": "float32"}}},
        "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
        "expectedOutputs": {"y": {"data": [0, 2, 0, 4.5], "descriptor": {"shape": [4], "dataType": "float32"}}}}}
    (wpt / "relu.json").write_text(json.dumps({"tests": [relu]}))
    (root / "shared" / "wpt-extra").mkdir()
    shutil.copy(REPO / "cases" / "elementwise" / "relu.json", root / "shared" / "wpt-extra" / "relu.json")
    shutil.copy(REPO / "cases" / "elementwise" / "leaky_relu.json", wpt / "leaky_relu.json")
    shutil.copy(REPO / "cases" / "elementwise" / "sign.json", root / "shared" / "wpt-extra" / "sign.json")
    checkout = root / "checkout"
    for rel in STANDIN_BUNDLED:
        (checkout / "cases" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / "cases" / rel, checkout / "cases" / rel)
    (checkout / "examples" / "numpy_float32").mkdir(parents=True)
    shutil.copy(REPO / "examples" / "numpy_float32" / "expectations.json", checkout / "examples" / "numpy_float32")
    return checkout


@pytest.fixture
def small_world(tmp_path, monkeypatch):
    """The stand-ins the module docstring lists, patched where the CLI looks them up."""
    import webnn_harness.api as api
    import webnn_harness.bench.driver as bench_driver
    import webnn_harness.bench.suite as bench_suite
    import webnn_harness.loading.cases as cases
    import webnn_harness.probe.driver as probe_driver
    from webnn_harness.bench.machine import measure_peaks
    from webnn_harness.bench.measure import TimingPolicy

    checkout = _standin_checkout(tmp_path)
    bundled = lambda: checkout / "cases"  # noqa: E731
    monkeypatch.setattr(cases, "bundled_corpus", bundled)
    monkeypatch.setattr(api, "bundled_corpus", bundled)
    real_suite, real_probe = bench_suite.load_suite, probe_driver.probe
    def trimmed(name):
        # The first two benchmarks, and the ops suite's first one wherever it stands: the README's
        # `--suite ops --baseline` line needs a benchmark in common with the default suite's bench, as the
        # whole suites have.
        suite, shared = real_suite(name), real_suite("ops").benchmarks[0].id
        kept = [*suite.benchmarks[:2], *(b for b in suite.benchmarks[2:] if b.id == shared)]
        return dataclasses.replace(suite, benchmarks=tuple(kept))

    monkeypatch.setattr(bench_suite, "load_suite", trimmed)
    monkeypatch.setattr(bench_driver, "measure_peaks", lambda **_: measure_peaks(
        copy_bytes=1 << 16, matmul_size=32, repeats=1, noise_size=32, noise_seconds=0.01))
    monkeypatch.setattr(bench_driver, "TimingPolicy", TimingPolicy, raising=False)

    def small_probe(backend, options, out, ops=None, **kwargs):
        return real_probe(backend, options, out, ops=ops or ["relu", "conv2d"],
                          **{**kwargs, "layout": False, "byte_search": False})

    monkeypatch.setattr(probe_driver, "probe", small_probe)
    monkeypatch.chdir(checkout)
    return checkout


def _argv(command: str) -> list[list[str]]:
    """The argv lists one README command runs (a shard line once per shard)."""
    command = command.removeprefix(".venv/bin/").replace("mybackend", "example-numpy")
    argv = shlex.split(command)[1:]
    if "--time" in argv:
        argv[argv.index("--time") + 1] = "8"
    if "bench" in argv[:1]:
        argv += ["--min-time", "0.01", "--min-samples", "3", "--max-time", "1"]
    if any("$I" in a for a in argv):
        n = int(next(a for a in argv if "$I/" in a).split("/")[1])
        return [[a.replace("$I", str(i)) for a in argv] for i in range(1, n + 1)]
    return [argv]


def test_every_readme_command_runs_as_written(small_world, capsys):
    pytest.importorskip("onnxruntime")
    ran, outcomes = [], []
    pytest_lines = []
    for section, command in readme_commands():
        for found, (replacement, _) in STANDINS.items():
            command = command.replace(found, replacement)
        if section in TESTED_ELSEWHERE or any(s in command for s in NOT_RUN):
            continue
        program = command.split()[0].removeprefix(".venv/bin/")
        if program == "pytest":
            pytest_lines.append(command)
            continue
        assert program == "webnn-harness", f"README command this test neither runs nor lists in NOT_RUN: {command}"
        for argv in _argv(command):
            code = main(argv)
            out, err = capsys.readouterr()
            outcomes.append((command, argv, code, err))
            ran.append(argv[0])
            assert "Traceback" not in out + err, command
            if "out/fuzz/findings" in argv and not (small_world / "out" / "fuzz" / "findings").is_dir():
                assert code == 2 and "no such file" in err  # the short fuzz found nothing to replay
                continue
            # exit 2 is a usage mistake or a refused folder: never what a README command should give
            assert code in (0, 1), f"{command!r} exited {code}: {err.strip()[-600:]}"
    assert {"run", "probe", "report", "ops", "backends", "bench", "fuzz", "merge", "diff", "junit"} <= set(ran)
    codes = {" ".join(argv): code for _, argv, code, _ in outcomes}
    # the merged shards are the later run again: no regression; the first run wrote the expectations that make it green
    assert codes["diff out/later out/merged --format markdown"] == 0
    assert codes["run -b example-numpy --cases ../shared/wpt --update-expectations expectations.json --out out/first"] == 0
    assert (small_world / "out" / "site" / "performance.html").is_file()
    # Chromium's releases (stand-ins): a column each, leakyRelu newly passing and declared at 149, the index leading
    changes = (small_world / "releases" / "site" / "changes.html").read_text()
    assert "143.0.0.0" in changes and "153.0.0.0" in changes and "leakyRelu.input: float32" in changes
    assert re.search(r"leaky_relu\.json::[^<]*", changes)
    assert "<h1>chromium 153.0.0.0" in (small_world / "releases" / "site" / "index.html").read_text()
    # the example with its expectations, onnxruntime, the example's bug, then --lf: only those failures again
    results = [_run_pytest_line(command, small_world) for command in pytest_lines]
    assert [code for code, _ in results] == [0, 0, 1, 1], results
    assert re.search(r"\b4 failed, \d+ passed", results[2][1])
    assert re.search(r"\b4 failed, \d+ deselected", results[3][1]) and " passed" not in results[3][1]


def _run_pytest_line(command: str, checkout: Path) -> tuple[int, str]:
    """Its exit code and pytest's last line."""
    env = {**os.environ, "PYTEST_XDIST_AUTO_NUM_WORKERS": "2"}
    done = subprocess.run([sys.executable, "-m", *shlex.split(command), "-q"], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=600)
    assert "Traceback" not in done.stdout + done.stderr, (done.stdout + done.stderr)[-1500:]
    return done.returncode, (done.stdout.strip().splitlines() or [""])[-1]
