"""``run`` streams its selection: the executor is handed the cases as they
load, so workers compute the first batches while later files are read; an
empty selection is still known before anything is written."""
import json
import threading
import time
from dataclasses import replace

import pytest
from test_vendor_ci import relu_case

from webnn_harness.loading import cases as cases_module
from webnn_harness.loading.cases import Case, load_cases
from webnn_harness.cli import main
from webnn_harness.execution.executors import LocalExecutors
from webnn_harness.api import BackendRequest, RunEvents, RunRequest, run
from webnn_harness.execution.pool import BatchFeed, RunOptions, WorkerPool, batches
from webnn_harness.loading.selection import Selection, SelectionError, Shard
from webnn_harness.verdict.record import base_record


@pytest.fixture
def corpus(tmp_path):
    """A corpus "streamcases" of 5 files of 3 cases; the second holds a malformed case."""
    root = tmp_path / "streamcases"
    root.mkdir()
    for f in range(5):
        tests = [relu_case(f"relu {f}.{i}") for i in range(3)]
        if f == 1:
            tests[2] = {"name": "relu broken"}
        (root / f"f{f}.json").write_text(json.dumps({"tests": tests}))
    return root


def test_a_selection_loads_a_case_at_a_time_in_load_order(corpus):
    selection = Selection([corpus])
    assert selection.items == [] and not selection.finished
    assert selection.load_next() and [c.name for c in selection.items] == ["relu 0.0"]
    assert [c.id for c in selection] == [c.id for c in load_cases([corpus])]
    assert selection.finished and not selection.load_next()
    assert [c.id for c in Selection([corpus], ids=["streamcases/f3.json"]).finish()] == \
        [f"streamcases/f3.json::relu 3.{i}" for i in range(3)]


def test_a_shard_reads_every_file_first_then_loads_only_its_own_cases(corpus, monkeypatch):
    """A shard takes every count-th case in stable-id order: every file is
    read before its first case, but only the shard's cases are loaded
    (validated, built, values made), one at a time as the run asks."""
    expected = [c.id for c in Shard(2, 4).take(load_cases([corpus]))]
    loaded = []
    load_case = cases_module.load_case
    monkeypatch.setattr(cases_module, "load_case", lambda raw, *a, **k: loaded.append(raw["name"]) or load_case(raw, *a, **k))
    selection = Selection([corpus], shard=Shard(2, 4))
    assert selection.load_next() and len(selection.items) == 1 and len(loaded) == 1
    assert [c.id for c in selection] == expected and selection.finished
    assert [f"streamcases/{c.file.split('/')[-1]}::{name}" for c, name in zip(selection.items, loaded)] == expected
    with pytest.raises(SelectionError, match="--shard 16/16 selects nothing: the selection has only 15 cases"):
        Selection([corpus], shard=Shard(16, 16)).first()


def test_an_empty_selection_says_why_when_loading_ends(corpus):
    selection = Selection([corpus], name_filter="no such name")
    with pytest.raises(SelectionError, match="no cases selected: no case under .* matches --filter 'no such name'"):
        selection.first()
    assert selection.finished


def test_a_feed_cuts_the_batches_a_list_would_give():
    feed = BatchFeed(iter(range(130)), 64)
    assert [feed.pull(), feed.pull(), feed.pull(), feed.pull()] == [64, 64, 2, 0]
    assert list(feed.queue) == [list(range(64)), list(range(64, 128)), [128, 129]]
    assert feed.exhausted and feed.made == 3
    # a list cut whole, its length a multiple of the size: no empty batch at the end
    assert list(batches(list(range(128)), RunOptions(batch_size=64), {})) == [list(range(64)), list(range(64, 128))]


class Recording(LocalExecutors):
    """The local executor, with a pool that records each case as a pass and
    notes what had been loaded when the first case reached it."""

    def __init__(self, out, files_read):
        self.out, self.files_read, self.seen_at_first = out, files_read, None

    def describe(self, backend, options):
        return {"name": backend, "version": "0.1.0", "device": "cpu", "settings": {}}

    def __call__(self, backend, options, run, info):
        executor = self

        class Pool:
            def run_cases(self, cases, on_record):
                for case in cases:
                    if executor.seen_at_first is None:
                        summary = json.loads((executor.out / "summary.json").read_text())
                        executor.seen_at_first = (list(executor.files_read), summary["progress"])
                    on_record(base_record(case, info, "pass"))

            def close(self):
                pass

        return Pool()


