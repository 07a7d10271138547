"""ORT lowerings for WPT shapes we had not met: pooling whose padding (with
ceil rounding's extra end padding) reaches the window, which ORT refuses
('Pad should be smaller than kernel'), and integer prelu, which ORT's
float-only PRelu refuses. Both now compose and match the reference."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")

from webnn_harness.api import BackendRequest, RunRequest, run  # noqa: E402
from webnn_harness.execution.pool import RunOptions  # noqa: E402

CASES = Path(__file__).parent / "data" / "ort_pool_padding_prelu_int.json"


def test_pool_padding_as_large_as_the_window_and_integer_prelu(tmp_path):
    run(RunRequest((CASES,), (BackendRequest("onnxruntime"),), tmp_path, options=RunOptions(workers=1, timeout=60)))
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(records) == 4
    for r in records:
        assert r["status"] == "pass", (r["case"], r["message"])
