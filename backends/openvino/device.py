"""OpenVINO tensors that stay in the plugin's memory: one compiled model per
graph (no batching: what is timed is exactly the saved IR), inputs set as
ov.Tensor, outputs handed on as the request's own ov.Tensor, so a chain of
graphs passes tensors without a host copy (the "deviceTensor" benchmarks).
Only ``share``, ``upload``, ``download`` and ``run_to_host`` touch host
arrays.

Timing fidelity (issue #11): a bench times the loop ``benchmark_app -api
sync`` runs, with host arrays at both ends:
- one compiled model, one infer request created at build and reused;
- host inputs are read in place (``share``), not copied per call, as
  ``CompiledModel.__call__`` does with share_inputs=True;
- a whole graph's outputs are written by the plugin straight into host
  arrays set as the request's output tensors (``run_to_host``), so on the
  CPU, where the output already is host memory, reading it back costs no
  copy, and on another device it costs the one copy it needs. (A copy of
  the request's own output tensor per call cost 2-4% of the seed graph's
  28 ms on our 2-core machine: its 4 MB at memcpy speed.)
- the sync API's settings are explicit: PERFORMANCE_HINT=LATENCY and one
  stream, beside the backend's threads and inference precision, and the
  settings the plugin actually applied are read back into the record
  (``build_settings``) so a native replay can use exactly them.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

import numpy as np

from webnn_harness.spec.graph import Graph

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
        from webnn_harness.backends.openvino.refusals import classify, compile_failure
        from webnn_harness.backends.openvino.lower import lower_graph

        ov = backend._ov
        try:
            lowered = lower_graph(graph)
        except Exception as exc:  # noqa: BLE001 - classified as the batched build does
            raise classify(exc) from exc
        model = self.model = ov.Model(lowered.results, lowered.parameters, "webnn_graph")
        supported = backend.core.get_property(backend.device, "SUPPORTED_PROPERTIES")
        config = {**{k: v for k, v in SYNC_CONFIG.items() if k in supported}, **backend.config_for(graph),
                  **self._extra_config(ov)}
        try:
            self.compiled = backend.core.compile_model(model, backend.device, config)
        except Exception as exc:  # noqa: BLE001 - OpenVINO raises RuntimeError subclasses
            raise compile_failure(exc) from exc
        self.request = self.compiled.create_infer_request()
        # run_to_host's own request, its outputs bound to host arrays at its
        # first call (``run``'s stay the plugin's, for chains of graphs)
        self._host_request, self._host = None, {}
        self.graph = graph
        self._ov = ov

    def _extra_config(self, ov) -> dict:
        return {}

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

    def run_to_host(self, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """Run on ``inputs`` and return the outputs as host arrays this
        session owns, rewritten by the next call. The plugin writes an output
        into its host array itself when the compiled output has exactly the
        array's type and shape; another (int4's 8-bit carrier) is downloaded."""
        if self._host_request is None:
            self._host_request, self._host = self.compiled.create_infer_request(), {}
            for port, name in enumerate(self.graph.outputs):
                array = self._bindable_host_array(port, name)
                if array is not None:
                    self._host_request.set_output_tensor(port, self._ov.Tensor(array, shared_memory=True))
                    self._host[name] = array
        request = self._host_request
        for port, name in enumerate(self.graph.inputs):
            request.set_input_tensor(port, inputs[name])
        request.infer()
        return {name: self._host[name] if name in self._host else self.download(request.get_output_tensor(port))
                for port, name in enumerate(self.graph.outputs)}

    def _bindable_host_array(self, port: int, name: str) -> np.ndarray | None:
        desc = self.graph.descs[name]
        output = self.compiled.output(port)
        try:
            dtype = np.dtype(desc.data_type)
            same_type = output.get_element_type() == self._ov.Type(dtype)
        except Exception:  # noqa: BLE001 - a type OpenVINO has no numpy twin for
            return None
        if not same_type or not output.get_partial_shape().is_static or \
                list(output.get_partial_shape().to_shape()) != list(desc.shape):
            return None
        return np.empty(tuple(desc.shape), dtype)


# Parts of a compiled model that are not the graph's work: its inputs,
# outputs and constants (Const nodes are folded at compile time).
NOT_WORK = frozenset(("Parameter", "Result", "Constant"))


# Devices whose counters are each node's mean over every inference since
# compile_model, in whole microseconds, not the last inference's time: the
# CPU plugin's Graph::GetPerfData reports PerfCounter().avg() (intel_cpu
# graph.cpp). Seen here: a 1x1 conv read 33.9, 17.3, 12.0, 9.3 ms over its
# first four runs, each of which took about 1 ms.
MEAN_COUNTER_DEVICES = ("CPU",)


def runs_from_means(runs: Sequence[tuple]) -> tuple[tuple, ...]:
    """Each run's own node times from counters that hold the mean since
    compile: the k-th run took k * mean_k - (k - 1) * mean_(k-1), to within
    k microseconds (the means are floored to a microsecond)."""
    totals: dict[str, float] = {}
    out = []
    for k, run in enumerate(runs, start=1):
        nodes = []
        for node in run:
            total = k * node.seconds
            nodes.append(replace(node, seconds=max(0.0, total - totals.get(node.name, 0.0))))
            totals[node.name] = total
        out.append(tuple(nodes))
    return tuple(out)


class OpenVINOProfilingSession(OpenVINODeviceSession):
    """An OpenVINODeviceSession compiled with performance counters on
    (ov.properties.enable_profiling, ``benchmark_app -pc``); every run reads
    the counters of the request it ran (get_profiling_info()). Each run
    must go through this session: on the CPU the counters are means since
    compile, and ``profile`` turns them back into each run's times."""

    def __init__(self, backend, graph: Graph):
        self._runs: list[tuple] = []
        self._mean_counters = backend.device.split(":")[0].split(".")[0] in MEAN_COUNTER_DEVICES
        super().__init__(backend, graph)
        # The runtime model names, per node the plugin runs, the nodes of our
        # model it runs for (rt_info originalLayersNames): what it fused.
        self._original = {}
        for op in self.compiled.get_runtime_model().get_ordered_ops():
            info = op.get_rt_info()
            names = info["originalLayersNames"].astype(str) if "originalLayersNames" in info else ""
            self._original[op.get_friendly_name()] = tuple(n for n in names.split(",") if n)

    def _extra_config(self, ov) -> dict:
        return {ov.properties.enable_profiling(): True}

    def run(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        outputs = super().run(inputs)
        self._runs.append(self._counters(self.request))
        return outputs

    def run_to_host(self, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
        outputs = super().run_to_host(inputs)
        self._runs.append(self._counters(self._host_request))
        return outputs

    def _counters(self, request) -> tuple:
        from webnn_harness.backends.base import NodeTime

        executed = self._ov.ProfilingInfo.Status.EXECUTED
        # exec type "ref_*": the plugin's reference (unoptimised) implementation
        return tuple(NodeTime(name=info.node_name, op=info.node_type, kernel=info.exec_type,
                              seconds=info.real_time.total_seconds(), fallback=info.exec_type.startswith("ref"),
                              fused=self._fused(info.node_name))
                     for info in request.get_profiling_info() if info.status == executed)

    def _fused(self, name: str) -> tuple[str, ...]:
        original = self._original.get(name, ())
        return () if original == (name,) else original

    def profile(self):
        from webnn_harness.backends.base import SessionProfile

        ran = {name for run in self._runs for node in run for name in (node.name, *node.fused)}
        removed = tuple((op.get_type_name(), op.get_friendly_name()) for op in self.model.get_ordered_ops()
                        if op.get_type_name() not in NOT_WORK and op.get_friendly_name() not in ran)
        runs = runs_from_means(self._runs) if self._mean_counters else tuple(self._runs)
        return SessionProfile(runs, removed)
