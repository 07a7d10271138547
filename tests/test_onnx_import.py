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
