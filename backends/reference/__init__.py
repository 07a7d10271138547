"""The reference backend: every op in float64 numpy, rounded once to the
output data type. Every verdict the harness gives is measured against it."""
from __future__ import annotations

import platform
from typing import Any, Mapping

import numpy as np

from webnn_harness.backends.base import BackendInfo, Unsupported
from webnn_harness.backends.reference.evaluate import ReferenceOutput, evaluate
from webnn_harness import __version__
from webnn_harness.graph import Graph


class ReferenceBackend:
    name = "reference"

    def __init__(self, options: Mapping[str, str]):
        if options:
            raise ValueError(f"the reference backend takes no options (got {', '.join(options)})")

    def info(self) -> BackendInfo:
        return BackendInfo(
            name=self.name,
            version=__version__,
            device=f"cpu ({platform.machine()}), numpy {np.__version__}",
            settings={"precision": "float64 compute, rounded once to the output type"},
        )

    def build(self, graph: Graph) -> Graph:
        from webnn_harness.backends.reference.ops import OPS

        missing = sorted({n.op for n in graph.nodes} - set(OPS))
        if missing:
            raise Unsupported(f"reference has no implementation of {', '.join(missing)}")
        return graph

    def compute(self, compiled: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        from webnn_harness import refcache

        # Kept for the judging of the same case, which needs the same evaluation.
        return {name: out.values for name, out in refcache.current().evaluate(compiled, inputs).items()}


def create(options: Mapping[str, str]) -> ReferenceBackend:
    return ReferenceBackend(options)


__all__ = ["ReferenceBackend", "ReferenceOutput", "create", "evaluate"]
