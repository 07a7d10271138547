"""conv2d and convTranspose2d.

TFLite convolutions are NHWC with OHWI filters (CONV_2D, TRANSPOSE_CONV)
or 1HWO (DEPTHWISE_CONV_2D); other layouts get a TRANSPOSE (folded into a
constant filter at build time). CONV_2D needs a bias: zeros when WebNN has
none. TFLite pads only SAME or VALID: any other padding is an explicit PAD
first, as in Chromium.
"""
from __future__ import annotations

import numpy as np
from ai_edge_litert import schema_py_generated as schema

from webnn_harness.backends.litert.emitter import OP, Call, Emitter
from webnn_harness.backends.litert.lower.elementwise import binary, refuse_quantized
from webnn_harness.spec.graph import TensorDesc

NCHW_TO_NHWC = (0, 2, 3, 1)
NHWC_TO_NCHW = (0, 3, 1, 2)
CONV_FILTER_TO_OHWI = {"oihw": (0, 2, 3, 1), "hwio": (3, 0, 1, 2), "ohwi": (0, 1, 2, 3), "ihwo": (3, 1, 2, 0)}
CONV_TRANSPOSE_FILTER_TO_OHWI = {"iohw": (1, 2, 3, 0), "hwoi": (2, 0, 1, 3), "ohwi": (0, 1, 2, 3)}
P = schema.Padding


