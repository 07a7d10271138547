"""averagePool2d, l2Pool2d, maxPool2d and resample2d.

TFLite pools NHWC with SAME or VALID padding and no dilation. Other
padding (or ceil rounding's extra end window) is explicit PADV2 for a max
(with the lowest value) or, for an average, zeros and a constant correction
per output position (padded elements are not counted). Chromium refuses l2Pool2d; TFLite's L2_POOL_2D is a
root mean square, composed here into WebNN's root sum square.
"""
from __future__ import annotations

import math

import numpy as np

from ai_edge_litert import schema_py_generated as schema

from webnn_harness.backends.litert.emitter import OP, Call, Emitter, Unlowerable
from webnn_harness.backends.litert.lower.convolution import NCHW_TO_NHWC, NHWC_TO_NCHW, P, pad_hw, same_padding
from webnn_harness.backends.litert.lower.elementwise import binary, refuse_quantized
from webnn_harness.spec.dtypes import integer_range, is_float
from webnn_harness.spec.graph import TensorDesc


def _pool(code: int):
    def lower(e: Emitter, c: Call) -> int:
        refuse_quantized(c, "input")
        if list(c.attr("dilations")) != [1, 1]:
            raise Unlowerable(f"{c.node.op} with dilations: LiteRT's pools have none")
        nchw = c.attr("layout") == "nchw"
        x = e.transpose(c["input"], NCHW_TO_NHWC) if nchw else c["input"]
        n, h, w, ch = e.desc(x).shape
        data_type = e.desc(x).data_type
        out_hw = tuple(c.out.shape[2:4] if nchw else c.out.shape[1:3])
        window = list(c.attr("windowDimensions"))
        padding = list(c.attr("padding"))
        strides = list(c.attr("strides"))
        # The create steps fixed the output size (floor, ceil or outputSizes):
        # a larger one than the padding gives is extra end padding.
        for i, size in enumerate((h, w)):
            needed = (out_hw[i] - 1) * strides[i] + window[i] - (size + padding[2 * i] + padding[2 * i + 1])
            if needed > 0:
                padding[2 * i + 1] += needed
        if code == OP.L2_POOL_2D:
            # TFLite's L2_POOL_2D is sqrt(mean(x^2)), WebNN's sqrt(sum(x^2)):
            # zero padding made explicit keeps every window's count the area,
            # and the MUL by sqrt(area) makes the mean a sum.
            x = pad_hw(e, x, padding, 0) if any(padding) else x
            y = e.op(code, [x], TensorDesc((n, *out_hw, ch), data_type), _pool_options(P.VALID, strides, window))
            y = binary(e, OP.MUL, y, e.scalar(math.sqrt(window[0] * window[1]), data_type))
            return e.transpose(y, NHWC_TO_NCHW) if nchw else y
        if not any(padding):
            mode = P.VALID
        elif padding == same_padding((h, w), window, strides, (1, 1)):
            mode = P.SAME
        elif code == OP.AVERAGE_POOL_2D:
            return _average_of_valid(e, x, padding, window, strides, c.out.shape, out_hw, nchw)
        else:
            value = float("-inf") if is_float(data_type) else integer_range(data_type)[0]
            x, mode = pad_hw(e, x, padding, value), P.VALID
        y = e.op(code, [x], TensorDesc((n, *out_hw, ch), data_type), _pool_options(mode, strides, window))
        return e.transpose(y, NHWC_TO_NCHW) if nchw else y

    return lower


