"""The LiteRT backend: options and recorded settings, the TFLite model it
writes (shapes checked, aliases avoided, 0-D kept), what it refuses rather
than letting LiteRT abort, its known failures data, and a sample of the
corpus judged as `run` judges it, on both paths (XNNPACK and builtin)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert")

from webnn_harness import backends  # noqa: E402
from webnn_harness.api import BackendRequest, RunRequest, run  # noqa: E402
from webnn_harness.backends.base import BackendError, Unsupported  # noqa: E402
from webnn_harness.backends.litert.lower.pooling import nearest_indices  # noqa: E402
from webnn_harness.execution.pool import RunOptions  # noqa: E402
from webnn_harness.verdict.expectations import bundled_expectations  # noqa: E402
from webnn_harness.spec.builder import build_graph  # noqa: E402
from webnn_harness.spec.graph import TensorDesc  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def graph(inputs: dict, calls: list, constants=None):
    descs = {name: TensorDesc(tuple(shape), data_type) for name, (shape, data_type) in inputs.items()}
    return build_graph(descs, constants or {}, calls, None)


def call(op, outputs="y", **arguments):
    return {"name": op, "arguments": [{k: v} for k, v in arguments.items()], "outputs": outputs}


@pytest.fixture(scope="module")
def litert():
    return backends.create("litert", {})


def test_info_records_every_setting_defaults_included(litert):
    import importlib.metadata

    info = litert.info()
    assert info.name == "litert" and info.version == importlib.metadata.version("ai-edge-litert")
    assert info.settings == {"delegate": "xnnpack", "op_resolver": "AUTO", "threads": 1, "float16": "float32",
                             "flatbuffers": importlib.metadata.version("flatbuffers")}
    none = backends.create("litert", {"delegate": "none", "threads": "2", "float16": "native"}).info().settings
    assert (none["delegate"], none["op_resolver"], none["threads"], none["float16"]) == \
        ("none", "BUILTIN_WITHOUT_DEFAULT_DELEGATES", 2, "native")


@pytest.mark.parametrize("options", [{"bogus": "1"}, {"delegate": "gpu"}, {"threads": "0"}, {"threads": "x"},
                                     {"float16": "float64"}])
def test_bad_options_are_backend_errors(options):
    with pytest.raises(BackendError):
        backends.create("litert", options)


def test_build_records_which_path_ran():
    g = graph({"x": ((2, 3), "float32")}, [call("relu", input="x")])
    xnnpack, builtin = backends.create("litert", {}), backends.create("litert", {"delegate": "none"})
    assert xnnpack.build_settings(xnnpack.build(g)) == {"xnnpack_nodes": 1}
    assert builtin.build_settings(builtin.build(g)) == {"xnnpack_nodes": 0}


def test_zero_d_operands_stay_zero_d(litert):
    """TFLite's binary kernels make 0-D with 0-D a [1]; the lowering reshapes it back."""
    g = graph({"x": ((), "float32")}, [call("linear", input="x", options={"alpha": 2.0, "beta": 1.0})])
    out = litert.compute(litert.build(g), {"x": np.array(3.0, np.float32)})["y"]
    assert out.shape == () and out == np.float32(7.0)


def test_an_output_that_is_an_input_gets_its_own_tensor(litert):
    g = graph({"x": ((2,), "float32")}, [call("identity", input="x"), call("reshape", outputs="z", input="x",
                                                                            newShape=[2, 1])])
    g = type(g)(g.inputs, g.constants, g.nodes, ("y", "z"), g.descs)
    out = litert.compute(litert.build(g), {"x": np.array([1, 2], np.float32)})
    assert out["y"].tolist() == [1, 2] and out["z"].tolist() == [[1], [2]]


def test_int8_arithmetic_is_refused_never_emitted(litert):
    """LiteRT's int8/uint8 arithmetic kernels abort the process without
    quantization parameters (issue 27): the lowering refuses them."""
    g = graph({"a": ((2,), "int8"), "b": ((2,), "int8")}, [call("add", a="a", b="b")])
    with pytest.raises(Unsupported, match="quantization parameters"):
        litert.build(g)


def test_uint8_booleans_become_bool_by_cast_not_comparison(litert):
    g = graph({"a": ((4,), "uint8"), "b": ((4,), "uint8")}, [call("logicalAnd", a="a", b="b")])
    out = litert.compute(litert.build(g), {"a": np.array([0, 2, 128, 255], np.uint8),
                                           "b": np.array([1, 4, 0, 255], np.uint8)})["y"]
    assert out.dtype == np.uint8 and out.tolist() == [0, 1, 0, 1]


