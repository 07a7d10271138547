"""One float64 evaluation per (graph, inputs) pair in a process.

A worker evaluates each case's reference twice over when the backend under
test is the reference itself: once as that backend's ``compute`` and once
for the judge's expected values (harness/verdict/reference_cache.py). Both
ask this memo, beside the protocol of the exact evaluation it keeps
(harness/spec/exact.py), so the graph is evaluated once. Entries are keyed by object
identity (the same graph, the same mapping holding the same arrays) and the
last ``RECENT`` are kept, more than a worker batch.
"""
from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any, Mapping

import numpy as np

from webnn_harness.spec.exact import ReferenceOutput, exact_reference

RECENT = 64


class EvaluationMemo:
    def __init__(self) -> None:
        self._recent: OrderedDict[tuple[int, int], tuple[Any, Any, tuple, dict, float]] = OrderedDict()

    def evaluate(self, graph, inputs: Mapping[str, np.ndarray]) -> dict[str, ReferenceOutput]:
        hit = self.recall(graph, inputs)
        if hit is not None:
            return hit[0]
        started = time.perf_counter()
        outputs = exact_reference().evaluate(graph, inputs)
        self.remember(graph, inputs, outputs, time.perf_counter() - started)
        return outputs

    def recall(self, graph, inputs) -> tuple[dict, float] | None:
        """(outputs, seconds the evaluation took) for these very objects, if still remembered."""
        hit = self._recent.get((id(graph), id(inputs)))
        if hit is None or hit[0] is not graph or hit[1] is not inputs or hit[2] != _identities(inputs):
            return None
        return hit[3], hit[4]

    def remember(self, graph, inputs, outputs: dict, seconds: float) -> None:
        # Holding graph and inputs keeps their ids from being reused.
        self._recent[(id(graph), id(inputs))] = (graph, inputs, _identities(inputs), outputs, seconds)
        while len(self._recent) > RECENT:
            self._recent.popitem(last=False)


def _identities(inputs: Mapping[str, Any]) -> tuple:
    return tuple((name, id(value)) for name, value in inputs.items())


_CURRENT = EvaluationMemo()


def current() -> EvaluationMemo:
    """This process's memo: the one the reference cache in use shares."""
    return _CURRENT


def use(memo: EvaluationMemo) -> None:
    global _CURRENT
    _CURRENT = memo
