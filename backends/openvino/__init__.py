"""The OpenVINO backend: case graphs built directly with OpenVINO's opset
API (``backends.openvino.lower``), compiled for an OpenVINO device.

Speed: compiling a model costs milliseconds, so ``build_batch`` lowers many
independent case graphs into one ov.Model and compiles it once (the backend
asks the runner for batches of PREFERRED_BATCH_SIZE cases for that).
Compile time is the backend's main cost: the CPU plugin's transformations and
per-node kernel set-up, about 4.5 ms of CPU per case graph on both corpora,
measured by ``benchmarks/openvino_compile.py``. Compile properties that would
cut it (``SNIPPETS_MODE=DISABLE``: a quarter less) change which kernels run,
so they are not used: the harness tests what OpenVINO runs by default. Each case
gets a handle (the shared compiled model plus which inputs and outputs are
its own); ``compute`` sets only that case's inputs (the other cases' inputs
keep whatever they last held) and reads only its outputs. A batch that fails
to compile is split in halves until the graph that breaks it stands alone.
A graph identical to one this backend compiled before but for its input
values (the probe's special-value reruns) runs on that compiled model
(``reuse``), and identical graphs in one batch are compiled once.

Precision: by default the inference precision hint is forced to the data
type under test (f32 whenever a graph has float32 operands), because CPUs
with bfloat16 support otherwise compute float32 graphs in bfloat16.
``-o precision=default`` keeps the device's shipped defaults, and the
resulting failures are reported as they are.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from webnn_harness.backends.base import BackendError, BackendFacts, BackendInfo, SettingOption, reject_unknown_options, thread_count
from webnn_harness.spec.dtypes import numpy_dtype
from webnn_harness.spec.graph import Graph

OPTIONS = ("device", "precision", "threads")
PRECISIONS = ("exact", "default")
# Each compile_model call has a fixed cost (about 21 ms of CPU for a
# one-node model with the CPU plugin of OpenVINO 2026.4) on top of a cost per
# node, so the backend asks the runner for batches of PREFERRED_BATCH_SIZE
# cases and compiles each as one model: both corpora's 3,829 cases take
# 60 models instead of 240, about a fifth less compile time
# (benchmarks/openvino_compile.py). Larger models gain no more, and a batch
# that fails to compile costs a bisection. The element cap keeps a model whose
# cases are computed one by one (after a failed batched inference) cheap.
PREFERRED_BATCH_SIZE = 64
MAX_GRAPHS_PER_MODEL = PREFERRED_BATCH_SIZE
MAX_ELEMENTS_PER_MODEL = 400_000
COMPOSITE_DEVICES = ("AUTO", "HETERO", "MULTI", "BATCH")


# Known failures: backends/openvino/known_failures.json, in the expectations
# format of harness/verdict/expectations.py (schema: harness/schema/expectations.schema.json).


@dataclass(eq=False)
class CompiledBatch:
    compiled: Any  # ov.CompiledModel
    request: Any  # ov.InferRequest
    size: int
    zeros: list  # one zero array per input port: what the other cases' inputs get
    elements: int = 0  # tensor elements of its case graphs (reuse.MAX_ELEMENTS bounds what is kept)


@dataclass(eq=False)
class CompiledCase:
    """One case's view of a (possibly shared) compiled model."""

    graph: Graph
    batch: CompiledBatch
    input_ports: list[int]  # in graph.inputs order
    output_ports: list[int]  # in graph.outputs order
    config: Mapping[str, str] = field(default_factory=dict)


