"""Data movement: concat, expand, gather*, pad, reshape, reverse, scatter*,
slice, split, tile, transpose, where."""
from __future__ import annotations

import numpy as np

from webnn_harness.backends.lowering import Lowerings
from webnn_harness.backends.onnxruntime.emitter import Call, Emitter

LOWER = Lowerings()

INT64_MIN = int(np.iinfo(np.int64).min)


@LOWER.op("concat")
def concat(e: Emitter, c: Call) -> str:
    return e.op("Concat", list(c["inputs"]), axis=int(c.attr("axis")))


@LOWER.op("expand")
def expand(e: Emitter, c: Call) -> str:
    return e.op("Expand", [c["input"], e.i64(c.out.shape)])


@LOWER.op("reshape")
def reshape(e: Emitter, c: Call) -> str:
    return e.reshape(c["input"], c.out.shape)


@LOWER.op("tile")
def tile(e: Emitter, c: Call) -> str:
    return e.op("Tile", [c["input"], e.i64(c.attr("repetitions"))])


@LOWER.op("transpose")
def transpose(e: Emitter, c: Call) -> str:
    rank = c.desc("input").rank
    if rank == 0:  # an empty perm attribute has no inferable ONNX type
        return e.op("Identity", [c["input"]])
    return e.op("Transpose", [c["input"]], perm=list(c.attr("permutation")))


@LOWER.op("where")
def where(e: Emitter, c: Call) -> str:
    return e.op("Where", [e.cast(c["condition"], "bool"), c["trueValue"], c["falseValue"]])


def _clamped(e: Emitter, c: Call, sizes, per_coordinate: bool = False) -> str:
    """Indices clamped to [-N, N-1]: WebNN lets implementations clamp
    out-of-bounds indices (spec gather note) and WPT expects it, where ORT
    rejects them at run time. ``per_coordinate``: the last dimension holds one
    index per axis (gatherND/scatterND), each with its own bound, and ONNX
    wants int64 there. uint32 indices are clamped to [0, N-1] before they
    become int64 (ONNX takes int32 or int64 only): ORT 1.31's int64 Clip/Min
    leave 4294967295 unclamped."""
    indices, data_type = c["indices"], c.desc("indices").data_type
    unsigned = data_type == "uint32"
    low = [0 if unsigned else -n for n in sizes]
    high = [n - 1 for n in sizes]
    if per_coordinate:
        clamped = e.op("Min", [indices, e.const(high, data_type, (len(high),))])
        if not unsigned:
            clamped = e.op("Max", [clamped, e.const(low, data_type, (len(low),))])
        return e.cast(clamped, "int64") if data_type != "int64" else clamped
    clamped = e.op("Clip", [indices, e.scalar(low[0], data_type), e.scalar(high[0], data_type)])
    return e.cast(clamped, "int64") if unsigned else clamped


@LOWER.op("gather")
def gather(e: Emitter, c: Call) -> str:
    axis = int(c.attr("axis"))
    indices = _clamped(e, c, [c.desc("input").shape[axis]])
    return e.op("Gather", [c["input"], indices], axis=axis)


@LOWER.op("gatherElements")
def gather_elements(e: Emitter, c: Call) -> str:
    axis = int(c.attr("axis"))
    indices = _clamped(e, c, [c.desc("input").shape[axis]])
    return e.op("GatherElements", [c["input"], indices], axis=axis)


@LOWER.op("gatherND")
def gather_nd(e: Emitter, c: Call) -> str:
    k = c.desc("indices").shape[-1]
    indices = _clamped(e, c, c.desc("input").shape[:k], per_coordinate=True)
    return e.op("GatherND", [c["input"], indices])


@LOWER.op("scatterElements")
def scatter_elements(e: Emitter, c: Call) -> str:
    axis = int(c.attr("axis"))
    indices = _clamped(e, c, [c.desc("input").shape[axis]])
    return e.op("ScatterElements", [c["input"], indices, c["updates"]], axis=axis)


