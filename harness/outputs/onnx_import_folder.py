"""An ``import-onnx`` output folder: per model, ``<stem>.json`` (one case), ``<stem>.weights.bin``
when it has weights to keep, and ``INDEX.json`` (each model: what it used, its times, its peak memory,
its error against ONNX Runtime, or the line saying why it was refused). Written through OwnedFolder
(kind ``onnx-import``); the format: the README's "Importing ONNX models".

Each model is converted (harness/loading/onnx_import.py), written, read back through the case
loader, and its expected outputs computed by the float64 reference on what the loader read: the
case checks itself. ONNX Runtime then runs the original model (its constant-filled weights replaced
by the seeded ones under ``--seed``) on the same inputs, and the largest difference is recorded.
"""
from __future__ import annotations

import json
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from webnn_harness.loading.onnx_import import INLINE_OUTPUT_VALUES, Converted, Refused, convert_model, read_model
from webnn_harness.loading.sidecar import sidecar_slice, tensor_bytes
from webnn_harness.outputs.writing import OwnedFolder
from webnn_harness.files.writes import confined, write_atomic
from webnn_harness.spec.values import encode_array

INDEX = "INDEX.json"


@dataclass(frozen=True)
class ModelResult:
    stem: str
    entry: dict  # its INDEX.json entry
    refused: str = ""  # the one line, when it was


@dataclass(frozen=True)
class ImportSummary:
    imported: int
    refused: tuple[str, ...]


def output_names(models: Sequence[Path]) -> list[str]:
    return [n for p in models for n in (f"{p.stem}.json", f"{p.stem}.weights.bin")]


def import_models(models: Sequence[Path], out: Path, mode: str = "new", seed: int | None = None,
                  check_ort: bool = True, on_model: Callable[[ModelResult], None] = lambda r: None) -> ImportSummary:
    """Each of ``models`` into ``out`` as the module says; a refused model is an INDEX entry and a line."""
    from webnn_harness import __version__

    stems = [p.stem for p in models]
    if len(set(stems)) != len(stems):
        raise ValueError("two models with one file stem would write one case file: rename one")
    index, refused = [], []
    with OwnedFolder(Path(out), mode, kind="onnx-import", files=(INDEX, *output_names(models))) as folder:
        for path in models:
            result = _import_one(path, folder.path, seed, check_ort)
            index.append(result.entry)
            if result.refused:
                refused.append(result.refused)
            on_model(result)
        doc = {"source": "onnx-import", "harness": __version__, "seed": seed, "models": index}
        write_atomic(confined(folder.path, INDEX), json.dumps(doc, indent=1) + "\n")
    return ImportSummary(len(models) - len(refused), tuple(refused))


def _import_one(path: Path, folder: Path, seed: int | None, check_ort: bool) -> ModelResult:
    start = time.perf_counter()
    try:
        converted = convert_model(path, seed)
    except Refused as exc:
        return ModelResult(path.stem, {"stem": path.stem, "file": path.name, "refused": str(exc)}, str(exc))
    import_s = time.perf_counter() - start
    case_path = confined(folder, f"{converted.stem}.json")
    bin_path = confined(folder, f"{converted.stem}.weights.bin")
    if converted.sidecar:
        write_atomic(bin_path, converted.sidecar)
    write_atomic(case_path, json.dumps({"tests": [converted.case], "source": "onnx-import"}) + "\n")
    sidecar = _calibrate_batch_norms(case_path, bin_path, converted) if converted.seeded else converted.sidecar
    case, outputs, ref_s, peak = _reference(case_path)
    if isinstance(case, str):
        line = f"{path.name}: the imported case does not load: {case}"
        for written in (case_path, bin_path):  # this import's own files: a refused model leaves no case behind
            written.unlink(missing_ok=True)
        return ModelResult(path.stem, {"stem": path.stem, "file": path.name, "refused": line}, line)
    info = {**converted.info, "importSeconds": round(import_s, 3), "referenceSeconds": round(ref_s, 3),
            "referencePeakBytes": peak}
    if check_ort:
        info["vsOnnxRuntime"] = _check_against_ort(path, converted, case, outputs)
    _write_expected(converted, sidecar, outputs, case_path, bin_path, info)
    return ModelResult(converted.stem, {"stem": converted.stem, **info, "refused": None})


