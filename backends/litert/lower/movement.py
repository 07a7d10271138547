"""Data movement: concat, expand, gather*, pad, reshape, reverse, scatter*,
slice, split, tile, transpose, where.

WebNN clamps out-of-bounds indices (spec gather note; WPT expects it) and
allows negative ones; TFLite's GATHER fails on them, so indices are clamped
to [-N, N-1] and wrapped with FLOOR_MOD first (as Chromium does for
non-constant indices).
"""
from __future__ import annotations

import numpy as np
from ai_edge_litert import schema_py_generated as schema

from webnn_harness.backends.litert.emitter import OP, Call, Emitter
from webnn_harness.backends.litert.lower.elementwise import binary, truth
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
    perm = list(c.attr("permutation"))
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
    axis = int(c.attr("axis"))
    options = schema.GatherOptionsT()
    options.axis, options.batchDims = axis, 0
    indices = _indices(e, c, [c.desc("input").shape[axis]])
    return e.op(OP.GATHER, [c["input"], indices], c.out, options)


def gather_nd(e: Emitter, c: Call) -> int:
    k = c.desc("indices").shape[-1]
    indices = _indices(e, c, c.desc("input").shape[:k])
    return e.op(OP.GATHER_ND, [c["input"], indices], c.out)


def _element_coordinates(e: Emitter, c: Call, axis: int) -> int:
    """gatherElements/scatterElements as gatherND/scatterND: for every element
    of ``indices`` its full int32 coordinate in the input, the (clamped,
    wrapped) index on ``axis`` and its own position on every other axis
    (constant grids), concatenated on a new last axis."""
    shape = c.desc("indices").shape
    index = e.cast(_indices(e, c, [c.desc("input").shape[axis]]), "int32")
    grids = np.indices(shape, dtype=np.int32)
    parts = [e.reshape(index, (*shape, 1)) if d == axis else e.constant(grids[d][..., None], "int32")
             for d in range(len(shape))]
    options = schema.ConcatenationOptionsT()
    options.axis = len(shape)
    return e.op(OP.CONCATENATION, parts, TensorDesc((*shape, len(shape)), "int32"), options)


def gather_elements(e: Emitter, c: Call) -> int:
    coordinates = _element_coordinates(e, c, int(c.attr("axis")))
    return e.op(OP.GATHER_ND, [c["input"], coordinates], c.out)


# Updates compared pairwise for duplicate targets up to this many (a U x U
# boolean matrix); beyond it duplicates are summed as SCATTER_ND sums them.
MAX_PAIRWISE_UPDATES = 2048


def _last_writes(e: Emitter, coordinates: int, updates: int) -> tuple[int, int]:
    """``updates`` with every update that a later one overwrites set to 0,
    and a float32 mask (1 where an update is the last write to its target).
    Duplicate targets are implementation-defined in WebNN unless their
    updates agree; SCATTER_ND's sum would not even be one of them."""
    coordinate_shape = e.desc(coordinates).shape
    k, count = coordinate_shape[-1], int(np.prod(coordinate_shape[:-1]))
    flat = e.reshape(coordinates, (count, k))
    same = binary(e, OP.EQUAL, e.reshape(flat, (count, 1, k)), e.reshape(flat, (1, count, k)), "bool")
    options = schema.ReducerOptionsT()
    same = e.op(OP.REDUCE_ALL, [same, e.i32([2])], TensorDesc((count, count), "bool"), options)
    later = e.constant(np.triu(np.ones((count, count), bool), 1), "bool")
    superseded = e.op(OP.REDUCE_ANY, [e.op(OP.LOGICAL_AND, [same, later], e.like(same)), e.i32([1])],
                      TensorDesc((count,), "bool"), options)
    update_shape = e.desc(updates).shape
    superseded = e.reshape(superseded, (*coordinate_shape[:-1], *[1] * (len(update_shape) - len(coordinate_shape) + 1)))
    zero = e.scalar(0, e.desc(updates).data_type)
    kept = e.op(OP.SELECT_V2, [superseded, zero, updates], e.desc(updates))
    mask = e.op(OP.SELECT_V2, [superseded, e.scalar(0, "float32"), e.scalar(1, "float32")],
                e.like(superseded, "float32"))
    return kept, e.op(OP.BROADCAST_TO, [mask, e.i32(update_shape)], TensorDesc(update_shape, "float32"))


