"""batchNormalization, instanceNormalization, layerNormalization."""
from __future__ import annotations

import numpy as np
import openvino.opset16 as ops

from webnn_harness.backends.lowering import Call
from webnn_harness.backends.openvino.lower.base import along_axis, const, i64, output, rank, reshape, shape, transpose


def batch_normalization(e, c: Call):
    input, mean, variance, scale, bias = c["input"], c["mean"], c["variance"], c.get("scale"), c.get("bias")
    axis, epsilon = c.attr("axis"), c.attr("epsilon")
    if axis == 1 and rank(input) >= 2 and scale is not None and bias is not None:
        return output(ops.batch_norm_inference(input, scale, bias, mean, variance, epsilon))
    # Spec: (x - mean) / sqrt(variance + epsilon) * scale + bias along axis.
    r = rank(input)
    result = ops.divide(
        ops.subtract(input, along_axis(mean, axis, r)),
        ops.sqrt(ops.add(along_axis(variance, axis, r), const(epsilon, input))),
    )
    if scale is not None:
        result = ops.multiply(result, along_axis(scale, axis, r))
    if bias is not None:
        result = ops.add(result, along_axis(bias, axis, r))
    return output(result)


def instance_normalization(e, c: Call):
    scale, bias = c.get("scale"), c.get("bias")
    spatial, channel = ([2, 3], 1) if c.attr("layout") == "nchw" else ([1, 2], 3)
    result = ops.mvn(c["input"], i64(spatial), True, c.attr("epsilon"), "inside_sqrt")
    if scale is not None:
        result = ops.multiply(result, along_axis(scale, channel, 4))
    if bias is not None:
        result = ops.add(result, along_axis(bias, channel, 4))
    return output(result)


def _over_axes(operand, axes, input_shape):
    """scale/bias of shape [input_shape[a] for a in axes], laid out to broadcast
    against the input (transposed first when axes are not ascending)."""
    order = list(np.argsort(axes))
    if order != list(range(len(axes))):
        operand = transpose(operand, order)
    dims = [input_shape[d] if d in axes else 1 for d in range(len(input_shape))]
    return reshape(operand, dims)


def layer_normalization(e, c: Call):
    input, axes, epsilon, scale, bias = c["input"], c.attr("axes"), c.attr("epsilon"), c.get("scale"), c.get("bias")
    if axes:
        result = ops.mvn(input, i64(axes), True, epsilon, "inside_sqrt")
    else:
        # No axes: each element is its own group, its mean is itself.
        result = ops.multiply(ops.subtract(input, input), const(1 / np.sqrt(epsilon), input))
    in_shape = shape(input)
    if scale is not None:
        result = ops.multiply(result, _over_axes(scale, axes, in_shape))
    if bias is not None:
        result = ops.add(result, _over_axes(bias, axes, in_shape))
    return output(result)


LOWER = {
    "batchNormalization": batch_normalization,
    "instanceNormalization": instance_normalization,
    "layerNormalization": layer_normalization,
}
EMULATED = {
    "batchNormalization": "BatchNormInference when axis is 1 with scale and bias; otherwise "
    "(x - mean) / sqrt(variance + epsilon) * scale + bias",
    "instanceNormalization": "MVN over spatial axes (eps inside sqrt), Multiply scale, Add bias",
    "layerNormalization": "MVN over axes (eps inside sqrt), Multiply scale, Add bias",
}
