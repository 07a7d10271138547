"""Every ONNX op type the ORT lowering emits, at the opset the backend
chooses, on the installed ORT: one sample case per (op type, data types)
builds, runs and agrees with the reference. Issue #10: ORT 1.32 loads opset
28 but has no DequantizeLinear(28) kernel, and runs ReduceLogSumExp(28) as
its overflowing function body; a test per ONNX op type sees both.

The op types are derived from the lowering modules themselves (every string
constant in them that names an ONNX operator), and the samples from our
corpus (cases/), so a lowering that starts emitting a new ONNX op fails here
until a case exercises it."""
from __future__ import annotations

import ast
import json
from collections import defaultdict
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from webnn_harness import backends  # noqa: E402
from webnn_harness.backends.onnxruntime.lower import Unlowerable, lower_graph  # noqa: E402
from webnn_harness.backends.onnxruntime.opsets import (  # noqa: E402
    OLDEST_OPSET, KernelTable, _builds, _registry_readable, all_typed, loadable_opset, registry_has_kernel,
    schema_version, signatures)
from webnn_harness.loading.cases import Case  # noqa: E402
from webnn_harness.spec.graph import Graph, Node, TensorDesc  # noqa: E402
from webnn_harness.verdict.expectations import ExpectationSet  # noqa: E402

from corpora import corpus_cases, judged_record  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1] / "cases"  # the same Path test_onnxruntime_ops loads
# Builds with providers beyond the CPU's are never asked through the registry (see _registry_readable).
reads_registry = pytest.mark.skipif(not _registry_readable(), reason="this onnxruntime build's kernel registry "
                                    "is not read (onnxruntime-gpu 1.31.1 dies listing it)")
SAMPLES_PER_SIGNATURE = 3


def emitted_op_types() -> set[str]:
    """ONNX op types named in the lowering's source (the families' tables and
    the emitter's helpers): every string constant that is an ONNX operator."""
    package = resources.files("webnn_harness.backends.onnxruntime")
    sources = [package / "emitter.py", *(p for p in (package / "lower").iterdir() if p.name.endswith(".py"))]
    names = set()
    for source in sources:
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value[:1].isupper() \
                    and onnx.defs.has(node.value):
                names.add(node.value)
    return names


def _samples_by_signature() -> dict[tuple, list[Case]]:
    """(op type, input types, output types) -> the first few corpus cases whose
    lowering has a node with it."""
    opset, ir_version = loadable_opset()
    out: dict[tuple, list[Case]] = defaultdict(list)
    for case in corpus_cases(CORPUS):
        try:
            model = lower_graph(case.graph, opset, ir_version)
        except Unlowerable:
            continue
        for sig in signatures(model)[0]:
            if len(out[sig]) < SAMPLES_PER_SIGNATURE:
                out[sig].append(case)
    return dict(out)


SAMPLES = _samples_by_signature()
EMITTED = sorted(emitted_op_types())


def _type_name(elem_type: int) -> str:
    return onnx.helper.tensor_dtype_to_string(elem_type).removeprefix("TensorProto.").lower() if elem_type else "-"


def _signature_id(sig) -> str:
    return f"{sig[0]}({','.join(map(_type_name, sig[1]))})->{','.join(map(_type_name, sig[2]))}"


@pytest.fixture(scope="module")
def backend():
    return backends.create("onnxruntime", {})


def test_the_lowering_emits_many_onnx_op_types():
    # The derivation must find the tables: a handful of names would mean the scan broke.
    assert {"QuantizeLinear", "DequantizeLinear", "Conv", "ReduceLogSumExp", "Cast", "Gemm"} <= set(EMITTED)
    assert len(EMITTED) > 60


@pytest.mark.parametrize("op_type", EMITTED)
def test_every_emitted_op_type_has_a_sample_case(op_type):
    if not any(sig[0] == op_type for sig in SAMPLES):
        pytest.fail(f"no case in cases/ lowers to an ONNX {op_type} node: add one that does")


