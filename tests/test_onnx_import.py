"""import-onnx: ONNX models as WebNN case folders (harness/models/), and the
sidecar data form their weights use (harness/loading/sidecar.py)."""
import json
import os

import numpy as np
import pytest

from webnn_harness.loading.cases import Case, CaseError, load_cases
from webnn_harness.loading.sidecar import sidecar_slice, tensor_bytes


def _sidecar_case(tmp_path, weights: np.ndarray, data_type="float32", spec_changes=None, bin_name="m.weights.bin",
                  blob=None):
    raw = tensor_bytes(weights, data_type)
    (tmp_path / bin_name).write_bytes(raw if blob is None else blob)
    spec = {**sidecar_slice(raw, 0, bin_name), **(spec_changes or {})}
    case = {
        "name": "m",
        "graph": {
            "inputs": {
                "x": {"data": [1, 2, 3], "descriptor": {"shape": [1, 3], "dataType": "float32"}},
                "w": {"data": {"sidecar": spec}, "descriptor": {"shape": list(weights.shape), "dataType": data_type},
                      "constant": True},
            },
            "operators": [{"name": "matmul", "arguments": [{"a": "x"}, {"b": "w"}], "outputs": "y"}],
        },
    }
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"tests": [case]}))
    (result,) = load_cases([path])
    return result


W = np.arange(6, dtype=np.float32).reshape(3, 2) / 7


def test_a_sidecar_tensor_loads_as_written(tmp_path):
    case = _sidecar_case(tmp_path, W)
    assert isinstance(case, Case), case
    np.testing.assert_array_equal(case.graph.constants["w"], W)


@pytest.mark.parametrize("changes, blob, says", [
    ({}, tensor_bytes(W, "float32")[:-4], "beyond the end"),  # truncated file
    ({"byteLength": 20}, None, "needs 24 bytes"),  # declared size not the descriptor's
    ({"offset": 8}, None, "beyond the end"),
    ({"sha256": "0" * 64}, None, "does not match its sha256"),
    ({"file": "../m.weights.bin"}, None, "sidecar"),  # a path escape (the schema's pattern refuses it)
    ({"file": "sub/m.weights.bin"}, None, "sidecar"),
    ({"file": ".hidden"}, None, "sidecar"),
    ({"file": "missing.bin"}, None, "cannot read sidecar"),
])
def test_a_hostile_sidecar_fails_alone_naming_the_field(tmp_path, changes, blob, says):
    case = _sidecar_case(tmp_path, W, spec_changes=changes, blob=blob)
    assert isinstance(case, CaseError), case
    assert "inputs.w.data" in case.field, case  # the schema's errors say graph.inputs..., the reader's inputs...
    assert says in str(case), str(case)


def test_a_sidecar_link_out_of_the_folder_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    raw = tensor_bytes(W, "float32")
    (outside / "w.bin").write_bytes(raw)
    inner = tmp_path / "cases"
    inner.mkdir()
    os.symlink(outside / "w.bin", inner / "m.weights.bin")
    # the case written by hand: _sidecar_case would write the file through the link
    doc = {"tests": [{"name": "m", "graph": {
        "inputs": {"x": {"data": [1, 2, 3], "descriptor": {"shape": [1, 3], "dataType": "float32"}},
                   "w": {"data": {"sidecar": sidecar_slice(raw, 0, "m.weights.bin")},
                         "descriptor": {"shape": [3, 2], "dataType": "float32"}, "constant": True}},
        "operators": [{"name": "matmul", "arguments": [{"a": "x"}, {"b": "w"}], "outputs": "y"}]}}]}
    (inner / "m.json").write_text(json.dumps(doc))
    (case,) = load_cases([inner / "m.json"])
    assert isinstance(case, CaseError) and "leads out of the case's folder" in str(case), case