def _scatter(e: Emitter, c: Call, coordinates: int) -> int:
    """TFLite's SCATTER_ND writes into zeros (summing duplicates): scatter the
    last write of each target and a mask of them, then take the input where
    nothing was written."""
    updates = c["updates"]
    if e.desc(coordinates).rank == 1:  # one coordinate: SCATTER_ND wants updates of rank >= 1
        coordinates = e.reshape(coordinates, (1, *e.desc(coordinates).shape))
        updates = e.reshape(updates, (1, *e.desc(updates).shape))
    if np.prod(e.desc(coordinates).shape[:-1]) <= MAX_PAIRWISE_UPDATES:
        updates, ones = _last_writes(e, coordinates, updates)
    else:
        ones = e.constant(np.ones(e.desc(updates).shape, np.float32), "float32")
    shape = e.i32(c.out.shape)
    scattered = e.op(OP.SCATTER_ND, [coordinates, updates, shape], c.out)
    written = e.cast(e.op(OP.SCATTER_ND, [coordinates, ones, shape], e.like(ones, shape=c.out.shape)), "bool")
    return e.op(OP.SELECT_V2, [written, scattered, c["input"]], c.out)


def scatter_nd(e: Emitter, c: Call) -> int:
    k = c.desc("indices").shape[-1]
    return _scatter(e, c, e.cast(_indices(e, c, c.desc("input").shape[:k]), "int32"))


def scatter_elements(e: Emitter, c: Call) -> int:
    return _scatter(e, c, _element_coordinates(e, c, int(c.attr("axis"))))


def pad(e: Emitter, c: Call) -> int:
    desc = c.desc("input")
    begin, end = list(c.attr("beginningPadding")), list(c.attr("endingPadding"))
    mode = c.attr("mode")
    if desc.rank == 0:
        return _copy(e, c, c["input"])
    pads = e.const([[b, a] for b, a in zip(begin, end)], "int32", (desc.rank, 2))
    if mode == "constant":
        value = e.scalar(c.attr("value"), desc.data_type)
        return e.op(OP.PADV2, [c["input"], pads, value], c.out)
    if mode in ("reflection", "symmetric"):
        options = schema.MirrorPadOptionsT()
        options.mode = schema.MirrorPadMode.REFLECT if mode == "reflection" else schema.MirrorPadMode.SYMMETRIC
        return e.op(OP.MIRROR_PAD, [c["input"], pads], c.out, options)
    return _edge_pad(e, c["input"], begin, end)


def _edge_pad(e: Emitter, x: int, begin, end) -> int:
    """Edge padding, which TFLite's PAD and MIRROR_PAD lack: per axis, the
    first and last slices BROADCAST_TO the padding's width, CONCATENATION."""
    for axis, (b, a) in enumerate(zip(begin, end)):
        if not b and not a:
            continue
        shape = list(e.desc(x).shape)
        parts = []
        for width, start in ((b, 0), (None, None), (a, shape[axis] - 1)):
            if width is None:
                parts.append(x)
                continue
            if not width:
                continue
            size = shape[:axis] + [1] + shape[axis + 1:]
            edge = e.op(OP.SLICE, [x, e.i32([0] * axis + [start] + [0] * (len(shape) - axis - 1)), e.i32(size)],
                        e.like(x, shape=size))
            wide = shape[:axis] + [width] + shape[axis + 1:]
            parts.append(e.op(OP.BROADCAST_TO, [edge, e.i32(wide)], e.like(x, shape=wide)))
        options = schema.ConcatenationOptionsT()
        options.axis = axis
        shape[axis] += b + a
        x = e.op(OP.CONCATENATION, parts, e.like(x, shape=shape), options)
    return x


def slice_(e: Emitter, c: Call) -> int:
    rank = c.desc("input").rank
    if rank == 0:
        return _copy(e, c, c["input"])
    starts, sizes = list(c.attr("starts")), list(c.attr("sizes"))
    strides = list(c.attr("strides"))
    if all(s == 1 for s in strides):
        return e.op(OP.SLICE, [c["input"], e.i32(starts), e.i32(sizes)], c.out)
    ends = [s + n for s, n in zip(starts, sizes)]
    return e.op(OP.STRIDED_SLICE, [c["input"], e.i32(starts), e.i32(ends), e.i32(strides)], c.out,
                schema.StridedSliceOptionsT())


def split(e: Emitter, c: Call) -> list[int]:
    axis = int(c.attr("axis"))
    options = schema.SplitVOptionsT()
    options.numSplits = len(c.out_descs)
    sizes = [d.shape[axis] for d in c.out_descs]
    return e.op(OP.SPLIT_V, [c["input"], e.i32(sizes), e.const(axis, "int32", ())], list(c.out_descs), options)


