"""The maxTensorByteLength search: the budget first, doubling and bisection
only below a failure, and the time bound that stops new attempts (never the
one in progress). The isolated process is replaced by an in-process call and
relu by a fake with a known limit, so every path runs in milliseconds."""
from __future__ import annotations

import pytest

from webnn_harness.probe import bytes as search

MIB = 1 << 20


class FakeMachine:
    """relu works up to ``limit`` bytes; each attempt takes ``seconds`` on a fake clock."""

    def __init__(self, limit: int, seconds: float = 1.0):
        self.limit, self.seconds, self.now, self.tried = limit, seconds, 0.0, []

    def monotonic(self) -> float:
        return self.now

    def relu_ok(self, backend, n_bytes: int):
        self.tried.append(n_bytes)
        self.now += self.seconds
        return None if n_bytes <= self.limit else "RuntimeError: cannot allocate"


@pytest.fixture
def machine(monkeypatch):
    def install(limit: int, seconds: float = 1.0) -> FakeMachine:
        fake = FakeMachine(limit, seconds)
        monkeypatch.setattr(search, "_relu_ok", fake.relu_ok)
        monkeypatch.setattr(search, "clock", fake.monotonic)

        def in_process(target, args, timeout):
            messages = []
            target(messages.append, *args)
            return messages, "end"

        monkeypatch.setattr(search, "run_isolated", in_process)
        return fake

    return install


def test_the_budget_first_settles_a_search_with_enough_memory(machine):
    fake = machine(limit=1 << 40)
    found = search.search_max_bytes("reference", {}, 64 * MIB)
    assert fake.tried == [64 * MIB]
    assert (found["maxTensorByteLength"], found["kind"]) == (64 * MIB, "budget")
    assert found["summary"] == f"at least {64 * MIB} bytes (search budget reached)"
    assert found["method"]["timeBudgetSeconds"] == search.TIME_BUDGET and not found["method"]["stoppedByTimeBudget"]


def test_a_limit_below_the_budget_is_doubled_up_to_and_bisected(machine):
    fake = machine(limit=5 * MIB)
    found = search.search_max_bytes("reference", {}, 64 * MIB)
    assert fake.tried[:5] == [64 * MIB, MIB, 2 * MIB, 4 * MIB, 8 * MIB]  # the budget, then doubling to the failure
    assert len(fake.tried) == 5 + search.BISECT_STEPS
    assert found["kind"] == "limit"
    assert 4 * MIB < found["maxTensorByteLength"] <= 5 * MIB
    assert found["firstFailure"]["bytes"] > 5 * MIB and found["firstFailure"]["bytes"] - found["maxTensorByteLength"] <= MIB // 4
    assert [a["ok"] for a in found["attempts"]][:5] == [False, True, True, True, False]


def test_the_time_bound_stops_new_attempts_and_says_so(machine):
    fake = machine(limit=5 * MIB, seconds=10.0)
    found = search.search_max_bytes("reference", {}, 64 * MIB, time_budget=25.0)
    assert fake.tried == [64 * MIB, MIB, 2 * MIB]  # the attempt in progress at 25 s finished; none started after
    assert found["kind"] == "time" and found["method"]["stoppedByTimeBudget"]
    assert found["maxTensorByteLength"] == 2 * MIB
    assert found["summary"].startswith(f"at least {2 * MIB} bytes (time budget of 25 s reached")


def test_a_slow_budget_attempt_still_counts(machine):
    """A time bound shorter than one attempt never turns 'slow' into 'too big'."""
    fake = machine(limit=1 << 40, seconds=100.0)
    found = search.search_max_bytes("reference", {}, 64 * MIB, time_budget=1.0)
    assert fake.tried == [64 * MIB]
    assert (found["maxTensorByteLength"], found["kind"]) == (64 * MIB, "budget")


def test_a_byte_attempt_that_kills_the_process_beside_the_passes_costs_neither_measurement(tmp_path, monkeypatch):
    """relu aborts the process: the budget's attempt, run beside the passes,
    takes the layout timing's process with it; the timing runs again alone
    and the search goes on below the budget, each failure recorded."""
    from webnn_harness.probe.driver import probe
    from webnn_harness.execution.pool import RunOptions

    monkeypatch.setattr(search, "BISECT_STEPS", 0)  # below 1 MiB, each step is one more crashing process
    result = probe("webnn_harness.backends.faulty:create", {"crash_op": "relu", "hang_op": ""}, tmp_path,
                   ops=["add"], max_bytes=4 * MIB, run=RunOptions(workers=1, timeout=30, batch_size=64))
    found = result.evidence["maxTensorByteLength"]
    assert [a["bytes"] for a in found["attempts"]] == [4 * MIB, MIB]
    assert all(not a["ok"] and a["problem"].startswith("crash") for a in found["attempts"])
    assert (found["maxTensorByteLength"], found["kind"]) == (0, "limit")
    layout = result.evidence["preferredInputLayout"]
    assert layout["ended"] == "end" and all(w["nchw"]["runs"] >= 7 for w in layout["timings"].values())
    assert result.evidence["header"]["timeBounds"] == {"layoutTimingSeconds": 1.5, "byteSearchSeconds": search.TIME_BUDGET}


@pytest.mark.parametrize("count", [0, 1, 3, 4, 5, 4 * search.FILL_BLOCK - 1, 4 * search.FILL_BLOCK, 12 * search.FILL_BLOCK + 7])
def test_the_tensor_tried_repeats_the_pattern_to_its_last_element(count):
    import numpy as np

    x = search._patterned(count)
    assert x.dtype == np.float32 and x.shape == (count,)
    assert np.array_equal(x, np.resize(search.PATTERN, count))


@pytest.mark.parametrize("backend_name", ["onnxruntime", "openvino", "reference"])
def test_an_attempt_runs_relu_and_checks_every_value(backend_name, monkeypatch):
    """One real attempt per backend (4 MiB). A backend with device sessions
    runs it there (input read in place, output written into a host array);
    an output that differs anywhere, even in its last element, fails it."""
    from webnn_harness import backends
    from webnn_harness.backends import base

    pytest.importorskip(backend_name if backend_name != "reference" else "numpy")
    backend = backends.create(backend_name, {})
    assert search._relu_ok(backend, 4 * MIB) is None
    sessions = []
    if hasattr(backend, "device_session"):
        original = base.device_session
        monkeypatch.setattr(base, "device_session", lambda b, g: sessions.append(g) or original(b, g))

        def last_wrong(session, feeds, _to_host=base.to_host):
            out = _to_host(session, feeds)
            next(iter(out.values())).reshape(-1)[-1] = -1.0
            return out

        monkeypatch.setattr(base, "to_host", last_wrong)
        assert search._relu_ok(backend, 4 * MIB) == "values differ from relu's"
        assert len(sessions) == 1