def test_int4_sidecar_is_one_value_per_byte_and_range_checked(tmp_path):
    q = np.array([[-8, 7], [0, 1], [3, -2]], dtype=np.int8)
    case = _sidecar_case(tmp_path, q, data_type="int4")
    # matmul refuses int4 operands: loading gets as far as the builder, past the sidecar
    assert not (isinstance(case, CaseError) and "sidecar" in case.field), case
    bad = np.array([[9, 0], [0, 0], [0, 0]], dtype=np.int8)
    case = _sidecar_case(tmp_path, bad, data_type="int4")
    assert isinstance(case, CaseError) and "outside int4" in str(case), case


# ---- the importer: each ONNX op against ONNX Runtime -------------------------------------------

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from webnn_harness.outputs.onnx_import_folder import import_models  # noqa: E402

F = TensorProto.FLOAT
RNG = np.random.default_rng(0)


def _model(name, nodes, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                              [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
                              [numpy_helper.from_array(np.asarray(v), k) for k, v in dict(inits).items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _w(*shape):
    return RNG.normal(0, 0.5, shape).astype(np.float32)


X4 = [("x", F, [1, 4, 9, 9])]
ONE_OP_MODELS = {
    "conv_pads_strides_groups": _model("c", [helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 0, 2, 1],
                                       strides=[2, 1], group=2)], X4, [("y", F, None)], {"w": _w(6, 2, 3, 3), "b": _w(6)}),
    # ORT refuses dilations with SAME_*: the dilated case is conv_dilated below
    "conv_same_lower_strided": _model("c", [helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_LOWER",
                                      strides=[2, 2])], X4, [("y", F, None)], {"w": _w(3, 4, 4, 4)}),
    "conv_dilated": _model("c", [helper.make_node("Conv", ["x", "w"], ["y"], dilations=[2, 2], pads=[2, 1, 2, 1])],
                           X4, [("y", F, None)], {"w": _w(3, 4, 3, 3)}),
    "maxpool_ceil": _model("p", [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                                                  ceil_mode=1)], X4, [("y", F, None)]),
    "averagepool_pads": _model("p", [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                                                      pads=[1, 1, 1, 1])], X4, [("y", F, None)]),
    "globalaveragepool": _model("p", [helper.make_node("GlobalAveragePool", ["x"], ["y"])], X4, [("y", F, None)]),
    "gemm_transb": _model("g", [helper.make_node("Gemm", ["a", "w", "c"], ["y"], transB=1, alpha=0.5, beta=2.0)],
                          [("a", F, [2, 5])], [("y", F, None)], {"w": _w(3, 5), "c": _w(3)}),
    "batchnorm": _model("b", [helper.make_node("BatchNormalization", ["x", "s", "bb", "m", "v"], ["y"], epsilon=1e-3)],
                        X4, [("y", F, None)], {"s": _w(4), "bb": _w(4), "m": _w(4), "v": np.abs(_w(4)) + 0.5}),
    "lrn": _model("l", [helper.make_node("LRN", ["x"], ["y"], size=3, alpha=1e-2, beta=0.75, bias=2.0)], X4,
                  [("y", F, None)]),
    "softmax_opset9_axis1_4d": _model("s", [helper.make_node("Softmax", ["x"], ["y"])], X4, [("y", F, None)], opset=9),
    "softmax_opset13": _model("s", [helper.make_node("Softmax", ["x"], ["y"], axis=2)], X4, [("y", F, None)]),
    "sum_of_three": _model("s", [helper.make_node("Sum", ["x", "x2", "x3"], ["y"])], X4, [("y", F, None)],
                           {"x2": _w(1, 4, 9, 9), "x3": _w(4, 1, 1)}),
    "dropout_then_relu": _model("d", [helper.make_node("Dropout", ["x"], ["d", "mask"]),
                                      helper.make_node("Relu", ["d"], ["y"])], X4, [("y", F, None)], opset=12),
    "unsqueeze_flatten": _model("u", [helper.make_node("Unsqueeze", ["x", "ax"], ["u"]),
                                      helper.make_node("Flatten", ["u"], ["y"], axis=2)], X4, [("y", F, None)],
                                {"ax": np.array([0], np.int64)}),
    "reshape_minus_one_transpose": _model("r", [helper.make_node("Reshape", ["x", "s"], ["r"]),
                                                helper.make_node("Transpose", ["r"], ["y"], perm=[1, 0])],
                                          X4, [("y", F, None)], {"s": np.array([4, -1], np.int64)}),
    "concat_negative_axis": _model("c", [helper.make_node("Concat", ["x", "x2"], ["y"], axis=-3)], X4,
                                   [("y", F, None)], {"x2": _w(1, 2, 9, 9)}),
    "layernorm": _model("l", [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-2)], X4,
                        [("y", F, None)], {"g": _w(9, 9), "b": _w(9, 9)}, opset=17),
    "erf_gelu_kept": _model("e", [helper.make_node("Erf", ["x"], ["e"]), helper.make_node("Mul", ["x", "e"], ["y"])],
                            X4, [("y", F, None)]),
    "clip_matmul": _model("m", [helper.make_node("Clip", ["x", "lo", "hi"], ["c"]),
                                helper.make_node("MatMul", ["c", "w"], ["y"])], X4, [("y", F, None)],
                          {"lo": np.array(0.1, np.float32), "hi": np.array(0.6, np.float32), "w": _w(9, 3)}),
    "constantofshape_folded": _model("k", [helper.make_node("ConstantOfShape", ["shape"], ["k"], value=helper.make_tensor(
                                     "v", F, [1], [0.25])), helper.make_node("Add", ["x", "k"], ["y"])], X4,
                                     [("y", F, None)], {"shape": np.array([9], np.int64)}),
    "where_causal_mask": _model("w", [helper.make_node("Less", ["x", "half"], ["m"]),
                                      helper.make_node("Where", ["m", "x", "neg"], ["y"])], X4, [("y", F, None)],
                                {"half": np.array(0.5, np.float32), "neg": np.array(-1e4, np.float32)}),
}