def test_a_type_liteRT_refuses_at_invoke_is_unsupported(litert):
    g = graph({"a": ((2,), "uint32"), "b": ((2,), "uint32")}, [call("add", a="a", b="b")])
    with pytest.raises(Unsupported, match="UINT32"):
        litert.compute(litert.build(g), {"a": np.array([1, 2], np.uint32), "b": np.array([3, 4], np.uint32)})


@pytest.mark.parametrize("data_type", ["uint32", "uint64"])
def test_a_reduction_liteRT_has_no_kernel_for_is_refused_with_why(litert, data_type):
    """LiteRT's reduce kernels fail to prepare an unsigned input without a
    message: the lowering says what is missing."""
    g = graph({"x": ((2, 3), data_type)}, [call("reduceSum", input="x", options={"axes": [1]})])
    with pytest.raises(Unsupported, match=f"reduce kernels .* no {data_type}"):
        litert.build(g)


@pytest.mark.parametrize("message", [
    "tflite/kernels/elementwise.cc:164 Type UINT32 is unsupported by op Abs.Node number 0 (ABS) failed to prepare.",
    "Unknown input type: 4, only float32, int types and bool are supportedNode number 0 (ARG_MAX) failed to prepare.",
    "tflite/kernels/cumsum.cc:68 input->type == kTfLiteInt32 || input->type == kTfLiteFloat32 || input->type == "
    "kTfLiteInt64 was not true.Node number 0 (CUMSUM) failed to prepare.",
    "Type INT64 not currently supported.Node number 0 (MAX_POOL_2D) failed to invoke.",
    "tflite/kernels/batch_matmul.cc:355 NumDimensions(lhs_data) <= 5 was not true.Node number 0 (BATCH_MATMUL) "
    "failed to prepare.",
])
def test_liteRT_saying_it_lacks_a_type_is_a_refusal(message):
    from webnn_harness.backends.litert import build_error

    assert isinstance(build_error(RuntimeError(message)), Unsupported)


def test_a_graph_liteRT_fails_to_build_for_another_reason_is_a_build_failure(monkeypatch):
    """Issue 25: a spec-valid graph LiteRT has the kernels for but fails to
    prepare is an error, not unsupported. PReLU with a slope that broadcasts
    the input: TFLite's PRELU keeps the input's shape, so PRELU alone fails
    to prepare (a BuildFailure) and the lowering broadcasts the input first."""
    from webnn_harness.backends.base import BuildFailure
    from webnn_harness.backends.litert.lower import LOWER
    from webnn_harness.backends.litert.lower.elementwise import OP, binary

    g = graph({"x": ((2, 1), "float32"), "s": ((3,), "float32")}, [call("prelu", input="x", slope="s")])
    x, s = np.array([[-1], [2]], np.float32), np.array([1, 2, 3], np.float32)
    for delegate in ("xnnpack", "none"):
        backend = backends.create("litert", {"delegate": delegate})
        out = backend.compute(backend.build(g), {"x": x, "s": s})["y"]
        np.testing.assert_array_equal(out, np.where(x < 0, x * s, x))
    monkeypatch.setitem(LOWER, "prelu", lambda e, c: binary(e, OP.PRELU, c["input"], c["slope"]))
    with pytest.raises(BuildFailure, match="HaveSameShapes") as failure:
        backends.create("litert", {"delegate": "none"}).build(g)
    assert failure.value.settings == {}


def test_a_graph_xnnpack_fails_and_the_builtin_kernels_build_is_a_build_failure_saying_so():
    """XNNPACK 2.3.0 takes a rank-7 concat and fails to prepare it instead of
    leaving it to the builtin kernel, which computes it: an error (LiteRT
    has the kernel), whose build settings say the builtin path builds it."""
    from webnn_harness.backends.base import BuildFailure

    shape = (1, 1, 1, 1, 1, 1, 2)
    g = graph({"x": (shape, "float32")}, [call("concat", inputs=["x", "x"], axis=0)])
    x = np.arange(2, dtype=np.float32).reshape(shape)
    builtin = backends.create("litert", {"delegate": "none"})
    np.testing.assert_array_equal(builtin.compute(builtin.build(g), {"x": x})["y"], np.concatenate([x, x]))
    with pytest.raises(BuildFailure, match="failed to delegate CONCATENATION") as failure:
        backends.create("litert", {}).build(g)
    assert failure.value.settings == {"builds_with_delegate": "none"}