def _reference(case_path: Path):
    """(the case read back, its float64 reference outputs, seconds, peak traced bytes) or (error, ...)."""
    from webnn_harness.backends.reference.evaluate import evaluate
    from webnn_harness.loading.cases import CaseError, load_file

    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        (case,) = list(load_file(case_path))
        if isinstance(case, CaseError):
            return str(case), None, 0.0, 0
        start = time.perf_counter()
        outputs = {k: v.values for k, v in evaluate(case.graph, case.inputs).items()}
        seconds = time.perf_counter() - start
        return case, outputs, seconds, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _write_expected(converted: Converted, sidecar: bytes, outputs: Mapping[str, np.ndarray], case_path: Path,
                    bin_path: Path, info: dict) -> None:
    """The reference outputs into the case (inline, or appended to the sidecar), and ``info`` as its ``model``."""
    blob = bytearray(sidecar)
    expected = converted.case["graph"]["expectedOutputs"]
    for name, values in outputs.items():
        dt = expected[name]["descriptor"]["dataType"]
        if values.size <= INLINE_OUTPUT_VALUES:
            expected[name]["data"] = encode_array(values)
        else:
            raw = tensor_bytes(values, dt)
            expected[name]["data"] = {"sidecar": sidecar_slice(raw, len(blob), bin_path.name)}
            blob += raw
    if len(blob) != len(sidecar):
        write_atomic(bin_path, bytes(blob))
    converted.case["model"] = info
    write_atomic(case_path, json.dumps({"tests": [converted.case], "source": "onnx-import"}) + "\n")


def _calibrate_batch_norms(case_path: Path, bin_path: Path, converted: Converted) -> bytes:
    """Under ``--seed``: each batchNormalization whose mean and variance were seeded gets its input's
    own per-channel statistics instead, as training would have left them for this input. Seeded
    statistics do not normalize: ResNet-50's 16 residual sums then double the variance 16 times and
    its softmax is one-hot (its logits reached 2e4, ShuffleNet's 1e6), which no backend can get wrong.
    The values are written into the case (sidecar) before its expected outputs are computed."""
    from webnn_harness.backends.reference.evaluate import run_node
    from webnn_harness.loading.cases import CaseError, load_file

    (case,) = list(load_file(case_path))
    graph = case.graph if not isinstance(case, CaseError) else None
    norms = [n for n in graph.nodes if n.op == "batchNormalization"] if graph else []
    stats = [(n, n.operands["mean"], n.operands["variance"]) for n in norms
             if n.operands["mean"] in converted.seeded and n.operands["variance"] in converted.seeded]
    if not stats:
        return converted.sidecar
    users = [name for n in graph.nodes for name in n.operand_names()]
    todo = {id(n): (mean, var) for n, mean, var in stats if users.count(mean) == 1 and users.count(var) == 1}
    env = {**graph.constants, **case.inputs}
    blob, inputs = bytearray(converted.sidecar), converted.case["graph"]["inputs"]
    for node in graph.nodes:
        if id(node) in todo:
            x = np.asarray(env[node.operands["input"]], np.float64)
            axes = tuple(i for i in range(x.ndim) if i != 1)
            for name, value in zip(todo[id(node)], (x.mean(axis=axes), x.var(axis=axes))):
                env[name] = value.astype(np.float32)
                raw = tensor_bytes(env[name], "float32")
                inputs[name]["data"] = {"sidecar": sidecar_slice(raw, len(blob), bin_path.name)}
                blob += raw
        for name, out in zip(node.outputs, run_node(node, env, graph)):
            env[name] = out.values
    write_atomic(bin_path, bytes(blob))
    write_atomic(case_path, json.dumps({"tests": [converted.case], "source": "onnx-import"}) + "\n")
    return bytes(blob)


def _check_against_ort(path: Path, converted: Converted, case, outputs: Mapping[str, np.ndarray]) -> dict:
    """ONNX Runtime on the original model and the case's own inputs: the largest differences from the reference."""
    try:
        import onnxruntime as ort
    except ImportError:
        return {"skipped": "onnxruntime is not installed"}
    model = _with_constants(read_model(path), {n: case.graph.constants[n] for n in converted.seeded})
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # the model as written
    options.log_severity_level = 3  # not a warning per initializer --seed left unused
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        got = session.run(list(outputs), {k: np.asarray(v) for k, v in case.inputs.items()})
    except Exception as exc:  # ORT raises its own error types
        return {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}", "version": ort.__version__}
    worst_abs = worst_rel = 0.0
    for ref, ort_out in zip(outputs.values(), got):
        diff = np.abs(np.asarray(ort_out, np.float64) - np.asarray(ref, np.float64))
        scale = float(np.max(np.abs(np.asarray(ref, np.float64)))) or 1.0
        worst_abs, worst_rel = max(worst_abs, float(diff.max())), max(worst_rel, float(diff.max()) / scale)
    return {"version": ort.__version__, "maxAbsError": worst_abs, "maxErrorOverMaxAbs": worst_rel}


def _with_constants(model, values: Mapping[str, np.ndarray]):
    """``model`` with each of ``values`` an initializer in place of the node that made it (ConstantOfShape)."""
    from onnx import numpy_helper

    if not values:
        return model
    g = model.graph
    keep = [n for n in g.node if not set(n.output) & set(values)]
    del g.node[:]
    g.node.extend(keep)
    inits = [t for t in g.initializer if t.name not in values]
    del g.initializer[:]
    g.initializer.extend(inits)
    g.initializer.extend(numpy_helper.from_array(np.ascontiguousarray(v), name) for name, v in values.items())
    return model