@pytest.mark.parametrize("sig", sorted(SAMPLES), ids=_signature_id)
def test_sample_runs_at_the_chosen_opset_and_agrees(backend, sig):
    known = ExpectationSet.for_backend("onnxruntime", backend.info().version, {})
    problems = []
    for case in SAMPLES[sig]:
        record = judged_record(backend, case, known)
        if record.status == "pass":  # and the record says at which opset it ran
            assert record.build_settings == {"opset": backend.lower(case.graph).opset_import[0].version}
            return
        if not record.known_failure:
            problems.append(f"{case.file}: {case.name}: {record.status} {record.message} "
                            f"max={record.max_error} budget={record.budget} {record.build_settings}")
    assert not problems, "\n".join(problems)


def _one_node(op: str, in_type: str, out_type: str, attributes=None) -> Graph:
    descs = {"x": TensorDesc((2, 3), in_type), "s": TensorDesc((1, 1), "float32"),
             "z": TensorDesc((1, 1), out_type if op == "quantizeLinear" else in_type), "y": TensorDesc((2, 3), out_type)}
    constants = {"s": np.array([[0.5]], np.float32), "z": np.zeros((1, 1), descs["z"].data_type)}
    return Graph(("x",), constants, (Node(op, {"input": "x", "scale": "s", "zeroPoint": "z"}, attributes or {}, ("y",)),),
                 ("y",), descs)


@pytest.mark.parametrize("op, in_type, out_type", [("quantizeLinear", "float32", "int8"),
                                                   ("quantizeLinear", "float32", "uint8"),
                                                   ("dequantizeLinear", "int8", "float32"),
                                                   ("dequantizeLinear", "uint8", "float32")])
def test_int8_quantization_is_native_and_builds(backend, op, in_type, out_type):
    """The issue's exact failure: a native (De)QuantizeLinear node must build."""
    graph = _one_node(op, in_type, out_type)
    model = backend.lower(graph)
    assert {n.op_type for n in model.graph.node} >= {"QuantizeLinear" if op == "quantizeLinear" else "DequantizeLinear"}
    compiled = backend.build(graph)
    assert compiled.opset == model.opset_import[0].version <= loadable_opset()[0]


def test_explicit_opset_wins(backend):
    graph = _one_node("dequantizeLinear", "int8", "float32")
    fixed = backends.create("onnxruntime", {"opset": "21"})
    assert fixed.lower(graph).opset_import[0].version == 21
    assert fixed.build(graph).opset == 21
    assert fixed.info().settings["opset_choice"] == "fixed"
    assert backend.info().settings["opset_choice"] == "newest with kernels"


@reads_registry
def test_kernel_table_chooses_the_newest_opset_with_a_kernel(tmp_path):
    import onnxruntime as ort

    opset, ir_version = loadable_opset()
    model = lower_graph(_one_node("dequantizeLinear", "int8", "float32"), opset, ir_version)
    table = KernelTable(ort.__version__, "CPUExecutionProvider", ir_version, tmp_path / "kernels.json")
    chosen = table.choose(model, opset)
    # ORT 1.32 has DequantizeLinear kernels up to schema 25 only (issue #10).
    sig = ("DequantizeLinear", (onnx.TensorProto.INT8, onnx.TensorProto.FLOAT, onnx.TensorProto.INT8),
           (onnx.TensorProto.FLOAT,))
    assert registry_has_kernel(sig[0], schema_version("DequantizeLinear", chosen), sig[1], sig[2]) is True
    assert all(registry_has_kernel(sig[0], schema_version("DequantizeLinear", newer), sig[1], sig[2]) is False
               for newer in range(chosen + 1, opset + 1))
    assert not (tmp_path / "kernels.json").exists()  # registry answers are not worth a disk entry


