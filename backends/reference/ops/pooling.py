"""Reference (float64 numpy) implementations of the pooling operators and resample2d.

Pooling: each output element reduces the (dilated, strided) window over the
input padded as options.padding says, plus, where "ceil" rounding or a ceil
outputSizes asks for a last window that runs past the padded input, the
extra rows/columns it needs. No padding element takes part in any reduction
(the spec pads only to place windows; it never gives padding a value):
- averagePool2d: the mean of the window's input elements, padding excluded
  (ONNX AveragePool count_include_pad=0; webnn-baseline pool2d "Skip the
  padding values"). A window holding only padding has no mean: that element
  is implementation-defined.
- l2Pool2d: sqrt(sum of squares) of the window's input elements, no division
  (spec #api-mlgraphbuilder-pool2d-l2: "the square root of the sum of the
  squares of its elements"; = ONNX LpPool p=2). An all-padding window gives 0.
- maxPool2d: the maximum of the window's input elements. The spec says
  nothing about NaN, so a window holding a NaN is implementation-defined
  (backends differ: NaN-propagating max vs IEEE maxNum); an all-padding
  window likewise. Integer inputs stay exact in their own dtype.
"""
from __future__ import annotations

import numpy as np

from webnn_harness.backends.reference.ops.base import ImplementationDefined
from webnn_harness.backends.reference.ops.convolution import dilated_windows, from_nchw, to_nchw
from webnn_harness.spec.opspec.pooling import pool2d_output_sizes, resample2d_output_sizes


def _pool_windows(input, windowDimensions, padding, strides, dilations, layout, outputShapeRounding, outputSizes,
                  op: str, fill):
    """(windows, valid): the nchw windows of the padded input, shape
    (N, C, outH, outW, windowH, windowW), and a mask of which window
    elements are input elements (not padding)."""
    x = to_nchw(input, layout)
    n, c, h, w = x.shape
    attrs = {"windowDimensions": windowDimensions, "padding": padding, "strides": strides, "dilations": dilations,
             "outputShapeRounding": outputShapeRounding, "outputSizes": outputSizes}
    out_h, out_w = pool2d_output_sizes(op, h, w, attrs)
    begin_h, _, begin_w, _ = padding
    # Pad enough at the end for the last window, whatever the rounding.
    need_h = (out_h - 1) * strides[0] + (windowDimensions[0] - 1) * dilations[0] + 1
    need_w = (out_w - 1) * strides[1] + (windowDimensions[1] - 1) * dilations[1] + 1
    end_h = max(need_h - begin_h - h, 0)
    end_w = max(need_w - begin_w - w, 0)
    widths = ((0, 0), (0, 0), (begin_h, end_h), (begin_w, end_w))
    padded = np.pad(x, widths, constant_values=fill)
    valid = np.pad(np.ones((1, 1, h, w), bool), widths, constant_values=False)
    window = tuple(windowDimensions)
    return (dilated_windows(padded, window, strides, dilations, (out_h, out_w)),
            dilated_windows(valid, window, strides, dilations, (out_h, out_w)))


def _flat(windows: np.ndarray) -> np.ndarray:
    return windows.reshape(windows.shape[:4] + (-1,))


def averagePool2d(input, layout, **options):
    windows, valid = _pool_windows(input, layout=layout, op="averagePool2d", fill=0.0, **options)
    count = _flat(valid).sum(axis=-1)
    total = _flat(windows).sum(axis=-1)  # padding is 0.0: adds nothing
    mean = total / np.maximum(count, 1).astype(total.dtype)  # an int64 count would promote float32 to float64
    empty = count == 0
    out = from_nchw(np.where(empty, np.nan, mean), layout)
    if empty.any():
        return ImplementationDefined(out, from_nchw(np.broadcast_to(empty, mean.shape), layout),
                                     "averagePool2d: a window holding only padding has no input elements to "
                                     "average; the spec does not define the result")
    return out


def l2Pool2d(input, layout, **options):
    windows, _ = _pool_windows(input, layout=layout, op="l2Pool2d", fill=0.0, **options)
    return from_nchw(np.sqrt(np.sum(np.square(_flat(windows)), axis=-1)), layout)