class OpenVINOBackend:
    name = "openvino"

    def __init__(self, options: Mapping[str, str]):
        reject_unknown_options("openvino", options, OPTIONS)
        try:
            import openvino as ov
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise BackendError(f"openvino is not installed: {exc}") from exc
        self._ov = ov
        self.core = ov.Core()
        self.device = options.get("device", "CPU")
        available = self.core.available_devices
        base = self.device.split(":")[0].split(".")[0]
        if self.device not in available and base not in COMPOSITE_DEVICES:
            raise BackendError(f"openvino: no device {self.device!r} (available: {', '.join(available)})")
        self.precision = options.get("precision", "exact")
        if self.precision not in PRECISIONS:
            raise BackendError(f"openvino: precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}")
        self._capabilities = self._property("OPTIMIZATION_CAPABILITIES") or []
        # -o threads=N: the plugin's INFERENCE_NUM_THREADS (absent: its default).
        self.threads = options.get("threads")
        if self.threads is not None:
            thread_count(self.threads, "openvino")
        from webnn_harness.backends.openvino.reuse import CompiledModels

        self.compiled_models = CompiledModels()

    def _property(self, name):
        try:
            return self.core.get_property(self.device, name)
        except Exception:  # noqa: BLE001 - not every device reports every property
            return None

    # ---- precision -------------------------------------------------------
    def config_for(self, graph: Graph) -> dict[str, str]:
        """Compile properties for a graph: exact precision for its data types."""
        threads = {"INFERENCE_NUM_THREADS": self.threads} if self.threads else {}
        if self.precision == "default":
            return threads
        types = set(graph.data_types)
        if "float32" not in types and "float16" in types and "FP16" in self._capabilities:
            return {"INFERENCE_PRECISION_HINT": "f16", **threads}
        return {"INFERENCE_PRECISION_HINT": "f32", **threads}

    def info(self) -> BackendInfo:
        from webnn_harness.backends.openvino.lower import OPSET

        default_hint = self._property("INFERENCE_PRECISION_HINT")
        default_hint = getattr(default_hint, "get_type_name", lambda: default_hint)()
        if self.precision == "exact":
            fp16 = "f16" if "FP16" in self._capabilities else "f32 (device has no FP16 capability: float16 computed in float32)"
            hint = {"float32 graphs": "f32", "float16-only graphs": fp16, "integer-only graphs": "f32"}
        else:
            hint = f"device default ({default_hint})"
        return BackendInfo(
            name=self.name,
            version=self._ov.get_version(),
            device=str(self._property("FULL_DEVICE_NAME") or self.device),
            # AUTO, HETERO and MULTI may place work off the CPU: only "CPU" is the host for sure.
            host_cpu=self.device.split(".")[0] == "CPU",
            threads=int(self.threads) if self.threads else None,
            precision=self.precision,
            settings={
                "device": self.device,
                "precision": self.precision,
                "inference_precision_hint": hint,
                "device_default_inference_precision_hint": str(default_hint),
                "optimization_capabilities": list(self._capabilities),
                "opset": OPSET,
                "batching": f"up to {MAX_GRAPHS_PER_MODEL} case graphs per compiled model",
                "preferred_batch_size": PREFERRED_BATCH_SIZE,
                "inference_num_threads": int(self.threads) if self.threads else "plugin default",
            },
        )

    def emulations(self) -> dict[str, str]:
        from webnn_harness.backends.openvino.lower import EMULATED

        return dict(EMULATED)

    def device_session(self, graph: Graph):
        from webnn_harness.backends.openvino.device import OpenVINODeviceSession

        return OpenVINODeviceSession(self, graph)

    def profiling_session(self, graph: Graph):
        from webnn_harness.backends.openvino.device import OpenVINOProfilingSession

        return OpenVINOProfilingSession(self, graph)

    # ---- build -----------------------------------------------------------
    def build(self, graph: Graph) -> CompiledCase:
        """``graph`` compiled alone, into a model of its own (never one reused)."""
        result = self.build_batch([graph], reuse=False)[0]
        if isinstance(result, BaseException):
            raise result
        return result

    def build_batch(self, graphs: Sequence[Graph], reuse: bool = True) -> list[Any]:
        """One handle (or exception) per graph; ``reuse``: a graph compiled
        before runs on that model, identical graphs here are compiled once."""
        from webnn_harness.backends.openvino.lower import lower_graph
        from webnn_harness.backends.openvino.refusals import classify
        from webnn_harness.backends.openvino.reuse import structure_key

        results: list[Any] = [None] * len(graphs)
        keys: list[bytes | None] = [None] * len(graphs)
        first_with: dict[bytes, int] = {}  # key -> the graph of this batch compiled for it
        pending: dict[tuple, list[tuple[int, Any]]] = {}
        for index, graph in enumerate(graphs):
            config = self.config_for(graph)
            if reuse and (key := structure_key(graph, self.device, config)) is not None:
                keys[index] = key
                known = self.compiled_models.get(key)
                if known is not None:
                    results[index] = dataclasses.replace(known, graph=graph)
                    continue
                if key in first_with:
                    continue  # shares the outcome of the first, below
                first_with[key] = index
            try:
                lowered = lower_graph(graph, prefix=f"c{index}_")
            except Exception as exc:  # noqa: BLE001 - classified below
                results[index] = classify(exc)
                continue
            pending.setdefault(tuple(sorted(config.items())), []).append((index, lowered))
        for key, members in pending.items():
            for chunk in _chunks(members, graphs):
                self._compile_isolating(chunk, graphs, dict(key), results)
        for index, key in enumerate(keys):
            if key is None:
                continue
            first = first_with.get(key, index)
            if first == index:
                if isinstance(results[index], CompiledCase):
                    self.compiled_models.put(key, results[index])
            elif results[index] is None:  # the same graph as ``first``: the same outcome
                done = results[first]
                results[index] = dataclasses.replace(done, graph=graphs[index]) if isinstance(done, CompiledCase) else done
        return results

    def _compile_isolating(self, members, graphs, config, results) -> None:
        """Compile members into one model; on failure split until the graph
        that fails alone is found (its error is its own verdict)."""
        from webnn_harness.backends.openvino.refusals import compile_failure
        from webnn_harness.backends.openvino.reuse import graph_elements

        try:
            batch, ports = self._compile(members, config)
            batch.elements = sum(graph_elements(graphs[index]) for index, _ in members)
        except Exception as exc:  # noqa: BLE001 - OpenVINO raises RuntimeError subclasses
            if len(members) == 1:
                results[members[0][0]] = compile_failure(exc)
                return
            half = len(members) // 2
            self._compile_isolating(members[:half], graphs, config, results)
            self._compile_isolating(members[half:], graphs, config, results)
            return
        for (index, _), (inputs, outputs) in zip(members, ports):
            results[index] = CompiledCase(graphs[index], batch, inputs, outputs, config)

    def _compile(self, members, config):
        ov = self._ov
        parameters, results, ports = [], [], []
        for _, lowered in members:
            ports.append((list(range(len(parameters), len(parameters) + len(lowered.parameters))),
                          list(range(len(results), len(results) + len(lowered.results)))))
            parameters += lowered.parameters
            results += lowered.results
        model = ov.Model(results, parameters, "webnn_cases")
        compiled = self.core.compile_model(model, self.device, config)
        request = compiled.create_infer_request()
        zeros = [
            np.zeros([int(d) for d in p.get_output_shape(0)], dtype=p.get_output_element_type(0).to_dtype())
            for p in parameters
        ]
        return CompiledBatch(compiled, request, len(members), zeros), ports

    # ---- compute ---------------------------------------------------------
    def compute_batch(self, compiled: Sequence[Any], inputs: Sequence[Mapping[str, np.ndarray]]) -> list[Any]:
        """Every built case's outputs from one inference per compiled model,
        each case's inputs at its own ports. If that inference fails, each
        case is computed as ``compute`` does, so its verdict is its own."""
        results: list[Any] = [None] * len(compiled)
        groups: dict[tuple, list[int]] = {}
        uses: dict[tuple, int] = {}
        for index, handle in enumerate(compiled):
            if isinstance(handle, CompiledCase):
                # Cases on the same ports (one compiled graph reused for several cases) need an inference each.
                ports = (id(handle.batch), tuple(handle.input_ports), tuple(handle.output_ports))
                uses[ports] = uses.get(ports, -1) + 1
                groups.setdefault((id(handle.batch), uses[ports]), []).append(index)
        for indices in groups.values():
            batch = compiled[indices[0]].batch
            feed = dict(enumerate(batch.zeros))
            for i in indices:
                feed.update(_case_feed(compiled[i], inputs[i]))
            try:
                batch.request.infer(feed, share_inputs=False)
            except Exception:  # noqa: BLE001 - find the case at fault: each computes alone
                for i in indices:
                    try:
                        results[i] = self.compute(compiled[i], inputs[i])
                    except Exception as exc:  # noqa: BLE001 - the worker judges it like compute() raising
                        results[i] = exc
                continue
            for i in indices:
                results[i] = _case_outputs(compiled[i])
        return results

    def compute(self, compiled: CompiledCase, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        # Every input of the batched model is passed on every call, the other
        # cases' as zeros, and copied in (share_inputs=False): writing into
        # the request's tensors in place and relying on them between calls
        # gave wrong results when the CPU plugin reused input memory.
        request = compiled.batch.request
        feed = dict(enumerate(compiled.batch.zeros))
        feed.update(_case_feed(compiled, inputs))
        try:
            request.infer(feed, share_inputs=False)
        except Exception:  # noqa: BLE001 - retry alone: another case of the batch may be at fault
            if compiled.batch.size == 1:
                raise
            return self.compute(self.build(compiled.graph), inputs)
        return _case_outputs(compiled)


def _case_feed(compiled: CompiledCase, inputs: Mapping[str, np.ndarray]) -> dict[int, np.ndarray]:
    from webnn_harness.backends.openvino.lower.base import NUMPY_OF  # int4/uint4: their 8-bit carriers

    graph = compiled.graph
    feed = {}
    for port, name in zip(compiled.input_ports, graph.inputs):
        desc = graph.descs[name]
        # A contiguous array of the right type goes as it is (infer copies it: share_inputs=False).
        feed[port] = np.ascontiguousarray(inputs[name], dtype=NUMPY_OF[desc.data_type]).reshape(desc.shape)
    return feed


def _case_outputs(compiled: CompiledCase) -> dict[str, np.ndarray]:
    request = compiled.batch.request
    graph = compiled.graph
    return {  # int4/uint4 come back from their i8/u8 carriers (lower.base.CARRIERS)
        name: np.array(request.get_output_tensor(port).data, copy=True).astype(numpy_dtype(graph.descs[name].data_type),
                                                                               copy=False)
        for port, name in zip(compiled.output_ports, graph.outputs)
    }


def _chunks(members, graphs):
    chunk, elements = [], 0
    for index, lowered in members:
        size = sum(graphs[index].descs[name].size for name in graphs[index].descs)
        if chunk and (len(chunk) >= MAX_GRAPHS_PER_MODEL or elements + size > MAX_ELEMENTS_PER_MODEL):
            yield chunk
            chunk, elements = [], 0
        chunk.append((index, lowered))
        elements += size
    if chunk:
        yield chunk


def create(options: Mapping[str, str]) -> OpenVINOBackend:
    return OpenVINOBackend(options)


create.facts = BackendFacts(  # what the harness reads before making one (backends/base.py, "Facts")
    preload=("openvino",),
    threads_option=True,
    rerun_options=(SettingOption("device", "device", "CPU"), SettingOption("precision", "precision", "exact")),
    thread_settings=("inference_num_threads",),
    precision_settings=("inference_precision_hint", "precision"),
    # The CPU plugin's kernels are oneDNN's and its own JIT emitters, which stop at the ISA level this
    # variable names: on an AVX-512 CPU, ONEDNN_MAX_CPU_ISA=AVX2 gives an AVX2 machine's values
    # (issue #47; the MVN kernel does not follow it: backends/openvino/known_failures.json).
    isa_cap_variable="ONEDNN_MAX_CPU_ISA",
)


__all__ = ["OpenVINOBackend", "create"]
