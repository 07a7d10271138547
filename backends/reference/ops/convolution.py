"""Reference (float64 numpy) implementations of the convolution operators.

Both ops work in one canonical layout (input nchw; conv2d filter oihw,
convTranspose2d filter iohw); the layout helpers here are the only place
that permutes axes, and the pooling ops use them too.

conv2d: every output element is
    bias[o] + sum over c in o's group, kh, kw of
        paddedInput[n, c, y*strideH + kh*dilationH, x*strideW + kw*dilationW] * filter[o, c', kh, kw]
with zero padding (spec conv2d options "padding": rows and columns added).
convTranspose2d is its transpose (gradient): every input element scatters
input[n, i, y, x] * filter[i, o', kh, kw] onto the full output at
(y*strideH + kh*dilationH, x*strideW + kw*dilationW), and the result is the
full output cropped by padding (beginning) and extended with zeros where
outputPadding / outputSizes ask for more rows or columns than it has.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from webnn_harness.spec.opspec.convolution import conv_transpose2d_output_sizes


def permute_layout(x: np.ndarray, source: str, target: str) -> np.ndarray:
    """Transpose a 4-D tensor from one layout string to another ('nhwc' -> 'nchw',
    'hwio' -> 'oihw'); every layout conversion of the reference goes through here."""
    return np.transpose(x, [source.index(letter) for letter in target])


def to_nchw(x: np.ndarray, layout: str) -> np.ndarray:
    return permute_layout(x, layout, "nchw")


def from_nchw(x: np.ndarray, layout: str) -> np.ndarray:
    return permute_layout(x, "nchw", layout)


def dilated_windows(x: np.ndarray, window: tuple[int, int], strides, dilations, out_size: tuple[int, int]) -> np.ndarray:
    """(N, C, H, W) -> (N, C, outH, outW, windowH, windowW): the (dilated,
    strided) windows of an already padded nchw tensor, as a view."""
    eff_h = (window[0] - 1) * dilations[0] + 1
    eff_w = (window[1] - 1) * dilations[1] + 1
    view = sliding_window_view(x, (eff_h, eff_w), axis=(2, 3))
    view = view[:, :, ::strides[0], ::strides[1], ::dilations[0], ::dilations[1]]
    return view[:, :, : out_size[0], : out_size[1]]


def conv2d(input, filter, padding, strides, dilations, groups, inputLayout, filterLayout, bias=None):
    x = to_nchw(input, inputLayout)
    w = permute_layout(filter, filterLayout, "oihw")
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    begin_h, end_h, begin_w, end_w = padding
    x = np.pad(x, ((0, 0), (0, 0), (begin_h, end_h), (begin_w, end_w)))
    out_h = (x.shape[2] - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    out_w = (x.shape[3] - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    windows = dilated_windows(x, (kh, kw), strides, dilations, (out_h, out_w))
    windows = windows.reshape(n, groups, cg, out_h, out_w, kh, kw)
    w = w.reshape(groups, o // groups, cg, kh, kw)
    out = np.einsum("ngcyxhw,gochw->ngoyx", windows, w, optimize=True).reshape(n, o, out_h, out_w)
    if bias is not None:
        out = out + bias.reshape(1, o, 1, 1)
    return from_nchw(out, inputLayout)


def convTranspose2d(input, filter, padding, strides, dilations, outputPadding, outputSizes, groups, inputLayout,
                    filterLayout, bias=None):
    x = to_nchw(input, inputLayout)
    w = permute_layout(filter, filterLayout, "iohw")
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    o = og * groups
    attrs = {"padding": padding, "strides": strides, "dilations": dilations, "outputPadding": outputPadding,
             "outputSizes": outputSizes}
    out_h, out_w = conv_transpose2d_output_sizes(h, wd, kh, kw, attrs)
    full_h = (h - 1) * strides[0] + (kh - 1) * dilations[0] + 1
    full_w = (wd - 1) * strides[1] + (kw - 1) * dilations[1] + 1
    # Room for the crop window [begin, begin + out) even where it runs past
    # the full output (outputPadding / outputSizes): those rows stay zero.
    full = np.zeros((n, o, max(full_h, padding[0] + out_h), max(full_w, padding[2] + out_w)), x.dtype)
    xg = x.reshape(n, groups, c // groups, h, wd)
    wg = w.reshape(groups, c // groups, og, kh, kw)
    for i in range(kh):
        for j in range(kw):
            contribution = np.einsum("ngcyx,gco->ngoyx", xg, wg[..., i, j], optimize=True)
            rows = slice(i * dilations[0], i * dilations[0] + (h - 1) * strides[0] + 1, strides[0])
            cols = slice(j * dilations[1], j * dilations[1] + (wd - 1) * strides[1] + 1, strides[1])
            full[:, :, rows, cols] += contribution.reshape(n, o, h, wd)
    out = full[:, :, padding[0]: padding[0] + out_h, padding[2]: padding[2] + out_w]
    if bias is not None:
        out = out + bias.reshape(1, o, 1, 1)
    return from_nchw(out, inputLayout)


OPS = {"conv2d": conv2d, "convTranspose2d": convTranspose2d}
