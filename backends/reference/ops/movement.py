"""Reference implementations of the data-movement operators.

Pure index manipulation: values are copied, never computed, so every data type
is exact (float operands arrive as float64 and round back losslessly; integer
operands keep their own dtype, so int64/uint64 beyond 2^53 are untouched).
Attributes arrive resolved by harness.opspec.movement (defaults filled in,
split ``splits`` as a list of sizes, pad ``value`` already cast).
"""
from __future__ import annotations

import numpy as np

from webnn_harness.backends.reference.ops.base import ImplementationDefined

DUPLICATE_INDICES = (
    "scatter with duplicate indices writing different values: the spec does not say which update "
    "wins, so those output elements are implementation-defined"
)


def reshape(input, newShape, **_):
    return np.reshape(input, tuple(newShape))


def transpose(input, permutation, **_):
    return np.transpose(input, tuple(permutation))


def concat(inputs, axis, **_):
    return np.concatenate(list(inputs), axis=axis)


def split(input, splits, axis, **_):
    boundaries = np.cumsum(splits)[:-1]
    return tuple(np.split(input, boundaries, axis=axis))


def slice(input, starts, sizes, strides, **_):  # noqa: A001 - named like the spec method
    return input[tuple(np.s_[b:b + n:s] for b, n, s in zip(starts, sizes, strides))]


def expand(input, newShape, **_):
    return np.broadcast_to(input, tuple(newShape)).copy()


def tile(input, repetitions, **_):
    return np.tile(input, tuple(repetitions)) if input.ndim else input.copy()


def reverse(input, axes, **_):
    return np.flip(input, axis=tuple(axes)) if axes else input.copy()


def pad(input, beginningPadding, endingPadding, mode, value, **_):
    widths = list(zip(beginningPadding, endingPadding))
    if mode == "constant":
        shape = tuple(b + n + e for b, n, e in zip(beginningPadding, input.shape, endingPadding))
        # np.full, not np.pad(constant_values=): a uint64/int64 value beyond
        # 2^53 must not pass through float64.
        out = np.full(shape, value, dtype=input.dtype)
        out[tuple(np.s_[b:b + n] for b, n in zip(beginningPadding, input.shape))] = input
        return out
    # WebNN "reflection" mirrors without repeating the edge element: numpy's
    # "reflect" (ONNX "reflect"), not numpy's "symmetric".
    return np.pad(input, widths, mode={"edge": "edge", "reflection": "reflect"}[mode])


# Index handling for gather*/scatter*. The spec says indices "must be in the
# range -N (inclusive) to N (exclusive)", "a negative index means indexing from
# the end of the dimension", and its note speaks of "the specified clamping
# behavior" that implementations can get by inserting clamp(): out-of-range
# indices clamp to [-N, N-1]. WPT tests exactly this (gather index 10 on a
# dimension of 2 reads row 1, index -10 reads row 0). ONNX Gather/GatherND
# reject out-of-range indices instead: WebNN wins here.


def _normalized(indices: np.ndarray, size: int) -> np.ndarray:
    """Clamp to [-size, size-1], then map negative indices to size + index."""
    idx = indices.astype(np.int64)  # int32, uint32 and int64 all fit
    idx = np.clip(idx, -size, size - 1)
    return np.where(idx < 0, idx + size, idx)


def _coordinates(indices: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """gatherND/scatterND: the last dimension of indices holds coordinates
    into the leading dimensions of ``shape``; normalise each one."""
    return tuple(_normalized(indices[..., d], shape[d]) for d in range(indices.shape[-1]))


def gather(input, indices, axis, **_):
    return np.take(input, _normalized(indices, input.shape[axis]), axis=axis)


def gatherElements(input, indices, axis, **_):  # noqa: N802 - spec method name
    return np.take_along_axis(input, _normalized(indices, input.shape[axis]), axis=axis)


def gatherND(input, indices, **_):  # noqa: N802 - spec method name
    # Advanced indexing with k leading index arrays gives
    # indices.shape[:-1] + input.shape[k:], the spec's output shape.
    return input[_coordinates(indices, input.shape)].copy()


def _scatter(input: np.ndarray, targets: np.ndarray, updates: np.ndarray):
    """Write ``updates`` at flat positions ``targets`` of a copy of input.

    Duplicate targets: the spec says nothing about them (neither an order nor
    a reduction), so where the colliding updates differ the result is marked
    implementation-defined. Where they agree the value is the same whichever
    wins, so it stays compared. (ONNX ScatterElements/ScatterND with
    reduction="none" leave duplicates undefined too.)"""
    out = input.copy()
    flat_out = out.reshape(-1)
    flat_targets = targets.reshape(-1)
    flat_updates = updates.reshape(-1)
    flat_out[flat_targets] = flat_updates  # numpy: the last write wins
    undefined = np.zeros(out.size, dtype=bool)
    positions, counts = np.unique(flat_targets, return_counts=True)
    for position in positions[counts > 1]:
        written = flat_updates[flat_targets == position]
        same = written == written[0]
        if written.dtype.kind == "f":
            same |= np.isnan(written) & np.isnan(written[0])
        if not same.all():
            undefined[position] = True
    if undefined.any():
        return ImplementationDefined(out, undefined.reshape(out.shape), DUPLICATE_INDICES)
    return out


def scatterElements(input, indices, updates, axis, **_):  # noqa: N802 - spec method name
    positions = np.arange(input.size).reshape(input.shape)
    targets = np.take_along_axis(positions, _normalized(indices, input.shape[axis]), axis=axis)
    return _scatter(input, targets, updates)


def scatterND(input, indices, updates, **_):  # noqa: N802 - spec method name
    positions = np.arange(input.size).reshape(input.shape)
    targets = positions[_coordinates(indices, input.shape)]
    return _scatter(input, targets, updates)


OPS = {
    "reshape": reshape,
    "transpose": transpose,
    "concat": concat,
    "split": split,
    "slice": slice,
    "expand": expand,
    "gather": gather,
    "gatherElements": gatherElements,
    "gatherND": gatherND,
    "scatterElements": scatterElements,
    "scatterND": scatterND,
    "tile": tile,
    "reverse": reverse,
    "pad": pad,
}