def same_padding(in_hw, kernel_hw, strides, dilations) -> list[int]:
    """TFLite's SAME padding [top, bottom, left, right] (out = ceil(in / stride))."""
    pads = []
    for n, k, s, d in zip(in_hw, kernel_hw, strides, dilations):
        out = -(-n // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
        pads += [total // 2, total - total // 2]
    return pads


def tflite_padding(e: Emitter, x: int, padding, in_hw, kernel_hw, strides, dilations, value=0):
    """(x, TFLite padding): SAME or VALID when WebNN's padding is one of them,
    else x padded explicitly with ``value`` and VALID."""
    padding = list(padding)
    if not any(padding):
        return x, P.VALID
    if padding == same_padding(in_hw, kernel_hw, strides, dilations):
        return x, P.SAME
    return pad_hw(e, x, padding, value), P.VALID


def pad_hw(e: Emitter, x: int, padding, value=0) -> int:
    """NHWC ``x`` padded on H and W by [top, bottom, left, right] with ``value``."""
    top, bottom, left, right = padding
    n, h, w, ch = e.desc(x).shape
    pads = e.const([[0, 0], [top, bottom], [left, right], [0, 0]], "int32", (4, 2))
    data_type = e.desc(x).data_type
    padded = (n, h + top + bottom, w + left + right, ch)
    return e.op(OP.PADV2, [x, pads, e.scalar(value, data_type)], e.like(x, shape=padded))


def _nhwc(e: Emitter, c: Call, key: str = "inputLayout") -> tuple[int, bool]:
    nchw = c.attr(key) == "nchw"
    return (e.transpose(c["input"], NCHW_TO_NHWC) if nchw else c["input"]), nchw


def _back(e: Emitter, y: int, nchw: bool) -> int:
    return e.transpose(y, NHWC_TO_NCHW) if nchw else y


def _bias(e: Emitter, c: Call, channels: int, data_type: str) -> int:
    return c["bias"] if c.has("bias") else e.constant([0] * channels, data_type)


def conv2d(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    x, nchw = _nhwc(e, c)
    data_type = c.desc("input").data_type
    w = e.transpose(c["filter"], CONV_FILTER_TO_OHWI[c.attr("filterLayout")])
    out_ch, kh, kw, in_per_group = e.desc(w).shape
    n, h, wd, in_ch = e.desc(x).shape
    groups = int(c.attr("groups"))
    strides, dilations = list(c.attr("strides")), list(c.attr("dilations"))
    x, padding = tflite_padding(e, x, c.attr("padding"), (h, wd), (kh, kw), strides, dilations)
    out_shape = (c.out.shape[0], *(c.out.shape[2:4] if nchw else c.out.shape[1:3]), out_ch)
    bias = _bias(e, c, out_ch, data_type)
    if groups > 1 and groups == in_ch and in_per_group == 1:
        options = schema.DepthwiseConv2DOptionsT()
        options.depthMultiplier = out_ch // in_ch
        code, w = OP.DEPTHWISE_CONV_2D, e.transpose(w, (3, 1, 2, 0))  # OHWI with I = 1 -> 1HWO
    else:
        options, code = schema.Conv2DOptionsT(), OP.CONV_2D
    options.padding = padding
    options.strideH, options.strideW = strides
    options.dilationHFactor, options.dilationWFactor = dilations
    y = e.op(code, [x, w, bias], TensorDesc(out_shape, data_type), options)
    return _back(e, y, nchw)


def _dilated_filter(e: Emitter, w: int, dilations) -> int:
    """An OHWI filter with (dilation - 1) zeros between its taps: the same
    transposed convolution without dilation (TFLite's TRANSPOSE_CONV has
    none). A constant filter is dilated here; another one in the graph."""
    if list(dilations) == [1, 1]:
        return w
    if w in e.values:
        values = e.values[w]
        o, kh, kw, i = values.shape
        dh, dw = dilations
        dilated = np.zeros((o, (kh - 1) * dh + 1, (kw - 1) * dw + 1, i), values.dtype)
        dilated[:, ::dh, ::dw, :] = values
        return e.constant(dilated, e.desc(w).data_type)
    for axis, d in zip((1, 2), dilations):
        w = _zeros_between(e, w, axis, d)
    return w


def _zeros_between(e: Emitter, x: int, axis: int, d: int) -> int:
    """``x`` with d - 1 zeros after every element but the last along ``axis``:
    RESHAPE to [before, k, 1, after], PADV2 the unit axis to d, RESHAPE, SLICE."""
    if d == 1:
        return x
    shape = list(e.desc(x).shape)
    before, k, after = int(np.prod(shape[:axis])), shape[axis], int(np.prod(shape[axis + 1:]))
    y = e.reshape(x, (before, k, 1, after))
    pads = e.const([[0, 0], [0, 0], [0, d - 1], [0, 0]], "int32", (4, 2))
    y = e.op(OP.PADV2, [y, pads, e.scalar(0, e.desc(x).data_type)], e.like(y, shape=(before, k, d, after)))
    size = (k - 1) * d + 1
    y = e.reshape(y, (before, k * d, after))
    y = e.op(OP.SLICE, [y, e.i32([0, 0, 0]), e.i32([before, size, after])], e.like(y, shape=(before, size, after)))
    return e.reshape(y, shape[:axis] + [size] + shape[axis + 1:])


def _split_channels(e: Emitter, x: int, groups: int) -> list[int]:
    """``x`` cut into ``groups`` equal parts along its last axis."""
    if groups == 1:
        return [x]
    shape = e.desc(x).shape
    part = shape[-1] // groups
    size = [*shape[:-1], part]
    return [e.op(OP.SLICE, [x, e.i32([0] * (len(shape) - 1) + [g * part]), e.i32(size)], e.like(x, shape=size))
            if x not in e.values else e.constant(e.values[x][..., g * part:(g + 1) * part], e.desc(x).data_type)
            for g in range(groups)]


def conv_transpose2d(e: Emitter, c: Call) -> int:
    """TRANSPOSE_CONV with VALID padding gives the full output
    ((in - 1) * stride + kernel); WebNN's padding crops it (SLICE) and
    its output padding extends it (PADV2 with zeros), the bias added last.
    TFLite's TRANSPOSE_CONV has no dilation (a constant filter is dilated
    with zeros) and no groups (one TRANSPOSE_CONV per group, CONCATENATION)."""
    refuse_quantized(c, "input")
    x, nchw = _nhwc(e, c)
    data_type = c.desc("input").data_type
    w = e.transpose(c["filter"], CONV_TRANSPOSE_FILTER_TO_OHWI[c.attr("filterLayout")])
    w = _dilated_filter(e, w, c.attr("dilations"))
    group_ch, kh, kw, _ = e.desc(w).shape
    groups = int(c.attr("groups"))
    out_ch = group_ch * groups
    n, h, wd, _ = e.desc(x).shape
    strides = list(c.attr("strides"))
    top, bottom, left, right = c.attr("padding")
    full = (n, (h - 1) * strides[0] + kh, (wd - 1) * strides[1] + kw, out_ch)
    per_group = (*full[:3], group_ch)
    options = schema.TransposeConvOptionsT()
    options.padding = P.VALID
    options.strideH, options.strideW = strides
    parts = [e.op(OP.TRANSPOSE_CONV, [e.i32(per_group), w_g, x_g], TensorDesc(per_group, data_type), options)
             for x_g, w_g in zip(_split_channels(e, x, groups), _split_channels(e, w, groups))]
    if groups == 1:
        y = parts[0]
    else:
        concat = schema.ConcatenationOptionsT()
        concat.axis = 3
        y = e.op(OP.CONCATENATION, parts, TensorDesc(full, data_type), concat)
    out_h, out_w = c.out.shape[2:4] if nchw else c.out.shape[1:3]
    keep_h, keep_w = min(out_h, full[1] - top), min(out_w, full[2] - left)
    if (top, left, keep_h, keep_w) != (0, 0, full[1], full[2]):
        y = e.op(OP.SLICE, [y, e.i32([0, top, left, 0]), e.i32([n, keep_h, keep_w, out_ch])],
                 TensorDesc((n, keep_h, keep_w, out_ch), data_type))
    if (keep_h, keep_w) != (out_h, out_w):
        y = pad_hw(e, y, [0, out_h - keep_h, 0, out_w - keep_w])
    if c.has("bias"):
        y = binary(e, OP.ADD, y, c["bias"])
    return _back(e, y, nchw)


LOWER = {"conv2d": conv2d, "convTranspose2d": conv_transpose2d}
EMULATED = {
    "convTranspose2d": "TRANSPOSE_CONV (VALID, full size), SLICE for the padding, PADV2 for output padding, "
    "ADD of the bias; groups: one TRANSPOSE_CONV per group, CONCATENATION; dilations: the filter dilated "
    "with zeros (at build time when constant, else RESHAPE/PADV2/SLICE)",
}
