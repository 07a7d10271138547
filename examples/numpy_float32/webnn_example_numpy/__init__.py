"""An example out-of-tree webnn-harness backend: a handful of WebNN operators
computed in float32 numpy (the protocol is documented in
``webnn_harness.backends.base``).

    webnn-harness run --backend example-numpy --expectations expectations.json

Options (``-o key=value``):
    leaky_relu  ``buggy`` (default) or ``fixed``: see the deliberate bug below.

The deliberate bug: with ``leaky_relu=buggy``, leakyRelu ignores its
``alpha`` option and always uses the spec's default 0.01, so every case with
another alpha fails. ``expectations.json`` lists those cases as known
failures; with ``-o leaky_relu=fixed`` they pass and the entry is stale.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from webnn_harness.backends.base import BackendInfo, Unsupported
from webnn_harness.graph import Graph

__version__ = "0.1.0"


def _leaky_relu_buggy(input, alpha):
    return np.where(input >= 0, input, np.float32(0.01) * input)  # BUG (on purpose): alpha ignored


def _leaky_relu(input, alpha):
    return np.where(input >= 0, input, np.float32(alpha) * input)


def _sigmoid(input):
    return np.float32(1) / (np.float32(1) + np.exp(-input))


# WebNN operator -> numpy function of the node's operands and attributes, by name.
OPS: dict[str, Callable[..., np.ndarray]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "abs": lambda input: np.abs(input),
    "neg": lambda input: -input,
    "exp": lambda input: np.exp(input),
    "tanh": lambda input: np.tanh(input),
    "relu": lambda input: np.maximum(input, np.float32(0)),
    "sigmoid": _sigmoid,
    "leakyRelu": _leaky_relu_buggy,
    "matmul": lambda a, b: np.matmul(a, b),
}
# Ops this backend composes from others rather than having natively; the
# probe reports them as "emulated".
EMULATIONS = {"sigmoid": "1 / (1 + exp(-x)) in float32"}
OPTIONS = {"leaky_relu": ("buggy", "fixed")}


class NumpyFloat32Backend:
    name = "example-numpy"

    def __init__(self, options: Mapping[str, str]):
        for key, value in options.items():
            if key not in OPTIONS:
                raise ValueError(f"example-numpy: unknown option {key!r} (known: {', '.join(OPTIONS)})")
            if value not in OPTIONS[key]:
                raise ValueError(f"example-numpy: {key} must be one of {', '.join(OPTIONS[key])}, not {value!r}")
        self.settings = {"leaky_relu": options.get("leaky_relu", "buggy"), "precision": "float32"}
        self.ops = dict(OPS)
        if self.settings["leaky_relu"] == "fixed":
            self.ops["leakyRelu"] = _leaky_relu

    def info(self) -> BackendInfo:
        return BackendInfo(self.name, __version__, f"cpu, numpy {np.__version__}", self.settings)

    def build(self, graph: Graph) -> Graph:
        # Refuse at build time, with a message saying why: the case is
        # recorded as "unsupported" (a skip under pytest), not as a failure.
        missing = sorted({node.op for node in graph.nodes} - set(self.ops))
        if missing:
            raise Unsupported(f"example-numpy has no {', '.join(missing)}")
        other = sorted({d.data_type for d in graph.descs.values()} - {"float32"})
        if other:
            raise Unsupported(f"example-numpy computes float32 only, not {', '.join(other)}")
        return graph

    def compute(self, compiled: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        values: dict[str, Any] = {**compiled.constants, **inputs}
        with np.errstate(all="ignore"):  # Infinity and NaN are results here (IEEE 754), not errors
            for node in compiled.nodes:
                operands = {param: values[name] for param, name in node.operands.items()}
                values[node.outputs[0]] = self.ops[node.op](**operands, **node.attributes)
        # Outputs must have the output operand's data type: float32 here.
        return {name: np.asarray(values[name], dtype=np.float32) for name in compiled.outputs}

    def emulations(self) -> dict[str, str]:
        return dict(EMULATIONS)


def create(options: Mapping[str, str]) -> NumpyFloat32Backend:
    return NumpyFloat32Backend(options)
