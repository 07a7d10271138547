"""ONNX models as WebNN graph cases (``webnn-harness import-onnx``).

One model becomes one case of the WPT schema (harness/schema/cases.schema.json):
its graph inputs under the model's own names with seeded generated data, its
weights as constant inputs, its nodes as WebNN operators (harness/loading/onnx_ops.py,
mapped as ONNX Runtime's WebNN execution provider maps them), and its outputs
under the model's output names. The folder format is the README's "Importing ONNX
models": weights are a JSON scalar when the model fills them with one value
(ConstantOfShape, folded), a ``generate`` spec under ``--seed``, a short list, or a
slice of ``<stem>.weights.bin`` (harness/loading/sidecar.py).

Constants are folded here, never sent to the op table: initializers, Constant,
ConstantOfShape (kept as one value over a shape, ``Fill``), Shape of a static
shape, and any node whose inputs are all constants (evaluated by onnx.reference).
A node the table lacks, or one it cannot express, refuses the model in one line
naming model, node and op (``Refused``); the other models still import.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from webnn_harness.loading.onnx_ops import ONNX_OPS, Fill, Unmappable
from webnn_harness.loading.sidecar import sidecar_slice, tensor_bytes
from webnn_harness.spec.values import encode_array, encode_number

if TYPE_CHECKING:
    import onnx

# ONNX TensorProto element types WebNN has (bool is WebNN's uint8: comparisons give uint8).
ONNX_DATA_TYPES = {1: "float32", 10: "float16", 6: "int32", 12: "uint32", 7: "int64", 13: "uint64",
                   3: "int8", 2: "uint8", 9: "uint8", 22: "int4", 21: "uint4"}
INLINE_VALUES = 64  # a constant of at most this many values is written as a JSON list
INLINE_OUTPUT_VALUES = 4096  # an expected output of at most this many values too
MAX_MODEL_BYTES = 2 << 30  # protobuf's own limit for one file
MAX_FOLDED_VALUES = 1 << 26  # a folded node's output beyond this is refused (a hostile Expand)


class Refused(Exception):
    """The model has no WebNN form: one line naming model, node and op."""


@dataclass
class Mapper:
    """What an op function of harness/loading/onnx_ops.py builds with: the WebNN operators so far,
    the ONNX values' shapes and types (ONNX shape inference), the constants folded so far."""

    model: str
    opset: int
    shapes: dict[str, tuple[int, ...]]
    dtypes: dict[str, str]
    constants: dict[str, Any]  # name -> np.ndarray | Fill
    operators: list[dict] = field(default_factory=list)
    used_constants: dict[str, tuple] = field(default_factory=dict)  # name -> (first consumer op, input, node)
    names: dict[str, str] = field(default_factory=dict)  # ONNX value -> WebNN operand (aliases)
    node: Any = None  # the node being mapped

    def operand(self, name: str) -> str:
        if name in self.constants and name not in self.used_constants:
            index = list(self.node.input).index(name) if self.node is not None and name in self.node.input else -1
            self.used_constants[name] = (self.node.op_type if self.node is not None else "", index, self.node)
        return self.names.get(name, name)

    def constant_value(self, name: str) -> np.ndarray:
        value = self.constants.get(name)
        if value is None:
            raise Unmappable(f"input {name!r} must be a constant (WebNN takes it as an attribute)")
        if isinstance(value, Fill) and prod(value.shape) > MAX_FOLDED_VALUES:
            raise Unmappable(f"constant {name!r} would make {prod(value.shape):,} values")
        return value.array(self.dtypes.get(name, "float32")) if isinstance(value, Fill) else value

    def shape(self, name: str) -> tuple[int, ...]:
        if name not in self.shapes:
            raise Unmappable(f"the shape of {name!r} is not static")
        return self.shapes[name]

    def dtype(self, name: str) -> str:
        return self.dtypes[name]

    def fresh(self, base: str, step: str) -> str:
        return f"{base}__{step}"

    def scalar(self, value: float, data_type: str) -> str:
        name = f"__scalar_{data_type}_{value!r}"
        if name not in self.constants:
            self.constants[name] = np.asarray(value, dtype=data_type)
            self.shapes[name], self.dtypes[name] = (), data_type
        self.used_constants.setdefault(name, ("", -1, None))
        return name

    def alias(self, out: str, to: str) -> None:
        if to in self.constants:
            self.constants[out] = self.constants[to]
        self.names[out] = self.operand(to)

    def emit(self, op: str, arguments: list[dict], outputs: str | list[str]) -> None:
        self.operators.append({"name": op, "arguments": arguments, "outputs": outputs})


