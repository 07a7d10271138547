"""Faults injected into real runs: SIGINT, SIGTERM and SIGKILL of the parent
while a worker is in a hung case, and two runs into one folder. Each asserts
what survives (records, an honest summary) and that nothing is left running."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from processes import alive, children, command, descendants, wait_gone

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; signals as on POSIX")

RELU = {
    "graph": {
        "inputs": {"x": {"data": [-1, 2, -3, 4], "descriptor": {"shape": [4], "dataType": "float32"}}},
        "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
    },
}
FAULTY = "webnn_harness.backends.faulty:create"  # hangs on neg for an hour


def _cases(tmp_path: Path) -> Path:
    cases = [{**json.loads(json.dumps(RELU)), "name": f"relu {i}"} for i in range(3)]
    hang = json.loads(json.dumps(RELU))
    hang["name"], hang["graph"]["operators"][0]["name"] = "hangs", "neg"
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"tests": [*cases, hang]}))
    return path


def _start(tmp_path: Path, out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "webnn_harness", "run", "-q", "--workers", "2", "--batch-size", "1", "--timeout", "600",
         "--backend", FAULTY, "--cases", str(_cases(tmp_path)), "--out", str(out), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )


def _wait_for_hang(proc: subprocess.Popen, out: Path) -> list[int]:
    """Until the three quick cases are recorded (the hung one is then running);
    returns the pids of the run's children (workers, resource tracker)."""
    deadline = time.monotonic() + 90
    results = out / "results.jsonl"
    while time.monotonic() < deadline:
        if results.exists() and len(results.read_text().splitlines()) >= 3:
            time.sleep(0.3)
            kids = descendants(proc.pid)  # workers are children of multiprocessing's fork server
            assert any("spawn_main" in command(k) or "forkserver" in command(k) for k in kids), "no worker is running"
            return kids
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("the quick cases were not recorded in 90 s")


@pytest.mark.parametrize("sig, code, stopped_by", [
    (signal.SIGINT, 130, "interrupted (SIGINT)"),
    (signal.SIGTERM, 143, "terminated (SIGTERM)"),
])
def test_interrupt_writes_an_incomplete_summary_in_one_line(tmp_path, sig, code, stopped_by):
    out = tmp_path / "out"
    proc = _start(tmp_path, out)
    kids = _wait_for_hang(proc, out)
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)  # Ctrl-C reaches the whole foreground process group
    else:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == code
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "--resume" in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and summary["stoppedBy"] == stopped_by
    assert summary["progress"]["recorded"] == 3 and summary["progress"]["planned"] == 4
    assert wait_gone(kids) == []


def test_sigkill_of_the_parent_takes_the_hung_worker_and_resource_tracker_with_it(tmp_path):
    out = tmp_path / "out"
    proc = _start(tmp_path, out)
    kids = _wait_for_hang(proc, out)
    assert any("resource_tracker" in command(k) for k in kids)
    proc.kill()
    proc.communicate(timeout=30)  # a surviving worker would hold the pipes open
    assert wait_gone(kids) == [], [command(k) for k in kids if alive(k)]
    # What SIGKILL leaves: the records written so far, and a summary that says the run is incomplete.
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and len((out / "results.jsonl").read_text().splitlines()) == 3


def test_a_second_run_into_the_same_folder_exits_2_while_the_first_holds_it(tmp_path):
    from webnn_harness.cli import main

    out = tmp_path / "out"
    first = _start(tmp_path, out)
    kids = _wait_for_hang(first, out)
    before = (out / "results.jsonl").read_bytes()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "webnn_harness", "run", "-q", "--backend", "reference", "--overwrite",
             "--cases", str(_cases(tmp_path)), "--out", str(out)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and "another run is writing to this folder" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
        assert main(["run", "-q", "--backend", "reference", "--resume", "--cases", str(_cases(tmp_path)),
                     "--out", str(out)]) == 2  # in-process too, and with --resume
        assert (out / "results.jsonl").read_bytes() == before
    finally:
        first.terminate()
        first.communicate(timeout=30)
    assert wait_gone(kids) == []


