"""The OpenVINO backend as a whole: options, recorded settings, batching
(several cases in one compiled model, isolation of a case that breaks the
batch), known failures data, and end-to-end agreement with the reference on
a sample of the corpus."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("openvino")

from webnn_harness import backends  # noqa: E402
from webnn_harness.backends.base import BackendError, BuildFailure, Unsupported, build_batch  # noqa: E402
from webnn_harness.verdict.expectations import bundled_expectations  # noqa: E402
from webnn_harness.backends.reference import evaluate  # noqa: E402
from webnn_harness.spec.builder import build_graph  # noqa: E402
from webnn_harness.spec.graph import Graph, Node, TensorDesc  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def unary(op, shape=(2, 3), data_type="float32"):
    return build_graph({"x": TensorDesc(shape, data_type)}, {}, [{"name": op, "arguments": [{"input": "x"}], "outputs": "y"}], None)


@pytest.fixture(scope="module")
def ov_backend():
    return backends.create("openvino", {})


def test_unknown_option_is_rejected():
    with pytest.raises(BackendError, match="unknown option"):
        backends.create("openvino", {"ep": "x"})


def test_unknown_device_and_precision_are_rejected():
    with pytest.raises(BackendError, match="no device"):
        backends.create("openvino", {"device": "NO_SUCH_DEVICE"})
    with pytest.raises(BackendError, match="precision"):
        backends.create("openvino", {"precision": "fast"})


def test_info_records_version_device_precision_opset(ov_backend):
    info = ov_backend.info()
    assert info.name == "openvino" and info.version
    assert info.device  # the device's full name
    assert info.settings["device"] == "CPU"
    assert info.settings["precision"] == "exact"
    assert info.settings["inference_precision_hint"]["float32 graphs"] == "f32"
    assert info.settings["opset"] == "opset16"


def test_exact_precision_forces_f32_hint(ov_backend):
    assert ov_backend.config_for(unary("exp")) == {"INFERENCE_PRECISION_HINT": "f32"}
    assert backends.create("openvino", {"precision": "default"}).config_for(unary("exp")) == {}


def test_emulations_are_named(ov_backend):
    emulations = ov_backend.emulations()
    for op in ("gemm", "prelu", "reverse", "triangular", "quantizeLinear", "l2Pool2d", "gather"):
        assert emulations[op]


def test_batch_shares_one_model_and_outputs_stay_apart(ov_backend):
    graphs = [unary("exp"), unary("neg"), unary("abs", (4,))]
    built = build_batch(ov_backend, graphs)
    assert len({id(b.batch) for b in built}) == 1
    inputs = [np.full((2, 3), 0.5, np.float32), np.full((2, 3), 2.0, np.float32), np.array([-1, 2, -3, 4], np.float32)]
    # Out of order on purpose: each case's result depends on its own inputs only.
    for i in (2, 0, 1, 0):
        got = ov_backend.compute(built[i], {"x": inputs[i]})["y"]
        want = evaluate(graphs[i], {"x": inputs[i]})["y"].values
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_graph_that_breaks_the_batch_is_isolated(ov_backend):
    good = unary("exp")
    # A node OpenVINO rejects: a lowering with a missing table entry stands in for any failing graph.
    bad = Graph(inputs=("x",), constants={}, nodes=(Node("noSuchOp", {"input": "x"}, {}, ("y",)),), outputs=("y",),
                descs={"x": TensorDesc((2,), "float32"), "y": TensorDesc((2,), "float32")})
    built = build_batch(ov_backend, [good, bad, good])
    assert isinstance(built[1], Unsupported)
    got = ov_backend.compute(built[2], {"x": np.zeros((2, 3), np.float32)})["y"]
    np.testing.assert_array_equal(got, np.ones((2, 3), np.float32))


def test_compile_failure_in_batch_isolated_by_bisection(monkeypatch):
    ov_backend = backends.create("openvino", {})  # its own: no graph compiled before (reuse)
    graphs = [unary("exp"), unary("neg"), unary("abs"), unary("relu")]
    real = ov_backend._compile

    def fail_with_neg(members, config):
        if any(graphs[i].nodes[0].op == "neg" for i, _ in members):
            raise RuntimeError("compile refused")
        return real(members, config)

    monkeypatch.setattr(ov_backend, "_compile", fail_with_neg)
    built = build_batch(ov_backend, graphs)
    # a plugin failing on a model it validated, for no missing implementation: a build failure (issue 25)
    assert isinstance(built[1], BuildFailure) and "compile refused" in str(built[1])
    assert all(not isinstance(built[i], BaseException) for i in (0, 2, 3))


def test_known_failures_data_is_well_formed():
    entries = bundled_expectations("openvino")  # validated against the expectations schema
    assert entries, "the CPU plugin's int64 narrowing alone gives known failures"
    for entry in entries:
        assert entry.reason and (entry.case or entry.match)


SAMPLE = ["elementwise/relu.json", "movement/gather.json", "convolution/conv2d.json", "recurrent/lstm.json",
          "pooling/average_pool2d.json", "reduction/reduce_sum.json", "normalization/layer_normalization.json"]


@pytest.mark.parametrize("name", SAMPLE)
def test_corpus_sample_agrees_with_reference(ov_backend, name):
    from webnn_harness.loading.cases import Case, load_cases

    path = ROOT / "cases" / name
    if not path.exists():
        pytest.skip(f"{name} not in the corpus")
    known = {e.case for e in bundled_expectations("openvino") if e.case}
    cases = [c for c in load_cases([path]) if isinstance(c, Case) and c.name not in known]
    cases = [c for c in cases if not {"int64", "uint64", "uint32"} & set(c.graph.data_types)]
    built = build_batch(ov_backend, [c.graph for c in cases])
    for case, compiled in zip(cases, built):
        assert not isinstance(compiled, BaseException), f"{case.name}: {compiled}"
        got = ov_backend.compute(compiled, case.inputs)
        ref = evaluate(case.graph, case.inputs)
        for out in case.graph.outputs:
            want, mask = ref[out].values, ref[out].undefined
            actual = got[out]
            if mask is not None:
                want, actual = want[~mask], actual[~mask]
            if want.dtype.kind == "f":
                scale = np.maximum(np.abs(want).astype(np.float64), 1.0)
                with np.errstate(invalid="ignore"):
                    err = np.atleast_1d(np.abs(actual.astype(np.float64) - want) / scale)
                same = np.atleast_1d((actual == want) | (np.isnan(actual) & np.isnan(want)))  # infinities, NaN
                err[same] = 0
                limit = 2e-2 if want.dtype == np.float16 else 1e-4
                assert np.max(err, initial=0) <= limit, f"{case.name} {out}"
            else:
                np.testing.assert_array_equal(actual, want, err_msg=case.name)


def test_backend_asks_for_batches_it_compiles_as_one_model():
    from webnn_harness.backends.base import preferred_batch_size
    from webnn_harness.backends.openvino import MAX_GRAPHS_PER_MODEL

    ov_backend = backends.create("openvino", {})  # its own: nothing compiled before (reuse)
    size = preferred_batch_size(ov_backend.info().to_json())
    assert size == MAX_GRAPHS_PER_MODEL > 16
    ops = ("exp", "neg", "abs", "relu")
    graphs = [unary(ops[i % 4], shape=(2, 1 + i)) for i in range(size)]  # all different: none shares a model
    built = build_batch(ov_backend, graphs)
    assert len({id(b.batch) for b in built}) == 1  # one compile_model for the whole batch
    assert sorted(p for b in built for p in b.input_ports) == list(range(size))
    rng = np.random.default_rng(0)
    for i in (0, 1, size - 2, size - 1):
        x = rng.uniform(-3, 3, (2, 1 + i)).astype(np.float32)
        want = evaluate(graphs[i], {"x": x})["y"].values
        np.testing.assert_allclose(ov_backend.compute(built[i], {"x": x})["y"], want, rtol=1e-6)


def test_refusal_messages_do_not_carry_per_process_node_counters():
    # OpenVINO names nodes MatMul_3, Parameter_1... counting per process, so the same refusal read
    # differently in two workers or two runs (the probe's evidence changed between runs).
    from openvino import opset13 as ops

    from webnn_harness.backends.openvino.refusals import first_line as _first_line

    messages = set()
    for _ in range(2):
        try:
            ops.matmul(ops.parameter([2, 3], np.float32), ops.parameter([4, 5], np.float32), False, False)
        except Exception as exc:  # noqa: BLE001 - OpenVINO raises its own RuntimeError subclass
            messages.add(_first_line(exc))
    (message,) = messages
    assert "Incompatible MatMul matrix dimension" in message and "opset1::MatMul MatMul (" in message
    assert "COL_INDEX_DIM=1" in message  # upper-case names with digits are not node counters


def _cases_of(graph, count):
    """``count`` different input values for one graph: what the probe's reruns send."""
    rng = np.random.default_rng(0)
    return [{n: rng.uniform(-2, 2, graph.descs[n].shape).astype(np.float32) for n in graph.inputs} for _ in range(count)]


