"""End to end: ORT agrees with the reference on a sample of cases per op,
judged exactly as `webnn-harness run` judges them. A non-pass must be listed
in backends/onnxruntime/known_failures.json with its reason."""
from __future__ import annotations

import time

import pytest

pytest.importorskip("onnxruntime")

import backends  # noqa: E402
from backends.base import Unsupported  # noqa: E402
from harness.knownfailures import KnownFailures  # noqa: E402
from harness.worker import build_record, run_case  # noqa: E402

from tests.test_onnxruntime_lowering import ALL_OPS, CASES_BY_OP  # noqa: E402


@pytest.fixture(scope="module")
def backend():
    return backends.create("onnxruntime", {})


@pytest.mark.parametrize("op", ALL_OPS)
def test_agrees_with_reference(backend, op):
    cases = CASES_BY_OP.get(op)
    if not cases:
        pytest.fail(f"no case uses {op}")
    info = backend.info().to_json()
    known = KnownFailures.for_backend("onnxruntime", {})
    problems = []
    for case in cases:
        t0 = time.perf_counter()
        try:
            compiled = backend.build(case.graph)
        except Unsupported as exc:
            record = build_record(case, info, exc, time.perf_counter() - t0)
        else:
            record = run_case(backend, compiled, case, info, time.perf_counter() - t0)
        record = known.apply(record)
        if record.status != "pass" and not record.known_failure:
            problems.append(f"{case.name}: {record.status} {record.message} max={record.max_error} budget={record.budget}")
    assert not problems, "\n".join(problems)
