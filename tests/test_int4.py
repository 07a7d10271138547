"""int4/uint4: data types beyond the spec that browsers accept for
quantizeLinear/dequantizeLinear (WPT and Chromium use them). Cases in WPT's
shape load and run on every backend instead of failing schema validation."""
from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from webnn_harness.loading.cases import load_file
from webnn_harness.spec.dtypes import DATA_TYPES, in_spec_order, integer_range, numpy_dtype
from webnn_harness.probe.plan import combos_for
from webnn_harness.api import BackendRequest, RunRequest, run
from webnn_harness.execution.pool import RunOptions
from webnn_harness.spec.values import TensorValueError, encode_array, to_array

CASES = Path(__file__).parent / "data" / "wpt_int4_quantization.json"


def test_int4_values_round_trip_and_range():
    a = to_array([-8, 7, 0], [3], "int4")
    assert a.dtype == np.dtype(ml_dtypes.int4)
    assert encode_array(a) == [-8, 7, 0]
    assert integer_range("int4") == (-8, 7) and integer_range("uint4") == (0, 15)
    with pytest.raises(TensorValueError, match="out of range for uint4"):
        to_array([16], [1], "uint4")
    assert numpy_dtype("uint4") == np.dtype(ml_dtypes.uint4)
    assert in_spec_order(["uint4", "float32", "int4"]) == ["float32", "int4", "uint4"]
    assert "int4" not in DATA_TYPES  # never in the spec-shaped lists


def test_wpt_shaped_int4_cases_load_as_not_required():
    cases = list(load_file(CASES))
    assert len(cases) == 4 and all(not hasattr(c, "message") for c in cases), cases
    assert not any(c.required for c in cases)  # beyond the spec: never required


def test_probe_sweeps_int4_for_quantization_only():
    values = {(c.member, c.value) for c in combos_for("dequantizeLinear")[0] if c.axis == "dataType"}
    assert ("input", "int4") in values and ("input", "uint4") in values
    assert not any(c.value in ("int4", "uint4") for c in combos_for("relu")[0])


@pytest.mark.parametrize("backend", ["reference", "onnxruntime", "openvino"])
def test_int4_cases_run_on_every_backend(backend, tmp_path):
    pytest.importorskip({"reference": "numpy"}.get(backend, backend))
    run(RunRequest((CASES,), (BackendRequest(backend),), tmp_path, options=RunOptions(workers=1, timeout=60)))
    records = {r["case"]: r for r in map(json.loads, (tmp_path / "results.jsonl").read_text().splitlines())}
    assert len(records) == 4
    for name, r in records.items():
        assert r["status"] == "pass", (name, r["message"])
