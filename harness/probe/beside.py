"""The probe's two measurements beside its combinations, in one process
started with the probe: the maxTensorByteLength search's first attempt (the
budget itself) and the preferredInputLayout timing.

The process imports the backend and tries the byte budget while the workers
run the combinations: that attempt needs memory, not quiet, and on most
machines it settles the search. It also builds the layout workloads then,
but times them only when told the combinations are over (``start_timing``),
since timing needs a quiet machine. One process instead of two saves a
backend import, and the overlap keeps both cores busy in the passes' gaps.

Isolation is kept: should the byte attempt kill the process (out of
memory), the layout timing runs again in a process of its own, and the
byte search goes on below the budget in processes of its own
(``bytes.search_max_bytes``), as it would have without this process.
"""
from __future__ import annotations

from typing import Mapping

import webnn_harness.probe.bytes as byte_search
import webnn_harness.probe.layout as layout_timing
from webnn_harness.probe.isolate import event, start_isolated

BYTES_TIMEOUT, LAYOUT_TIMEOUT = 120.0, 60.0  # as when each ran in a process of its own


def _tagged(send, tag: str):
    return lambda msg: send((tag, *msg))


def _measure(send, go, backend_name: str, options: Mapping[str, str], byte_budget: int | None, layout: bool) -> None:
    from webnn_harness import backends

    backend = backends.create(backend_name, options)
    if byte_budget:
        started = byte_search.clock()
        byte_search.try_sizes(_tagged(send, "bytes"), backend, [byte_budget], float("inf"))
        send(("bytes done", byte_search.clock() - started))
    if layout:
        ready = layout_timing.prepare_layouts(_tagged(send, "layout"), backend)
        go.wait()
        layout_timing.time_layouts(_tagged(send, "layout"), backend, ready)


class Beside:
    """``Beside(...)`` starts the process; ``start_timing()`` when the
    combinations are over; ``finish()`` returns (layout evidence, byte-search
    evidence); ``close()`` ends it early (the probe failed)."""

    def __init__(self, backend: str, options: Mapping[str, str], layout: bool, max_bytes: int | None):
        self.backend, self.options, self.layout, self.max_bytes = backend, dict(options), layout, max_bytes
        self.started = byte_search.clock()
        self.go = event()
        budget = byte_search.budget_bytes(max_bytes) if max_bytes else None
        self.process = start_isolated(_measure, (self.go, backend, self.options, budget, layout),
                                       preload=[backend])

    def start_timing(self) -> None:
        self.go.set()

    def finish(self) -> tuple[dict | None, dict | None]:
        spent = byte_search.clock() - self.started
        # The layout's hang guard counts from now; the byte attempt's from the start.
        bytes_left = max(0.0, BYTES_TIMEOUT - spent) if self.max_bytes else 0.0
        messages, ending = self.process.collect(bytes_left + LAYOUT_TIMEOUT)
        tagged_bytes = [m[1:] for m in messages if m[0] == "bytes"]
        attempt_seconds = next((m[1] for m in messages if m[0] == "bytes done"), None)
        layout_messages = [m[1:] for m in messages if m[0] == "layout"]
        layout_evidence = None
        if self.layout:
            timed = any(m[0] == "time" for m in layout_messages)
            # Ended before timing (the byte attempt killed it, or it hung): time layouts alone.
            layout_evidence = (layout_timing.layout_evidence(layout_messages, ending) if timed or ending == "end"
                               else layout_timing.measure_layouts(self.backend, self.options, LAYOUT_TIMEOUT))
        bytes_evidence = None
        if self.max_bytes:
            # The attempt's own ending: "end" once it reported, else how the process ended on it.
            # The search's time bound counts the attempt's own time, not the passes'.
            attempt = None if not tagged_bytes else (
                tagged_bytes, "end" if attempt_seconds is not None else ending,
                byte_search.clock() - (attempt_seconds or 0.0))  # died on it: its time is unknown
            bytes_evidence = byte_search.search_max_bytes(self.backend, self.options, self.max_bytes,
                                                          BYTES_TIMEOUT, budget_attempt=attempt)
        return layout_evidence, bytes_evidence

    def close(self) -> None:
        self.process.close()