# ---- reading the model -------------------------------------------------------------------------

def read_model(path: Path) -> onnx.ModelProto:
    import onnx

    size = path.stat().st_size
    if size > MAX_MODEL_BYTES:
        raise Refused(f"{path.name}: {size:,} bytes, over the {MAX_MODEL_BYTES:,}-byte limit of one ONNX file")
    try:
        return onnx.load(str(path), load_external_data=False)
    except Exception as exc:  # protobuf raises its own DecodeError and more
        raise Refused(f"{path.name}: not an ONNX model: {type(exc).__name__}: {str(exc)[:200]}") from None


def _value_types(model: onnx.ModelProto) -> tuple[dict, dict]:
    """Static shapes and WebNN data types of every value ONNX's shape inference knows."""
    from onnx import shape_inference

    inferred = shape_inference.infer_shapes(model, data_prop=True)
    shapes, dtypes = {}, {}
    g = inferred.graph
    for v in [*g.input, *g.value_info, *g.output]:
        t = v.type.tensor_type
        if t.elem_type in ONNX_DATA_TYPES:
            dtypes[v.name] = ONNX_DATA_TYPES[t.elem_type]
        if t.HasField("shape") and all(d.HasField("dim_value") for d in t.shape.dim):
            shapes[v.name] = tuple(int(d.dim_value) for d in t.shape.dim)
    for t in g.initializer:
        shapes[t.name] = tuple(t.dims)
        if t.data_type in ONNX_DATA_TYPES:
            dtypes[t.name] = ONNX_DATA_TYPES[t.data_type]
    return shapes, dtypes