def test_run_hands_the_executor_its_first_case_before_the_rest_is_loaded(tmp_path, corpus, monkeypatch):
    files_read = []
    read_file = cases_module.read_file

    def logged(path, *args, **kwargs):
        files_read.append(path.name)
        if path.name == "f2.json":  # run() loads while backends are described: here that ends by f2
            describing = [t for t in threading.enumerate() if t.name == "describe backends"]
            for thread in describing:
                thread.join(10)
        return read_file(path, *args, **kwargs)

    monkeypatch.setattr(cases_module, "read_file", logged)
    out = tmp_path / "out"
    executor = Recording(out, files_read)
    started, totals = [], []
    result = run(RunRequest((corpus,), (BackendRequest("reference"),), out, executor=executor),
                 RunEvents(on_backend=lambda info, n: started.append(n), on_total=totals.append))
    read_then, progress_then = executor.seen_at_first
    assert read_then[0] == "f0.json" and not {"f3.json", "f4.json"} & set(read_then)  # the rest: not read yet
    assert progress_then["loading"] is True  # and the summary written then says so
    assert started == [None] and totals == [15]  # the count is given once loading ends
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is True and "loading" not in summary["progress"]
    assert summary["progress"]["planned"] == summary["progress"]["recorded"] == summary["cases"] == 15
    assert [str(e) for e in result.load_errors] == summary["loadErrors"] and len(summary["loadErrors"]) == 1
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in records) == sorted(c.id for c in load_cases([corpus]))
    assert [r["status"] for r in records].count("error") == 1


def test_the_pool_runs_the_first_batches_while_cases_are_still_produced():
    """The generator stops producing as soon as a record has come back: it
    can only do so if the pool ran a batch while it was still pulling cases."""
    (relu,) = load_cases([cases_module.bundled_corpus() / "elementwise" / "relu.json"],
                         name_filter="^relu float32 2D generated$")
    records, produced = [], []

    def produce():
        for i in range(2000):  # 20 s at most
            if records:
                return
            produced.append(replace(relu, name=f"relu {i}"))
            yield produced[-1]
            time.sleep(0.01)

    info = LocalExecutors().describe("reference", {})
    pool = WorkerPool("reference", {}, RunOptions(workers=1, batch_size=1), info)
    try:
        pool.run_cases(produce(), records.append)
    finally:
        pool.close()
    assert 0 < len(produced) < 2000
    assert sorted(r.case for r in records) == sorted(c.name for c in produced)
    assert {r.status for r in records} == {"pass"}
    assert all(isinstance(c, Case) for c in produced)


def test_selecting_nothing_leaves_an_earlier_run_as_it_was(tmp_path, corpus, capsys):
    args = ["run", "-q", "--workers", "1", "-b", "reference", "--cases", str(corpus), "--out", str(tmp_path / "o")]
    assert main(args) == 1  # the malformed case
    before = {p.name: p.read_bytes() for p in (tmp_path / "o").iterdir()}
    assert main([*args, "--overwrite", "--filter", "no such name"]) == 2
    assert "no cases selected" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in (tmp_path / "o").iterdir()} == before


def test_the_fork_server_starts_before_the_command_imports_numpy():
    """The fork server's module stays light (harness/execution/forkserver.py):
    the server imports the backends while the command imports and loads cases."""
    import subprocess
    import sys

    code = "import sys, webnn_harness.execution.forkserver; print(sorted({'numpy', 'webnn_harness.loading.cases'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_fork_server_starts_with_openvino_telemetry_off_and_the_run_keeps_its_environment(tmp_path):
    """harness/execution/forkserver.py: SERVER_ENVIRONMENT (why: its comment). Workers
    replace theirs with the run's (harness/execution/worker.py)."""
    import os
    import subprocess
    import sys

    code = """if __name__ == "__main__":
    import os
    from multiprocessing import forkserver
    from webnn_harness.execution.forkserver import prestart
    import time
    prestart()
    pid = forkserver._forkserver._forkserver_pid
    # Before its exec the server is a fork of this process, whose /proc environ is this one's at start.
    deadline = time.monotonic() + 30
    while b"forkserver" not in open(f"/proc/{pid}/cmdline", "rb").read() and time.monotonic() < deadline:
        time.sleep(0.01)
    server = open(f"/proc/{pid}/environ", "rb").read().split(b"\\0")
    print(b"CI=true" in server, "CI" in os.environ)
"""
    script = tmp_path / "server_env.py"
    script.write_text(code)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert out.stdout.split() == ["True", "False"], out.stderr