def test_reuse_runs_an_identical_graph_on_its_compiled_model_with_its_own_inputs():
    ov_backend = backends.create("openvino", {})
    first = [unary("exp"), unary("abs"), unary("relu")]
    built = build_batch(ov_backend, first)
    again = unary("abs")  # another Graph object, the same structure
    rebuilt = build_batch(ov_backend, [again, again, unary("neg")])
    assert rebuilt[0].batch is built[1].batch and rebuilt[1].batch is built[1].batch
    assert rebuilt[2].batch is not built[1].batch  # not compiled before: compiled now
    assert ov_backend.compiled_models.hits == 2
    # Two cases on the same ports of one model: each gets its own inference and its own values.
    inputs = _cases_of(again, 2) + _cases_of(unary("neg"), 1)
    outputs = ov_backend.compute_batch(rebuilt, inputs)
    np.testing.assert_allclose(outputs[0]["y"], np.abs(inputs[0]["x"]))
    np.testing.assert_allclose(outputs[1]["y"], np.abs(inputs[1]["x"]))
    np.testing.assert_allclose(outputs[2]["y"], -inputs[2]["x"])


def test_identical_graphs_of_one_batch_compile_once(monkeypatch):
    ov_backend = backends.create("openvino", {})
    compiled = []
    real = ov_backend._compile
    monkeypatch.setattr(ov_backend, "_compile", lambda members, config: compiled.append(len(members)) or real(members, config))
    built = build_batch(ov_backend, [unary("exp"), unary("exp"), unary("abs")])
    assert compiled == [2] and built[0].batch is built[1].batch and built[0].input_ports == built[1].input_ports