def test_a_build_with_other_providers_asks_sessions_not_the_registry(tmp_path, monkeypatch):
    """onnxruntime-gpu 1.31.1 dies listing its kernel registry: where the
    build has providers beyond the CPU's the registry is never read, and the
    same opset is chosen from one-node sessions."""
    import onnxruntime as ort

    from webnn_harness.backends.onnxruntime import opsets

    opset, ir_version = loadable_opset()
    model = lower_graph(_one_node("dequantizeLinear", "int8", "float32"), opset, ir_version)
    expected = KernelTable(ort.__version__, "CPUExecutionProvider", ir_version, tmp_path / "a.json").choose(model, opset)
    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    opsets._registry_readable.cache_clear()
    monkeypatch.setattr(opsets, "_registry", lambda provider: pytest.fail("the registry was read"))
    built = []
    monkeypatch.setattr(opsets, "_builds", lambda *args: built.append(args) or _builds(*args))
    try:
        assert registry_has_kernel("Relu", 14, (onnx.TensorProto.FLOAT,), (onnx.TensorProto.FLOAT,)) is None
        table = KernelTable(ort.__version__, "CPUExecutionProvider", ir_version, tmp_path / "b.json")
        assert table.choose(model, opset) == expected and built  # found by one-node sessions
    finally:
        opsets._registry_readable.cache_clear()


def test_a_lone_node_refused_for_cpu_fallback_has_no_kernel_on_that_provider(monkeypatch):
    """With CPU fallback disabled, ORT refuses a one-node session whose node
    the provider has no kernel for as "assigned to the default CPU EP", not
    NOT_IMPLEMENTED; on a non-CPU provider that refusal means "no kernel", so
    the opset choice steps down (it kept opset 26 for MaxPool on CUDA before)."""
    import onnxruntime as ort

    opset, ir_version = loadable_opset()
    model = lower_graph(_relu("float32"), opset, ir_version)
    sigs, infos = signatures(model)
    node = next(n for sig, n in sigs.items() if sig[0] == "Relu")

    def refuse(*args, **kwargs):
        raise RuntimeError("[ONNXRuntimeError] : 1 : FAIL : This session contains graph nodes that are assigned to "
                           "the default CPU EP, but fallback to CPU EP has been explicitly disabled by the user.")

    monkeypatch.setattr(ort, "InferenceSession", refuse)
    assert _builds(node, model, infos, opset, ir_version, "CUDAExecutionProvider") is False
    # Anything else, and on the CPU provider, is left for the real build to report.
    assert _builds(node, model, infos, opset, ir_version, "CPUExecutionProvider") is True


def test_missing_names_the_nodes_without_a_kernel(tmp_path):
    import onnxruntime as ort

    opset, ir_version = loadable_opset()
    table = KernelTable(ort.__version__, "CPUExecutionProvider", ir_version, tmp_path / "kernels.json")
    assert table.missing(lower_graph(_relu("int64"), opset, ir_version)) == ["Relu(int64 -> int64)"]
    assert table.missing(lower_graph(_relu("float32"), opset, ir_version)) == []


def _relu(data_type: str) -> Graph:
    return Graph(("x",), {}, (Node("relu", {"input": "x"}, {}, ("y",)),), ("y",),
                 {"x": TensorDesc((2,), data_type), "y": TensorDesc((2,), data_type)})


def _elu_float16() -> Graph:
    return Graph(("x",), {}, (Node("elu", {"input": "x"}, {"alpha": 1.0}, ("y",)),), ("y",),
                 {"x": TensorDesc((2, 3), "float16"), "y": TensorDesc((2, 3), "float16")})


def test_probed_answers_are_cached_on_disk(tmp_path):
    """A float16 node of a schema with a function body is one the registry
    cannot answer (ORT may inline the body or cast around a float kernel):
    it is probed with a one-node session, and the answer kept on disk."""
    import onnxruntime as ort

    opset, ir_version = loadable_opset()
    model = lower_graph(_elu_float16(), opset, ir_version)
    cache = tmp_path / "kernels.json"
    table = KernelTable(ort.__version__, "CPUExecutionProvider", ir_version, cache)
    chosen = table.choose(model, opset)
    answers = {k: ok for k, ok in json.loads(cache.read_text()).items()
               if k.startswith(f"{table.prefix}Elu|")}
    assert answers and answers[next(k for k in answers if k.endswith(f"|{schema_version('Elu', chosen)}"))] is True
    again = KernelTable(ort.__version__, "CPUExecutionProvider", ir_version, cache)
    assert again.choose(model, opset) == chosen and not again._new  # read back, nothing probed again