def test_resume_after_sigkill_reads_what_is_whole_and_runs_only_the_rest(tmp_path, capsys):
    from webnn_harness.cli import main

    out = tmp_path / "out"
    proc = _start(tmp_path, out)
    kids = _wait_for_hang(proc, out)
    proc.kill()
    proc.communicate(timeout=30)  # a surviving worker would hold the pipes open
    assert wait_gone(kids) == []
    with (out / "results.jsonl").open("a") as fh:
        fh.write('{"file": "cases.json", "case": "hangs", "ops": ["ne')  # what a kill mid-write leaves
    args = ["run", "-q", "--backend", FAULTY, "-o", "hang_seconds=0", "--workers", "1",
            "--cases", str(tmp_path / "cases.json"), "--out", str(out)]
    assert main(args) == 2  # the folder holds a run: not replaced unasked
    capsys.readouterr()
    assert main([*args, "--resume"]) == 0
    captured = capsys.readouterr()
    assert "line 4: cut short" in captured.err and "kept 3 records" in captured.out
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["case"] for r in records] == ["relu 0", "relu 1", "relu 2", "hangs"] or \
        sorted(r["case"] for r in records) == ["hangs", "relu 0", "relu 1", "relu 2"]
    assert all(r["status"] == "pass" for r in records)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is True and summary["backends"][0]["counts"]["pass"] == 4


def test_the_report_shows_an_interrupted_run_as_incomplete_never_required_ok(tmp_path):
    from webnn_harness.reports import build_model, build_site

    out = tmp_path / "out"
    proc = _start(tmp_path, out)
    kids = _wait_for_hang(proc, out)
    proc.terminate()
    proc.communicate(timeout=30)
    assert wait_gone(kids) == []
    (b,) = build_model([out]).conformance.backends
    assert b.required_problems == 0 and "SIGTERM" in b.header.incomplete and "3 of 4 records" in b.header.incomplete
    html = (build_site([out], tmp_path / "site").parent / "conformance.html").read_text()
    assert "incomplete run" in html and "required OK" not in html


def test_rerun_failures_runs_only_the_non_passes_into_a_new_folder(tmp_path, capsys):
    from webnn_harness.cli import main

    wrong = {**json.loads(json.dumps(RELU)), "name": "relu wrong"}
    wrong["graph"]["expectedOutputs"] = {"y": {"data": [0, 2, 0, 5], "descriptor": {"shape": [4], "dataType": "float32"}}}
    cases = tmp_path / "mixed.json"
    cases.write_text(json.dumps({"tests": [{**RELU, "name": "relu ok"}, wrong]}))
    first, again = tmp_path / "first", tmp_path / "again"
    assert main(["run", "-q", "--backend", "reference", "--workers", "1", "--cases", str(cases), "--out", str(first)]) == 1
    # Records name files by stable id, so the corpus is given again with --cases.
    assert main(["run", "-q", "--rerun-failures", str(first), "--cases", str(cases), "--workers", "1",
                 "--out", str(again)]) == 1
    (record,) = [json.loads(line) for line in (again / "results.jsonl").read_text().splitlines()]
    assert record["case"] == "relu wrong" and record["status"] == "fail"
    capsys.readouterr()
    assert main(["run", "-q", "--rerun-failures", str(first), "--out", str(first)]) == 2
    assert "other than the run it reads" in capsys.readouterr().err


@pytest.mark.parametrize("how", ["pdeathsig", "watchdog"])
def test_a_worker_dies_with_its_parent_by_either_guard(tmp_path, how):
    """PR_SET_PDEATHSIG on Linux; the watchdog on the parent's pipe elsewhere
    (exercised here by hiding Linux from the worker)."""
    from processes import SPAWN_A_SLEEPING_WORKER

    script = tmp_path / "spawner.py"
    script.write_text(SPAWN_A_SLEEPING_WORKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])}
    parent = subprocess.Popen([sys.executable, str(script), how], stdout=subprocess.PIPE, text=True, env=env)
    worker = int(parent.stdout.readline())
    time.sleep(1.0)  # past die_with_parent
    assert alive(worker)
    kids = children(parent.pid)
    parent.kill()
    parent.wait()
    parent.stdout.close()  # not communicate(): a surviving worker would hold the pipe open
    left = wait_gone([worker, *kids])
    for pid in left:  # a failure must not leave a sleeper behind
        os.kill(pid, signal.SIGKILL)
    assert left == []


