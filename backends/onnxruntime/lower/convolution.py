"""conv2d and convTranspose2d.

ONNX convolutions are NCHW with OIHW (Conv) or IOHW (ConvTranspose) weights;
other WebNN layouts get a Transpose around or before the op (ORT folds the
filter transpose when the filter is a constant). WebNN padding is
[top, bottom, left, right]; ONNX pads are [top, left, bottom, right].
"""
from __future__ import annotations

from webnn_harness.backends.onnxruntime.emitter import Call, Emitter

NHWC_TO_NCHW = (0, 3, 1, 2)
NCHW_TO_NHWC = (0, 2, 3, 1)

# filter layout -> permutation to ONNX's weight layout
CONV_FILTER_TO_OIHW = {"oihw": (0, 1, 2, 3), "hwio": (3, 2, 0, 1), "ohwi": (0, 3, 1, 2), "ihwo": (3, 0, 1, 2)}
CONV_TRANSPOSE_FILTER_TO_IOHW = {"iohw": (0, 1, 2, 3), "hwoi": (3, 2, 0, 1), "ohwi": (3, 0, 1, 2)}


def onnx_pads(padding) -> list[int]:
    top, bottom, left, right = padding
    return [top, left, bottom, right]


def _spatial(c: Call):
    padding = c.attr("padding")
    strides = c.attr("strides")
    dilations = c.attr("dilations")
    return list(padding), list(strides), list(dilations)


def conv2d(e: Emitter, c: Call) -> str:
    nhwc = c.attr("inputLayout") == "nhwc"
    x = e.transpose(c["input"], NHWC_TO_NCHW) if nhwc else c["input"]
    w = e.transpose(c["filter"], CONV_FILTER_TO_OIHW[c.attr("filterLayout")])
    padding, strides, dilations = _spatial(c)
    inputs = [x, w] + ([c["bias"]] if c.has("bias") else [])
    y = e.op("Conv", inputs, pads=onnx_pads(padding), strides=strides, dilations=dilations,
             group=int(c.attr("groups")))
    return e.transpose(y, NCHW_TO_NHWC) if nhwc else y


def conv_transpose2d(e: Emitter, c: Call) -> str:
    nhwc = c.attr("inputLayout") == "nhwc"
    x = e.transpose(c["input"], NHWC_TO_NCHW) if nhwc else c["input"]
    layout = c.attr("filterLayout")
    perm = CONV_TRANSPOSE_FILTER_TO_IOHW[layout]
    w = e.transpose(c["filter"], perm)
    padding, strides, dilations = _spatial(c)
    in_desc, filter_shape = c.desc("input"), c.desc("filter").shape
    in_hw = in_desc.shape[1:3] if nhwc else in_desc.shape[2:4]
    kernel_hw = [filter_shape[perm[2]], filter_shape[perm[3]]]
    out_hw = c.out.shape[1:3] if nhwc else c.out.shape[2:4]
    # The output size the create steps resolved (from outputSizes or
    # outputPadding) fixes ONNX's output_padding: out = stride*(in-1) +
    # output_padding + (k-1)*dilation + 1 - pad_begin - pad_end.
    output_padding = [
        out_hw[i] - (strides[i] * (in_hw[i] - 1) + (kernel_hw[i] - 1) * dilations[i] + 1
                     - padding[2 * i] - padding[2 * i + 1])
        for i in range(2)
    ]
    inputs = [x, w] + ([c["bias"]] if c.has("bias") else [])
    y = e.op("ConvTranspose", inputs, pads=onnx_pads(padding), strides=strides, dilations=dilations,
             group=int(c.attr("groups")), output_padding=output_padding, kernel_shape=kernel_hw)
    return e.transpose(y, NCHW_TO_NHWC) if nhwc else y


LOWER = {"conv2d": conv2d, "convTranspose2d": conv_transpose2d}
EMULATED: dict[str, str] = {}
