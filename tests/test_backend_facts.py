"""What a backend says about itself before one is made (backends/base.py,
"Facts"), read through the protocol by the fork server, the bench and the
re-run commands: nothing in harness/ or reports/ is keyed on a backend's name.
The example out-of-tree backend's facts: tests/test_example_backend.py."""
from __future__ import annotations

import subprocess
import sys

import pytest

from webnn_harness import backends
from webnn_harness.backends.base import BackendFacts, BackendInfo, SettingOption, declared_facts
from webnn_harness.bench.driver import thread_options
from webnn_harness.execution.backend_preload import declared_preloads
from webnn_harness.execution.forkserver import PRELOAD_BACKENDS, SERVER_ENVIRONMENT, server_environment
from webnn_harness.backends import options_from_settings

RUNTIMES = ("onnx", "onnxruntime", "openvino", "ai_edge_litert", "flatbuffers")


def test_our_backends_declare_what_the_harness_kept_in_tables_before():
    ort, ov, litert, ref = (backends.facts(n) for n in ("onnxruntime", "openvino", "litert", "reference"))
    assert ort.preload == ("onnx", "onnxruntime", "webnn_harness.backends.onnxruntime.lower",
                           "webnn_harness.backends.onnxruntime.batch")
    assert ov.preload == ("openvino",)
    assert litert.preload == ("ai_edge_litert.interpreter", "webnn_harness.backends.litert.lower")
    assert ref == BackendFacts()
    assert [f.threads_option for f in (ort, ov, litert, ref)] == [True, True, True, False]
    assert dict(ort.bench_options) == {"spinning": "0"} and not ov.bench_options and not litert.bench_options
    assert ort.rerun_options == (SettingOption("provider", "ep", "CPUExecutionProvider"),
                                 SettingOption("graph_optimization_level", "opt_level", "all"),
                                 SettingOption("intra_op_threads", "threads", "1"))
    assert ov.rerun_options == (SettingOption("device", "device", "CPU"), SettingOption("precision", "precision", "exact"))


def test_reading_the_facts_imports_no_runtime():
    """The fork server is started before the run's heavy imports, and a report
    page reads the facts of every backend its records name: reading them
    imports each backend's module, never the runtime it drives."""
    code = ("import sys; from webnn_harness import backends\n"
            "for name in ('onnxruntime', 'openvino', 'litert', 'reference'): backends.facts(name)\n"
            f"print(sorted(set({RUNTIMES!r}) & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_bench_sets_threads_and_its_options_where_the_backend_says():
    assert thread_options("onnxruntime", {}, 4) == {"threads": "4", "spinning": "0"}
    assert thread_options("onnxruntime", {"spinning": "1", "threads": "2"}, 4) == {"threads": "2", "spinning": "1"}
    assert thread_options("openvino", {}, 4) == {"threads": "4"}
    assert thread_options("litert", {"delegate": "none"}, 4) == {"delegate": "none", "threads": "4"}
    assert thread_options("reference", {}, 4) == {}
    # one that cannot be loaded gets nothing: its worker says why, as before
    assert thread_options("no-such-backend", {"x": "1"}, 4) == {"x": "1"}


def test_rerun_options_come_from_the_settings_as_the_backend_maps_them():
    assert options_from_settings({"name": "litert", "settings": {"delegate": "none", "threads": 1,
                                                                 "float16": "native"}}) == [
        "delegate=none", "float16=native"]
    assert options_from_settings({"name": "no-such-backend", "settings": {"device": "GPU"}}) == []


def test_a_module_named_by_a_record_is_never_imported_for_its_facts():
    name = "webnn_harness.backends.faulty:create"  # a factory, but not a registered name
    assert name not in backends.available() and backends.facts(name) == BackendFacts()
    code = ("import sys; from webnn_harness.backends import options_from_settings\n"
            f"print(options_from_settings({{'name': {name!r}, 'settings': {{}}}}), "
            "'webnn_harness.backends.faulty' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "False"]


def test_facts_are_a_backend_facts_or_the_defaults():
    def create(options):
        raise AssertionError("facts are read without making a backend")

    assert declared_facts(create) == BackendFacts()
    create.facts = BackendFacts(threads_option=True)
    assert declared_facts(create).threads_option
    create.facts = {"threads_option": True}
    with pytest.raises(TypeError, match="not a BackendFacts"):
        declared_facts(create)


def test_info_writes_threads_and_precision_only_where_said():
    assert BackendInfo("b", "1", "cpu").to_json() == {"name": "b", "version": "1", "device": "cpu", "settings": {}}
    assert BackendInfo("b", "1", "cpu", threads=2, precision="float32").to_json() == {
        "name": "b", "version": "1", "device": "cpu", "settings": {}, "threads": 2, "precision": "float32"}


def test_the_fork_server_is_told_the_backends_whose_modules_it_preloads():
    assert server_environment(iter(["onnxruntime", "pkg.mod:create"])) == {
        **SERVER_ENVIRONMENT, PRELOAD_BACKENDS: "onnxruntime\npkg.mod:create"}
    # each module once, in order; a backend that cannot be loaded adds none
    assert declared_preloads(["openvino", "no-such-backend", "openvino", "reference"]) == ["openvino"]


def test_a_worker_forked_by_the_server_has_what_its_backend_declares(tmp_path):
    """The server reads the facts itself (harness/execution/backend_preload.py):
    a worker of an onnxruntime run finds ORT imported, and nothing another
    backend declares."""
    pytest.importorskip("onnxruntime")
    script = tmp_path / "preloaded.py"
    script.write_text(f"""import sys


def loaded(conn):
    conn.send(sorted(set({RUNTIMES!r}) & set(sys.modules)))


if __name__ == "__main__":
    from webnn_harness.execution.forkserver import CONTEXT, START_METHOD, prestart
    prestart(["onnxruntime"])
    here, there = CONTEXT.Pipe()
    child = CONTEXT.Process(target=loaded, args=(there,))
    child.start()
    print(START_METHOD, here.recv())
    child.join()
""")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    method, _, modules = out.stdout.strip().partition(" ")
    if method != "forkserver":
        pytest.skip("no fork server on this platform")
    assert modules == "['onnx', 'onnxruntime']", out.stderr