@pytest.fixture(scope="module")
def one_op_import(tmp_path_factory):
    folder = tmp_path_factory.mktemp("onnx")
    paths = []
    for name, model in ONE_OP_MODELS.items():
        onnx.save(model, folder / f"{name}.onnx")
        paths.append(folder / f"{name}.onnx")
    out = folder / "cases"
    summary = import_models(paths, out)
    return out, summary


@pytest.mark.parametrize("name", sorted(ONE_OP_MODELS))
def test_each_mapped_op_matches_onnx_runtime_on_the_original(one_op_import, name):
    out, summary = one_op_import
    index = {e["stem"]: e for e in json.loads((out / "INDEX.json").read_text())["models"]}
    entry = index[name]
    assert entry["refused"] is None, entry["refused"]
    check = entry["vsOnnxRuntime"]
    # float32 ORT against the float64 reference rounded once: a few float32 ULPs of the output's scale
    assert check["maxErrorOverMaxAbs"] < 1e-5, check
    (case,) = load_cases([out / f"{name}.json"])
    assert isinstance(case, Case), case
    assert list(case.graph.outputs) == ["y"] and set(case.inputs) <= {"x", "a"}


def test_mapping_follows_the_ort_webnn_ep_decompositions(one_op_import):
    out, _ = one_op_import
    ops = lambda stem: [op["name"] for op in json.loads((out / f"{stem}.json").read_text())["tests"][0]["graph"]["operators"]]  # noqa: E731
    assert ops("lrn") == ["pow", "transpose", "pad", "averagePool2d", "transpose", "mul", "add", "pow", "div"]
    assert ops("sum_of_three") == ["add", "add"]
    assert ops("dropout_then_relu") == ["relu"]
    assert ops("unsqueeze_flatten") == ["reshape", "reshape"]
    assert ops("constantofshape_folded") == ["add"]
    assert ops("erf_gelu_kept") == ["erf", "mul"]
    k = json.loads((out / "constantofshape_folded.json").read_text())["tests"][0]["graph"]["inputs"]["k"]
    assert k["data"] == 0.25 and k["constant"] is True  # one value over the shape, not 9 numbers


