"""An example out-of-tree webnn-harness backend: a handful of WebNN operators
computed in float32 numpy (the protocol is documented in
``webnn_harness.backends.base``).

    webnn-harness run --backend example-numpy --expectations expectations.json

Options (``-o key=value``):
    leaky_relu  ``buggy`` (default) or ``fixed``: see the deliberate bug below.
    threads     the threads it may compute on (default 1). numpy's elementwise
                ops use one and its matmul as many as its BLAS was started
                with (the bench starts it with its thread count), so this
                example only records it; a real backend passes it to its
                runtime. Declared in ``create.facts``, so the bench sets it.

What the harness needs to know before making one is declared on the factory
(``create.facts``: a ``BackendFacts``): that it takes ``threads``, and how
its settings map back to ``-o`` options for the re-run commands printed for
its records. Its info() says its thread count and precision label for the
performance pages.

The deliberate bug: with ``leaky_relu=buggy``, leakyRelu ignores its
``alpha`` option and always uses the spec's default 0.01, so every case with
another alpha fails. ``expectations.json`` lists those cases as known
failures; with ``-o leaky_relu=fixed`` they pass and the entry is stale.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from webnn_harness.backends.base import BackendFacts, BackendInfo, SettingOption, Unsupported
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
OPTIONS = {"leaky_relu": ("buggy", "fixed"), "threads": None}  # None: any positive integer


class NumpyFloat32Backend:
    name = "example-numpy"

    def __init__(self, options: Mapping[str, str]):
        for key, value in options.items():
            if key not in OPTIONS:
                raise ValueError(f"example-numpy: unknown option {key!r} (known: {', '.join(OPTIONS)})")
            if OPTIONS[key] is None and not (value.isdigit() and int(value) > 0):
                raise ValueError(f"example-numpy: {key} must be a positive integer, not {value!r}")
            if OPTIONS[key] is not None and value not in OPTIONS[key]:
                raise ValueError(f"example-numpy: {key} must be one of {', '.join(OPTIONS[key])}, not {value!r}")
        self.threads = int(options.get("threads", "1"))
        self.settings = {"leaky_relu": options.get("leaky_relu", "buggy"), "precision": "float32",
                         "threads": self.threads}
        self.ops = dict(OPS)
        if self.settings["leaky_relu"] == "fixed":
            self.ops["leakyRelu"] = _leaky_relu

    def info(self) -> BackendInfo:
        return BackendInfo(self.name, __version__, f"cpu, numpy {np.__version__}", self.settings,
                           threads=self.threads, precision="float32")

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


# What the harness reads before making one (webnn_harness.backends.base, "Facts"):
# the bench sets -o threads=N, and a re-run command repeats the options the
# settings of a record say were not the defaults. Nothing heavy to preload.
create.facts = BackendFacts(
    threads_option=True,
    rerun_options=(SettingOption("leaky_relu", "leaky_relu", "buggy"), SettingOption("threads", "threads", "1")),
)
