"""ONNX Runtime tensors that stay in the provider's memory: inputs are
OrtValues, outputs are bound with IOBinding and handed on as OrtValues, so a
chain of graphs passes tensors without a host copy (the "deviceTensor"
benchmarks). Only ``share``, ``upload`` and ``download`` touch host arrays.

Timing fidelity (issue #11): host inputs are read in place (``share``), as
InferenceSession.run does with numpy inputs on the CPU provider (other
providers copy them to the device); each output is then copied once into a
new host array the caller owns (run hands back ORT's own buffer instead), so
a whole graph costs ``session.run`` plus one copy of its outputs."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from webnn_harness.graph import Graph

# ORT's OrtValue device names per execution provider (others run on the CPU).
DEVICE_OF_PROVIDER = {"CUDAExecutionProvider": "cuda", "DmlExecutionProvider": "dml"}


class OrtDeviceSession:
    def __init__(self, backend, graph: Graph):
        ort = backend._ort
        model = self.model = backend.lower(graph)
        self.session = backend.session(model)
        self.device = DEVICE_OF_PROVIDER.get(backend.provider, "cpu")
        self.graph = graph
        self._ort = ort

    def build_settings(self) -> dict:
        """The opset this graph was emitted at (chosen per graph, see opsets.py)."""
        return {"opset": self.model.opset_import[0].version}

    def save(self, stem: str) -> tuple[str, ...]:
        import onnx

        path = f"{stem}.onnx"
        onnx.save(self.model, path)
        return (path,)

    def upload(self, name: str, array: np.ndarray) -> Any:
        # ortvalue_from_numpy would share the array's memory on the CPU
        # provider; a provider-owned buffer filled by update_inplace is an
        # upload on every provider.
        desc = self.graph.descs[name]
        value = self._ort.OrtValue.ortvalue_from_shape_and_type(
            list(desc.shape), np.dtype(desc.data_type), self.device, 0)
        value.update_inplace(np.ascontiguousarray(array, dtype=np.dtype(desc.data_type)))
        return value

    def share(self, name: str, array: np.ndarray) -> Any:
        """An OrtValue reading ``array`` in place on the CPU provider (a copy
        on a device provider, and for an array of another type or layout)."""
        desc = self.graph.descs[name]
        array = np.ascontiguousarray(array, dtype=np.dtype(desc.data_type))
        return self._ort.OrtValue.ortvalue_from_numpy(array, self.device, 0)

    def run(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        binding = self.session.io_binding()
        for name in self.graph.inputs:
            binding.bind_ortvalue_input(name, inputs[name])
        for name in self.graph.outputs:
            binding.bind_output(name, self.device)
        self.session.run_with_iobinding(binding)
        return dict(zip(self.graph.outputs, binding.get_outputs()))

    def download(self, tensor: Any) -> np.ndarray:
        # OrtValue.numpy() is a view of ORT's buffer on the CPU provider: copy.
        return np.array(tensor.numpy(), copy=True)
