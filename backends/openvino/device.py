"""OpenVINO tensors that stay in the plugin's memory: one compiled model per
graph (no batching: what is timed is exactly the saved IR), inputs set as
ov.Tensor, outputs handed on as the request's own ov.Tensor, so a chain of
graphs passes tensors without a host copy (the "deviceTensor" benchmarks).
Only ``share``, ``upload`` and ``download`` touch host arrays.

Timing fidelity (issue #11): a bench times what a user of OpenVINO's sync
API gets from ``CompiledModel.__call__`` (share_inputs=True,
share_outputs=False), the loop ``benchmark_app -api sync`` runs plus one
copy of the outputs:
- one compiled model, one infer request created at build and reused;
- host inputs are read in place (``share``), not copied per call;
- each output is copied once into a new host array (``download``);
- the sync API's settings are explicit: PERFORMANCE_HINT=LATENCY and one
  stream, beside the backend's threads and inference precision, and the
  settings the plugin actually applied are read back into the record
  (``build_settings``) so a native replay can use exactly them.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from webnn_harness.backends.base import Unsupported
from webnn_harness.graph import Graph

# What a synchronous caller wants: one request at a time, one stream using
# every inference thread (benchmark_app -api sync defaults to -hint latency).
SYNC_CONFIG = {"PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": "1"}
# The compiled model's properties that decide its speed, read back after
# compiling and recorded (those a device does not report are left out).
TIMING_PROPERTIES = ("PERFORMANCE_HINT", "NUM_STREAMS", "INFERENCE_NUM_THREADS", "INFERENCE_PRECISION_HINT",
                     "EXECUTION_MODE_HINT", "ENABLE_CPU_PINNING", "ENABLE_HYPER_THREADING", "SCHEDULING_CORE_TYPE",
                     "TBB_PARTITIONER", "CPU_DENORMALS_OPTIMIZATION")


def property_text(value: Any) -> str:
    """A property value as compile_model and benchmark_app -load_config take it."""
    if hasattr(value, "get_type_name"):  # ov.Type: "f32"
        return value.get_type_name()
    name = getattr(value, "name", None)  # OpenVINO's enums: "ANY_CORE", "STATIC"
    return name if isinstance(name, str) else str(value)


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
        supported = backend.core.get_property(backend.device, "SUPPORTED_PROPERTIES")
        config = {**{k: v for k, v in SYNC_CONFIG.items() if k in supported}, **backend.config_for(graph)}
        try:
            self.compiled = backend.core.compile_model(model, backend.device, config)
        except Exception as exc:  # noqa: BLE001 - OpenVINO raises RuntimeError subclasses
            raise Unsupported(f"OpenVINO compile_model failed: {_first_line(exc)}") from exc
        self.request = self.compiled.create_infer_request()
        self.graph = graph
        self._ov = ov

    def build_settings(self) -> dict:
        """The timing properties the plugin applied to this compiled model."""
        settings = {}
        for name in TIMING_PROPERTIES:
            try:
                settings[name] = property_text(self.compiled.get_property(name))
            except Exception:  # noqa: BLE001 - not every device reports every property
                continue
        return settings

    def save(self, stem: str) -> tuple[str, ...]:
        # save_model compresses weights to float16 unless told not to.
        self._ov.save_model(self.model, f"{stem}.xml", compress_to_fp16=False)
        return (f"{stem}.xml", f"{stem}.bin")

    def upload(self, name: str, array: np.ndarray) -> Any:
        """A new tensor owned by OpenVINO holding a copy of ``array`` (one copy)."""
        dtype = np.dtype(self.graph.descs[name].data_type)
        tensor = self._ov.Tensor(dtype, list(np.shape(array)))
        np.copyto(tensor.data, array, casting="unsafe")
        return tensor

    def share(self, name: str, array: np.ndarray) -> Any:
        """A tensor reading ``array`` in place, as the sync API's share_inputs
        does; an array it cannot share (wrong type, not C-contiguous, read-only)
        is uploaded, as share_inputs copies it."""
        dtype = np.dtype(self.graph.descs[name].data_type)
        if isinstance(array, np.ndarray) and array.dtype == dtype and array.flags.c_contiguous and array.flags.writeable:
            return self._ov.Tensor(array, shared_memory=True)
        return self.upload(name, array)

    def run(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        for port, name in enumerate(self.graph.inputs):
            self.request.set_input_tensor(port, inputs[name])
        self.request.infer()
        return {name: self.request.get_output_tensor(port) for port, name in enumerate(self.graph.outputs)}

    def download(self, tensor: Any) -> np.ndarray:
        return np.array(tensor.data, copy=True)
