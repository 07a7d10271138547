"""ONNX Runtime tensors that stay in the provider's memory: inputs are
OrtValues, outputs are bound with IOBinding and handed on as OrtValues, so a
chain of graphs passes tensors without a host copy (the "deviceTensor"
benchmarks). Only ``share``, ``upload``, ``download`` and ``run_to_host``
touch host arrays.

Timing fidelity (issue #11): host inputs are read in place (``share``), as
InferenceSession.run does with numpy inputs on the CPU provider (other
providers copy them to the device); a whole graph's outputs are bound to host
arrays (``run_to_host``), so ORT writes them there itself: on the CPU
provider no copy, as session.run hands back its own buffer, and on another
provider the one copy to the host it needs."""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from typing import Any, Mapping

import numpy as np

from webnn_harness.spec.graph import Graph

# Host array types ORT's IOBinding takes as output buffers (int4 and the
# float8 types of ml_dtypes are downloaded instead).
BINDABLE = frozenset(map(np.dtype, ("float16", "float32", "float64", "int8", "int16", "int32", "int64",
                                    "uint8", "uint16", "uint32", "uint64", "bool")))

# ORT's OrtValue device names per execution provider (others run on the CPU).
DEVICE_OF_PROVIDER = {"CUDAExecutionProvider": "cuda", "DmlExecutionProvider": "dml"}


class OrtDeviceSession:
    def __init__(self, backend, graph: Graph):
        ort = backend._ort
        model = self.model = backend.lower(graph)
        self.session = self._make_session(backend, model)
        self.device = DEVICE_OF_PROVIDER.get(backend.provider, "cpu")
        self.graph = graph
        self._host: dict[str, np.ndarray] | None = None  # run_to_host's arrays, made at its first call
        self._ort = ort

    def _make_session(self, backend, model):
        return backend.session(model)

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

    def run_to_host(self, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """Run on ``inputs`` and return the outputs as host arrays this
        session owns, rewritten by the next call: ORT writes each output into
        its array itself (an IOBinding output on a host buffer); an output of
        a type IOBinding cannot take is downloaded."""
        if self._host is None:
            self._host = {}
            for name in self.graph.outputs:
                desc = self.graph.descs[name]
                dtype = np.dtype(desc.data_type)
                if dtype in BINDABLE:
                    self._host[name] = np.empty(tuple(desc.shape), dtype)
        binding = self.session.io_binding()
        for name in self.graph.inputs:
            binding.bind_ortvalue_input(name, inputs[name])
        for name in self.graph.outputs:
            if name in self._host:
                array = self._host[name]
                binding.bind_output(name, "cpu", 0, array.dtype, list(array.shape), array.ctypes.data)
            else:
                binding.bind_output(name, self.device)
        self.session.run_with_iobinding(binding)
        outputs = dict(zip(self.graph.outputs, binding.get_outputs()))
        return {name: self._host[name] if name in self._host else self.download(outputs[name])
                for name in self.graph.outputs}


class OrtProfilingSession(OrtDeviceSession):
    """An OrtDeviceSession with ORT's session profiler on. ORT writes its
    trace into a temporary folder this session owns; ``profile()`` ends
    profiling, reads the trace and deletes the folder (deleted too when the
    session is dropped unread)."""

    def __init__(self, backend, graph: Graph):
        self._folder = tempfile.mkdtemp(prefix="webnn-ort-profile-")
        self._remove_folder = weakref.finalize(self, shutil.rmtree, self._folder, True)
        self._profile_prefix = os.path.join(self._folder, "trace")
        self._requested_provider = backend.provider
        super().__init__(backend, graph)

    def _make_session(self, backend, model):
        return backend.session(model, profile_prefix=self._profile_prefix)

    def profile(self):
        from webnn_harness.backends.onnxruntime.profile import trace_profile

        try:
            path = self.session.end_profiling()
            if os.path.dirname(os.path.realpath(path)) != os.path.realpath(self._folder):
                raise ValueError(f"ORT wrote its trace outside the folder it was given ({os.path.basename(path)})")
            # A provider of device memory runs its kernels asynchronously: ORT's
            # trace times their launch on the host (backends/base.py SessionProfile).
            node_times = "kernel" if self.device == "cpu" else "launch"
            return trace_profile(path, self._requested_provider, self.model, node_times)
        finally:
            self._remove_folder()