def _lowest(dtype: np.dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def maxPool2d(input, layout, **options):
    windows, valid = _pool_windows(input, layout=layout, op="maxPool2d", fill=_lowest(input.dtype), **options)
    values = _flat(windows)
    out = values.max(axis=-1)  # NaN-propagating for floats; exact for integers
    empty = ~_flat(valid).any(axis=-1)
    # A NaN alone in its window is NaN by any rule; beside other elements
    # (padding included) it may win or lose depending on the backend's max.
    has_nan = np.isnan(values).any(axis=-1) if values.dtype.kind == "f" else np.zeros_like(empty)
    has_nan &= values.shape[-1] > 1
    reasons = [text for flag, text in ((empty, "a window holding only padding has no input elements"),
                                       (has_nan, "the spec does not say whether max propagates NaN"))
               if flag.any()]
    if reasons:
        undefined = np.broadcast_to(empty | has_nan, out.shape)
        return ImplementationDefined(from_nchw(out, layout), from_nchw(undefined, layout),
                                     "maxPool2d: " + "; ".join(reasons))
    return from_nchw(out, layout)


# --- resample2d ---------------------------------------------------------------
# Spec #api-mlgraphbuilder-resample2d-method, "mode": for each resampled axis
#   scale = outputSize / inputSize
#   inputCoordinate = clamp((outputCoordinate + 0.5) / scale - 0.5, 0, inputSize - 1)
# nearest-neighbor: index = ceil(inputCoordinate - 0.5) (ties pick the smaller
# index = ONNX nearest_mode "round_prefer_floor"); linear: bilinear between
# floor and ceil of the coordinate.
# WebNN differs from ONNX Resize here: the scale is always outputSize /
# inputSize, even when `scales` gave the size (ONNX and webnn-baseline use the
# given scale: input 3, scale 1.5 -> 4 outputs sample with 4/3 in WebNN, 1.5
# in ONNX; WPT resample2d-nearest-half-pixel "noninteger upscaling with scales"
# expects WebNN's). The coordinate is the ONNX "half_pixel" transformation,
# clamped to the input (ONNX clamps too for these modes, but extrapolates
# nothing only because of that clamp).


def _source_coordinates(input_size: int, output_size: int) -> np.ndarray:
    scale = output_size / input_size
    coords = (np.arange(output_size, dtype=np.float64) + 0.5) / scale - 0.5
    return np.clip(coords, 0, input_size - 1)


def _nearest_along(x: np.ndarray, axis: int, output_size: int) -> np.ndarray:
    coords = _source_coordinates(x.shape[axis], output_size)
    return np.take(x, np.ceil(coords - 0.5).astype(np.intp), axis=axis)


def _linear_along(x: np.ndarray, axis: int, output_size: int) -> np.ndarray:
    coords = _source_coordinates(x.shape[axis], output_size)
    low, high = np.floor(coords).astype(np.intp), np.ceil(coords).astype(np.intp)
    t = coords - low
    shape = [1] * x.ndim
    shape[axis] = output_size
    t = t.reshape(shape)
    # The spec's formula v0 * (1 - t) + v1 * t, kept as written.
    return np.take(x, low, axis=axis) * (1 - t) + np.take(x, high, axis=axis) * t


def resample2d(input, mode, scales, sizes, axes):
    sizes_out = resample2d_output_sizes(input.shape, scales, sizes, axes)
    if mode == "nearest-neighbor":
        out = input
        for axis, size in zip(axes, sizes_out):
            out = _nearest_along(out, axis, size)
        return out
    # linear: "x" interpolation first (second axis), then "y" (first axis),
    # as the spec computes vy0 / vy1 before the final blend.
    out = input.astype(np.float64)
    for axis, size in zip(reversed(axes), reversed(sizes_out)):
        out = _linear_along(out, axis, size)
    if input.dtype.kind in "iu":
        # The spec does not say how an integer output rounds a blend that
        # falls between integers; only exact results are defined.
        rounded = np.rint(out)  # a blend stays within the inputs' range: the cast is exact
        return ImplementationDefined(rounded.astype(input.dtype), rounded != out,
                                     "resample2d linear on an integer type: the spec does not define how "
                                     "non-integral interpolated values round")
    return out


OPS = {
    "averagePool2d": averagePool2d,
    "l2Pool2d": l2Pool2d,
    "maxPool2d": maxPool2d,
    "resample2d": resample2d,
}
