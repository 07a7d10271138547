"""Which ONNX opset to emit a graph at: the newest at which every node has a kernel.

"The newest opset ORT will load" is not "the newest opset ORT can run": ORT
1.32 loads opset 28 models but has no DequantizeLinear(28) or
QuantizeLinear(28) kernel ("Could not find an implementation for
DequantizeLinear(28)", issue #10). An ONNX model has one opset import per
domain, so a graph is emitted at the newest opset at which every node's
(op type, input and output types) has a kernel on the execution provider.

A schema with a function body and no kernel is worse than a refusal: ORT
inlines the function and runs something else. ONNX 1.23 gave ReduceLogSumExp
a new schema at opset 28; ORT 1.32 has no kernel for it and runs
log(ReduceSum(exp(x))), which overflows where the kernel (opset 18) does not
(cases/reduction/reduce_log_sum_exp.json "large inputs stay finite" fails at
-o opset=28, passes at 25). So a kernel counts only when the node survives
session creation (read back from ORT's saved graph).

On the CPU provider a kernel is looked up in ORT's own kernel registry
(``get_all_opkernel_def``), matched the way ORT matches a node at session
creation (onnxruntime/core/framework/kernel_registry.cc, ``VerifyKernelDef``):
the kernel's version range must start at the node's schema version, or be
closed (an end other than INT_MAX) and contain it, and every type
constraint the kernel names must accept the type of the first present
argument bound to it in the ONNX schema. That is why ReduceLogSumExp's
(18, INT_MAX) kernel does not serve the opset-28 schema: an open range
promises only its start version. tests/test_onnxruntime_kernels.py checks
the registry's answer against a built session for every signature of our
corpus.

Elsewhere (another provider, a build of ORT with other providers, whose
registry cannot be listed safely, or a constraint the registry's answer
cannot be read for) kernels are found by building one-node models, lazily, one per
(op type, types, schema version) the first time a graph needs it. Those
answers are cached per (ORT version, execution provider): in-process, and
on disk in ``$XDG_CACHE_HOME/webnn-harness/onnxruntime-kernels.json``
(default ``~/.cache``) so worker processes and later runs reuse them. Only
ORT's NOT_IMPLEMENTED answer means "no kernel"; any other build error is
left for the real build to report with ORT's own message.

The choice is kept per graph structure (the nodes with their attributes,
and the element types of inputs and initializers, which fix every type in
the graph), so cases that differ only in their values or shapes run ONNX
type inference once.
"""
from __future__ import annotations

import json
import multiprocessing.util
import os
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

# The lowering (backends/onnxruntime/lower/) emits opset-18 forms and newer
# (Reduce*/Split/Pad take axes as inputs, ...).
OLDEST_OPSET = 18
CPU = "CPUExecutionProvider"

Signature = tuple  # (op_type, input element types, output element types)