@pytest.fixture(scope="module")
def registry_and_probe():
    """For every signature of our corpus and every schema version it has in
    [OLDEST_OPSET, newest]: (the registry's answer, a one-node session's)."""
    opset, ir_version = loadable_opset()
    out = {}
    for sig, cases in SAMPLES.items():
        model = lower_graph(cases[0].graph, opset, ir_version)
        sigs, infos = signatures(model)
        node = sigs[sig]
        for at in range(OLDEST_OPSET, opset + 1):
            since = schema_version(sig[0], at)
            if since is None or (sig, since) in out:
                continue
            registry = registry_has_kernel(sig[0], since, sig[1], sig[2]) if all_typed(node, sig) else None
            out[sig, since] = (registry, _builds(node, model, infos, at, ir_version, "CPUExecutionProvider"))
    return out


@reads_registry
def test_the_kernel_registry_agrees_with_session_creation(registry_and_probe):
    """The registry is a fast path only where it gives what building a
    session gives: every answer it gives for our corpus's signatures is
    checked against a one-node session (issue #14)."""
    wrong = [f"{_signature_id(sig)} schema {since}: registry {r}, session {p}"
             for (sig, since), (r, p) in registry_and_probe.items() if r is not None and r != p]
    assert not wrong, "\n".join(wrong)
    answered = sum(r is not None for r, _ in registry_and_probe.values())
    assert answered > 0.8 * len(registry_and_probe)  # the fast path is the common path


def test_new_answers_reach_the_disk_at_exit_of_a_worker_process(tmp_path):
    """Writes are spaced FLUSH_INTERVAL apart; what a process learned after
    its last write is written when it exits, a multiprocessing worker too."""
    import multiprocessing

    cache = tmp_path / "kernels.json"
    ctx = multiprocessing.get_context("spawn")
    process = ctx.Process(target=_choose_twice_quickly, args=(str(cache),))
    process.start()
    process.join(120)
    assert process.exitcode == 0
    keys = json.loads(cache.read_text())
    assert any("|Elu|" in k for k in keys) and any("|Relu|" in k for k in keys)


def _choose_twice_quickly(cache: str) -> None:
    import onnxruntime as ort

    from webnn_harness.backends.onnxruntime import opsets

    opset, ir_version = loadable_opset()
    table = KernelTable(ort.__version__, "CPUExecutionProvider", ir_version, Path(cache))
    table.choose(lower_graph(_elu_float16(), opset, ir_version), opset)  # written at once: the first write
    relu = Graph(("x",), {}, (Node("relu", {"input": "x"}, {}, ("y",)),), ("y",),
                 {"x": TensorDesc((2, 3), "float16"), "y": TensorDesc((2, 3), "float16")})
    opsets.FLUSH_INTERVAL = 3600.0  # the second answer waits for the exit
    table.choose(lower_graph(relu, opset, ir_version), opset)
    assert any("|Relu|" in k for k in table._new), "relu float16 was answered by the registry, not probed"


def test_one_node_sessions_get_the_providers_options_and_answers_are_kept_per_option_set(tmp_path, monkeypatch):
    """A provider's options (-o ep.KEY=VALUE) can change which kernels it
    registers: the kernel table's one-node sessions are made with them, and
    its answers are cached per option set, never shared with another set."""
    import onnxruntime as ort

    seen = []
    session = ort.InferenceSession

    def capturing(model, options, providers):
        seen.append(providers)
        return session(model, options, providers=["CPUExecutionProvider"])

    monkeypatch.setattr(ort, "InferenceSession", capturing)
    opset, ir_version = loadable_opset()
    model = lower_graph(_elu_float16(), opset, ir_version)
    cache = tmp_path / "kernels.json"
    with_options = KernelTable(ort.__version__, "CPUExecutionProvider", ir_version, cache,
                               provider_options={"b": "2", "a": "1"})
    with_options.choose(model, opset)
    assert seen and all(p == [("CPUExecutionProvider", {"a": "1", "b": "2"})] for p in seen)
    without = KernelTable(ort.__version__, "CPUExecutionProvider", ir_version, cache)
    assert with_options.prefix == f"{without.prefix}a=1,b=2|"
    seen.clear()
    without.choose(model, opset)
    assert seen and all(p == ["CPUExecutionProvider"] for p in seen), "answered from the other option set's entries"
