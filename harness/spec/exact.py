"""The spec's exact result, as the verdict asks for it: a small protocol
that the float64 reference backend implements.

The verdict (harness/verdict/) needs two things of the exact evaluation:
a graph's outputs (the expected values, and which elements the spec leaves to
the implementation) and one node run again on moved operands (the chain rule,
harness/verdict/tolerance.py). It asks for them here, never by importing a backend: backends/reference/ fills in an
``ExactReference`` and hangs it on its factory (``create.exact``), and
``exact_reference()`` finds that factory by its entry-point name, as every
backend is found (backends/__init__.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

import numpy as np

if TYPE_CHECKING:
    from webnn_harness.spec.graph import Graph, Node

ENTRY_POINT_GROUP = "webnn_harness.backends"  # the group every backend is registered in (pyproject.toml)
REFERENCE = "reference"  # the entry-point name of the backend that implements this protocol


@dataclass(frozen=True, eq=False)
class ReferenceOutput:
    """One output of the exact evaluation."""

    values: np.ndarray
    undefined: np.ndarray | None = None  # bool mask: elements not to compare
    reason: str = ""


@dataclass(frozen=True)
class ExactReference:
    # graph, inputs -> each output's exact values (float64 compute, rounded once to the output type)
    evaluate: Callable[["Graph", Mapping[str, np.ndarray]], dict[str, ReferenceOutput]]
    # node, the values so far (by operand name), graph -> the node's outputs, in its outputs' order
    run_node: Callable[["Node", Mapping[str, np.ndarray], "Graph"], list[ReferenceOutput]]
    # the source it computes with: what a cached result depends on (harness/verdict/reference_cache.py)
    source_folder: Path


@lru_cache(maxsize=1)
def exact_reference() -> ExactReference:
    """The installed reference backend's ``ExactReference``."""
    from importlib.metadata import entry_points

    found = entry_points(group=ENTRY_POINT_GROUP, name=REFERENCE)
    if not found:
        raise LookupError(f"no backend named {REFERENCE!r} in the {ENTRY_POINT_GROUP} entry points: "
                          "reinstall webnn-harness")
    factory = next(iter(found)).load()
    exact = getattr(factory, "exact", None)
    if not isinstance(exact, ExactReference):
        raise LookupError(f"the {REFERENCE!r} backend does not implement harness/spec/exact.py's ExactReference")
    return exact