def _initializers(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    from onnx import numpy_helper

    out = {}
    for t in model.graph.initializer:
        if t.data_location == 1:  # EXTERNAL: a path read from the model; never followed
            raise Refused(f"initializer {t.name!r} keeps its data in an external file (not read)")
        out[t.name] = numpy_helper.to_array(t)
    return out


# ---- folding constants ---------------------------------------------------------------------------

_SHAPE_ONLY = {"Unsqueeze", "Squeeze", "Reshape", "Flatten", "Identity", "Dropout", "Expand"}
# Kept as WebNN ops even on constant inputs: an int4 weight-only matmul is the dequantization of its
# int4 weights in the graph (as ORT's WebNN EP builds it), not float weights made at import.
NEVER_FOLDED = {"DequantizeLinear"}


def _fold(node: onnx.NodeProto, m: Mapper, model: onnx.ModelProto) -> bool:
    """Fold ``node`` into ``m.constants`` when its inputs are all known; False when it is a real op."""
    from onnx import numpy_helper

    if node.op_type == "Constant":
        m.constants[node.output[0]] = _constant_attribute(node)
        return True
    if node.op_type == "Shape" and node.input[0] in m.shapes:
        start, end = (_int_attr(node, "start", 0), _int_attr(node, "end", None))
        m.constants[node.output[0]] = np.asarray(m.shapes[node.input[0]][start:end], dtype=np.int64)
        return True
    inputs = [x for x in node.input if x]
    if not inputs or not all(x in m.constants for x in inputs) or node.op_type in NEVER_FOLDED:
        return False
    out = node.output[0]
    if node.op_type == "ConstantOfShape":
        shape = tuple(int(d) for d in m.constants[node.input[0]])
        value = numpy_helper.to_array(node.attribute[0].t).reshape(-1)[0].item() if node.attribute else 0.0
        m.constants[out] = Fill(value, shape)
        return True
    first = m.constants[inputs[0]]
    if isinstance(first, Fill) and node.op_type in _SHAPE_ONLY and out in m.shapes:
        m.constants[out] = Fill(first.value, m.shapes[out])
        return True
    if out not in m.shapes:  # a size not known before computing it is not computed (a hostile Tile)
        raise Unmappable("its inputs are constants but its output's shape is not static: not folded")
    if prod(m.shapes[out]) > MAX_FOLDED_VALUES:
        raise Unmappable(f"folding it would make {prod(m.shapes[out]):,} values")
    values = _evaluate_node(node, {x: m.constant_value(x) for x in inputs}, model)
    for name, value in zip(node.output, values):
        m.constants[name] = np.asarray(value)
        m.shapes.setdefault(name, tuple(np.shape(value)))
    return True


def _int_attr(node, name, default):
    from onnx import helper

    return next((helper.get_attribute_value(a) for a in node.attribute if a.name == name), default)


def _constant_attribute(node: onnx.NodeProto) -> np.ndarray:
    from onnx import helper, numpy_helper

    a = node.attribute[0]
    value = helper.get_attribute_value(a)
    return numpy_helper.to_array(value) if a.name == "value" else np.asarray(value)


def _evaluate_node(node: onnx.NodeProto, inputs: dict[str, np.ndarray], model: onnx.ModelProto) -> list:
    """One node with all-constant inputs, evaluated by ONNX's own reference at the model's opsets."""
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    graph = helper.make_graph([node], "fold", [helper.make_empty_tensor_value_info(x) for x in inputs],
                              [helper.make_empty_tensor_value_info(o) for o in node.output if o])
    one = helper.make_model(graph, opset_imports=model.opset_import, ir_version=model.ir_version)
    return ReferenceEvaluator(one).run(None, inputs)


# ---- converting one model ------------------------------------------------------------------------

@dataclass(frozen=True)
class Converted:
    """One model as a case: the case JSON (no expected data yet), its sidecar bytes, what it used."""

    stem: str
    case: dict
    sidecar: bytes
    info: dict
    seeded: dict[str, tuple]  # constants --seed replaced: (generate spec, shape, data type)


def convert_model(path: Path, seed: int | None = None, input_seed: int = 1) -> Converted:
    """``path`` as one WebNN case; ``Refused`` (one line) when a node has no WebNN form."""
    import collections

    model = read_model(path)
    stem = path.stem
    if not model.graph.node:  # an empty file parses as an empty ModelProto
        raise Refused(f"{path.name}: the model's graph has no nodes (nothing to compute)")
    try:
        m = _map_nodes(model, stem)
    except Refused as exc:
        raise Refused(f"{path.name}: {exc}") from None
    inputs, blobs, seeded = _graph_inputs(model, m, path.name, seed, input_seed)
    outputs = {}
    for o in model.graph.output:
        if o.name in m.constants:
            raise Refused(f"{path.name}: output {o.name!r} is a constant (nothing to compute)")
        if m.names.get(o.name, o.name) != o.name:  # the output is another value (a Dropout's input)
            m.operators.append({"name": "identity", "arguments": [{"input": m.names[o.name]}], "outputs": o.name})
        if o.name not in m.shapes or o.name not in m.dtypes or any(d < 0 for d in m.shapes[o.name]):
            raise Refused(f"{path.name}: output {o.name!r} has no static shape and WebNN data type")
        outputs[o.name] = {"descriptor": {"shape": list(m.shapes[o.name]), "dataType": m.dtypes[o.name]}}
    info = {
        "file": path.name, "opset": m.opset, "nodes": len(model.graph.node),
        "onnxOps": dict(collections.Counter(n.op_type for n in model.graph.node)),
        "webnnOps": dict(collections.Counter(op["name"] for op in m.operators)),
        "seed": seed,
    }
    case = {"name": stem, "graph": {"inputs": inputs, "operators": m.operators, "expectedOutputs": outputs},
            "model": info}
    return Converted(stem, case, b"".join(blobs), info, seeded)


def _opset(model: onnx.ModelProto) -> int:
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)


def _map_nodes(model: onnx.ModelProto, stem: str) -> Mapper:
    try:
        shapes, dtypes = _value_types(model)
    except Exception as exc:  # onnx's shape inference raises its own errors on a malformed model
        raise Refused(f"ONNX shape inference fails: {str(exc).splitlines()[0][:200]}") from None
    m = Mapper(stem, _opset(model), shapes, dtypes, dict(_initializers(model)))
    for i, node in enumerate(model.graph.node):
        where = f"node {node.name or i!r} ({node.op_type})"
        m.node = node
        try:
            if node.domain not in ("", "ai.onnx"):
                raise Refused(f"{where}: op {node.domain}.{node.op_type} has no WebNN form")
            if _fold(node, m, model):
                continue
            convert = ONNX_OPS.get(node.op_type)
            if convert is None:
                raise Refused(f"{where}: op {node.op_type} has no WebNN form")
            for name in [*node.input, *node.output[:1 if node.op_type == "Dropout" else None]]:
                if name and name not in dtypes and name not in m.constants:
                    raise Unmappable(f"value {name!r} has a data type WebNN lacks")
            convert(m, node)
        except Unmappable as exc:
            raise Refused(f"{where}: {exc}") from None
    m.node = None
    return m


