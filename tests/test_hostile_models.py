"""Hostile model files for ``import-onnx`` (issue #50, the class "unreadable or hostile model files"):
each is one line naming the model, the other models still import, and a refused model leaves no
case file behind (a later ``run --cases`` of the folder would meet it)."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from webnn_harness.cli import main  # noqa: E402


def relu_model(shape, name="m"):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], name, [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def external_data_model() -> onnx.ModelProto:
    """An initializer whose data an external file outside the model's folder would hold."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    w = helper.make_tensor("w", TensorProto.FLOAT, [4], np.ones(4, np.float32).tobytes(), raw=True)
    w.data_location = TensorProto.EXTERNAL
    w.ClearField("raw_data")
    entry = w.external_data.add()
    entry.key, entry.value = "location", "../../etc/passwd"
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "ext", [x], [y], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


# model file stem -> a word of the one line that refuses it (the good model beside it still imports)
REFUSED = {
    "truncated": "not an ONNX model",
    "junk": "not an ONNX model",
    "empty": "has no nodes",
    "dynamic": "no static shape",
    "negative_dimension": "no static shape",
    "huge_declared_shape": "over the",
    "external_data": "external file (not read)",
    "unknown_op": "no WebNN form",
}


def hostile_models(folder: Path) -> dict[str, Path]:
    folder.mkdir()
    onnx.save(relu_model([1, 4]), folder / "good.onnx")
    good = (folder / "good.onnx").read_bytes()
    (folder / "truncated.onnx").write_bytes(good[: len(good) // 2])
    (folder / "junk.onnx").write_bytes(np.random.default_rng(1).bytes(300))
    (folder / "empty.onnx").write_bytes(b"")
    onnx.save(relu_model(["N", 4]), folder / "dynamic.onnx")
    onnx.save(relu_model([-1, 4]), folder / "negative_dimension.onnx")
    onnx.save(relu_model([1 << 20, 1 << 20, 1 << 10]), folder / "huge_declared_shape.onnx")
    onnx.save(external_data_model(), folder / "external_data.onnx")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    unknown = helper.make_graph([helper.make_node("NonZeroish", ["x"], ["y"], domain="com.example")], "u", [x], [y])
    onnx.save(helper.make_model(unknown, opset_imports=[helper.make_opsetid("", 17),
                                                         helper.make_opsetid("com.example", 1)]),
              folder / "unknown_op.onnx")
    return {p.stem: p for p in folder.iterdir()}


@pytest.mark.parametrize("stem", sorted(REFUSED))
def test_a_hostile_model_is_one_line_and_leaves_no_case(tmp_path, capsys, stem):
    models = hostile_models(tmp_path / "models")
    out = tmp_path / "out"
    code = main(["import-onnx", str(models[stem]), str(models["good"]), "--out", str(out), "-q", "--no-ort-check"])
    err = capsys.readouterr().err
    assert code == 1, err
    lines = [line for line in err.splitlines() if line.startswith("refused:")]
    assert len(lines) == 1 and lines[0].startswith(f"refused: {stem}.onnx: ") and REFUSED[stem] in lines[0], err
    assert "Traceback" not in err
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == ["INDEX.json", "good.json"]


@pytest.mark.parametrize("kind", ["link_loop", "dangling_link", "folder", "missing"])
def test_a_model_path_that_is_no_file_is_a_usage_error_before_anything_is_written(tmp_path, capsys, kind):
    model = tmp_path / "m.onnx"
    if kind == "link_loop":
        model.symlink_to(model.name)
    elif kind == "dangling_link":
        model.symlink_to("nowhere.onnx")
    elif kind == "folder":
        model.mkdir()
    out = tmp_path / "out"
    assert main(["import-onnx", str(model), "--out", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    word = {"link_loop": "link loop", "dangling_link": "does not exist", "folder": "not a regular file",
            "missing": "no such model file"}[kind]
    assert word in err, err
    assert not out.exists()


def test_a_model_given_as_a_named_pipe_is_never_opened(tmp_path, capsys):
    """Opening a fifo for reading would wait for a writer: it is refused by its kind, unread."""
    model = tmp_path / "m.onnx"
    os.mkfifo(model)
    assert main(["import-onnx", str(model), "--out", str(tmp_path / "out"), "-q"]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_tries_per_class_for_the_closing_note():
    print(f"hostile model files: {len(REFUSED)} refused models + 5 paths that are no file")
