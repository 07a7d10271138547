"""What each thing a backend does becomes, as documented for outsiders in
backends/base.py and the README's table: a scripted backend driven through
the worker's own build and compute steps (harness/execution/worker.py)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import REPO
from webnn_harness.backends.base import BackendInfo, Unsupported, build_batch
from webnn_harness.backends.reference import evaluate
from webnn_harness.loading.cases import load_cases
from webnn_harness.execution.worker import build_record, run_case

(CASE,) = load_cases([REPO / "cases" / "elementwise" / "relu.json"], name_filter="^relu float32 2D generated$")
INFO = BackendInfo("scripted", "0", "cpu").to_json()


def right(graph, inputs):
    return {name: out.values for name, out in evaluate(graph, inputs).items()}


def raise_(exc):
    def compute(graph, inputs):
        raise exc
    return compute


class Scripted:
    def __init__(self, build_error=None, compute=right):
        self.build_error, self.compute_fn = build_error, compute

    def info(self):
        return BackendInfo("scripted", "0", "cpu")

    def build(self, graph):
        if self.build_error:
            raise self.build_error
        return graph

    def compute(self, compiled, inputs):
        return self.compute_fn(compiled, inputs)


def outcome(backend: Scripted):
    """The record the worker makes for CASE (the steps of worker_main for one case)."""
    (compiled,) = build_batch(backend, [CASE.graph])
    if isinstance(compiled, BaseException):
        return build_record(CASE, INFO, compiled, 0.0)
    return run_case(backend, compiled, CASE, INFO, 0.0)


@pytest.mark.parametrize("backend, status, message", [
    (Scripted(), "pass", ""),
    (Scripted(build_error=Unsupported("no relu here")), "unsupported", "no relu here"),
    (Scripted(build_error=RuntimeError("oops")), "error", "build raised RuntimeError: oops"),
    (Scripted(compute=raise_(Unsupported("not on this device"))), "unsupported", "not on this device"),
    (Scripted(compute=raise_(ValueError("bad"))), "fail", "compute raised ValueError: bad"),
    (Scripted(compute=lambda g, i: {}), "fail", "backend returned no output 'output'"),
    (Scripted(compute=lambda g, i: {k: v.astype(np.float64) for k, v in right(g, i).items()}),
     "fail", "data type float64, expected float32"),  # nothing is cast
    (Scripted(compute=lambda g, i: {k: v.reshape(-1) for k, v in right(g, i).items()}),
     "fail", "shape [6], expected [2, 3]"),
], ids=["pass", "build-unsupported", "build-raises", "compute-unsupported", "compute-raises", "no-output",
        "float64-for-float32", "wrong-shape"])
def test_what_each_backend_behaviour_becomes(backend, status, message):
    record = outcome(backend)
    assert (record.status, record.message) == (status, message)


def test_values_beyond_the_tolerance_fail_with_the_worst_element_and_the_budget():
    def off(graph, inputs):
        out = right(graph, inputs)
        out["output"] = out["output"].copy()
        out["output"][1, 2] = np.nextafter(out["output"][1, 2], np.float32(np.inf), dtype=np.float32) + 1
        return out

    record = outcome(Scripted(compute=off))
    assert record.status == "fail" and record.worst_index == (1, 2) and record.max_error > record.budget