# ------------------------------------------------------------------ damaged caches, full and read-only disks


def _relu_corpus(tmp_path: Path, count: int) -> Path:
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"tests": [{**RELU, "name": f"relu {i}", "graph": {
        **RELU["graph"], "expectedOutputs": {"y": {"data": [0, 2, 0, 4],
                                                   "descriptor": {"shape": [4], "dataType": "float32"}}}}}
        for i in range(count)]}))
    return path


@pytest.mark.parametrize("damage", ["garbage", "a header claiming 10^12 values", "one byte changed", "cut short",
                                    "nested deep", "empty"])
def test_a_damaged_reference_cache_entry_is_computed_again_never_a_verdict(tmp_path, monkeypatch, damage):
    import numpy as np

    from webnn_harness.loading.cases import load_file
    from webnn_harness.verdict import reference_cache as refcache

    monkeypatch.setattr(refcache, "MIN_SECONDS_TO_KEEP", 0.0)
    (case, *_) = load_file(_relu_corpus(tmp_path, 1))
    folder = tmp_path / "cache"
    first = refcache.ReferenceCache(folder).outputs_for(case)
    (entry,) = folder.iterdir()
    data = entry.read_bytes()
    head, body = data.split(b"\n", 1)
    damaged = {
        "garbage": bytes(range(256)) * 8,
        "a header claiming 10^12 values": head + b"\n" + body.replace(b"(4,)", b"(1000000000000,)"),
        "one byte changed": data[:-1] + bytes([data[-1] ^ 1]),
        "cut short": data[: len(data) // 2],
        "nested deep": b"[" * 200_000 + b"]" * 200_000 + b"\n" + body,
        "empty": b"",
    }[damage]
    entry.write_bytes(damaged)
    assert refcache._read(entry) is None
    again = refcache.ReferenceCache(folder).outputs_for(case)  # computed again, not read
    assert np.array_equal(again["y"].values, first["y"].values)
    code = _run_quietly(["run", "-q", "-b", "reference", "--workers", "1", "--cases", str(tmp_path / "many.json"),
                         "--out", str(tmp_path / "r")], env={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert code == 0


def _run_quietly(argv: list[str], env: dict | None = None, **kwargs) -> int:
    proc = subprocess.run([sys.executable, "-m", "webnn_harness", *argv], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300, **kwargs)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode


def test_a_damaged_onnxruntime_kernel_cache_is_read_as_empty_and_replaced(tmp_path):
    pytest.importorskip("onnxruntime")
    from webnn_harness.backends.onnxruntime.opsets import KernelTable

    cache = tmp_path / "kernels.json"
    for damage in (b"[" * 200_000 + b"]" * 200_000, b"\xff\xfe not json", b'{"a": [1, {"b": 2}]}'):
        cache.write_bytes(damage)
        table = KernelTable("1.0", "CPUExecutionProvider", 10, cache_path=cache)
        table._new = {f"{table.prefix}Relu": True}
        table._flush()
        assert json.loads(cache.read_text()).get(f"{table.prefix}Relu") is True
        assert [p.name for p in tmp_path.iterdir()] == ["kernels.json"], "a temporary file was left"


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KiB tmpfs: a real full disk (ENOSPC). Mounting needs root (CI runs as root)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
                             capture_output=True, text=True)
    if mounted.returncode:
        pytest.skip(f"a full disk needs a tmpfs mount (root): {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=True)


def test_a_run_onto_a_full_disk_ends_in_one_line_keeping_whole_records(tmp_path, small_disk):
    out = small_disk / "run"
    proc = subprocess.run([sys.executable, "-m", "webnn_harness", "run", "-q", "-b", "reference", "--workers", "1",
                           "--cases", str(_relu_corpus(tmp_path, 600)), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1 and "no space left" in lines[0], proc.stderr
    records = (out / "results.jsonl").read_text()
    whole = [json.loads(line) for line in records.splitlines()[:-1]]  # the last line may be cut short
    assert whole and all(r["status"] == "pass" for r in whole)
    assert json.loads((out / "summary.json").read_text())["complete"] is False
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("command", ["report", "junit", "diff", "merge", "bench", "fuzz", "probe"])
def test_every_command_onto_a_full_disk_ends_in_one_line(tmp_path, small_disk, command):
    run = tmp_path / "run"
    assert _run_quietly(["run", "-q", "-b", "reference", "--workers", "1", "--cases",
                         str(_relu_corpus(tmp_path, 300)), "--out", str(run), "--shard", "1/1"]) == 0
    with open(small_disk / "filler", "wb", buffering=0) as filler:  # the disk is full
        with pytest.raises(OSError):
            while True:
                filler.write(b"\0" * 1024)
    argv = {
        "report": ["report", str(run), "--out", str(small_disk / "site")],
        "junit": ["junit", str(run), "--out", str(small_disk / "j.xml")],
        "diff": ["diff", str(run), str(run), "--format", "json", "--out", str(small_disk / "d.json")],
        "merge": ["merge", str(run), "--out", str(small_disk / "m")],
        "bench": ["bench", "-b", "reference", "--out", str(small_disk / "b"), "--min-time", "0.01",
                  "--min-samples", "3", "--max-time", "0.5", "-q", "--filter", "^relu"],
        "fuzz": ["fuzz", "-q", "-b", "reference", "--op", "relu", "--time", "1", "--out", str(small_disk / "f")],
        "probe": ["probe", "-q", "-b", "reference", "--op", "relu", "--no-layout", "--no-bytes",
                  "--out", str(small_disk / "p")],
    }[command]
    proc = subprocess.run([sys.executable, "-m", "webnn_harness", *argv], capture_output=True, text=True, timeout=300)
    errors = [line for line in proc.stderr.splitlines() if not line.startswith("warning: ")]
    assert proc.returncode in (1, 2) and len(errors) == 1, proc.stderr
    assert "no space left" in errors[0] and "Traceback" not in proc.stderr, proc.stderr
    assert not list(small_disk.rglob("*.tmp")), "a temporary file was left"


def test_fuzz_findings_on_a_read_only_file_system_end_in_one_line(tmp_path, monkeypatch, capsys):
    import errno

    from webnn_harness.cli import main
    from webnn_harness.files import writes as writing  # where every file is written (write_atomic)

    mkstemp = writing.tempfile.mkstemp

    def read_only(*args, dir=None, **kwargs):  # the folder is owned, then its findings cannot be written
        if dir is not None and Path(dir).name.startswith("findings"):
            raise OSError(errno.EROFS, "Read-only file system", str(dir))
        return mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(writing.tempfile, "mkstemp", read_only)
    code = main(["fuzz", "-q", "-b", FAULTY, "-o", "wrong_op=abs", "-o", "crash_op=", "-o", "hang_op=", "--op", "abs",
                 "--time", "2", "--shrink-cap", "1", "--out", str(tmp_path / "f")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "read-only" in err[0], err


@pytest.mark.parametrize("command, says", [("run", "run --resume continues"), ("bench", ""), ("fuzz", "fuzz --overwrite")])
def test_the_interrupt_line_names_only_what_the_command_has(monkeypatch, capsys, command, says):
    from webnn_harness import cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setitem(cli.COMMANDS, command, (interrupted, ""))
    argv = {"run": ["run"], "bench": ["bench"], "fuzz": ["fuzz", "-b", "reference"]}[command]
    assert cli.main(argv) == 130
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "what was written so far is kept" in line and says in line
    assert "resume" not in line or command == "run"