@LOWER.op("scatterND")
def scatter_nd(e: Emitter, c: Call) -> str:
    k = c.desc("indices").shape[-1]
    indices = _clamped(e, c, c.desc("input").shape[:k], per_coordinate=True)
    return e.op("ScatterND", [c["input"], indices, c["updates"]])


def _reversed_range(e: Emitter, x: str, axis: int, start: int, end: int) -> str:
    """x[start:end] along ``axis``, in reverse order (a Slice with step -1)."""
    stop = start - 1 if start > 0 else INT64_MIN
    return e.op("Slice", [x, e.i64([end - 1]), e.i64([stop]), e.i64([axis]), e.i64([-1])])


@LOWER.op("reverse")
def reverse(e: Emitter, c: Call) -> str:
    axes = list(c.attr("axes"))
    if not axes:
        return e.op("Identity", [c["input"]])
    k = len(axes)
    return e.op("Slice", [c["input"], e.i64([-1] * k), e.i64([INT64_MIN] * k), e.i64(axes), e.i64([-1] * k)])


@LOWER.op("pad")
def pad(e: Emitter, c: Call) -> str:
    desc = c.desc("input")
    begin = list(c.attr("beginningPadding"))
    end = list(c.attr("endingPadding"))
    mode = c.attr("mode")
    x = c["input"]
    if desc.rank == 0:  # nothing to pad; ORT's Pad rejects 0-D input
        return e.op("Identity", [x])
    if mode == "symmetric":
        # ONNX Pad has no symmetric mode (reflect excludes the edge element,
        # symmetric repeats it): concatenate mirrored slices axis by axis.
        for axis, (b, n, a) in enumerate(zip(begin, desc.shape, end)):
            if b == 0 and a == 0:
                continue
            parts = ([_reversed_range(e, x, axis, 0, b)] if b else []) + [x] + (
                [_reversed_range(e, x, axis, n - a, n)] if a else [])
            x = e.op("Concat", parts, axis=axis)
        return x if x != c["input"] else e.op("Identity", [x])
    onnx_mode = {"constant": "constant", "edge": "edge", "reflection": "reflect"}[mode]
    inputs = [x, e.i64(begin + end)]
    if mode == "constant":
        inputs.append(e.scalar(c.attr("value"), desc.data_type))
    return e.op("Pad", inputs, mode=onnx_mode)


@LOWER.op("slice")
def slice_(e: Emitter, c: Call) -> str:
    rank = c.desc("input").rank
    starts = list(c.attr("starts"))
    sizes = list(c.attr("sizes"))
    strides = list(c.attr("strides"))
    if rank == 0:
        return e.op("Identity", [c["input"]])
    ends = [s + n for s, n in zip(starts, sizes)]
    return e.op("Slice", [c["input"], e.i64(starts), e.i64(ends), e.i64(range(rank)), e.i64(strides)])


@LOWER.op("split")
def split(e: Emitter, c: Call) -> list[str]:
    axis = int(c.attr("axis"))
    sizes = [d.shape[axis] for d in c.out_descs]
    return e.op("Split", [c["input"], e.i64(sizes)], outputs=[e.fresh("Split") for _ in sizes], axis=axis)



_CLAMP = "indices clamped to [-N, N-1] first (Clip, or Min/Max per coordinate; uint32 cast to int64): " \
         "WebNN clamps out-of-bounds indices, ORT fails on them"
EMULATED = {
    "gather": _CLAMP,
    "gatherElements": _CLAMP,
    "gatherND": _CLAMP,
    "scatterElements": _CLAMP,
    "scatterND": _CLAMP,
    "reverse": "Slice with step -1 on each reversed axis; ONNX has no reverse",
    "pad": "mode symmetric: Concat of mirrored Slices (step -1) per axis; ONNX Pad has no symmetric mode",
}
