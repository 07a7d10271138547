"""Uniform tensors: one value filling a shape, held as a read-only
zero-stride broadcast view (``np.broadcast_to``) instead of a full array.

WPT writes large tensors as one scalar (``add float32 large inputs`` is
6000x6000 = 144 MB per operand). Kept uniform, such a tensor costs no memory,
crosses the pipe to a worker as one value (``register_pickling``), and an
elementwise op on uniform operands is computed once and broadcast
(backends/reference/evaluate.py), with results identical to computing every
element: each output element of an elementwise op depends only on the
same-position input elements, which are all equal.
"""
from __future__ import annotations

import numpy as np

# Below this many elements a full copy is cheaper than the bookkeeping.
MIN_ELEMENTS = 1024


def is_uniform(array: np.ndarray) -> bool:
    """True for a view of one element broadcast over its whole shape."""
    return isinstance(array, np.ndarray) and array.size > 1 and not any(array.strides)


def uniform_value(array: np.ndarray) -> np.ndarray:
    """The single element of a uniform array, as a 0-D array of its dtype."""
    return array.reshape(-1)[:1].reshape(())


def _rebuild(value: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(value, shape)


def _reduce_array(array: np.ndarray):
    if is_uniform(array) and array.size >= MIN_ELEMENTS and type(array) is np.ndarray:
        return _rebuild, (uniform_value(array).copy(), array.shape)
    return array.__reduce__()  # numpy's own (multiprocessing pickles with protocol 4)


def register_pickling() -> None:
    """Pickle uniform arrays sent to worker processes as (value, shape).

    multiprocessing's pickler consults its own reducer table before an
    object's ``__reduce_ex__``; numpy's would copy every element."""
    from multiprocessing.reduction import ForkingPickler

    ForkingPickler.register(np.ndarray, _reduce_array)
