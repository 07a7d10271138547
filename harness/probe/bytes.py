"""maxTensorByteLength: the largest tensor a cheap op (relu on float32)
verifiably handles, up to a memory budget.

The budget itself is tried first: on a machine with the memory for it that
one attempt settles the search ("at least the budget"). Only when it fails
is the limit looked for, by doubling from START up to the first failure and
then bisecting below it (BISECT_STEPS). Sizes are tried smallest first within
one process, so the first failure ends that process's list.

The search runs in its own processes, so an allocation failure or an
out-of-memory kill ends one attempt, not the probe; the evidence says
whether a hard limit was found or the budget was reached. It is bounded in
time: no attempt starts after TIME_BUDGET seconds (the one in progress
finishes, so a slow machine never turns "too slow" into "too big"), and the
evidence records the bound and whether it cut the search short.
"""
from __future__ import annotations

import time
from typing import Mapping

import numpy as np

from webnn_harness.probe.isolate import run_isolated

START = 1 << 20
PATTERN = np.array([-1.5, 2.0, 0.5, -3.0], dtype=np.float32)
BISECT_STEPS = 4
TIME_BUDGET = 30.0  # seconds after which no new attempt starts
CHECK_CHUNK = 1 << 18  # elements compared at a time: no output-sized temporary
FILL_BLOCK = 1 << 14  # patterns written at a time (256 KiB)
# CLOCK_MONOTONIC on Linux: one clock for every process of the machine, so a
# deadline set by the probe holds in the search's process.
clock = time.monotonic


def _patterned(count: int) -> np.ndarray:
    """``count`` float32 values repeating PATTERN. Written a block of FILL_BLOCK
    patterns at a time: row by row of 4 values, filling 1 GiB took twice the CPU."""
    x = np.empty(count, dtype=np.float32)
    block = np.tile(PATTERN, FILL_BLOCK)
    whole = count // block.size * block.size
    x[:whole].reshape(-1, block.size)[...] = block
    x[whole:] = block[:count - whole]
    return x