def _average_of_valid(e: Emitter, x: int, padding, window, strides, out_shape, out_hw, nchw: bool) -> int:
    """An average over the window's input elements only, with padding TFLite
    cannot express: AVERAGE_POOL_2D (VALID) of the input padded with zeros
    divides by the window's area; a constant per output position, area /
    (elements that are input), makes it the average of those."""
    n, h, w, ch = e.desc(x).shape
    data_type = e.desc(x).data_type
    y = e.op(OP.AVERAGE_POOL_2D, [pad_hw(e, x, padding, 0)], TensorDesc((n, *out_hw, ch), data_type),
             _pool_options(P.VALID, strides, window))
    top, bottom, left, right = padding
    inside = np.pad(np.ones((h, w)), ((top, bottom), (left, right)))
    (sh, sw), (kh, kw) = strides, window
    counts = np.array([[inside[i * sh:i * sh + kh, j * sw:j * sw + kw].sum() for j in range(out_hw[1])]
                       for i in range(out_hw[0])])
    scale = (window[0] * window[1]) / np.maximum(counts, 1)
    y = binary(e, OP.MUL, y, e.constant(scale.reshape(1, *out_hw, 1), data_type))
    return e.transpose(y, NHWC_TO_NCHW) if nchw else y


def _pool_options(padding: int, strides, window):
    options = schema.Pool2DOptionsT()
    options.padding = padding
    options.strideH, options.strideW = strides
    options.filterHeight, options.filterWidth = window
    return options


def nearest_indices(input_size: int, output_size: int) -> np.ndarray:
    """WebNN's nearest-neighbor source index per output index: the half-pixel
    coordinate (o + 0.5) * in / out - 0.5, clamped to the input, rounded
    with ties to the smaller index."""
    coordinate = np.clip((np.arange(output_size) + 0.5) * (input_size / output_size) - 0.5, 0, input_size - 1)
    return np.ceil(coordinate - 0.5).astype(np.int32)


def _nearest(e: Emitter, c: Call, axes) -> int:
    """One GATHER per axis with constant indices: TFLite's
    RESIZE_NEAREST_NEIGHBOR picks other source pixels than WebNN's rounding."""
    y = c["input"]
    for axis in axes:
        shape = list(e.desc(y).shape)
        indices = nearest_indices(shape[axis], c.out.shape[axis])
        shape[axis] = c.out.shape[axis]
        options = schema.GatherOptionsT()
        options.axis = axis
        y = e.op(OP.GATHER, [y, e.constant(indices, "int32")], e.like(y, shape=shape), options)
    return y


def resample2d(e: Emitter, c: Call) -> int:
    """linear: RESIZE_BILINEAR with half-pixel centers on the NHWC axes
    [1, 2] (other axes transposed there and back); nearest: ``_nearest``."""
    refuse_quantized(c, "input")
    axes = sorted(c.attr("axes"))
    mode = c.attr("mode")
    if mode != "linear":
        return _nearest(e, c, axes)
    perm = [a for a in range(4) if a not in axes]
    perm = [perm[0], *axes, perm[1]]
    x = e.transpose(c["input"], perm)
    out_shape = [c.out.shape[a] for a in perm]
    options = schema.ResizeBilinearOptionsT()
    options.alignCorners, options.halfPixelCenters = False, True
    y = e.op(OP.RESIZE_BILINEAR, [x, e.i32(out_shape[1:3])], e.like(x, shape=out_shape), options)
    return e.transpose(y, [perm.index(a) for a in range(4)])


LOWER = {
    "averagePool2d": _pool(OP.AVERAGE_POOL_2D),
    "l2Pool2d": _pool(OP.L2_POOL_2D),
    "maxPool2d": _pool(OP.MAX_POOL_2D),
    "resample2d": resample2d,
}
EMULATED = {
    "maxPool2d": "padding other than SAME/VALID (or ceil rounding): PADV2 with the lowest value, then VALID",
    "averagePool2d": "padding other than SAME/VALID (or ceil rounding): AVERAGE_POOL_2D of the input padded with "
    "zeros, MUL by a constant area / (input elements in the window) per output position",
    "l2Pool2d": "L2_POOL_2D (a root mean square) on the input padded with zeros (PADV2), MUL by sqrt(window area)",
    "resample2d": "nearest-neighbor: one GATHER per axis with WebNN's source indices as constants; linear on axes "
    "other than NHWC's [1, 2]: TRANSPOSE there and back",
}
