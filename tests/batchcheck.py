"""One check shared by the batching tests: a batch of case graphs built and
computed together gives, case by case, what each case gives built alone
(the same outputs bit for bit, or the same refusal)."""
from __future__ import annotations

import numpy as np


def assert_batch_equals_alone(backend, cases, built, computed) -> None:
    for case, handle, outputs in zip(cases, built, computed):
        try:
            alone = backend.compute(backend.build(case.graph), case.inputs)
        except Exception as exc:  # noqa: BLE001 - a refusal is compared with the batch's
            alone = exc
        if isinstance(handle, BaseException):
            assert isinstance(alone, BaseException) and str(handle) == str(alone), case.name
            continue
        if isinstance(alone, BaseException):
            assert isinstance(outputs, BaseException) and str(outputs) == str(alone), case.name
            continue
        assert set(outputs) == set(alone), case.name
        for key in alone:
            assert np.array_equal(outputs[key], alone[key], equal_nan=True), case.name