def test_nearest_indices_round_ties_down_as_webnn():
    # upscaling 2 -> 4: coordinates -0.25, 0.25, 0.75, 1.25 -> 0, 0, 1, 1
    assert nearest_indices(2, 4).tolist() == [0, 0, 1, 1]
    # a tie (coordinate 0.5 exactly) takes the smaller index
    assert nearest_indices(2, 1).tolist() == [0]


def test_float16_is_computed_in_float32_by_default_and_cast_keeps_its_rounding():
    g = graph({"x": ((1,), "float32")}, [call("cast", outputs="h", input="x", type="float16"),
                                          call("cast", outputs="y", input="h", type="float32")])
    for mode in ("float32", "native"):
        backend = backends.create("litert", {"float16": mode})
        out = backend.compute(backend.build(g), {"x": np.array([1.0009765625 / 2 + 0.5], np.float32)})["y"]
        assert out == np.float32(np.float16(1.0009765625 / 2 + 0.5)), mode


def test_emulations_are_named(litert):
    emulated = litert.emulations()
    assert {"erf", "layerNormalization", "l2Pool2d", "isNaN"} <= set(emulated)
    assert "add" not in emulated and all(emulated.values())


def test_int8_max_runs_on_the_plain_integer_kernel(litert):
    """MAXIMUM / MINIMUM have plain int8 kernels (no quantization): allowed, exact."""
    g = graph({"a": ((3,), "int8"), "b": ((3,), "int8")}, [call("max", a="a", b="b")])
    out = litert.compute(litert.build(g), {"a": np.array([-128, 5, 0], np.int8), "b": np.array([3, -7, 127], np.int8)})
    assert out["y"].tolist() == [3, 5, 127]


def test_scatter_nd_keeps_the_input_where_nothing_is_written_and_one_write_per_target(litert):
    g = graph({"x": ((4,), "float32"), "i": ((3, 1), "int32"), "u": ((3,), "float32")},
              [call("scatterND", input="x", indices="i", updates="u")])
    out = litert.compute(litert.build(g), {"x": np.array([1, 2, 3, 4], np.float32),
                                           "i": np.array([[1], [-1], [1]], np.int32),
                                           "u": np.array([9, 8, 9], np.float32)})["y"]
    # index 1 written twice with 9 (SCATTER_ND alone would give 18), -1 wraps to 3
    assert out.tolist() == [1, 9, 3, 8]


def test_device_session_saves_the_model_it_runs_and_copies_uploads(litert, tmp_path):
    from ai_edge_litert.interpreter import Interpreter

    from webnn_harness.backends.base import device_session, to_host

    g = graph({"x": ((2, 3), "float32")}, [call("relu", input="x")])
    session = device_session(litert, g)
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    assert session.upload("x", x) is not x and session.share("x", x) is x
    (path,) = session.save(str(tmp_path / "relu"))
    assert path.endswith(".tflite") and Path(path).read_bytes() == session.compiled.model
    first = to_host(session, {"x": session.share("x", x)})["y"]
    np.testing.assert_array_equal(first, np.maximum(x, 0))
    to_host(session, {"x": session.share("x", -x)})
    np.testing.assert_array_equal(first, np.maximum(x, 0))  # the outputs are the caller's
    native = Interpreter(model_path=path)  # the saved artifact replays as LiteRT's own
    native.allocate_tensors()
    native.set_tensor(native.get_input_details()[0]["index"], x)
    native.invoke()
    np.testing.assert_array_equal(native.get_tensor(native.get_output_details()[0]["index"]), np.maximum(x, 0))
    assert session.build_settings() == {"xnnpack_nodes": 1}


def test_declared_tflite_table_is_a_readable_limits_file_with_provenance():
    from webnn_harness.outputs.limits_file import read_limits_file

    path = ROOT / "harness" / "probe" / "declared_tables" / "chromium-tflite-opSupportLimits.json"
    doc = read_limits_file(path)  # "$provenance" is metadata, not limits
    assert doc["$provenance"]["file"] == "services/webnn/tflite/graph_builder_tflite.cc"
    assert doc["preferredInputLayout"] == "nhwc"
    assert doc["add"]["a"]["rankRange"] == {"min": 0, "max": 6}  # TFLite's broadcasting limit
    assert "l2Pool2d" in doc and doc["relu"]["input"]["dataTypes"] == ["float32", "float16", "int32", "int64", "int8"]


