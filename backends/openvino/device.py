"""OpenVINO tensors that stay in the plugin's memory: one compiled model per
graph (no batching: what is timed is exactly the saved IR), inputs set as
ov.Tensor, outputs handed on as the request's own ov.Tensor, so a chain of
graphs passes tensors without a host copy (the "deviceTensor" benchmarks).
Only ``upload`` and ``download`` cross to the host."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from webnn_harness.backends.base import Unsupported
from webnn_harness.graph import Graph


class OpenVINODeviceSession:
    def __init__(self, backend, graph: Graph):
        from webnn_harness.backends.openvino import _classify, _first_line
        from webnn_harness.backends.openvino.lower import lower_graph

        ov = backend._ov
        try:
            lowered = lower_graph(graph)
        except Exception as exc:  # noqa: BLE001 - classified as the batched build does
            raise _classify(exc) from exc
        model = self.model = ov.Model(lowered.results, lowered.parameters, "webnn_graph")
        try:
            self.compiled = backend.core.compile_model(model, backend.device, backend.config_for(graph))
        except Exception as exc:  # noqa: BLE001 - OpenVINO raises RuntimeError subclasses
            raise Unsupported(f"OpenVINO compile_model failed: {_first_line(exc)}") from exc
        self.request = self.compiled.create_infer_request()
        self.graph = graph
        self._ov = ov

    def save(self, stem: str) -> tuple[str, ...]:
        # save_model compresses weights to float16 unless told not to.
        self._ov.save_model(self.model, f"{stem}.xml", compress_to_fp16=False)
        return (f"{stem}.xml", f"{stem}.bin")

    def upload(self, name: str, array: np.ndarray) -> Any:
        desc = self.graph.descs[name]
        return self._ov.Tensor(np.array(array, dtype=np.dtype(desc.data_type), copy=True), shared_memory=False)

    def run(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        for port, name in enumerate(self.graph.inputs):
            self.request.set_input_tensor(port, inputs[name])
        self.request.infer()
        return {name: self.request.get_output_tensor(port) for port, name in enumerate(self.graph.outputs)}

    def download(self, tensor: Any) -> np.ndarray:
        return np.array(tensor.data, copy=True)