def reverse(e: Emitter, c: Call) -> int:
    axes = list(c.attr("axes"))
    if not axes:
        return _copy(e, c, c["input"])
    # One REVERSE_V2 per axis: LiteRT's kernel refuses non-contiguous axes.
    y = c["input"]
    for axis in sorted(axes):
        y = e.op(OP.REVERSE_V2, [y, e.i32([axis])], c.out)
    return y


# LiteRT's data movement kernels take int32/int64 and refuse uint32/uint64
# (GATHER, REVERSE_V2, SCATTER_ND, CONCATENATION, SPLIT_V...): moving bytes
# never looks at the sign, so those operands are BITCAST to the signed type
# of their width and the results back. pad is left out: its constant value
# is a number of the unsigned type. The BITCAST carries the bytes as ORT's
# int8 carries int4: the op itself still runs natively, so it is not listed
# as an emulation.
UNSIGNED_CARRIERS = {"uint32": "int32", "uint64": "int64"}


def _carried(desc: TensorDesc) -> TensorDesc:
    return TensorDesc(desc.shape, UNSIGNED_CARRIERS.get(desc.data_type, desc.data_type))


def _bitcast(e: Emitter, x: int, data_type: str) -> int:
    return e.op(OP.BITCAST, [x], e.like(x, data_type)) if e.desc(x).data_type != data_type else x


def _unsigned_as_signed(lower, *params: str):
    def wrapped(e: Emitter, c: Call):
        unsigned = [p for p in params if c.has(p) and any(
            d.data_type in UNSIGNED_CARRIERS for d in (c.in_descs[p] if isinstance(c.in_descs[p], list)
                                                       else [c.in_descs[p]]))]
        if not unsigned:
            return lower(e, c)
        inputs, descs = dict(c.inputs), dict(c.in_descs)
        for p in unsigned:
            if isinstance(descs[p], list):
                descs[p] = [_carried(d) for d in descs[p]]
                inputs[p] = [_bitcast(e, x, d.data_type) for x, d in zip(inputs[p], descs[p])]
            else:
                descs[p] = _carried(descs[p])
                inputs[p] = _bitcast(e, inputs[p], descs[p].data_type)
        result = lower(e, Call(c.node, inputs, descs, [_carried(d) for d in c.out_descs]))
        results = [_bitcast(e, r, d.data_type) for r, d in zip([result] if isinstance(result, int) else result,
                                                                c.out_descs)]
        return results[0] if isinstance(result, int) else results

    wrapped.__name__ = lower.__name__
    return wrapped


LOWER = {
    "concat": _unsigned_as_signed(concat, "inputs"),
    "expand": _unsigned_as_signed(expand, "input"),
    "gather": _unsigned_as_signed(gather, "input"),
    "gatherElements": _unsigned_as_signed(gather_elements, "input"),
    "gatherND": _unsigned_as_signed(gather_nd, "input"),
    "pad": pad,
    "reshape": _unsigned_as_signed(reshape, "input"),
    "reverse": _unsigned_as_signed(reverse, "input"),
    "scatterElements": _unsigned_as_signed(scatter_elements, "input", "updates"),
    "scatterND": _unsigned_as_signed(scatter_nd, "input", "updates"),
    "slice": _unsigned_as_signed(slice_, "input"),
    "split": _unsigned_as_signed(split, "input"),
    "tile": _unsigned_as_signed(tile, "input"),
    "transpose": _unsigned_as_signed(transpose, "input"),
    "where": _unsigned_as_signed(where, "trueValue", "falseValue"),
}
_CLAMP = "indices clamped to [-N, N-1] (MINIMUM, MAXIMUM) and wrapped (FLOOR_MOD) first: WebNN clamps " \
         "out-of-bounds indices, TFLite fails on them; uint32/uint64 data BITCAST to int32/int64 around the op"
_SCATTER = "SCATTER_ND of the updates and of a mask of ones (TFLite scatters into zeros), SELECT_V2 of the " \
           "input where nothing was written; an update a later one overwrites is dropped first (EQUAL of " \
           "coordinates pairwise, REDUCE_ALL/ANY, up to 2048 updates: SCATTER_ND sums duplicates); " + _CLAMP
_ELEMENTS = "coordinates built from the clamped indices on the axis and constant position grids (CONCATENATION)"
EMULATED = {
    "pad": "mode edge: per axis, the edge slices BROADCAST_TO the padding width and CONCATENATION (TFLite has no "
    "edge padding)",
    "gather": _CLAMP,
    "gatherND": _CLAMP,
    "gatherElements": f"GATHER_ND with {_ELEMENTS}; TFLite has no gather elements",
    "scatterND": _SCATTER,
    "scatterElements": f"{_SCATTER}, at {_ELEMENTS}",
}
