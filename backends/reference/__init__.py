"""The reference backend: every op in float64 numpy, rounded once to the
output data type. Every verdict the harness gives is measured against it.
``-o precision=operand`` computes each op in its operands' own float type
instead (backends/reference/evaluate.py says which ops still use float64)."""
from __future__ import annotations

import platform
from pathlib import Path
from typing import Mapping

import numpy as np

from webnn_harness.backends.base import BackendFacts, BackendInfo, Unsupported
from webnn_harness.backends.reference.evaluate import PRECISIONS, evaluate, run_node
from webnn_harness.spec.exact import ExactReference, ReferenceOutput
from webnn_harness.spec import evaluation_memo
from webnn_harness import __version__
from webnn_harness.spec.graph import Graph


class ReferenceBackend:
    name = "reference"

    def __init__(self, options: Mapping[str, str]):
        unknown = sorted(set(options) - {"precision"})
        if unknown:
            raise ValueError(f"the reference backend takes only -o precision=float64|operand (got {', '.join(unknown)})")
        self.precision = options.get("precision", "float64")
        if self.precision not in PRECISIONS:
            raise ValueError(f"reference -o precision={self.precision}: one of {', '.join(PRECISIONS)}")

    def info(self) -> BackendInfo:
        precision = ("float64 compute, rounded once to the output type" if self.precision == "float64"
                     else "operand type compute (float32 in float32, float16 as numpy computes it), rounded to the output type")
        return BackendInfo(
            name=self.name,
            version=__version__,
            device=f"cpu ({platform.machine()}), numpy {np.__version__}",
            settings={"precision": precision},
            precision=precision,
        )

    def build(self, graph: Graph) -> Graph:
        from webnn_harness.backends.reference.ops import OPS

        missing = sorted({n.op for n in graph.nodes} - set(OPS))
        if missing:
            raise Unsupported(f"reference has no implementation of {', '.join(missing)}")
        return graph

    def compute(self, compiled: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        if self.precision != "float64":  # the cache and the judge hold float64 evaluations only
            return {name: out.values for name, out in evaluate(compiled, inputs, self.precision).items()}
        # Kept for the judging of the same case, which needs the same evaluation.
        return {name: out.values for name, out in evaluation_memo.current().evaluate(compiled, inputs).items()}


def create(options: Mapping[str, str]) -> ReferenceBackend:
    return ReferenceBackend(options)


# All defaults, said here as a vendor would: the worker imports the reference
# anyway (it judges every backend against it), numpy's threads are not its
# option, and its one option is reported as a sentence rather than the
# option's value, so a re-run command cannot repeat it from the settings.
create.facts = BackendFacts()
# The exact evaluation the verdict asks for (harness/spec/exact.py): every verdict is measured against it.
create.exact = ExactReference(evaluate=evaluate, run_node=run_node, source_folder=Path(__file__).parent)


__all__ = ["ReferenceBackend", "ReferenceOutput", "create", "evaluate"]
