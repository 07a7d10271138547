"""batchNormalization, instanceNormalization, layerNormalization.

TFLite has no normalization builtin for these: each is the spec's
decomposition (x - mean) / sqrt(variance + epsilon) * scale + bias from
MEAN, SUB, SQUARE, ADD, SQRT, DIV, MUL, as Chromium composes them.
"""
from __future__ import annotations

from webnn_harness.backends.litert.emitter import OP, Call, Emitter
from webnn_harness.backends.litert.lower.elementwise import binary, refuse_quantized, unary
from webnn_harness.backends.litert.lower.reduction import reduce


def _normalize(e: Emitter, x: int, mean: int, variance: int, epsilon: float) -> int:
    eps = e.scalar(epsilon, e.desc(x).data_type)
    return binary(e, OP.DIV, binary(e, OP.SUB, x, mean), unary(e, OP.SQRT, binary(e, OP.ADD, variance, eps)))


def _scaled(e: Emitter, c: Call, y: int, broadcastable) -> int:
    """y * scale + bias, each present, made broadcastable to y by ``broadcastable(tensor)``."""
    if c.has("scale"):
        y = binary(e, OP.MUL, y, broadcastable(c["scale"]))
    if c.has("bias"):
        y = binary(e, OP.ADD, y, broadcastable(c["bias"]))
    return y


def _moments(e: Emitter, x: int, axes) -> tuple[int, int]:
    """Mean and (biased) variance over ``axes``, dimensions kept; with no axes, x and 0."""
    if not axes:
        return x, e.scalar(0, e.desc(x).data_type)
    mean = reduce(e, OP.MEAN, x, axes, True)
    return mean, reduce(e, OP.MEAN, unary(e, OP.SQUARE, binary(e, OP.SUB, x, mean)), axes, True)


def batch_normalization(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    desc = c.desc("input")
    axis = int(c.attr("axis"))
    shape = [1] * desc.rank
    shape[axis] = desc.shape[axis]

    def along_axis(tensor):
        return e.reshape(tensor, shape)

    y = _normalize(e, c["input"], along_axis(c["mean"]), along_axis(c["variance"]), float(c.attr("epsilon")))
    return _scaled(e, c, y, along_axis)


def instance_normalization(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    desc = c.desc("input")
    nhwc = c.attr("layout") == "nhwc"
    spatial = [1, 2] if nhwc else [2, 3]
    mean, variance = _moments(e, c["input"], spatial)
    y = _normalize(e, c["input"], mean, variance, float(c.attr("epsilon")))
    shape = [1, 1, 1, desc.shape[3]] if nhwc else [1, desc.shape[1], 1, 1]
    return _scaled(e, c, y, lambda tensor: e.reshape(tensor, shape))


def layer_normalization(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    desc = c.desc("input")
    axes = list(c.attr("axes"))
    mean, variance = _moments(e, c["input"], axes)
    y = _normalize(e, c["input"], mean, variance, float(c.attr("epsilon")))
    # scale and bias have the dimensions of ``axes`` in the order given:
    # transpose them to ascending axis order and reshape to broadcast.
    order = sorted(range(len(axes)), key=lambda i: axes[i])
    shape = [desc.shape[i] if i in axes else 1 for i in range(desc.rank)]
    return _scaled(e, c, y, lambda tensor: e.reshape(e.transpose(tensor, order), shape))


LOWER = {
    "batchNormalization": batch_normalization,
    "instanceNormalization": instance_normalization,
    "layerNormalization": layer_normalization,
}
_DECOMPOSED = "(x - mean) / SQRT(variance + epsilon) * scale + bias from SUB, ADD, SQRT, DIV, MUL"
EMULATED = {
    "batchNormalization": _DECOMPOSED + "; TFLite has no batch normalization",
    "instanceNormalization": _DECOMPOSED + ", mean and variance by MEAN over the spatial axes",
    "layerNormalization": _DECOMPOSED + ", mean and variance by MEAN over the axes",
}