def _relu_ok(backend, n_bytes: int) -> str | None:
    """None when relu over an n_bytes float32 tensor computes correctly; else why not."""
    from webnn_harness.backends.base import device_session, share, to_host
    from webnn_harness.spec.graph import TensorDesc
    from webnn_harness.probe.synth import single_node_graph

    count = n_bytes // 4
    graph = single_node_graph("relu", {"input": TensorDesc((count,), "float32")}, {})
    x = _patterned(count)
    if hasattr(backend, "device_session"):
        # Its own session reads the input in place and writes the output into
        # a host array: no copy of the tensor at either end (OpenVINO's
        # batched compute copied both, 2 of 5 GiB moved per 1 GiB attempt).
        session = device_session(backend, graph)
        out = to_host(session, {"input": share(session, "input", x)})
    else:
        # Not through a HostSession: it copies the input in and the output
        # out, 2 GiB more at the budget for a backend that reads host arrays anyway.
        out = backend.compute(backend.build(graph), {"input": x})
    y = np.asarray(out[graph.outputs[0]]).reshape(-1)
    del x, out
    if y.shape != (count,):
        return f"output has {y.size} elements, expected {count}"
    expected = np.maximum(PATTERN, 0)
    block = np.tile(expected, CHECK_CHUNK // 4)
    for start in range(0, count, CHECK_CHUNK):
        part = y[start:start + CHECK_CHUNK]
        if not np.array_equal(part, block[:part.size]):  # sizes are multiples of 16 bytes
            return "values differ from relu's"
    return None


def try_sizes(send, backend, sizes: list[int], deadline: float) -> None:
    """relu at each size, smallest first, until one fails or the deadline passes."""
    for size in sizes:
        if clock() > deadline:
            send(("out of time", size))
            return
        send(("trying", size))
        try:
            problem = _relu_ok(backend, size)
        except Exception as exc:  # noqa: BLE001 - a refusal is the limit we look for
            problem = f"{type(exc).__name__}: {exc}"[:300]
        send(("result", size, problem))
        if problem:
            return


def _search(send, backend_name: str, options: Mapping[str, str], sizes: list[int], deadline: float) -> None:
    from webnn_harness import backends

    try_sizes(send, backends.create(backend_name, options), sizes, deadline)


def budget_bytes(budget: int) -> int:
    """The largest size tried: the budget, whole 16-byte blocks."""
    return int(budget) // 16 * 16


def _doubling(budget: int) -> list[int]:
    sizes, s = [], min(START, budget)
    while s < budget:
        sizes.append(s)
        s *= 2
    sizes.append(budget)
    return sizes


def _run(backend: str, options, sizes, timeout, deadline) -> tuple[int | None, tuple[int, str] | None, list, str, bool]:
    """(largest size that worked, (first size that failed, why), attempts, how the
    process ended, whether the time bound stopped it before a size)."""
    return _parse(*run_isolated(_search, (backend, dict(options), sizes, deadline), timeout))


def _parse(messages, ending: str) -> tuple[int | None, tuple[int, str] | None, list, str, bool]:
    """``_run``'s answer from the messages of ``try_sizes`` and how its process ended."""
    ok, failed, log = None, None, []
    trying, out_of_time = None, False
    for msg in messages:
        if msg[0] == "out of time":
            out_of_time = True
        elif msg[0] == "trying":
            trying = msg[1]
        else:
            _, size, problem = msg
            log.append({"bytes": size, "ok": problem is None, **({"problem": problem} if problem else {})})
            trying = None
            if problem is None:
                ok = size
            else:
                failed = (size, problem)
    if trying is not None and failed is None:  # died or hung on this size
        failed = (trying, ending)
        log.append({"bytes": trying, "ok": False, "problem": ending})
    return ok, failed, log, ending, out_of_time


def search_max_bytes(backend: str, options: Mapping[str, str], budget: int, timeout: float = 120.0,
                     time_budget: float = TIME_BUDGET, budget_attempt: tuple | None = None) -> dict:
    """``timeout``: seconds one process may take before its attempt counts as a
    hang; ``time_budget``: seconds after which no new attempt starts.
    ``budget_attempt``: (messages, ending, clock() at its start) of the budget's
    attempt when it ran elsewhere (``probe.beside``); else it runs here first."""
    budget = budget_bytes(budget)
    if budget_attempt is None:
        started = clock()
        ok, failed, log, ending, out_of_time = _run(backend, options, [budget], timeout, started + time_budget)
    else:
        messages, ending, started = budget_attempt
        ok, failed, log, ending, out_of_time = _parse(messages, ending)
    deadline = started + time_budget
    if failed:  # a limit below the budget: double up to it
        below = [s for s in _doubling(budget) if s < failed[0]]
        if below:
            ok, failed_below, log2, ending, out_of_time = _run(backend, options, below, timeout, deadline)
            log += log2
            failed = failed_below or failed
    # Cut short while doubling, the sizes between ok and the failure are untried:
    # ok is then a lower bound, not the limit.
    doubling_cut = out_of_time
    steps = 0
    while failed and steps < BISECT_STEPS and not out_of_time:
        low = ok or 0
        high = failed[0]
        mid = (low + high) // 2 // 16 * 16
        if mid <= low or mid >= high:
            break
        ok2, failed2, log2, _, out_of_time = _run(backend, options, [mid], timeout, deadline)
        log += log2
        if out_of_time:
            break
        if ok2:
            ok = ok2
        else:
            failed = failed2 or (mid, "no result")
        steps += 1
    kind = "budget" if ok == budget else ("time" if doubling_cut else "limit" if failed else "unknown")
    if kind == "budget":
        # No limit found below the budget: the number is a lower bound, never "the" limit.
        summary = f"at least {ok} bytes (search budget reached)"
    elif kind == "time":
        summary = f"at least {ok or 0} bytes (time budget of {time_budget:g} s reached; {failed[0]} bytes failed)"
    else:
        summary = f"{ok or 0} bytes (first failure at {failed[0]} bytes)" if failed else "inconclusive"
    return {
        "maxTensorByteLength": ok or 0,
        "kind": kind,
        "summary": summary,
        "budget": budget,
        "op": "relu (float32)",
        "method": {"order": f"the budget first; below a failure, doubling from {START} bytes, "
                            f"then up to {BISECT_STEPS} bisection steps",
                   "timeBudgetSeconds": time_budget, "stoppedByTimeBudget": out_of_time},
        "firstFailure": {"bytes": failed[0], "problem": failed[1]} if failed else None,
        "attempts": log,
        "seconds": round(clock() - started, 3),
        "ended": ending,
    }