def test_an_op_without_a_webnn_form_is_one_line_and_the_others_still_import(tmp_path, capsys):
    from webnn_harness.cli import main

    onnx.save(ONE_OP_MODELS["globalaveragepool"], tmp_path / "good.onnx")
    bad = _model("bad", [helper.make_node("Relu", ["x"], ["r"], name="first"),
                         helper.make_node("NonMaxSuppression", ["r", "r"], ["y"], name="nms")],
                 [("x", F, [1, 1, 4])], [("y", TensorProto.INT64, None)])
    onnx.save(bad, tmp_path / "bad.onnx")
    rc = main(["import-onnx", str(tmp_path / "bad.onnx"), str(tmp_path / "good.onnx"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 1
    refused = [line for line in err.splitlines() if line.startswith("refused:")]
    assert refused == ["refused: bad.onnx: node 'nms' (NonMaxSuppression): op NonMaxSuppression has no WebNN form"]
    assert (tmp_path / "o" / "good.json").is_file() and not (tmp_path / "o" / "bad.json").exists()


def test_a_missing_model_file_is_a_usage_error(tmp_path, capsys):
    from webnn_harness.cli import main

    assert main(["import-onnx", str(tmp_path / "nope.onnx"), "--out", str(tmp_path / "o")]) == 2
    assert "no such model file" in capsys.readouterr().err


# ---- real architectures ---------------------------------------------------------------------------

LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")


def test_squeezenet_round_trip_through_import_and_run(tmp_path):
    """The smallest of the onnx wheel's light models, seeded, imported, then run on ORT: it passes,
    judged by the model rule (its 65 operators are past the chain rule's meaningful range)."""
    from webnn_harness.cli import main

    model = os.path.join(LIGHT, "light_squeezenet.onnx")
    assert main(["import-onnx", model, "--seed", "3", "--out", str(tmp_path / "m"), "-q"]) == 0
    doc = json.loads((tmp_path / "m" / "light_squeezenet.json").read_text())
    case = doc["tests"][0]
    assert list(case["graph"]["inputs"])[0] == "data_0" and list(case["graph"]["expectedOutputs"]) == ["softmaxout_1"]
    assert case["model"]["vsOnnxRuntime"]["maxErrorOverMaxAbs"] < 1e-4
    assert all(not isinstance(t["data"], list) or len(t["data"]) <= 64 for t in case["graph"]["inputs"].values())
    assert main(["run", "--cases", str(tmp_path / "m"), "-b", "onnxruntime", "--out", str(tmp_path / "r"),
                 "--workers", "1", "-q"]) == 0
    (record,) = [json.loads(line) for line in (tmp_path / "r" / "results.jsonl").read_text().splitlines()]
    assert record["status"] == "pass" and record["metric"] == "MODEL", record


def test_transformer_blocks_import_and_match_onnx_runtime(tmp_path):
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "tools"))
    from onnx_blocks import write_blocks

    paths = write_blocks(tmp_path / "blocks")
    summary = import_models(paths, tmp_path / "cases")
    assert summary.imported == 3, summary.refused
    index = {e["stem"]: e for e in json.loads((tmp_path / "cases" / "INDEX.json").read_text())["models"]}
    assert index["encoder_layer"]["webnnOps"]["layerNormalization"] == 2
    assert index["encoder_layer"]["webnnOps"]["erf"] == 1  # the erf-GELU pattern kept as written
    assert index["decoder_step_causal"]["webnnOps"]["where"] == 1  # the causal mask, folded to a constant
    assert index["int4_matmul"]["webnnOps"] == {"dequantizeLinear": 1, "matmul": 1, "add": 1}
    for stem, entry in index.items():
        assert entry["vsOnnxRuntime"]["maxErrorOverMaxAbs"] < 1e-5, (stem, entry["vsOnnxRuntime"])
    (case,) = load_cases([tmp_path / "cases" / "int4_matmul.json"])
    assert case.graph.descs["W_int4"].data_type == "int4"  # read back from the sidecar, one value per byte


# ---- the model rule and refusal predictions -------------------------------------------------------

def test_the_model_rule_judges_deep_graphs_only_and_names_itself(tmp_path):
    from webnn_harness.verdict.model_rule import METRIC, compare_model, judged_by_model_rule

    small = _sidecar_case(tmp_path, W)
    assert not judged_by_model_rule(small, "y")  # WPT-sized graphs keep the chain rule
    expected = np.array([1.0, 1e-3, 0.0], np.float32)
    ok = compare_model(expected, expected * np.float32(1 + 5e-4), "float32")
    assert ok.passed and ok.metric == METRIC and "model rule" in ok.message
    bad = compare_model(expected, np.array([1.002, 1e-3, 0.0], np.float32), "float32")
    assert not bad.passed and bad.worst_index == (0,)
    # near zero, the bound is a share of the largest output (cancellation), not of the element
    assert compare_model(expected, np.array([1.0, 1e-3, 9e-6], np.float32), "float32").passed
    assert not compare_model(expected, np.array([1.0, 1e-3, 2e-5], np.float32), "float32").passed


def test_a_refusal_says_whether_the_tables_predicted_it(tmp_path):
    from webnn_harness.probe.model_refusals import refusal_checks

    case = _sidecar_case(tmp_path, W)
    records = [{"id": case.id, "case": "m", "backend": {"name": "b"}, "status": "unsupported",
                "message": "matmul: b is not supported"},
               {"id": case.id, "case": "m", "backend": {"name": "c"}, "status": "pass", "message": ""}]
    everything = {"input": {"dataTypes": ["float32"]}, "constant": {"dataTypes": ["float32"]},
                  "output": {"dataTypes": ["float32"]},
                  "matmul": {m: {"dataTypes": ["float32"]} for m in ("a", "b", "output")}}
    no_matmul = {k: v for k, v in everything.items() if k != "matmul"}
    tables = {"b": {"declared": everything, "probed": no_matmul}, "c": {"declared": no_matmul}}
    by_backend = {c.backend: c.verdicts() for c in refusal_checks(records, {case.id: case.graph}, tables)}
    assert by_backend["b"]["declared"].startswith("not predicted")
    assert by_backend["b"]["probed"].startswith("predicted (matmul is not in")
    assert by_backend["c"]["declared"].startswith("false alarm")


def test_a_hostile_fold_is_refused_not_computed(tmp_path):
    """A ConstantOfShape of 2^40 values feeding a node that would need its values: one refusal line."""
    huge = _model("huge", [helper.make_node("ConstantOfShape", ["s"], ["k"]),
                           helper.make_node("Reshape", ["x", "k"], ["y"])],
                  [("x", F, [1, 4])], [("y", F, None)], {"s": np.array([1 << 20, 1 << 20], np.int64)})
    onnx.save(huge, tmp_path / "huge.onnx")
    summary = import_models([tmp_path / "huge.onnx"], tmp_path / "o", check_ort=False)
    assert summary.imported == 0 and len(summary.refused) == 1 and "huge.onnx: node" in summary.refused[0]


def test_a_negative_seed_is_a_usage_error(tmp_path, capsys):
    from webnn_harness.cli import main

    onnx.save(ONE_OP_MODELS["globalaveragepool"], tmp_path / "m.onnx")
    with pytest.raises(SystemExit) as exc:
        main(["import-onnx", str(tmp_path / "m.onnx"), "--seed", "-1", "--out", str(tmp_path / "o")])
    assert exc.value.code == 2 and "whole number from 0" in capsys.readouterr().err