def test_known_failures_data_is_well_formed():
    entries = bundled_expectations("litert")  # validated against the expectations schema
    assert entries
    for entry in entries:
        assert entry.reason and (entry.case or entry.match) and entry.versions


def object_api_model(e, inputs, outputs) -> bytes:
    """The model an Emitter holds, written as the emitter wrote it before
    issue 27's follow-up: with the schema's object API (ModelT.Pack)."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as schema

    from webnn_harness.backends.litert.emitter import FIRST_VERSION, PLACEHOLDER_FOR_GREATER_OP_CODES, _options_type

    subgraph = schema.SubGraphT()
    subgraph.tensors, subgraph.operators = [], []
    for t in e.tensors:
        tensor = schema.TensorT()
        tensor.shape, tensor.type, tensor.buffer, tensor.name = list(t.shape), t.type, t.buffer, t.name
        subgraph.tensors.append(tensor)
    for op in e.operators:
        operator = schema.OperatorT()
        operator.opcodeIndex, operator.inputs, operator.outputs = op.opcode, list(op.inputs), list(op.outputs)
        if op.options is not None:
            operator.builtinOptionsType, operator.builtinOptions = _options_type(op.options), op.options
        subgraph.operators.append(operator)
    subgraph.inputs, subgraph.outputs, subgraph.name = list(inputs), list(outputs), "webnn"
    model = schema.ModelT()
    model.version, model.description, model.subgraphs = 3, "webnn-harness", [subgraph]
    model.operatorCodes, model.buffers = [], []
    for code in sorted(e.opcodes, key=e.opcodes.__getitem__):
        opcode = schema.OperatorCodeT()
        opcode.builtinCode, opcode.deprecatedBuiltinCode = code, min(code, PLACEHOLDER_FOR_GREATER_OP_CODES)
        opcode.version = FIRST_VERSION.get(code, 1)
        model.operatorCodes.append(opcode)
    for data in e.buffers:
        buffer = schema.BufferT()
        buffer.data = data
        model.buffers.append(buffer)
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


@pytest.mark.parametrize("float16", ["float32", "native"])
def test_the_model_bytes_are_what_the_object_api_writes(float16, monkeypatch):
    """``Emitter.finish`` writes with the builder functions for speed: every
    model of the sample must be byte for byte the object API's."""
    from webnn_harness.backends.litert import emitter
    from webnn_harness.backends.litert.lower import Unlowerable, lower_graph
    from webnn_harness.loading.cases import iter_cases

    written = []
    finish = emitter.Emitter.finish

    def recorded(self, inputs, outputs):
        model = finish(self, inputs, outputs)
        written.append((model, object_api_model(self, inputs, outputs)))
        return model

    monkeypatch.setattr(emitter.Emitter, "finish", recorded)
    for case in iter_cases([ROOT / "cases" / name for name in SAMPLE]):
        try:
            lower_graph(case.graph, float16)
        except Unlowerable:
            pass
    assert len(written) > 100
    assert all(model == expected for model, expected in written)


SAMPLE = ["elementwise/softplus.json", "elementwise/logical_and.json", "elementwise/where.json",
          "movement/gather.json", "movement/scatter_elements.json", "movement/scatter_nd.json",
          "convolution/conv2d.json", "convolution/conv_transpose2d.json", "pooling/l2_pool2d.json",
          "pooling/resample2d.json", "reduction/reduce_log_sum_exp.json", "reduction/reduce_l2.json",
          "normalization/layer_normalization.json", "recurrent/lstm.json", "recurrent/gru_cell.json",
          "quantization/quantize_linear.json"]


@pytest.mark.parametrize("delegate", ["xnnpack", "none"])
def test_corpus_sample_passes_as_run_judges_it(delegate, tmp_path):
    """Every case of the sample passes or is unsupported (with a reason);
    a fail, error or crash is only a known failure."""
    request = RunRequest(tuple(ROOT / "cases" / name for name in SAMPLE),
                         (BackendRequest("litert", {"delegate": delegate}),), tmp_path,
                         options=RunOptions(workers=1, timeout=120))
    run(request)
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    records = [r for r in records if "status" in r]
    assert len(records) > 100
    passed = sum(r["status"] == "pass" for r in records)
    assert passed > 0.8 * len(records)
    for r in records:
        assert r["status"] in ("pass", "unsupported") or r["knownFailure"], (r["id"], r["status"], r["message"])
        if r["status"] == "unsupported":
            assert r["message"], r["id"]
