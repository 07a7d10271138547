"""batchNormalization, instanceNormalization, layerNormalization.

ONNX's normalization ops require scale (and bias) where WebNN makes them
optional: absent ones become constant ones / zeros of the right shape.
"""
from __future__ import annotations

import numpy as np

from webnn_harness.backends.onnxruntime.emitter import Call, Emitter
from webnn_harness.backends.onnxruntime.lower.convolution import NCHW_TO_NHWC, NHWC_TO_NCHW


def _param(e: Emitter, c: Call, name: str, fill: float, shape, data_type: str) -> str:
    if c.has(name):
        return c[name]
    return e.const(np.full(shape, fill), data_type, shape)


def _normalize(e: Emitter, x: str, mean: str, variance: str, epsilon: float, data_type: str) -> str:
    """(x - mean) / sqrt(variance + epsilon), the spec's decomposition."""
    eps = e.scalar(epsilon, data_type)
    return e.op("Div", [e.op("Sub", [x, mean]), e.op("Sqrt", [e.op("Add", [variance, eps])])])


def batch_normalization(e: Emitter, c: Call) -> str:
    desc = c.desc("input")
    axis = int(c.attr("axis"))
    epsilon = float(c.attr("epsilon"))
    channels = desc.shape[axis]
    if axis == 1 and desc.rank >= 2:
        scale = _param(e, c, "scale", 1.0, (channels,), desc.data_type)
        bias = _param(e, c, "bias", 0.0, (channels,), desc.data_type)
        return e.op("BatchNormalization", [c["input"], scale, bias, c["mean"], c["variance"]], epsilon=epsilon)
    # ONNX BatchNormalization has its channels on axis 1 only: compose with
    # the 1-D parameters reshaped to broadcast along ``axis``.
    shape = [1] * desc.rank
    shape[axis] = channels

    def along_axis(name):
        return e.reshape(c[name], shape)

    y = _normalize(e, c["input"], along_axis("mean"), along_axis("variance"), epsilon, desc.data_type)
    if c.has("scale"):
        y = e.op("Mul", [y, along_axis("scale")])
    if c.has("bias"):
        y = e.op("Add", [y, along_axis("bias")])
    return y


def instance_normalization(e: Emitter, c: Call) -> str:
    desc = c.desc("input")
    nhwc = c.attr("layout") == "nhwc"
    channels = desc.shape[3] if nhwc else desc.shape[1]
    scale = _param(e, c, "scale", 1.0, (channels,), desc.data_type)
    bias = _param(e, c, "bias", 0.0, (channels,), desc.data_type)
    x = e.transpose(c["input"], NHWC_TO_NCHW) if nhwc else c["input"]
    y = e.op("InstanceNormalization", [x, scale, bias], epsilon=float(c.attr("epsilon")))
    return e.transpose(y, NCHW_TO_NHWC) if nhwc else y


def layer_normalization(e: Emitter, c: Call) -> str:
    desc = c.desc("input")
    rank = desc.rank
    axes = list(c.attr("axes"))
    epsilon = float(c.attr("epsilon"))
    trailing = list(range(rank - len(axes), rank))
    if axes and axes == trailing:
        # ONNX LayerNormalization normalizes over axes [axis, rank), scale and
        # bias shaped like those trailing dimensions, as WebNN's are here.
        scale = _param(e, c, "scale", 1.0, desc.shape[trailing[0]:], desc.data_type)
        inputs = [c["input"], scale] + ([c["bias"]] if c.has("bias") else [])
        return e.op("LayerNormalization", inputs, axis=trailing[0], epsilon=epsilon)
    # Other axes (unordered, not trailing, or none): compose the spec's
    # decomposition. scale/bias have the dimensions of ``axes`` in the order
    # given; transpose them to ascending axis order and reshape to broadcast.
    x = c["input"]
    axes_in = e.i64(axes)
    # noop_with_empty_axes: with axes [] the mean is x itself and the variance 0.
    mean = e.op("ReduceMean", [x, axes_in], keepdims=1, noop_with_empty_axes=1)
    centered = e.op("Sub", [x, mean])
    variance = e.op("ReduceMean", [e.op("Mul", [centered, centered]), axes_in], keepdims=1, noop_with_empty_axes=1)
    y = _normalize(e, x, mean, variance, epsilon, desc.data_type)
    order = sorted(range(len(axes)), key=lambda i: axes[i])
    broadcast = [desc.shape[i] if i in axes else 1 for i in range(rank)]

    def broadcastable(name):
        return e.reshape(e.transpose(c[name], order), broadcast)

    if c.has("scale"):
        y = e.op("Mul", [y, broadcastable("scale")])
    if c.has("bias"):
        y = e.op("Add", [y, broadcastable("bias")])
    return y


LOWER = {
    "batchNormalization": batch_normalization,
    "instanceNormalization": instance_normalization,
    "layerNormalization": layer_normalization,
}
EMULATED = {
    "batchNormalization": "axis != 1 or rank < 2: (x - mean) / sqrt(variance + epsilon) * scale + bias from "
    "Sub/Div/Sqrt/Mul/Add (ONNX BatchNormalization has channels on axis 1 only)",
    "layerNormalization": "axes not the ordered trailing axes (or empty): ReduceMean-based decomposition "
    "(ONNX LayerNormalization normalizes the trailing axes from one axis on)",
}