@lru_cache(maxsize=None)
def loadable_opset() -> tuple[int, int]:
    """(opset, ir_version): the newest default-domain opset the installed ORT
    loads, probed once with a one-node Relu model (ORT rejects opsets newer
    than it knows at load time). A ceiling, not a promise of kernels."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    from webnn_harness.backends.base import BackendError

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "probe", [x], [y])
    options = ort.SessionOptions()
    options.log_severity_level = 3
    for ir_version in (onnx.IR_VERSION, 11, 10):
        for opset in range(onnx.defs.onnx_opset_version(), OLDEST_OPSET - 1, -1):
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version)
            try:
                ort.InferenceSession(model.SerializeToString(), options, providers=[CPU])
            except Exception:  # noqa: BLE001 - ORT says "unsupported opset/IR" in many ways
                continue
            return opset, ir_version
    raise BackendError(f"onnxruntime accepts no ONNX opset >= {OLDEST_OPSET} with this onnx package")


@lru_cache(maxsize=None)
def schema_version(op_type: str, opset: int) -> int | None:
    """The since_version of the schema ``op_type`` resolves to at ``opset``
    (what ORT's kernel registry is keyed by), None when it does not exist yet."""
    import onnx

    try:
        return onnx.defs.get_schema(op_type, opset, "").since_version
    except onnx.defs.SchemaError:
        return None


def signatures(model) -> tuple[dict[Signature, Any], dict[str, Any]]:
    """(op type, input types, output types) -> the first node with it, for the
    default-domain nodes of ``model``; and every value's inferred ValueInfo
    (types from ONNX type inference)."""
    import onnx

    inferred = onnx.shape_inference.infer_shapes(model).graph
    infos = {v.name: v for v in (*inferred.input, *inferred.value_info, *inferred.output)}
    types = {name: v.type.tensor_type.elem_type for name, v in infos.items()}
    types.update({t.name: t.data_type for t in model.graph.initializer})
    out: dict[Signature, Any] = {}
    for node in model.graph.node:
        if node.domain not in ("", "ai.onnx"):
            continue
        sig = (node.op_type, tuple(types.get(i, 0) if i else 0 for i in node.input),
               tuple(types.get(o, 0) for o in node.output))
        out.setdefault(sig, node)
    return out, infos


@lru_cache(maxsize=None)
def _element_types() -> dict[str, int]:
    """ORT's type strings ("tensor(float)") -> ONNX element types."""
    from onnx import TensorProto

    return {f"tensor({name.lower()})": value for name, value in TensorProto.DataType.items()}


@lru_cache(maxsize=None)
def _registry_readable() -> bool:
    """Whether ORT's kernel registry can be listed in this build. In
    onnxruntime-gpu 1.31.1 (CUDA 13; seen on an H100 with driver 580)
    ``get_all_opkernel_def()`` kills the process with a segmentation fault,
    whatever was loaded before it; the CPU-only package lists it. Builds with
    providers beyond the CPU's are asked by one-node sessions instead."""
    import onnxruntime as ort

    return set(ort.get_available_providers()) <= {CPU, "AzureExecutionProvider"}


@lru_cache(maxsize=None)
def _registry(provider: str) -> dict[str, list[tuple[int, int, dict[str, frozenset[int]]]]]:
    """ORT's kernel registry for the default domain on ``provider``:
    op type -> [(start version, end version, {type constraint: element types})]."""
    from onnxruntime.capi import onnxruntime_pybind11_state as C

    names = _element_types()
    out: dict[str, list] = {}
    for kernel in C.get_all_opkernel_def():
        if kernel.provider != provider or kernel.domain not in ("", "ai.onnx"):
            continue
        constraints = {name: frozenset(names.get(t, -1) for t in types)
                       for name, types in kernel.type_constraints.items()}
        out.setdefault(kernel.op_name, []).append((*kernel.version_range, constraints))
    return out


_OPEN_END = 2**31 - 1  # INT_MAX: a kernel registered "since N" with no end


@lru_cache(maxsize=None)
def _formal_arguments(op_type: str, since: int) -> dict[str, tuple[tuple[str, int], ...]]:
    """ORT's kernel type strings for one schema (kernel_type_str_resolver.cc):
    a type constraint name, or else the formal parameter's own name ->
    the (input|output, formal index) arguments bound to it."""
    import onnx

    schema = onnx.defs.get_schema(op_type, since, "")
    constraints = {c.type_param_str for c in schema.type_constraints}
    out: dict[str, list] = {}
    for kind, params in (("input", schema.inputs), ("output", schema.outputs)):
        for index, param in enumerate(params):
            key = param.type_str if param.type_str in constraints else param.name
            out.setdefault(key, []).append((kind, index))
    return {k: tuple(v) for k, v in out.items()}


def registry_has_kernel(op_type: str, since: int, input_types: tuple, output_types: tuple,
                        provider: str = CPU) -> bool | None:
    """Whether ORT's CPU kernel registry holds a kernel for a node of
    ``op_type`` at schema version ``since`` with these element types (0: an
    omitted optional argument), matched as ORT matches it; None when the
    answer cannot be read from the registry (another provider, a type
    constraint the schema does not bind, an argument of unknown type)."""
    if provider != CPU or not _registry_readable():
        return None
    found = _registry_match(op_type, since, input_types, output_types, provider)
    if found is not False:
        return found
    if not _schema_allows(op_type, since, input_types, output_types):
        return None  # the build fails for another reason than a kernel: the probe says what
    if _FLOAT16 not in (*input_types, *output_types):
        return False
    # ORT runs a float16 node with no float16 CPU kernel on its float kernel,
    # with casts around it (InsertCastTransformer): the node stays. Where the
    # schema has a function body, ORT may inline the body of the schema it
    # bundles instead (seen: Elu and HardSigmoid at 6 inlined, at 22 not);
    # the probe decides those.
    if _has_function(op_type, since):
        return None
    widen = lambda types: tuple(_FLOAT if t == _FLOAT16 else t for t in types)  # noqa: E731
    return _registry_match(op_type, since, widen(input_types), widen(output_types), provider)


_FLOAT, _FLOAT16 = 1, 10  # onnx.TensorProto.FLOAT, FLOAT16


@lru_cache(maxsize=None)
def _has_function(op_type: str, since: int) -> bool:
    import onnx

    schema = onnx.defs.get_schema(op_type, since, "")
    return schema.has_function or schema.has_context_dependent_function


@lru_cache(maxsize=None)
def _schema_types(op_type: str, since: int) -> tuple[tuple, tuple]:
    """Per formal input and output of the schema: the element types it allows."""
    import onnx

    schema = onnx.defs.get_schema(op_type, since, "")
    names = _element_types()
    allowed = {c.type_param_str: frozenset(names.get(t, -1) for t in c.allowed_type_strs) for c in schema.type_constraints}
    per = lambda params: tuple(allowed.get(p.type_str, frozenset([names.get(p.type_str, -1)])) for p in params)  # noqa: E731
    variadic = lambda params: bool(params) and params[-1].option == onnx.defs.OpSchema.FormalParameterOption.Variadic  # noqa: E731
    return (per(schema.inputs), variadic(schema.inputs)), (per(schema.outputs), variadic(schema.outputs))


def _schema_allows(op_type: str, since: int, input_types: tuple, output_types: tuple) -> bool:
    for (allowed, variadic), types in zip(_schema_types(op_type, since), (input_types, output_types)):
        for index, actual in enumerate(types):
            if not actual:
                continue
            if index >= len(allowed) and not variadic:
                return False
            if actual not in allowed[min(index, len(allowed) - 1)]:
                return False
    return True


def _registry_match(op_type: str, since: int, input_types: tuple, output_types: tuple, provider: str) -> bool | None:
    arguments = _formal_arguments(op_type, since)
    for start, end, constraints in _registry(provider).get(op_type, ()):
        if not (start == since or (end != _OPEN_END and start <= since <= end)):
            continue
        matched = True
        for name, allowed in constraints.items():
            bound = arguments.get(name)
            if bound is None:
                return None
            for kind, index in bound:
                types = input_types if kind == "input" else output_types
                actual = types[index] if index < len(types) else 0
                if actual:  # the first argument present decides (ORT: MatchKernelDefTypes)
                    matched = actual in allowed
                    break
            if not matched:
                break
        if matched:
            return True
    return False


ANSWERS = 2
# Seconds between rewrites of the disk cache (it is read, merged and
# replaced whole: once per new answer cost a cold probe's workers about 0.2
# CPU-s each); what is left is written when the process exits.
FLUSH_INTERVAL = 1.0
# A kernel cache holds a few thousand short entries; a file far larger is not one.
MAX_CACHE_BYTES = 16 << 20


class KernelTable:
    """Per (op type, types, schema version): does ORT have a kernel on this
    provider? Answered by one-node models, cached in memory and on disk."""

    def __init__(self, ort_version: str, provider: str, ir_version: int, cache_path: Path | None = None,
                 provider_options: Mapping[str, str] | None = None):
        # ANSWERS: bumped when what an answer means changes (2: a non-CPU
        # provider's CPU-fallback refusal is "no kernel"), so older disk entries are not read.
        # The provider's options (-o ep.KEY=VALUE) can change which kernels it
        # registers: the one-node sessions get them, and answers are kept per set.
        self.provider_options = dict(sorted((provider_options or {}).items()))
        options = ",".join(f"{k}={v}" for k, v in self.provider_options.items())
        self.prefix = f"{ort_version}|{provider}|{ANSWERS}|" + (f"{options}|" if options else "")
        self.provider = provider
        self.ir_version = ir_version
        self.cache_path = cache_path if cache_path is not None else default_cache_path()
        self._known: dict[str, bool] = self._read_disk()
        self._new: dict[str, bool] = {}
        self._flushed_at = float("-inf")
        if self.cache_path is not None:
            # at exit, in a worker process too (multiprocessing runs these in its children)
            multiprocessing.util.Finalize(self, self._flush, exitpriority=0)
        self._chosen: dict[tuple, tuple[int, bool]] = {}  # (newest, structure(model)) -> choose_checked's answer

    def has_kernel(self, sig: Signature, node, model, infos, opset: int) -> bool:
        since = schema_version(sig[0], opset)
        if since is None:
            return False
        key = f"{self.prefix}{sig[0]}|{','.join(map(str, sig[1]))}|{','.join(map(str, sig[2]))}|{since}"
        if key not in self._known:
            answer = registry_has_kernel(sig[0], since, sig[1], sig[2], self.provider) if all_typed(node, sig) else None
            if answer is None:
                self._known[key] = self._new[key] = _builds(node, model, infos, opset, self.ir_version, self.provider,
                                                            self.provider_options)
            else:
                self._known[key] = answer  # read from the registry: cheaper than a disk entry
        return self._known[key]

    def choose(self, model, newest: int) -> int:
        """The newest opset in [OLDEST_OPSET, newest] at which every node of
        ``model`` has a kernel; ``newest`` when none has them all (the build
        then fails with ORT's own message)."""
        return self.choose_checked(model, newest)[0]

    def choose_checked(self, model, newest: int) -> tuple[int, bool]:
        """``choose``'s opset, and whether every node has a kernel there."""
        key = (newest, structure(model))
        if key in self._chosen:
            return self._chosen[key]
        sigs, infos = signatures(model)
        chosen = (newest, False)
        for opset in range(newest, OLDEST_OPSET - 1, -1):
            if all(self.has_kernel(sig, node, model, infos, opset) for sig, node in sigs.items()):
                chosen = (opset, True)
                break
        if time.monotonic() - self._flushed_at >= FLUSH_INTERVAL:
            self._flush()
        self._chosen[key] = chosen
        return chosen

    def missing(self, model) -> list[str]:
        """The nodes of ``model`` with no kernel on this provider at its own
        opset, as ``OpType(input types -> output types)``: what an error
        that names no node (the CPU-fallback refusal) leaves out."""
        from onnx import TensorProto

        opset = model.opset_import[0].version
        sigs, infos = signatures(model)
        name = lambda t: TensorProto.DataType.Name(t).lower() if t else "-"  # noqa: E731
        return [f"{sig[0]}({', '.join(map(name, sig[1]))} -> {', '.join(map(name, sig[2]))})"
                for sig, node in sigs.items() if not self.has_kernel(sig, node, model, infos, opset)]

    # -- disk cache: a flat JSON object, merged on write, replaced atomically

    def _read_disk(self) -> dict[str, bool]:
        return {k: v for k, v in self._read_file().items() if k.startswith(self.prefix)}

    def _read_file(self) -> dict[str, bool]:
        """Every entry of the file; {} for a file that cannot be read (damaged, nested deep, too big:
        harness/files/reading.py), which the next flush replaces: a cache never fails a run."""
        if self.cache_path is None or not self.cache_path.exists():
            return {}
        from webnn_harness.files.reading import ReadError, read_json

        try:
            data = read_json(self.cache_path, max_bytes=MAX_CACHE_BYTES)
        except ReadError:
            return {}
        return {str(k): bool(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def _flush(self) -> None:
        if not self._new or self.cache_path is None:
            return
        from webnn_harness.files.writes import write_atomic

        try:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            data = self._read_file()  # merged: every ORT build's entries are kept, not only this one's
            data.update(self._new)
            write_atomic(self.cache_path, json.dumps(data, sort_keys=True, indent=0))
        except OSError:
            return  # a read-only home is no reason to fail a run: the in-process cache still holds
        self._new = {}
        self._flushed_at = time.monotonic()


def structure(model) -> tuple:
    """What fixes every element type in ``model``: its nodes (attributes
    included, so a Cast's target counts), and its inputs' and initializers'
    element types. Values and shapes are left out."""
    graph = model.graph
    return (tuple(node.SerializeToString() for node in graph.node),
            tuple((v.name, v.type.tensor_type.elem_type) for v in graph.input),
            tuple((t.name, t.data_type) for t in graph.initializer))


def all_typed(node, sig: Signature) -> bool:
    """Every argument the node names has a known element type in ``sig``."""
    return all(t or not name for name, t in zip((*node.input, *node.output), (*sig[1], *sig[2])))


def default_cache_path() -> Path | None:
    """``$XDG_CACHE_HOME/webnn-harness/onnxruntime-kernels.json``; None (no disk
    cache) when WEBNN_HARNESS_NO_CACHE is set."""
    if os.environ.get("WEBNN_HARNESS_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "webnn-harness" / "onnxruntime-kernels.json"


def _builds(node, model, infos, opset: int, ir_version: int, provider: str,
            provider_options: Mapping[str, str] | None = None) -> bool:
    """Whether a model holding just ``node`` at ``opset`` (its inputs typed
    and shaped as in ``model``) runs ``node`` on a kernel, on ``provider``
    made with ``provider_options``: False when ORT answers NOT_IMPLEMENTED
    or replaces the node by its function body."""
    import onnx
    import onnxruntime as ort
    from onnx import helper

    initializers = {t.name: t for t in model.graph.initializer}
    inputs, inits = [], []
    for name in dict.fromkeys(i for i in node.input if i):
        if name in initializers:
            inits.append(initializers[name])  # shape/axes constants stay constants
        else:
            inputs.append(infos.get(name) or helper.make_empty_tensor_value_info(name))
    outputs = [infos.get(o) or helper.make_empty_tensor_value_info(o) for o in node.output if o]
    graph = helper.make_graph([node], "kernel-probe", inputs, outputs, initializer=inits)
    one = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version)
    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # every node needs its kernel
    if provider != CPU:
        options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    with tempfile.TemporaryDirectory(prefix="webnn-harness-kernel-") as tmp:
        options.optimized_model_filepath = os.path.join(tmp, "session.onnx")
        try:
            ort.InferenceSession(one.SerializeToString(), options, providers=providers_argument(provider, provider_options))
        except Exception as exc:  # noqa: BLE001
            # With CPU fallback disabled, a lone node the provider has no
            # kernel for is refused as "assigned to the default CPU EP", not
            # as NOT_IMPLEMENTED: on that provider it has no kernel either.
            return not (is_not_implemented(exc) or (provider != CPU and is_cpu_fallback_refusal(exc)))
        try:
            ran = onnx.load(options.optimized_model_filepath).graph.node
        except (OSError, onnx.onnx_cpp2py_export.checker.ValidationError, ValueError):
            return True  # nothing saved to read back: the build at least succeeded
        return any(n.op_type == node.op_type and n.domain == node.domain for n in ran)


def providers_argument(provider: str, provider_options: Mapping[str, str] | None) -> list:
    """The ``providers`` argument of an InferenceSession on ``provider`` made with ``provider_options``."""
    return [(provider, dict(provider_options))] if provider_options else [provider]


def is_cpu_fallback_refusal(exc: BaseException) -> bool:
    """ORT's refusal of a session whose nodes would run on the CPU provider
    when ``session.disable_cpu_ep_fallback`` is set (the message names no node)."""
    return "fallback to CPU EP has been explicitly disabled" in str(exc)


def is_not_implemented(exc: BaseException) -> bool:
    """ORT's "no kernel for this node" (status NOT_IMPLEMENTED)."""
    return type(exc).__name__ == "NotImplemented" or "NOT_IMPLEMENTED" in str(exc)
