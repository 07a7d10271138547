"""averagePool2d, l2Pool2d, maxPool2d in NCHW (nhwc is transposed)."""
from __future__ import annotations

import numpy as np
import openvino.opset16 as ops

from webnn_harness.backends.lowering import Call
from webnn_harness.backends.openvino.lower.base import NUMPY_OF, constant, data_type, output, shape, transpose
from webnn_harness.backends.openvino.lower.convolution import NCHW_TO_NHWC, NHWC_TO_NCHW
from webnn_harness.spec.graph import TensorDesc


def _geometry(out: TensorDesc, x, windowDimensions, padding, strides, dilations, layout):
    """Pads and rounding that give ``out``, the output the create steps
    computed (from outputShapeRounding or outputSizes)."""
    in_size = shape(x)[2:]
    wanted = out.shape[1:3] if layout == "nhwc" else out.shape[2:4]
    begin, end = [padding[0], padding[2]], [padding[1], padding[3]]
    rounding = "floor"
    floor_sizes = []
    for axis in range(2):
        span = in_size[axis] + begin[axis] + end[axis] - ((windowDimensions[axis] - 1) * dilations[axis] + 1)
        floor_sizes.append(span // strides[axis] + 1)
        if wanted[axis] > floor_sizes[-1]:
            rounding = "ceil"
    return begin, end, rounding, floor_sizes, wanted


def _pool(compute):
    def lower(e, c: Call):
        layout, window = c.attr("layout"), c.attr("windowDimensions")
        strides, dilations = c.attr("strides"), c.attr("dilations")
        x = transpose(c["input"], NHWC_TO_NCHW) if layout == "nhwc" else output(c["input"])
        geometry = _geometry(c.out, x, window, c.attr("padding"), strides, dilations, layout)
        result = compute(x, window, strides, dilations, *geometry)
        return transpose(result, NCHW_TO_NHWC) if layout == "nhwc" else output(result)

    return lower


def _average(x, window, strides, dilations, begin, end, rounding, floor_sizes, wanted):
    # Padding elements are not counted in the average (exclude_pad), as in
    # the spec's reference implementations (webnn-baseline, Chromium backends).
    spans = [(k - 1) * d + 1 for k, d in zip(window, dilations)]
    if all(b < s and e < s for b, e, s in zip(begin, end, spans)):
        return ops.avg_pool(x, strides, begin, end, window, True, rounding, "explicit", dilations)
    # AvgPool rejects padding as wide as the window ("kernel ... entirely in
    # the padding area"), which WebNN allows: window sum / count of real
    # elements, both as depthwise convolutions.
    sums = _window_sum(x, window, strides, dilations, begin, end, floor_sizes, wanted)
    in_h, in_w = shape(x)[2:]
    ones = constant(np.ones((1, 1, in_h, in_w), dtype=NUMPY_OF[data_type(x)]))
    counts = _window_sum(ones, window, strides, dilations, begin, end, floor_sizes, wanted)
    return ops.divide(sums, counts)


def _window_sum(x, window, strides, dilations, begin, end, floor_sizes, wanted):
    """Sum over each pooling window (padding adds zeros): a depthwise
    convolution with a filter of ones. Extra end padding stands in for ceil
    rounding."""
    channels = shape(x)[1]
    ones = constant(np.ones((channels, 1, 1, *window), dtype=NUMPY_OF[data_type(x)]))
    end = [e + max(0, w - f) * s for e, w, f, s in zip(end, wanted, floor_sizes, strides)]
    return ops.group_convolution(x, ones, strides, begin, end, dilations)


def _max(x, window, strides, dilations, begin, end, rounding, floor_sizes, wanted):
    return ops.max_pool(x, strides, dilations, begin, end, window, rounding, "explicit").output(0)


def _l2(x, window, strides, dilations, begin, end, rounding, floor_sizes, wanted):
    # sqrt of the window sum of squares.
    return ops.sqrt(_window_sum(ops.multiply(x, x), window, strides, dilations, begin, end, floor_sizes, wanted))


LOWER = {
    "averagePool2d": _pool(_average),
    "l2Pool2d": _pool(_l2),
    "maxPool2d": _pool(_max),
}
EMULATED = {
    "averagePool2d": "AvgPool(exclude_pad); where padding is as wide as the window (AvgPool rejects it): "
    "window sum / count of real elements, both as GroupConvolution with ones",
    "l2Pool2d": "sqrt(GroupConvolution(x*x, ones)) (depthwise window sum of squares)",
}
