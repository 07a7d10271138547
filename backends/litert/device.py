"""LiteRT "device" sessions for the bench, as far as the Interpreter API
allows. On the CPU a LiteRT tensor is host memory in the interpreter's own
arena, reachable from Python only by copying in (``set_tensor``) and out
(``get_tensor``): a view (``Interpreter.tensor``) blocks the next
``invoke`` while it is held, and no call makes the interpreter read a
caller's buffer in place. So here:

    upload / share   the host array as the session's tensor handle (upload
                     copies it, share keeps it: nothing else is possible
                     before the interpreter's own copy at run)
    run              set_tensor per input (LiteRT copies it into its arena),
                     invoke, get_tensor per output (a copy out of the arena):
                     a chain of graphs (deviceTensor) hands tensors on as
                     these host arrays, one copy in and one out per op,
                     as a browser's LiteRT backend without shared buffers does
    download         a copy of the handle
    run_to_host      run, the outputs as they come out of get_tensor

``save`` writes the exact flatbuffer the interpreter runs, as ``.tflite``,
for LiteRT's own tools (benchmark_model) or an ``Interpreter.invoke`` loop
(benchmarks/bench_fidelity.py).
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from webnn_harness.spec.graph import Graph


class LiteRtDeviceSession:
    def __init__(self, backend, graph: Graph):
        self.compiled = backend.build(graph)
        self.graph = graph
        self._backend = backend

    def build_settings(self) -> dict:
        return self._backend.build_settings(self.compiled)

    def save(self, stem: str) -> tuple[str, ...]:
        path = f"{stem}.tflite"
        with open(path, "wb") as f:
            f.write(self.compiled.model)
        return (path,)

    def upload(self, name: str, array: np.ndarray) -> np.ndarray:
        return np.array(array, dtype=self.compiled.inputs[name][1], copy=True)

    def share(self, name: str, array: np.ndarray) -> np.ndarray:
        return np.asarray(array, dtype=self.compiled.inputs[name][1])

    def run(self, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return self._backend.compute(self.compiled, inputs)

    def download(self, tensor: np.ndarray) -> np.ndarray:
        return np.array(tensor, copy=True)

    def run_to_host(self, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """get_tensor already hands back a new host array per output."""
        return self.run(inputs)
