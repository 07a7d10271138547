"""Data movement: concat, expand, gather*, pad, reshape, reverse, scatter*,
slice, split, tile, transpose, where.

WebNN clamps out-of-bounds indices (spec gather note; WPT expects it) and
allows negative ones; TFLite's GATHER fails on them, so indices are clamped
to [-N, N-1] and wrapped with FLOOR_MOD first (as Chromium does for
non-constant indices).
"""
from __future__ import annotations

from ai_edge_litert import schema_py_generated as schema

from webnn_harness.backends.litert.emitter import OP, Call, Emitter, Unlowerable
from webnn_harness.backends.litert.lower.elementwise import _bound, binary, truth
from webnn_harness.spec.graph import TensorDesc


def _copy(e: Emitter, c: Call, x: int) -> int:
    return e.op(OP.RESHAPE, [x, e.i32(c.out.shape)], c.out)


def concat(e: Emitter, c: Call) -> int:
    options = schema.ConcatenationOptionsT()
    options.axis = int(c.attr("axis"))
    return e.op(OP.CONCATENATION, list(c["inputs"]), c.out, options)


def expand(e: Emitter, c: Call) -> int:
    return e.op(OP.BROADCAST_TO, [c["input"], e.i32(c.out.shape)], c.out)


def reshape(e: Emitter, c: Call) -> int:
    return _copy(e, c, c["input"])


def tile(e: Emitter, c: Call) -> int:
    return e.op(OP.TILE, [c["input"], e.i32(c.attr("repetitions"))], c.out)


def transpose(e: Emitter, c: Call) -> int:
    rank = c.desc("input").rank
    perm = list(c.attr("permutation", list(range(rank))[::-1]))
    if perm == list(range(rank)):
        return _copy(e, c, c["input"])
    return e.op(OP.TRANSPOSE, [c["input"], e.i32(perm)], c.out)


def where(e: Emitter, c: Call) -> int:
    return e.op(OP.SELECT_V2, [truth(e, c["condition"]), c["trueValue"], c["falseValue"]], c.out)


def _indices(e: Emitter, c: Call, sizes) -> int:
    """Indices clamped to [-N, N-1] and wrapped into [0, N-1] (N per
    coordinate when ``sizes`` has several), as int32 or int64."""
    indices, data_type = c["indices"], c.desc("indices").data_type
    if data_type == "uint32":  # no uint32 MINIMUM in TFLite: every uint32 index fits int64
        indices, data_type = e.cast(indices, "int64"), "int64"
    shape = (len(sizes),) if len(sizes) > 1 else ()
    indices = binary(e, OP.MINIMUM, indices, e.const([n - 1 for n in sizes], data_type, shape))
    indices = binary(e, OP.MAXIMUM, indices, e.const([-n for n in sizes], data_type, shape))
    return binary(e, OP.FLOOR_MOD, indices, e.const(list(sizes), data_type, shape))


def gather(e: Emitter, c: Call) -> int:
    axis = int(c.attr("axis", 0))
    options = schema.GatherOptionsT()
    options.axis, options.batchDims = axis, 0
    indices = _indices(e, c, [c.desc("input").shape[axis]])
    return e.op(OP.GATHER, [c["input"], indices], c.out, options)


def gather_nd(e: Emitter, c: Call) -> int:
    k = c.desc("indices").shape[-1]
    indices = _indices(e, c, c.desc("input").shape[:k])
    return e.op(OP.GATHER_ND, [c["input"], indices], c.out)


def pad(e: Emitter, c: Call) -> int:
    desc = c.desc("input")
    begin, end = list(c.attr("beginningPadding")), list(c.attr("endingPadding"))
    mode = c.attr("mode", "constant")
    if desc.rank == 0:
        return _copy(e, c, c["input"])
    pads = e.const([[b, a] for b, a in zip(begin, end)], "int32", (desc.rank, 2))
    if mode == "constant":
        value = e.scalar(_bound(c.attr("value", 0), desc.data_type), desc.data_type)
        return e.op(OP.PADV2, [c["input"], pads, value], c.out)
    if mode in ("reflection", "symmetric"):
        options = schema.MirrorPadOptionsT()
        options.mode = schema.MirrorPadMode.REFLECT if mode == "reflection" else schema.MirrorPadMode.SYMMETRIC
        return e.op(OP.MIRROR_PAD, [c["input"], pads], c.out, options)
    raise Unlowerable(f"pad mode {mode}: LiteRT has no edge padding")


def slice_(e: Emitter, c: Call) -> int:
    rank = c.desc("input").rank
    if rank == 0:
        return _copy(e, c, c["input"])
    starts, sizes = list(c.attr("starts")), list(c.attr("sizes"))
    strides = list(c.attr("strides", [1] * rank))
    if all(s == 1 for s in strides):
        return e.op(OP.SLICE, [c["input"], e.i32(starts), e.i32(sizes)], c.out)
    ends = [s + n for s, n in zip(starts, sizes)]
    return e.op(OP.STRIDED_SLICE, [c["input"], e.i32(starts), e.i32(ends), e.i32(strides)], c.out,
                schema.StridedSliceOptionsT())


def split(e: Emitter, c: Call) -> list[int]:
    axis = int(c.attr("axis", 0))
    options = schema.SplitVOptionsT()
    options.numSplits = len(c.out_descs)
    sizes = [d.shape[axis] for d in c.out_descs]
    return e.op(OP.SPLIT_V, [c["input"], e.i32(sizes), e.const(axis, "int32", ())], list(c.out_descs), options)


def reverse(e: Emitter, c: Call) -> int:
    rank = c.desc("input").rank
    axes = list(c.attr("axes", list(range(rank))))
    if not axes:
        return _copy(e, c, c["input"])
    # One REVERSE_V2 per axis: LiteRT's kernel refuses non-contiguous axes.
    y = c["input"]
    for axis in sorted(axes):
        y = e.op(OP.REVERSE_V2, [y, e.i32([axis])], c.out)
    return y


LOWER = {
    "concat": concat,
    "expand": expand,
    "gather": gather,
    "gatherND": gather_nd,
    "pad": pad,
    "reshape": reshape,
    "reverse": reverse,
    "slice": slice_,
    "split": split,
    "tile": tile,
    "transpose": transpose,
    "where": where,
}
_CLAMP = "indices clamped to [-N, N-1] (MINIMUM, MAXIMUM) and wrapped (FLOOR_MOD) first: WebNN clamps " \
         "out-of-bounds indices, TFLite fails on them"
EMULATED = {
    "gather": _CLAMP,
    "gatherND": _CLAMP,
}
