"""The bench's variants timed in the page (``ChromiumBackend.timed_plan``,
backends/base.py): the page builds a plan's graphs once, and its timed loop
(harness/bench/measure.py's algorithm with the run's TimingPolicy, in
page.js) puts ``performance.now()`` around the WebNN calls alone, so no
Playwright round trip is timed. The page is cross-origin isolated (COOP and
COEP headers, backends/chromium/browser.py), so its clock is coarsened to
5 microseconds rather than 100.

Which calls one timed step makes, per plan (variants: harness/bench/variants.py's PLAN_KINDS):
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from webnn_harness.backends.base import Samples, TimedPlan, TimedVariant

# A sample of a plan that ends with a wait (a readTensor: the one way WebNN
# lets the page know dispatched work is done) times up to this many calls, as
# many as still leave the policy's min_samples in its min_time, so the wait
# is amortised, as a block of calls shorter than min_sample_time is timed together.
WAIT_BLOCK = 10

TIMED_CALLS = {
    "perOp": "per op: writeTensor(each input of the op), dispatch(op graph), await readTensor(each output of the op)",
    "chain": "writeTensor(each graph input), dispatch(each graph, op by op or the one graph, on MLTensors), "
             "await readTensor(each graph output)",
    "dispatch": f"dispatch(each graph, on MLTensors written once before timing, which never leave the context); "
                f"each sample (a block of up to {WAIT_BLOCK} calls) ends with one await "
                "readTensor(first graph output), the wait",
    "upload": f"writeTensor(input); each sample (a block of up to {WAIT_BLOCK} calls) ends with one "
              "await readTensor(input), the wait",
    "download": "await readTensor(output), computed once before timing",
}
__doc__ += "\n".join(f"    {kind:9} {calls}" for kind, calls in TIMED_CALLS.items()) + "\n"
TIMER = "page performance.now()"


def plan_spec(plan: TimedPlan) -> dict:
    """The page's bench spec for ``plan`` (page.js, ``benchPrepare``)."""
    from webnn_harness.backends.chromium.payload import encode_tensor, graph_payload

    graph_inputs = [name for part in plan.parts for name in part.inputs if name in plan.inputs]
    inputs = list(dict.fromkeys(graph_inputs))
    descs = {name: desc for part in plan.parts for name, desc in part.descs.items()}
    return {
        "plan": plan.kind,
        "parts": [graph_payload(part) for part in plan.parts],
        "inputs": inputs,
        "outputs": list(plan.outputs),
        "feeds": {name: encode_tensor(plan.inputs[name], descs[name].data_type) for name in inputs},
        "minBlock": WAIT_BLOCK,
    }


class PageBench:
    """One plan prepared in the page: its step (verified) and its timed loop."""

    def __init__(self, backend, plan: TimedPlan):
        self.backend, self.plan = backend, plan
        answer = backend.browser.call("benchPrepare", backend.device, plan_spec(plan))
        if "error" in answer:
            raise backend.classify(answer["error"], plan.parts[0]) if len(plan.parts) == 1 \
                else _part_error(backend, answer["error"], plan)
        self.id, self.build_seconds = answer["id"], answer["buildSeconds"]

    def step(self) -> dict[str, np.ndarray]:
        from webnn_harness.backends.chromium.payload import decode_tensor

        values = self.backend._taken(self.backend.browser.call("benchStep", self.id))
        descs = {name: desc for part in self.plan.parts for name, desc in part.descs.items()}
        return {name: decode_tensor(values[name], descs[name].data_type, tuple(descs[name].shape))
                for name in self.plan.outputs}

    def measure(self, policy: Mapping[str, Any]) -> Samples:
        answer = self.backend.browser.call("benchMeasure", self.id, dict(policy))
        return Samples(tuple(answer["times"]), answer["number"], answer["stoppedBy"], TIMER,
                       TIMED_CALLS[self.plan.kind],
                       {"plan": self.plan.kind, "graphs": len(self.plan.parts),
                        "crossOriginIsolated": answer["crossOriginIsolated"]})

    def release(self) -> None:
        self.backend.browser.call("benchRelease", self.id)


def _part_error(backend, error: Mapping[str, str], plan: TimedPlan) -> Exception:
    """A part's build refused or failed: classified against the part whose op threw, else the first."""
    stage = error.get("stage", "")
    op = stage.removeprefix("builder.")
    part = next((p for p in plan.parts if op in p.ops), plan.parts[0])
    return backend.classify(error, part)


def timed_variant(backend, plan: TimedPlan, previous: PageBench | None) -> tuple[TimedVariant, PageBench]:
    """``plan`` built in the page, the previous one released first (a worker times one variant at a time)."""
    if previous is not None:
        previous.release()
    bench = PageBench(backend, plan)
    return TimedVariant(bench.step, bench.measure, bench.build_seconds), bench


__all__ = ["PageBench", "TIMED_CALLS", "timed_variant"]
