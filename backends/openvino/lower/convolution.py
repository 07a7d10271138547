"""conv2d and convTranspose2d: OpenVINO (Group)Convolution and
(Group)ConvolutionBackpropData work in NCHW with OIHW / IOHW filters, so
other WebNN layouts are transposed in and out."""
from __future__ import annotations

import openvino.opset16 as ops

from webnn_harness.backends.lowering import Call
from webnn_harness.backends.openvino.lower.base import along_axis, output, reshape, shape, transpose

NHWC_TO_NCHW = (0, 3, 1, 2)
NCHW_TO_NHWC = (0, 2, 3, 1)

# Permutations from each WebNN filter layout to OpenVINO's.
CONV_FILTER_TO_OIHW = {"oihw": None, "hwio": (3, 2, 0, 1), "ohwi": (0, 3, 1, 2), "ihwo": (3, 0, 1, 2)}
CONV_TRANSPOSE_FILTER_TO_IOHW = {"iohw": None, "hwoi": (3, 2, 0, 1), "ohwi": (3, 0, 1, 2)}


def _pads(padding):
    # WebNN padding: [beginningHeight, endingHeight, beginningWidth, endingWidth].
    top, bottom, left, right = padding
    return [top, left], [bottom, right]


def _to_nchw(input, layout):
    return transpose(input, NHWC_TO_NCHW) if layout == "nhwc" else output(input)


def _from_nchw(result, layout, bias):
    if bias is not None:
        result = ops.add(result, along_axis(bias, 1, 4))
    return transpose(result, NCHW_TO_NHWC) if layout == "nhwc" else output(result)


def _nchw_operands(c: Call, filter_perms):
    """(input in nchw, filter in OpenVINO's order via ``filter_perms``, pads begin, pads end): what conv2d
    and convTranspose2d both start from."""
    x = _to_nchw(c["input"], c.attr("inputLayout"))
    perm = filter_perms[c.attr("filterLayout")]
    w = transpose(c["filter"], perm) if perm else output(c["filter"])
    return (x, w, *_pads(c.attr("padding")))


def conv2d(e, c: Call):
    strides, dilations, groups = c.attr("strides"), c.attr("dilations"), c.attr("groups")
    layout = c.attr("inputLayout")
    x, w, begin, end = _nchw_operands(c, CONV_FILTER_TO_OIHW)
    if groups == 1:
        result = ops.convolution(x, w, strides, begin, end, dilations)
    else:
        o, i, kh, kw = shape(w)
        w = reshape(w, [groups, o // groups, i, kh, kw])
        result = ops.group_convolution(x, w, strides, begin, end, dilations)
    return _from_nchw(result, layout, c.get("bias"))


def conv_transpose2d(e, c: Call):
    strides, dilations, groups = c.attr("strides"), c.attr("dilations"), c.attr("groups")
    layout = c.attr("inputLayout")
    x, w, begin, end = _nchw_operands(c, CONV_TRANSPOSE_FILTER_TO_IOHW)
    i, o_per_group, kh, kw = shape(w)
    # The output size comes from the create steps (outputSizes when given);
    # OpenVINO gets it as the output padding that yields it, so the explicit
    # pads keep their meaning (an output_shape input would re-derive pads).
    in_h, in_w = shape(x)[2:]
    wanted = c.out.shape[1:3] if layout == "nhwc" else c.out.shape[2:4]
    extra = []
    for axis, (size, k) in enumerate(zip((in_h, in_w), (kh, kw))):
        base = (size - 1) * strides[axis] + (k - 1) * dilations[axis] + 1 - begin[axis] - end[axis]
        extra.append(wanted[axis] - base)
    if groups == 1:
        result = ops.convolution_backprop_data(x, w, strides, None, begin, end, dilations, "explicit", extra)
    else:
        w = reshape(w, [groups, i // groups, o_per_group, kh, kw])
        result = ops.group_convolution_backprop_data(x, w, strides, None, begin, end, dilations, "explicit", extra)
    return _from_nchw(result, layout, c.get("bias"))


LOWER = {"conv2d": conv2d, "convTranspose2d": conv_transpose2d}
EMULATED = {}
LAYOUT_NOTES = {
    "conv2d": "nhwc input and hwio/ohwi/ihwo filters are transposed to NCHW/OIHW; bias added after",
    "convTranspose2d": "nhwc input and hwoi/ohwi filters are transposed to NCHW/IOHW; outputSizes as output_padding",
}