def test_reuse_key_tells_apart_what_changes_the_model():
    from webnn_harness.backends.openvino.reuse import structure_key

    def key(graph, config=None):
        return structure_key(graph, "CPU", config or {"INFERENCE_PRECISION_HINT": "f32"})

    def constant_add(value, dtype=np.float32):
        return build_graph({"x": TensorDesc((2,), "float32")}, {"c": np.asarray(value, dtype)},
                           [{"name": "add", "arguments": [{"a": "x"}, {"b": "c"}], "outputs": "y"}], None)

    def leaky(alpha):
        return build_graph({"x": TensorDesc((2,), "float32")}, {},
                           [{"name": "leakyRelu", "arguments": [{"input": "x"}, {"options": {"alpha": alpha}}],
                             "outputs": "y"}], None)

    assert key(unary("exp")) == key(unary("exp"))
    assert key(unary("exp")) != key(unary("exp"), {"INFERENCE_PRECISION_HINT": "f16"})  # compile properties
    assert key(unary("exp")) != key(unary("exp", shape=(3, 2)))  # shapes
    assert key(unary("exp")) != key(unary("exp", data_type="float16"))  # data types
    assert key(unary("exp")) != key(unary("log"))  # ops
    assert key(constant_add([1, 2])) == key(constant_add([1, 2]))
    assert key(constant_add([1, 2])) != key(constant_add([1, 3]))  # constant bytes
    assert key(constant_add([0.0, 1])) != key(constant_add([-0.0, 1]))  # a sign bit
    assert key(leaky(0.5)) != key(leaky(0.25)) and key(leaky(0.5)) == key(leaky(0.5))  # attributes
    assert structure_key(unary("exp", shape=(1000, 1000)), "CPU", {}) is None  # too large to keep


def test_reuse_keeps_a_bounded_number_of_models():
    from webnn_harness.backends.openvino.reuse import CompiledModels

    ov_backend = backends.create("openvino", {})
    ov_backend.compiled_models = CompiledModels(max_models=2)
    ops = ["exp", "abs", "neg"]
    for op in ops:  # one model each
        build_batch(ov_backend, [unary(op)])
    assert len(ov_backend.compiled_models) == 2
    assert build_batch(ov_backend, [unary("exp")])[0] is not None and ov_backend.compiled_models.hits == 0  # evicted
    assert ov_backend.compiled_models.get(b"no such key") is None
