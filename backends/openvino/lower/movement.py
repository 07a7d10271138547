"""Data movement: concat, expand, gather*, scatter*, pad, reshape, reverse,
slice, split, tile, transpose, triangular."""
from __future__ import annotations

import numpy as np
import openvino.opset16 as ops

from webnn_harness.backends.lowering import Call, Lowerings
from webnn_harness.backends.openvino.lower.base import const, constant, convert, data_type, i64, output, reshape, shape

LOWER = Lowerings()


@LOWER.op("concat")
def concat(e, c: Call):
    return output(ops.concat(list(c["inputs"]), c.attr("axis")))


@LOWER.op("expand")
def expand(e, c: Call):
    x = c["input"]
    if shape(x) == tuple(c.out.shape):
        # Broadcast to the same shape is a copy (and 0-D to 0-D crashes the CPU plugin).
        return output(ops.identity(x))
    return output(ops.broadcast(x, i64(list(c.out.shape)), None, "NUMPY"))


def _indices(indices, sizes):
    """Indices clamped to [-N, N-1] per indexed dimension (``sizes`` is N, or
    a list of N for the coordinates of gatherND/scatterND): the spec's note
    on "the specified clamping behavior" (WPT gathers index 10 of a
    dimension of 2 as 1), where OpenVINO yields zeros. Negative indices then
    count from the end natively. uint32 indices become int64 (OpenVINO takes
    i32/i64 indices)."""
    idx = convert(indices, "int64") if data_type(indices) == "uint32" else output(indices)
    lo = const([-n for n in sizes] if isinstance(sizes, list) else -sizes, idx)
    hi = const([n - 1 for n in sizes] if isinstance(sizes, list) else sizes - 1, idx)
    return output(ops.maximum(ops.minimum(idx, hi), lo))


@LOWER.op("gather")
def gather(e, c: Call):
    x, axis = c["input"], c.attr("axis")
    return output(ops.gather(x, _indices(c["indices"], shape(x)[axis]), i64(axis), 0))


@LOWER.op("gatherElements")
def gather_elements(e, c: Call):
    x, axis = c["input"], c.attr("axis")
    return output(ops.gather_elements(x, _indices(c["indices"], shape(x)[axis]), axis))


@LOWER.op("gatherND")
def gather_nd(e, c: Call):
    x, indices = c["input"], c["indices"]
    k = shape(indices)[-1]
    return output(ops.gather_nd(x, _indices(indices, list(shape(x)[:k])), 0))


@LOWER.op("scatterElements")
def scatter_elements(e, c: Call):
    x, axis = c["input"], c.attr("axis")
    idx = _indices(c["indices"], shape(x)[axis])
    return output(ops.scatter_elements_update(x, idx, c["updates"], i64(axis), "none"))


@LOWER.op("scatterND")
def scatter_nd(e, c: Call):
    x, indices = c["input"], c["indices"]
    k = shape(indices)[-1]
    return output(ops.scatter_nd_update(x, _indices(indices, list(shape(x)[:k])), c["updates"], "none"))


PAD_MODES = {"constant": "constant", "edge": "edge", "reflection": "reflect"}


@LOWER.op("pad")
def pad(e, c: Call):
    x, beginning, mode = c["input"], c.attr("beginningPadding"), c.attr("mode")
    if not beginning:  # a 0-D input has nothing to pad (OpenVINO Pad needs rank >= 1)
        return output(ops.identity(x))
    pad_value = const(c.attr("value"), x) if mode == "constant" else None
    return output(ops.pad(x, i64(beginning), i64(c.attr("endingPadding")), PAD_MODES[mode], pad_value))


@LOWER.op("reshape")
def reshape_(e, c: Call):
    return reshape(c["input"], c.attr("newShape"))


@LOWER.op("reverse")
def reverse(e, c: Call):
    input, axes = c["input"], c.attr("axes")
    if not axes:
        return output(ops.identity(input))
    dims = shape(input)
    starts = [dims[a] - 1 for a in axes]
    stops = [np.iinfo(np.int64).min] * len(axes)
    return output(ops.slice(input, i64(starts), i64(stops), i64([-1] * len(axes)), i64(axes)))


@LOWER.op("slice")
def slice_(e, c: Call):
    input, starts, sizes, strides = c["input"], c.attr("starts"), c.attr("sizes"), c.attr("strides")
    if not starts:
        return output(ops.identity(input))
    # Spec: sizes is the extent of the window in the input; strides step
    # within it, giving ceil(size / stride) elements.
    strides = strides or [1] * len(starts)
    stops = [s + n for s, n in zip(starts, sizes)]
    return output(ops.slice(input, i64(starts), i64(stops), i64(strides), i64(list(range(len(starts))))))


@LOWER.op("split")
def split(e, c: Call):
    splits, axis = c.attr("splits"), c.attr("axis")
    if isinstance(splits, int):
        node = ops.split(c["input"], i64(axis), splits)
    else:
        node = ops.variadic_split(c["input"], i64(axis), i64(list(splits)))
    return tuple(node.outputs())


@LOWER.op("tile")
def tile(e, c: Call):
    repetitions = c.attr("repetitions")
    if not repetitions:  # 0-D input
        return output(ops.identity(c["input"]))
    return output(ops.tile(c["input"], i64(list(repetitions))))


@LOWER.op("transpose")
def transpose_(e, c: Call):
    return output(ops.transpose(c["input"], i64(list(c.attr("permutation")))))


@LOWER.op("triangular")
def triangular(e, c: Call):
    # Spec: keep elements on and above (upper) or on and below (lower) the
    # diagonal shifted by `diagonal` in the last two dimensions; zero the rest.
    input, upper, diagonal = c["input"], c.attr("upper"), c.attr("diagonal")
    rows, cols = shape(input)[-2:]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = offset >= diagonal if upper else offset <= diagonal
    return output(ops.select(constant(keep), input, const(0, input)))


@LOWER.op("resample2d")
def resample2d(e, c: Call):
    # Spec: inputCoordinate = clamp((outputCoordinate + 0.5) / scale - 0.5,
    # 0, inputSize - 1) with scale = outputSize / inputSize: Interpolate's
    # half_pixel transform with sizes taken from the create steps' output
    # shape (never the given scales, which floor() may not reproduce).
    # Nearest: ceil(c - 0.5) is round_prefer_floor. Linear: linear_onnx
    # clamps coordinates to the input like the spec (plain "linear" is a
    # triangle filter).
    axes = c.attr("axes")
    target = [c.out.shape[a] for a in axes]
    ov_mode = "nearest" if c.attr("mode") == "nearest-neighbor" else "linear_onnx"
    return output(ops.interpolate(c["input"], i64(target), ov_mode, "sizes", [0] * 4, [0] * 4, "half_pixel",
                                  "round_prefer_floor", False, -0.75, i64(list(axes))))


_CLAMP = "indices clamped to [-N, N-1] (Minimum, Maximum; spec note on clamping), then "
EMULATED = {
    "gather": _CLAMP + "Gather",
    "gatherElements": _CLAMP + "GatherElements",
    "gatherND": _CLAMP + "GatherND",
    "scatterElements": _CLAMP + "ScatterElementsUpdate",
    "scatterND": _CLAMP + "ScatterNDUpdate",
    "reverse": "Slice with step -1 on each reversed axis (opset1 Reverse is not in the newer opsets)",
    "triangular": "Select with a constant mask built at build time",
}
