"""ONNX operators as WebNN operators: one small function per ONNX op, in one table.

The mapping follows ONNX Runtime's WebNN execution provider
(onnxruntime/core/providers/webnn/builders/impl/*_op_builder.cc; its table:
js/web/docs/webnn-operators.md): an op WebNN has is one WebNN op with its
attributes as options; an op WebNN lacks is decomposed as the EP decomposes it
(LRN: pow, transpose, pad, averagePool2d, transpose, mul, add, pow, div) or as
the issue asks (Sum: a chain of add; Dropout at inference: its input;
Unsqueeze / Squeeze / Flatten: reshape). Constants (initializers, Constant,
ConstantOfShape, Shape of a static shape, and any node whose inputs are all
constants) never reach this table: the importer folds them
(harness/loading/onnx_import.py). erf-GELU stays erf, mul, add as written.

An op missing from ``ONNX_OPS`` has no WebNN form: the importer refuses the
model with one line naming model, node and op.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

if TYPE_CHECKING:
    from onnx import NodeProto

# harness/loading/onnx_import.py's Mapper: what each function builds with (not imported: it imports this table).
Mapper = Any


@dataclass(frozen=True)
class Fill:
    """A constant of one value over ``shape`` (ONNX's ConstantOfShape, folded): written as a JSON
    scalar, loaded as a broadcast view, replaced by seeded values under ``--seed``."""

    value: float | int
    shape: tuple[int, ...]

    def array(self, data_type: str) -> np.ndarray:
        from webnn_harness.spec.dtypes import numpy_dtype

        return np.full(self.shape, self.value, dtype=numpy_dtype(data_type))


class Unmappable(ValueError):
    """This node, as written, has no WebNN form (an attribute or input WebNN cannot express)."""


def _attr(node: NodeProto, name: str, default=None):
    from onnx import helper

    for a in node.attribute:
        if a.name == name:
            value = helper.get_attribute_value(a)
            return value.decode() if isinstance(value, bytes) else value
    return default


def _in(node: NodeProto, i: int) -> str:
    """The node's i-th input name, "" when absent (ONNX writes optional inputs as "")."""
    return node.input[i] if len(node.input) > i else ""


def _axis(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


# ---- elementwise ---------------------------------------------------------------------------------

def _unary(webnn: str) -> Callable:
    def convert(m: Mapper, node: NodeProto) -> None:
        m.emit(webnn, [{"input": m.operand(node.input[0])}], node.output[0])
    convert.__doc__ = f"{webnn}(x)"
    return convert


def _binary(webnn: str) -> Callable:
    def convert(m: Mapper, node: NodeProto) -> None:
        m.emit(webnn, [{"a": m.operand(node.input[0])}, {"b": m.operand(node.input[1])}], node.output[0])
    convert.__doc__ = f"{webnn}(a, b)"
    return convert


def _variadic(webnn: str) -> Callable:
    """Sum / Max / Min of n inputs: a chain of the binary op (WebNN's are binary)."""
    def convert(m: Mapper, node: NodeProto) -> None:
        names = [m.operand(x) for x in node.input]
        if len(names) == 1:
            m.alias(node.output[0], node.input[0])
            return
        acc = names[0]
        for k, other in enumerate(names[1:], 1):
            out = node.output[0] if k == len(names) - 1 else m.fresh(node.output[0], f"{webnn}{k}")
            m.emit(webnn, [{"a": acc}, {"b": other}], out)
            acc = out
    return convert


def identity_at_inference(m: Mapper, node: NodeProto) -> None:
    """Dropout at inference (and Identity): the input itself; Dropout's mask keeps every element."""
    if len(node.output) > 1 and node.output[1]:
        m.constants[node.output[1]] = Fill(1, m.shape(node.input[0]))
        m.shapes[node.output[1]], m.dtypes[node.output[1]] = m.shape(node.input[0]), "uint8"
    m.alias(node.output[0], node.input[0])


def clip(m: Mapper, node: NodeProto) -> None:
    lo = m.constant_value(_in(node, 1)) if _in(node, 1) else _attr(node, "min")
    hi = m.constant_value(_in(node, 2)) if _in(node, 2) else _attr(node, "max")
    options = {k: float(np.asarray(v).reshape(-1)[0]) for k, v in (("minValue", lo), ("maxValue", hi)) if v is not None}
    m.emit("clamp", [{"input": m.operand(node.input[0])}, {"options": options}], node.output[0])


def leaky_relu(m: Mapper, node: NodeProto) -> None:
    m.emit("leakyRelu", [{"input": m.operand(node.input[0])}, {"options": {"alpha": _attr(node, "alpha", 0.01)}}],
           node.output[0])


def gelu(m: Mapper, node: NodeProto) -> None:
    if _attr(node, "approximate", "none") != "none":
        raise Unmappable("approximate='tanh' (WebNN's gelu is the erf form)")
    m.emit("gelu", [{"input": m.operand(node.input[0])}], node.output[0])


def where(m: Mapper, node: NodeProto) -> None:
    m.emit("where", [{"condition": m.operand(node.input[0])}, {"trueValue": m.operand(node.input[1])},
                     {"falseValue": m.operand(node.input[2])}], node.output[0])


def cast(m: Mapper, node: NodeProto) -> None:
    m.emit("cast", [{"input": m.operand(node.input[0])}, {"type": m.dtype(node.output[0])}], node.output[0])


# ---- convolution, pooling, linear algebra --------------------------------------------------------

def _pads(node: NodeProto, m: Mapper, spatial_in: list[int], kernel: list[int], strides, dilations) -> list[int]:
    """ONNX pads [top, left, bottom, right] (or auto_pad) as WebNN's [top, bottom, left, right]."""
    auto = _attr(node, "auto_pad", "NOTSET")
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = []
        for size, k, s, d in zip(spatial_in, kernel, strides, dilations):
            total = max(0, (-(-size // s) - 1) * s + (k - 1) * d + 1 - size)
            small, big = total // 2, total - total // 2
            pads.append((small, big) if auto == "SAME_UPPER" else (big, small))
        return [pads[0][0], pads[0][1], pads[1][0], pads[1][1]]
    p = list(_attr(node, "pads", [0, 0, 0, 0]))
    return [p[0], p[2], p[1], p[3]]


def _spatial_4d(m: Mapper, node: NodeProto) -> list[int]:
    shape = m.shape(node.input[0])
    if len(shape) != 4:
        raise Unmappable(f"a rank-{len(shape)} input (WebNN's conv2d and pools are 2-D)")
    return list(shape[2:])


def conv(m: Mapper, node: NodeProto) -> None:
    spatial = _spatial_4d(m, node)
    kernel = list(m.shape(node.input[1])[2:])
    strides = list(_attr(node, "strides", [1, 1]))
    dilations = list(_attr(node, "dilations", [1, 1]))
    options = {"padding": _pads(node, m, spatial, kernel, strides, dilations), "strides": strides,
               "dilations": dilations, "groups": _attr(node, "group", 1)}
    if _in(node, 2):
        options["bias"] = m.operand(node.input[2])
    m.emit("conv2d", [{"input": m.operand(node.input[0])}, {"filter": m.operand(node.input[1])},
                      {"options": options}], node.output[0])


def _pool(webnn: str) -> Callable:
    def convert(m: Mapper, node: NodeProto) -> None:
        spatial = _spatial_4d(m, node)
        kernel = list(_attr(node, "kernel_shape"))
        strides = list(_attr(node, "strides", [1, 1]))
        dilations = list(_attr(node, "dilations", [1, 1]))
        pads = _pads(node, m, spatial, kernel, strides, dilations)
        if webnn == "averagePool2d" and _attr(node, "count_include_pad", 0) and any(pads):
            raise Unmappable("count_include_pad=1 with padding (WebNN's averagePool2d leaves padding out)")
        if len(node.output) > 1 and node.output[1]:
            raise Unmappable("its Indices output is used")
        options = {"windowDimensions": kernel, "padding": pads, "strides": strides, "dilations": dilations,
                   "outputShapeRounding": "ceil" if _attr(node, "ceil_mode", 0) else "floor"}
        m.emit(webnn, [{"input": m.operand(node.input[0])}, {"options": options}], node.output[0])
    return convert


def _global_pool(webnn: str) -> Callable:
    def convert(m: Mapper, node: NodeProto) -> None:
        _spatial_4d(m, node)
        m.emit(webnn, [{"input": m.operand(node.input[0])}], node.output[0])  # the default window is the whole H, W
    return convert


def gemm(m: Mapper, node: NodeProto) -> None:
    options = {"alpha": float(_attr(node, "alpha", 1.0)), "beta": float(_attr(node, "beta", 1.0)),
               "aTranspose": bool(_attr(node, "transA", 0)), "bTranspose": bool(_attr(node, "transB", 0))}
    if _in(node, 2):
        options["c"] = m.operand(node.input[2])
    m.emit("gemm", [{"a": m.operand(node.input[0])}, {"b": m.operand(node.input[1])}, {"options": options}],
           node.output[0])


def batch_normalization(m: Mapper, node: NodeProto) -> None:
    if len(node.output) > 1 and any(node.output[1:]):
        raise Unmappable("training-mode outputs (running mean / variance) are used")
    options = {"scale": m.operand(node.input[1]), "bias": m.operand(node.input[2]),
               "epsilon": float(_attr(node, "epsilon", 1e-5)), "axis": 1}
    m.emit("batchNormalization", [{"input": m.operand(node.input[0])}, {"mean": m.operand(node.input[3])},
                                  {"variance": m.operand(node.input[4])}, {"options": options}], node.output[0])


def layer_normalization(m: Mapper, node: NodeProto) -> None:
    if len(node.output) > 1 and any(node.output[1:]):
        raise Unmappable("its Mean / InvStdDev outputs are used")
    rank = len(m.shape(node.input[0]))
    axis = _axis(_attr(node, "axis", -1), rank)
    options = {"axes": list(range(axis, rank)), "epsilon": float(_attr(node, "epsilon", 1e-5)),
               "scale": m.operand(node.input[1])}
    if _in(node, 2):
        options["bias"] = m.operand(node.input[2])
    m.emit("layerNormalization", [{"input": m.operand(node.input[0])}, {"options": options}], node.output[0])


def lrn(m: Mapper, node: NodeProto) -> None:
    """ORT's WebNN EP decomposition (lrn_op_builder.cc): x / (bias + alpha * avg_window(x^2))^beta,
    the window average taken along channels by averagePool2d on an NHWC view padded with zeros."""
    size = int(_attr(node, "size"))
    x, out = m.operand(node.input[0]), node.output[0]
    step = lambda s: m.fresh(out, s)  # noqa: E731
    dt = m.dtype(node.input[0])
    sq, nhwc, padded, pooled, nchw, scaled, shifted, denom = (step(s) for s in (
        "pow1", "transpose_rightmost", "pad", "averagePool2d", "transpose_inverse", "mul", "add", "pow2"))
    m.emit("pow", [{"a": x}, {"b": m.scalar(2.0, dt)}], sq)
    m.emit("transpose", [{"input": sq}, {"options": {"permutation": [0, 2, 3, 1]}}], nhwc)
    m.emit("pad", [{"input": nhwc}, {"beginningPadding": [0, 0, 0, (size - 1) // 2]},
                   {"endingPadding": [0, 0, 0, -(-(size - 1) // 2)]}], padded)
    m.emit("averagePool2d", [{"input": padded}, {"options": {"windowDimensions": [1, size]}}], pooled)
    m.emit("transpose", [{"input": pooled}, {"options": {"permutation": [0, 3, 1, 2]}}], nchw)
    m.emit("mul", [{"a": nchw}, {"b": m.scalar(float(_attr(node, "alpha", 1e-4)), dt)}], scaled)
    m.emit("add", [{"a": scaled}, {"b": m.scalar(float(_attr(node, "bias", 1.0)), dt)}], shifted)
    m.emit("pow", [{"a": shifted}, {"b": m.scalar(float(_attr(node, "beta", 0.75)), dt)}], denom)
    m.emit("div", [{"a": x}, {"b": denom}], out)


def matmul(m: Mapper, node: NodeProto) -> None:
    a, b = m.shape(node.input[0]), m.shape(node.input[1])
    if len(a) < 2 or len(b) < 2:
        raise Unmappable("a rank-1 operand (WebNN's matmul takes rank 2 and above)")
    m.emit("matmul", [{"a": m.operand(node.input[0])}, {"b": m.operand(node.input[1])}], node.output[0])


def softmax(m: Mapper, node: NodeProto) -> None:
    """Before opset 13 Softmax flattens to 2-D at ``axis`` (default 1); from 13 it is one axis (default -1)."""
    shape = m.shape(node.input[0])
    rank, x, out = len(shape), m.operand(node.input[0]), node.output[0]
    if m.opset >= 13:
        m.emit("softmax", [{"input": x}, {"axis": _axis(_attr(node, "axis", -1), rank)}], out)
        return
    axis = _axis(_attr(node, "axis", 1), rank)
    if all(d == 1 for d in shape[axis + 1:]):  # flattening at axis changes nothing
        m.emit("softmax", [{"input": x}, {"axis": axis}], out)
        return
    flat = [int(np.prod(shape[:axis], dtype=np.int64)), int(np.prod(shape[axis:], dtype=np.int64))]
    m.emit("reshape", [{"input": x}, {"newShape": flat}], m.fresh(out, "flatten"))
    m.emit("softmax", [{"input": m.fresh(out, "flatten")}, {"axis": 1}], m.fresh(out, "softmax"))
    m.emit("reshape", [{"input": m.fresh(out, "softmax")}, {"newShape": list(shape)}], out)


# ---- movement ------------------------------------------------------------------------------------

def to_reshape(m: Mapper, node: NodeProto) -> None:
    """Reshape, Flatten, Squeeze, Unsqueeze: a reshape to the shape ONNX's shape inference gave."""
    m.emit("reshape", [{"input": m.operand(node.input[0])}, {"newShape": list(m.shape(node.output[0]))}],
           node.output[0])


def transpose(m: Mapper, node: NodeProto) -> None:
    rank = len(m.shape(node.input[0]))
    perm = list(_attr(node, "perm", list(range(rank))[::-1]))
    m.emit("transpose", [{"input": m.operand(node.input[0])}, {"options": {"permutation": perm}}], node.output[0])


def concat(m: Mapper, node: NodeProto) -> None:
    rank = len(m.shape(node.output[0]))
    m.emit("concat", [{"inputs": [m.operand(x) for x in node.input]}, {"axis": _axis(_attr(node, "axis"), rank)}],
           node.output[0])


def split(m: Mapper, node: NodeProto) -> None:
    shape = m.shape(node.input[0])
    axis = _axis(_attr(node, "axis", 0), len(shape))
    sizes = [m.shape(o)[axis] for o in node.output]
    m.emit("split", [{"input": m.operand(node.input[0])}, {"splits": sizes}, {"options": {"axis": axis}}],
           list(node.output))


def gather(m: Mapper, node: NodeProto) -> None:
    rank = len(m.shape(node.input[0]))
    m.emit("gather", [{"input": m.operand(node.input[0])}, {"indices": m.operand(node.input[1])},
                      {"options": {"axis": _axis(_attr(node, "axis", 0), rank)}}], node.output[0])


def slice_(m: Mapper, node: NodeProto) -> None:
    shape = m.shape(node.input[0])
    starts, ends = m.constant_value(node.input[1]), m.constant_value(node.input[2])
    axes = m.constant_value(_in(node, 3)) if _in(node, 3) else np.arange(len(starts))
    steps = m.constant_value(_in(node, 4)) if _in(node, 4) else np.ones(len(starts), dtype=np.int64)
    begin, sizes, strides = [0] * len(shape), list(shape), [1] * len(shape)
    for s, e, a, st in zip(starts, ends, axes, steps):
        a = _axis(int(a), len(shape))
        if st <= 0:
            raise Unmappable("a negative step (WebNN's slice strides are positive)")
        lo, hi = slice(int(s), int(e), int(st)).indices(shape[a])[:2]
        begin[a], strides[a] = lo, int(st)
        sizes[a] = max(0, -(-(hi - lo) // int(st)))
    m.emit("slice", [{"input": m.operand(node.input[0])}, {"starts": begin}, {"sizes": sizes},
                     {"options": {"strides": strides}}], node.output[0])


def expand(m: Mapper, node: NodeProto) -> None:
    m.emit("expand", [{"input": m.operand(node.input[0])}, {"newShape": list(m.shape(node.output[0]))}],
           node.output[0])


def _reduce(webnn: str) -> Callable:
    def convert(m: Mapper, node: NodeProto) -> None:
        rank = len(m.shape(node.input[0]))
        axes = _attr(node, "axes")
        if axes is None and _in(node, 1):
            axes = m.constant_value(node.input[1]).tolist()
        options = {"keepDimensions": bool(_attr(node, "keepdims", 1))}
        if axes is not None and len(axes):
            options["axes"] = sorted(_axis(int(a), rank) for a in axes)
        elif _attr(node, "noop_with_empty_axes", 0):
            m.alias(node.output[0], node.input[0])
            return
        m.emit(webnn, [{"input": m.operand(node.input[0])}, {"options": options}], node.output[0])
    return convert


# ---- quantization (int4 weight-only matmul) ------------------------------------------------------

def dequantize_linear(m: Mapper, node: NodeProto) -> None:
    """WebNN's dequantizeLinear broadcasts scale / zeroPoint blockwise: ONNX's per-axis scale [C]
    is reshaped to broadcast along its axis; a blocked one (block_size) already has the input's rank."""
    x_shape = m.shape(node.input[0])
    scale_shape = m.shape(node.input[1])
    out = node.output[0]
    scale, zero = m.operand(node.input[1]), m.operand(node.input[2]) if _in(node, 2) else None
    if zero is None:
        raise Unmappable("no zero point (WebNN's dequantizeLinear takes one)")
    if len(scale_shape) == 1 and len(x_shape) > 1 and scale_shape[0] > 1:
        axis = _axis(_attr(node, "axis", 1), len(x_shape))
        to = [1] * len(x_shape)
        to[axis] = scale_shape[0]
        m.emit("reshape", [{"input": scale}, {"newShape": to}], m.fresh(out, "scale"))
        m.emit("reshape", [{"input": zero}, {"newShape": to}], m.fresh(out, "zeroPoint"))
        scale, zero = m.fresh(out, "scale"), m.fresh(out, "zeroPoint")
    m.emit("dequantizeLinear", [{"input": m.operand(node.input[0])}, {"scale": scale}, {"zeroPoint": zero}], out)


ONNX_OPS: dict[str, Callable[[Mapper, NodeProto], None]] = {
    **{op: _unary(w) for op, w in {
        "Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Exp": "exp", "Log": "log", "Sqrt": "sqrt",
        "Abs": "abs", "Neg": "neg", "Reciprocal": "reciprocal", "Erf": "erf", "Floor": "floor", "Ceil": "ceil",
        "Sin": "sin", "Cos": "cos", "Tan": "tan", "Softplus": "softplus", "Softsign": "softsign",
        "Not": "logicalNot", "Sign": "sign", "Round": "roundEven", "HardSwish": "hardSwish"}.items()},
    **{op: _binary(w) for op, w in {
        "Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div", "Pow": "pow", "PRelu": "prelu",
        "Equal": "equal", "Greater": "greater", "Less": "lesser", "GreaterOrEqual": "greaterOrEqual",
        "LessOrEqual": "lesserOrEqual", "And": "logicalAnd", "Or": "logicalOr", "Xor": "logicalXor"}.items()},
    "Sum": _variadic("add"), "Max": _variadic("max"), "Min": _variadic("min"),
    "Dropout": identity_at_inference, "Identity": identity_at_inference,
    "Clip": clip, "LeakyRelu": leaky_relu, "Gelu": gelu, "Where": where, "Cast": cast,
    "Conv": conv, "MaxPool": _pool("maxPool2d"), "AveragePool": _pool("averagePool2d"),
    "GlobalAveragePool": _global_pool("averagePool2d"), "GlobalMaxPool": _global_pool("maxPool2d"),
    "Gemm": gemm, "MatMul": matmul, "BatchNormalization": batch_normalization,
    "LayerNormalization": layer_normalization, "LRN": lrn, "Softmax": softmax,
    "Reshape": to_reshape, "Flatten": to_reshape, "Squeeze": to_reshape, "Unsqueeze": to_reshape,
    "Transpose": transpose, "Concat": concat, "Split": split, "Gather": gather, "Slice": slice_, "Expand": expand,
    "ReduceMean": _reduce("reduceMean"), "ReduceSum": _reduce("reduceSum"), "ReduceMax": _reduce("reduceMax"),
    "ReduceMin": _reduce("reduceMin"), "ReduceProd": _reduce("reduceProduct"),
    "ReduceL2": _reduce("reduceL2"), "ReduceSumSquare": _reduce("reduceSumSquare"),
    "DequantizeLinear": dequantize_linear,
}