@pytest.mark.parametrize("ops", [["relu"], ["conv2d"], ["conv2d", "relu"], ["gatherND"], ["add"]])
def test_op_and_name_filters_decide_before_loading_and_select_as_a_full_load_would(tmp_path, monkeypatch, ops):
    """--op keeps a case that loads when it uses a wanted op, and one that
    fails when its file or name names one. Read from the raw JSON where that
    does not depend on loading, the selection is what filtering every loaded
    case gives, and a case no filter keeps is never loaded."""
    from webnn_harness.loading.cases import CaseError, _mentions_op

    root = tmp_path / "mixed"
    root.mkdir()
    (root / "relu.json").write_text(json.dumps({"tests": [
        relu_case("relu ok"), {"name": "relu broken"}, relu_case("relu ok"),  # a duplicate name fails
        {"name": "conv2d named, no graph"}]}))
    (root / "misc.json").write_text(json.dumps({"tests": [
        relu_case("plain"), {**relu_case("unknown op"), "graph": {**relu_case("x")["graph"],
                                                                  "operators": [{"name": "relux", "arguments": [],
                                                                                 "outputs": "y"}]}},
        {"name": "add of nothing", "graph": {"inputs": {}, "operators": [{"name": "add"}]}}]}))
    paths = [root, cases_module.bundled_corpus() / "elementwise"]
    everything = load_cases(paths)
    wanted = set(ops)
    expected = [c.id for c in everything if (wanted & set(c.graph.ops) if isinstance(c, Case)
                                             else _mentions_op(c, wanted))]
    loaded = []
    load_case = cases_module.load_case
    monkeypatch.setattr(cases_module, "load_case", lambda raw, *a, **k: loaded.append(1) or load_case(raw, *a, **k))
    got = load_cases(paths, ops=ops)
    assert [c.id for c in got] == expected
    assert [str(c) for c in got if isinstance(c, CaseError)] == \
        [str(c) for c in everything if isinstance(c, CaseError) and c.id in expected]
    assert len(loaded) < len(everything)
    loaded.clear()
    named = load_cases(paths, ops=ops, name_filter="^relu ok$")
    assert [c.id for c in named] == [i for i in expected if i.endswith("::relu ok")]
    assert len(loaded) <= 1  # the duplicate "relu ok" fails without being loaded


def test_the_backend_that_ran_while_cases_loaded_says_how_long_loading_took(tmp_path, corpus, monkeypatch):
    """A streamed run loads its cases while the first backend's workers run:
    that backend's seconds include the loading, and its tally says how much
    (loadingSeconds); the next backend runs on cases already loaded."""
    read_file = cases_module.read_file

    def slow_after_describing(path, *args, **kwargs):
        if path.name == "f2.json":  # as above: the rest loads once the backends are described, slowly
            for thread in [t for t in threading.enumerate() if t.name == "describe backends"]:
                thread.join(10)
        if path.name in ("f3.json", "f4.json"):
            time.sleep(0.1)
        return read_file(path, *args, **kwargs)

    monkeypatch.setattr(cases_module, "read_file", slow_after_describing)
    out = tmp_path / "out"
    run(RunRequest((corpus,), (BackendRequest("reference"), BackendRequest("example-numpy")), out))
    first, second = json.loads((out / "summary.json").read_text())["backends"]
    assert first["total"] == second["total"] == 15
    assert 0.2 <= first["loadingSeconds"] <= first["seconds"]
    assert second["loadingSeconds"] < 0.1
