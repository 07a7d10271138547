"""The LiteRT (TensorFlow Lite) backend: the runtime behind WebNN in Chromium
on Android, ChromeOS and Linux. A WebNN graph is written as a TFLite
flatbuffer in memory (backends/litert/emitter.py, no converter) and run by
``ai_edge_litert.interpreter.Interpreter``.

    webnn-harness run --backend litert                          # XNNPACK, as the browser
    webnn-harness run --backend litert -o delegate=none -o threads=2

Options (``-o key=value``):
    delegate    xnnpack | none (default xnnpack, as Chromium on the CPU).
                xnnpack: LiteRT's default op resolver, which applies the
                XNNPACK delegate to the nodes it takes and runs the others
                on the builtin kernels; none: the builtin kernels only
                (``BUILTIN_WITHOUT_DEFAULT_DELEGATES``). They differ (float16
                kernels, QUANTIZE's ties, float16 overflow): each record
                names the path in its settings, and its build settings count
                the nodes XNNPACK took.
    threads     interpreter threads (default 1: the harness runs several workers)
    float16     float32 | native (default float32): float32 computes a float16
                graph in float32 between casts at its float16 inputs,
                constants and outputs, as Chromium's TFLite backend does for
                most ops; native emits float16 tensors, run as the chosen
                path runs them.

A build error from LiteRT (AllocateTensors: a kernel's Prepare failing) is
``Unsupported`` with LiteRT's message when that message says what LiteRT
lacks (a data type a kernel has no code for: ``_REFUSAL``), else
``BuildFailure`` (an ``error`` record, issue 25): a spec-valid graph that
LiteRT has the kernels for but fails to prepare is a bug, of the lowering
or of LiteRT, not a refusal (when XNNPACK fails a graph the builtin
kernels build, its build settings say ``builds_with_delegate: none``).
Kernels that refuse a type without saying so
(the reductions on uint32/uint64) are refused by the lowering itself. The
lowering never emits a graph known to abort the process (int8/uint8
arithmetic, see lower/elementwise.py); a crash is still a ``crash`` record,
since every case runs in a worker process.
"""
from __future__ import annotations

import contextlib
import os
import platform
import re
import sys
import tempfile
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from webnn_harness.backends.base import (BackendError, BackendFacts, BackendInfo, BuildFailure, SettingOption, Unsupported,
                                         reject_unknown_options, thread_count)
from webnn_harness.spec.dtypes import numpy_dtype
from webnn_harness.spec.graph import Graph

OPTIONS = ("delegate", "threads", "float16")
DELEGATES = ("xnnpack", "none")


# LiteRT's C++ logger writes this INFO line to the process's stderr the first time a process
# makes an XNNPACK delegate (TFLITE_LOG_PROD_ONCE): once per worker, on every run's first screen.
# Python cannot lower that logger's severity, so the first interpreter of each process is made
# with stderr caught, and everything else it wrote is written on.
DELEGATE_BANNER = b"INFO: Created TensorFlow Lite XNNPACK delegate"
_banner_done = False


@contextlib.contextmanager
def _without_delegate_banner():
    """Run the body with fd 2 caught, the first time in this process, and pass on what it wrote
    but the banner line."""
    global _banner_done
    if _banner_done:
        yield
        return
    _banner_done = True
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            kept = [line for line in caught.read().splitlines(keepends=True) if not line.startswith(DELEGATE_BANNER)]
            if kept:
                os.write(2, b"".join(kept))


@dataclass
class Compiled:
    interpreter: Any
    inputs: dict[str, tuple[int, np.dtype, tuple]]  # graph input -> (tensor index, dtype, shape)
    outputs: dict[str, int]  # graph output -> tensor index
    model: bytes
    delegated_nodes: int


