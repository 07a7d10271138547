"""averagePool2d, l2Pool2d, maxPool2d and resample2d.

TFLite pools NHWC with SAME or VALID padding and no dilation. Other
padding (or ceil rounding's extra end window) is explicit PADV2 for a max
(with the lowest value) and an L2 pool (zeros), and refused for an average,
whose padded elements must not be counted. Chromium refuses l2Pool2d; TFLite
has L2_POOL_2D, mapped here.
"""
from __future__ import annotations

from ai_edge_litert import schema_py_generated as schema

from webnn_harness.backends.litert.emitter import OP, Call, Emitter, Unlowerable
from webnn_harness.backends.litert.lower.convolution import NCHW_TO_NHWC, NHWC_TO_NCHW, P, pad_hw, same_padding
from webnn_harness.backends.litert.lower.elementwise import refuse_quantized
from webnn_harness.spec.dtypes import integer_range, is_float
from webnn_harness.spec.graph import TensorDesc


def _pool(code: int):
    def lower(e: Emitter, c: Call) -> int:
        refuse_quantized(c, "input")
        if list(c.attr("dilations", [1, 1])) != [1, 1]:
            raise Unlowerable(f"{c.node.op} with dilations: LiteRT's pools have none")
        nchw = c.attr("layout", "nchw") == "nchw"
        x = e.transpose(c["input"], NCHW_TO_NHWC) if nchw else c["input"]
        n, h, w, ch = e.desc(x).shape
        data_type = e.desc(x).data_type
        out_hw = tuple(c.out.shape[2:4] if nchw else c.out.shape[1:3])
        window = list(c.attr("windowDimensions", [h, w]))
        padding = list(c.attr("padding", [0, 0, 0, 0]))
        strides = list(c.attr("strides", [1, 1]))
        # The create steps fixed the output size (floor, ceil or outputSizes):
        # a larger one than the padding gives is extra end padding.
        for i, size in enumerate((h, w)):
            needed = (out_hw[i] - 1) * strides[i] + window[i] - (size + padding[2 * i] + padding[2 * i + 1])
            if needed > 0:
                padding[2 * i + 1] += needed
        if not any(padding):
            mode = P.VALID
        elif padding == same_padding((h, w), window, strides, (1, 1)):
            mode = P.SAME
        elif code == OP.AVERAGE_POOL_2D:
            raise Unlowerable("averagePool2d with padding other than SAME or VALID: LiteRT pads only those, and "
                              "explicit padding would count in the average")
        else:
            value = 0 if code == OP.L2_POOL_2D else (
                float("-inf") if is_float(data_type) else integer_range(data_type)[0])
            x, mode = pad_hw(e, x, padding, value), P.VALID
        options = schema.Pool2DOptionsT()
        options.padding = mode
        options.strideH, options.strideW = strides
        options.filterHeight, options.filterWidth = window
        y = e.op(code, [x], TensorDesc((n, *out_hw, ch), data_type), options)
        return e.transpose(y, NHWC_TO_NCHW) if nchw else y

    return lower


def resample2d(e: Emitter, c: Call) -> int:
    """RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR with half-pixel centers on
    the NHWC axes [1, 2]; other axes are transposed there and back."""
    refuse_quantized(c, "input")
    axes = sorted(c.attr("axes", [2, 3]))
    perm = [a for a in range(4) if a not in axes]
    perm = [perm[0], *axes, perm[1]]
    x = e.transpose(c["input"], perm)
    out_shape = [c.out.shape[a] for a in perm]
    mode = c.attr("mode", "nearest-neighbor")
    if mode == "linear":
        options, code = schema.ResizeBilinearOptionsT(), OP.RESIZE_BILINEAR
    else:
        options, code = schema.ResizeNearestNeighborOptionsT(), OP.RESIZE_NEAREST_NEIGHBOR
    options.alignCorners, options.halfPixelCenters = False, True
    y = e.op(code, [x, e.i32(out_shape[1:3])], e.like(x, shape=out_shape), options)
    return e.transpose(y, [perm.index(a) for a in range(4)])


LOWER = {
    "averagePool2d": _pool(OP.AVERAGE_POOL_2D),
    "l2Pool2d": _pool(OP.L2_POOL_2D),
    "maxPool2d": _pool(OP.MAX_POOL_2D),
    "resample2d": resample2d,
}
EMULATED = {
    "maxPool2d": "padding other than SAME/VALID (or ceil rounding): PADV2 with the lowest value, then VALID",
    "l2Pool2d": "padding other than SAME/VALID: PADV2 with zeros, then VALID",
    "resample2d": "axes other than NHWC's [1, 2]: TRANSPOSE there and back",
}
