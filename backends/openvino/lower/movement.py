"""Data movement: concat, expand, gather*, scatter*, pad, reshape, reverse,
slice, split, tile, transpose, triangular."""
from __future__ import annotations

import numpy as np
import openvino.opset16 as ops

from backends.openvino.lower.base import const, convert, data_type, i64, output, reshape, shape


def concat(out, inputs, axis):
    return output(ops.concat(list(inputs), axis))


def expand(out, input, newShape):
    return output(ops.broadcast(input, i64(list(out[0].shape)), None, "NUMPY"))


def _indices(indices):
    # OpenVINO gathers and scatters take i32/i64 indices; uint32 values up to
    # 2^32 - 1 fit int64 exactly.
    return convert(indices, "int64") if data_type(indices) == "uint32" else output(indices)


def gather(out, input, indices, axis):
    # Gather-8 counts negative indices from the end, as the spec does.
    return output(ops.gather(input, _indices(indices), i64(axis), 0))


def gather_elements(out, input, indices, axis):
    return output(ops.gather_elements(input, _indices(indices), axis))


def gather_nd(out, input, indices):
    return output(ops.gather_nd(input, _indices(indices), 0))


def scatter_elements(out, input, indices, updates, axis):
    return output(ops.scatter_elements_update(input, _indices(indices), updates, i64(axis), "none"))


def scatter_nd(out, input, indices, updates):
    return output(ops.scatter_nd_update(input, _indices(indices), updates, "none"))


PAD_MODES = {"constant": "constant", "edge": "edge", "reflection": "reflect"}


def pad(out, input, beginningPadding, endingPadding, mode, value):
    pad_value = const(value, input) if mode == "constant" else None
    return output(ops.pad(input, i64(beginningPadding), i64(endingPadding), PAD_MODES[mode], pad_value))


def reshape_(out, input, newShape):
    return reshape(input, newShape)


def reverse(out, input, axes):
    if not axes:
        return output(ops.identity(input))
    dims = shape(input)
    starts = [dims[a] - 1 for a in axes]
    stops = [np.iinfo(np.int64).min] * len(axes)
    return output(ops.slice(input, i64(starts), i64(stops), i64([-1] * len(axes)), i64(axes)))


def slice_(out, input, starts, sizes, strides):
    if not starts:
        return output(ops.identity(input))
    strides = strides or [1] * len(starts)
    stops = [s + (n - 1) * k + 1 for s, n, k in zip(starts, sizes, strides)]
    return output(ops.slice(input, i64(starts), i64(stops), i64(strides), i64(list(range(len(starts))))))


def split(out, input, splits, axis):
    if isinstance(splits, int):
        node = ops.split(input, i64(axis), splits)
    else:
        node = ops.variadic_split(input, i64(axis), i64(list(splits)))
    return tuple(node.outputs())


def tile(out, input, repetitions):
    return output(ops.tile(input, i64(list(repetitions))))


def transpose_(out, input, permutation):
    return output(ops.transpose(input, i64(list(permutation))))


def triangular(out, input, upper, diagonal):
    # Spec: keep elements on and above (upper) or on and below (lower) the
    # diagonal shifted by `diagonal` in the last two dimensions; zero the rest.
    rows, cols = shape(input)[-2:]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = offset >= diagonal if upper else offset <= diagonal
    return output(ops.select(ops.constant(keep), input, const(0, input)))


def resample2d(out, input, mode, scales, sizes, axes):
    # Spec: inputCoordinate = clamp((outputCoordinate + 0.5) / scale - 0.5,
    # 0, inputSize - 1) with scale = outputSize / inputSize: Interpolate's
    # half_pixel transform with sizes taken from the create steps' output
    # shape (never the given scales, which floor() may not reproduce).
    # Nearest: ceil(c - 0.5) is round_prefer_floor. Linear: linear_onnx
    # clamps coordinates to the input like the spec (plain "linear" is a
    # triangle filter).
    target = [out[0].shape[a] for a in axes]
    ov_mode = "nearest" if mode == "nearest-neighbor" else "linear_onnx"
    return output(ops.interpolate(input, i64(target), ov_mode, "sizes", [0] * 4, [0] * 4, "half_pixel",
                                  "round_prefer_floor", False, -0.75, i64(list(axes))))


LOWER = {
    "resample2d": resample2d,
    "concat": concat,
    "expand": expand,
    "gather": gather,
    "gatherElements": gather_elements,
    "gatherND": gather_nd,
    "pad": pad,
    "reshape": reshape_,
    "reverse": reverse,
    "scatterElements": scatter_elements,
    "scatterND": scatter_nd,
    "slice": slice_,
    "split": split,
    "tile": tile,
    "transpose": transpose_,
    "triangular": triangular,
}
EMULATIONS = {
    "reverse": "Slice with step -1 on each reversed axis (opset1 Reverse is not in the newer opsets)",
    "triangular": "Select with a constant mask built at build time",
}
