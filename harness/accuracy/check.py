"""The dot-product check of one accuracy case, as a worker applies it next to
the WPT verdict (harness/execution/worker.py): the exact result and the bound
come from the reference's own op functions, called in float64 without the
final rounding, on the operands and on their magnitudes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from webnn_harness.accuracy.compliance import dot_product_compliance
from webnn_harness.spec.opspec import ops_where

# Scalar attributes that scale a sum (gemm's alpha and beta): the bound takes their magnitude.
SCALING_ATTRIBUTES = ("alpha", "beta")
# TOSA bounds a convolution with every input element replaced by the input's
# largest magnitude, unless the graph asks for a local bound (the reference
# model's OpConv2d / OpTransposeConv2d::eval in bounds mode, attribute
# local_bound false by default): fast algorithms (Winograd, FFT) mix input
# elements, so their error follows the largest one. A WebNN graph has no such
# attribute, so TOSA's default applies. matmul, gemm and the reductions are
# always bounded element by element. The ops follow from the TOSA operator
# their accuracy traits name.
INPUT_MAX_BOUND_TOSA = frozenset({"CONV2D", "TRANSPOSE_CONV2D"})
INPUT_MAX_BOUND_OPS = frozenset(ops_where(
    lambda traits: traits.accuracy is not None and traits.accuracy.tosa in INPUT_MAX_BOUND_TOSA))


def bound_kind(op: str) -> str:
    """How ``bnd`` is taken for ``op``: "inputMax" or "local" (for the records)."""
    return "inputMax" if op in INPUT_MAX_BOUND_OPS else "local"


@dataclass(frozen=True)
class DotProductCheck:
    """What a case needs beyond its graph to be checked: the data set it was
    generated from and KSB (products per output, plus one for a non-zero bias)."""

    data_set: int
    ksb: int
    k: int  # products per output (the accumulation length), without the bias
    shape: str = ""  # the operands' sizes, for people

    def verdict(self, case, actual: Mapping[str, np.ndarray]) -> dict[str, Any]:
        """The compliance verdict of this accuracy case's output, as JSON. A
        method of the check the case carries, so the worker applies it
        without knowing this package (harness/execution/worker.py)."""
        (output,) = case.graph.outputs
        data_type = case.graph.descs[output].data_type
        got = actual.get(output)
        if got is None or np.shape(got) != tuple(case.graph.descs[output].shape) \
                or np.asarray(got).dtype != np.dtype(data_type):
            return {"compliant": False, "failed": ["output"],
                    "message": f"no output {output!r} of the expected shape and data type ({data_type})"}
        ref, bnd = exact_and_bound(case.graph, case.inputs)
        return dot_product_compliance(ref, bnd, np.asarray(got), data_type, self.ksb, self.data_set).to_json()


def exact_and_bound(graph, inputs: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(ref, bnd) in float64 of a one-op graph's output: the op on the
    operands, and the op on |operands| (with |alpha|, |beta|), which is
    sum |a_i b_i| (+ |bias|) for a sum of products; a convolution's input
    is max |input| everywhere in the bound (INPUT_MAX_BOUND_OPS)."""
    from webnn_harness.backends.reference.ops import OPS

    (node,) = graph.nodes
    env = {**graph.constants, **inputs}

    def call(magnitude: bool) -> np.ndarray:
        kwargs: dict[str, Any] = {}
        for param, ref in node.operands.items():
            value = np.asarray(env[ref], np.float64)
            if magnitude:
                value = np.abs(value)
                if node.op in INPUT_MAX_BOUND_OPS and param == "input" and value.size:
                    value = np.full_like(value, value.max())
            kwargs[param] = value
        for name, value in node.attributes.items():
            kwargs[name] = abs(value) if magnitude and name in SCALING_ATTRIBUTES else value
        with np.errstate(all="ignore"):
            return np.asarray(OPS[node.op](**kwargs), np.float64)

    return call(False), call(True)
