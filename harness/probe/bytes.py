"""maxTensorByteLength: the largest tensor a cheap op (relu on float32)
verifiably handles, searched by doubling up to a memory budget and then
bisected below the first failure. The search runs in its own process, so an
allocation failure or an out-of-memory kill ends the search, not the probe;
the evidence says whether a hard limit was found or the budget was reached."""
from __future__ import annotations

from typing import Mapping

import numpy as np

from webnn_harness.probe.isolate import run_isolated

START = 1 << 20
PATTERN = np.array([-1.5, 2.0, 0.5, -3.0], dtype=np.float32)
BISECT_STEPS = 4


def _relu_ok(backend, n_bytes: int) -> str | None:
    """None when relu over an n_bytes float32 tensor computes correctly; else why not."""
    from webnn_harness.graph import TensorDesc
    from webnn_harness.probe.synth import single_node_graph

    count = n_bytes // 4
    graph = single_node_graph("relu", {"input": TensorDesc((count,), "float32")}, {})
    x = np.tile(PATTERN, count // 4 + 1)[:count]
    compiled = backend.build(graph)
    out = backend.compute(compiled, {"input": x})
    y = np.asarray(out[graph.outputs[0]]).reshape(-1)
    del x
    if y.shape != (count,):
        return f"output has {y.size} elements, expected {count}"
    expected = np.maximum(PATTERN, 0)
    whole = count // 4 * 4
    if not np.array_equal(y[:whole].reshape(-1, 4), np.broadcast_to(expected, (whole // 4, 4))):
        return "values differ from relu's"
    return None


def _search(send, backend_name: str, options: Mapping[str, str], sizes: list[int]) -> None:
    from webnn_harness import backends

    backend = backends.create(backend_name, options)
    for size in sizes:
        send(("trying", size))
        try:
            problem = _relu_ok(backend, size)
        except Exception as exc:  # noqa: BLE001 - a refusal is the limit we look for
            problem = f"{type(exc).__name__}: {exc}"[:300]
        send(("result", size, problem))
        if problem:
            return


def _doubling(budget: int) -> list[int]:
    sizes, s = [], min(START, budget)
    while s < budget:
        sizes.append(s)
        s *= 2
    sizes.append(budget)
    return sizes


def _run(backend: str, options, sizes, timeout) -> tuple[int | None, tuple[int, str] | None, list, str]:
    messages, ending = run_isolated(_search, (backend, dict(options), sizes), timeout)
    ok, failed, log = None, None, []
    trying = None
    for msg in messages:
        if msg[0] == "trying":
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
    return ok, failed, log, ending


def search_max_bytes(backend: str, options: Mapping[str, str], budget: int, timeout: float = 120.0) -> dict:
    budget = int(budget) // 16 * 16
    ok, failed, log, ending = _run(backend, options, _doubling(budget), timeout)
    steps = 0
    while failed and steps < BISECT_STEPS:
        low = ok or 0
        high = failed[0]
        mid = (low + high) // 2 // 16 * 16
        if mid <= low or mid >= high:
            break
        ok2, failed2, log2, _ = _run(backend, options, [mid], timeout)
        log += log2
        if ok2:
            ok = ok2
        else:
            failed = failed2 or (mid, "no result")
        steps += 1
    kind = "budget" if ok == budget else ("limit" if failed else "unknown")
    return {
        "maxTensorByteLength": ok or 0,
        "kind": kind,
        # No limit found below the budget: the number is a lower bound, never "the" limit.
        "summary": (f"at least {ok} bytes (search budget reached)" if kind == "budget"
                    else f"{ok or 0} bytes (first failure at {failed[0]} bytes)" if failed else "inconclusive"),
        "budget": budget,
        "op": "relu (float32)",
        "firstFailure": {"bytes": failed[0], "problem": failed[1]} if failed else None,
        "attempts": log,
        "ended": ending,
    }