class LiteRtBackend:
    name = "litert"

    def __init__(self, options: Mapping[str, str]):
        try:
            from ai_edge_litert import interpreter
        except ImportError as exc:
            raise BackendError(f"litert backend needs ai-edge-litert: {exc}; "
                               "pip install 'webnn-harness[litert]'") from exc
        self._interpreter = interpreter
        reject_unknown_options("litert", options, OPTIONS)
        from webnn_harness.backends.litert.lower import FLOAT16_MODES

        self.delegate = options.get("delegate", "xnnpack")
        if self.delegate not in DELEGATES:
            raise BackendError(f"delegate {self.delegate!r}: expected one of {', '.join(DELEGATES)}")
        self.float16 = options.get("float16", "float32")
        if self.float16 not in FLOAT16_MODES:
            raise BackendError(f"float16 {self.float16!r}: expected one of {', '.join(FLOAT16_MODES)}")
        self.threads = thread_count(options.get("threads", "1"), "litert")

    def info(self) -> BackendInfo:
        import importlib.metadata

        resolver = "AUTO" if self.delegate == "xnnpack" else "BUILTIN_WITHOUT_DEFAULT_DELEGATES"
        return BackendInfo(
            name=self.name,
            version=importlib.metadata.version("ai-edge-litert"),
            device=f"CPU ({platform.machine()})",
            threads=self.threads,
            # float16=native runs a float16 graph as authored (the pages' default label).
            precision="float16 graphs in float32" if self.float16 == "float32" else None,
            settings={
                "delegate": self.delegate,
                "op_resolver": resolver,
                "threads": self.threads,
                "float16": self.float16,
                "flatbuffers": importlib.metadata.version("flatbuffers"),
            },
        )

    def lower(self, graph: Graph) -> tuple[bytes, list[int], list[int]]:
        """The TFLite flatbuffer for ``graph`` and its input and output tensor indices."""
        from webnn_harness.backends.litert.lower import Unlowerable, lower_graph

        try:
            return lower_graph(graph, self.float16)
        except Unlowerable as exc:
            raise Unsupported(str(exc)) from exc

    def interpreter(self, model: bytes):
        """An allocated Interpreter for ``model`` on this backend's path."""
        try:
            return self._allocated(model, self.delegate)
        except (RuntimeError, ValueError) as exc:  # LiteRT's build errors
            error = build_error(exc)
            if isinstance(error, BuildFailure) and self.delegate == "xnnpack" and self._builds(model, "none"):
                # XNNPACK took a node and failed to prepare it rather than
                # leave it to the builtin kernel (a concat of rank 7): the
                # builtin path builds the graph, so LiteRT lacks nothing.
                error.settings["builds_with_delegate"] = "none"
            raise error from exc

    def _allocated(self, model: bytes, delegate: str):
        resolver = self._interpreter.OpResolverType
        with _without_delegate_banner():
            interpreter = self._interpreter.Interpreter(
                model_content=model, num_threads=self.threads,
                experimental_op_resolver_type=resolver.AUTO if delegate == "xnnpack"
                else resolver.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
            interpreter.allocate_tensors()
        return interpreter

    def _builds(self, model: bytes, delegate: str) -> bool:
        try:
            self._allocated(model, delegate)
        except (RuntimeError, ValueError):
            return False
        return True

    def build(self, graph: Graph) -> Compiled:
        model, input_tensors, output_tensors = self.lower(graph)
        interpreter = self.interpreter(model)
        # The wrapper's own calls, not get_tensor_details / _get_ops_details:
        # those describe every tensor and node (quantization, sparsity, types),
        # a quarter of a millisecond per graph, for one shape per output and
        # one name per node (issue 27).
        native = interpreter._interpreter
        for name, index in zip(graph.outputs, output_tensors):
            shape = tuple(int(n) for n in native.TensorSize(index, 0))
            # TFLite resizes a declared output to what the kernels compute,
            # silently: a difference is a lowering bug, never a result.
            if shape != tuple(graph.descs[name].shape):
                raise RuntimeError(f"LiteRT computes output {name!r} as {list(shape)}, "
                                   f"not {list(graph.descs[name].shape)}")
        inputs = {name: (index, numpy_dtype(graph.descs[name].data_type), graph.descs[name].shape)
                  for name, index in zip(graph.inputs, input_tensors)}
        delegated = sum(native.NodeName(i) == "DELEGATE" for i in range(native.NumNodes()))
        return Compiled(interpreter, inputs, dict(zip(graph.outputs, output_tensors)), model, delegated)

    def build_settings(self, compiled: Compiled) -> dict[str, Any]:
        """Which path ran: how many XNNPACK delegate nodes the interpreter made."""
        return {"xnnpack_nodes": compiled.delegated_nodes}

    def compute(self, compiled: Compiled, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        interpreter = compiled.interpreter
        for name, (index, dtype, shape) in compiled.inputs.items():
            # The descriptor is the truth (a 0-D input may arrive as shape [1]).
            interpreter.set_tensor(index, np.ascontiguousarray(inputs[name], dtype).reshape(shape))
        try:
            interpreter.invoke()
        except RuntimeError as exc:
            # Many LiteRT kernels check their types in Eval, not Prepare: a
            # type refusal at invoke is LiteRT not supporting the graph.
            if _REFUSAL.search(str(exc)):
                raise Unsupported(_message(exc)) from exc
            raise
        return {name: interpreter.get_tensor(index) for name, index in compiled.outputs.items()}

    def device_session(self, graph: Graph):
        from webnn_harness.backends.litert.device import LiteRtDeviceSession

        return LiteRtDeviceSession(self, graph)

    def emulations(self) -> dict[str, str]:
        from webnn_harness.backends.litert.lower import EMULATED

        return dict(EMULATED)


# What LiteRT's kernels say when they have no code for a data type or a rank
# (messages from kernels/*.cc, e.g. "Type UINT32 is unsupported by op Abs",
# "Unknown input type: 4, only float32, int types and bool are supported",
# cumsum's "input->type == kTfLiteInt32 || ... was not true", the builtin
# BATCH_MATMUL's "NumDimensions(lhs_data) <= 5 was not true").
_REFUSAL = re.compile(r"not supported|not currently supported|unsupported|does not support|only supports?"
                      r"|supported currently|requires float|only [^.]* are supported|->type == "
                      r"|NumDimensions\([^)]*\) <=? \d+ was not true", re.IGNORECASE)


def _message(exc: Exception) -> str:
    return f"LiteRT: {' '.join(str(exc).split())}"


def build_error(exc: Exception) -> Exception:
    """What LiteRT failing to build a model is: ``Unsupported`` when its
    message names something LiteRT lacks, else ``BuildFailure`` (issue 25)."""
    return Unsupported(_message(exc)) if _REFUSAL.search(str(exc)) else BuildFailure(_message(exc))


def create(options: Mapping[str, str]) -> LiteRtBackend:
    return LiteRtBackend(options)


create.facts = BackendFacts(  # what the harness reads before making one (backends/base.py, "Facts")
    preload=("ai_edge_litert.interpreter", "webnn_harness.backends.litert.lower"),
    threads_option=True,
    rerun_options=(SettingOption("delegate", "delegate", "xnnpack"), SettingOption("threads", "threads", "1"),
                   SettingOption("float16", "float16", "float32")),
)


# Known failures: backends/litert/known_failures.json (harness/verdict/expectations.py format).

__all__ = ["LiteRtBackend", "create"]