def _graph_inputs(model, m: Mapper, model_file: str, seed: int | None, input_seed: int):
    """The case's ``graph.inputs``: the model's inputs (seeded data), then each constant it uses."""
    inputs, blobs, seeded, offset = {}, [], {}, 0
    for k, v in enumerate(x for x in model.graph.input if x.name not in m.constants):
        if v.name not in m.shapes or v.name not in m.dtypes or any(d < 0 for d in m.shapes[v.name]):
            raise Refused(f"{model_file}: input {v.name!r} has no static shape and WebNN data type")
        dt = m.dtypes[v.name]
        gen = ({"distribution": "uniform", "low": 0, "high": 1} if dt.startswith("float")
               else {"distribution": "integers", "low": 0, "high": 9})
        inputs[v.name] = {"data": {"generate": {**gen, "seed": input_seed * 1000 + k}},
                          "descriptor": {"shape": list(m.shapes[v.name]), "dataType": dt}}
    for k, (name, (op, index, node)) in enumerate(m.used_constants.items()):
        value, dt = m.constants[name], m.dtypes.get(name) or _dtype_of(m.constants[name])
        shape = value.shape if isinstance(value, Fill) else tuple(np.shape(value))
        desc = {"shape": list(shape), "dataType": dt}
        if seed is not None and dt.startswith("float") and _replaced_by_seed(value, op) and prod(shape) > 1:
            spec = {**_seeded_distribution(op, index, node, shape), "seed": seed * 100003 + k}
            seeded[name] = (spec, shape, dt)  # made only for the ONNX Runtime check (VGG-19's take seconds)
            data = {"generate": spec}
        elif isinstance(value, Fill):
            data = encode_number(np.asarray(value.value, dtype=dt)[()])
        elif prod(shape) <= INLINE_VALUES:
            data = encode_array(np.asarray(value).astype(dt)) if shape else encode_number(np.asarray(value, dt)[()])
        else:
            raw = tensor_bytes(value, dt)
            data = {"sidecar": sidecar_slice(raw, offset, f"{Path(model_file).stem}.weights.bin")}
            blobs.append(raw)
            offset += len(raw)
        inputs[name] = {"data": data, "descriptor": desc, "constant": True}
    return inputs, blobs, seeded


def _dtype_of(value) -> str:
    return "float32" if isinstance(value, Fill) else ONNX_DATA_TYPES.get(
        {np.dtype("float32"): 1, np.dtype("float16"): 10, np.dtype("int64"): 7, np.dtype("int32"): 6,
         np.dtype("int8"): 3, np.dtype("uint8"): 2, np.dtype("bool"): 9}.get(np.asarray(value).dtype, 0), "float32")


def _constant_filled(value) -> bool:
    if isinstance(value, Fill):
        return True
    flat = np.asarray(value).reshape(-1)
    return flat.size > 1 and bool(np.all(flat == flat[0]))


def _replaced_by_seed(value, op: str) -> bool:
    """Constant-filled weights; and a BatchNormalization's statistics, whatever they hold: running
    mean and variance describe the activations of the real weights, not of seeded ones (the light
    models keep their small BN tensors and fill the large weights: a kept variance of 5e-14 under
    seeded convolutions sends ShuffleNet's logits to 1e7 and its softmax to one-hot)."""
    return _constant_filled(value) or op == "BatchNormalization"


def _seeded_distribution(op: str, index: int, node, shape: tuple[int, ...]) -> dict:
    """A seeded stand-in for a constant-filled weight, by what it feeds: He-normal for a conv / gemm /
    matmul weight (keeps activations in range through deep ReLU stacks), a positive scale for a
    normalization's scale and variance (a negative variance has no square root), small otherwise."""
    if op in ("Conv", "Gemm", "MatMul") and index == 1:
        if op == "Conv":
            fan_in = prod(shape[1:])
        elif op == "Gemm":
            fan_in = shape[1] if any(a.name == "transB" and a.i for a in node.attribute) else shape[0]
        else:
            fan_in = shape[-2]
        return {"distribution": "normal", "mean": 0.0, "std": float(np.sqrt(2.0 / max(fan_in, 1)))}
    if (op == "BatchNormalization" and index in (1, 4)) or op in ("Mul", "LayerNormalization") and index == 1:
        return {"distribution": "uniform", "low": 0.5, "high": 1.5}
    return {"distribution": "uniform", "low": -0.1, "high": 0.1}
