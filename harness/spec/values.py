"""Tensor values as the WPT JSON encodes them, to and from numpy.

JSON has no NaN, Infinity or 64-bit integers: the corpus writes "NaN",
"Infinity", "-Infinity" and {"bigint": "<decimal>"}. A scalar fills the whole
shape. Integers are built from Python ints so values beyond 2^53 stay exact;
floats go through float64 and are rounded once to the target type.
"""
from __future__ import annotations

from math import prod
from typing import Any, Sequence

import numpy as np

from webnn_harness.spec.dtypes import EXTENSION_DATA_TYPES, integer_range, is_float, numpy_dtype

import re

_DECIMAL = re.compile(r"-?[0-9]+")
INT4_DTYPES = tuple(numpy_dtype(t) for t in EXTENSION_DATA_TYPES)  # their scalars are no np.integer
SPECIAL_FLOATS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class TensorValueError(ValueError):
    """A tensor value that does not fit its descriptor (message names the problem)."""


def decode_number(value: Any) -> int | float:
    """One JSON-encoded number to a Python int or float."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and value in SPECIAL_FLOATS:
        return SPECIAL_FLOATS[value]
    if isinstance(value, str) and _DECIMAL.fullmatch(value):
        return int(value)  # WPT writes some 64-bit expectations as decimal strings
    if isinstance(value, dict) and set(value) == {"bigint"}:
        try:
            return int(value["bigint"])
        except (TypeError, ValueError):
            raise TensorValueError(f"bigint {value['bigint']!r} is not a decimal integer") from None
    raise TensorValueError(f"{value!r} is not a number")


def decode_numbers(values: Any) -> Any:
    """Decode numbers anywhere inside a JSON value (lists, option dicts)."""
    if isinstance(values, list):
        return [decode_numbers(v) for v in values]
    if isinstance(values, dict) and set(values) != {"bigint"}:
        return {k: decode_numbers(v) for k, v in values.items()}
    if isinstance(values, (dict, int, float)) or (isinstance(values, str) and values in SPECIAL_FLOATS):
        return decode_number(values)
    return values


def _flatten(data: Any) -> list:
    if isinstance(data, list):
        out = []
        for item in data:
            out.extend(_flatten(item) if isinstance(item, list) else [item])
        return out
    return [data]


def _plain_numbers(data: list, data_type: str, dtype: np.dtype) -> np.ndarray | None:
    """A flat list of plain JSON numbers as ``to_array`` makes it, in one
    numpy call (most of the corpus: decoding value by value was half the
    load time); None where the value-by-value path must decide or explain."""
    types = set(map(type, data))
    if not types <= {int, float}:  # strings, {"bigint"}, nested lists, bools
        return None
    if is_float(data_type):
        with np.errstate(over="ignore"):
            return np.asarray(data, dtype=np.float64).astype(dtype)
    if float in types:
        return None
    try:
        values = np.asarray(data)
    except OverflowError:
        return None
    lo, hi = integer_range(data_type)
    if values.dtype != np.int64 or (values.size and (values.min() < lo or values.max() > hi)):
        return None
    return values.astype(dtype)


def to_array(data: Any, shape: Sequence[int], data_type: str) -> np.ndarray:
    """JSON data (list, nested list or scalar) to an array of ``shape`` and ``data_type``."""
    dtype = numpy_dtype(data_type)
    count = prod(shape)
    if isinstance(data, list) and len(data) == count and dtype not in INT4_DTYPES:
        values = _plain_numbers(data, data_type, dtype)
        if values is not None:
            return values.reshape(shape)
    scalar = not isinstance(data, list)
    flat = [decode_number(data)] if scalar else [decode_number(v) for v in _flatten(data)]
    if not scalar and len(flat) != count:
        raise TensorValueError(f"data has {len(flat)} values, shape {list(shape)} needs {count}")
    if is_float(data_type):
        with np.errstate(over="ignore"):
            values = np.asarray(flat, dtype=np.float64).astype(dtype)
    else:
        lo, hi = integer_range(data_type)
        for v in flat:
            if isinstance(v, float) and not v.is_integer():
                raise TensorValueError(f"value {v} is not an integer, data type is {data_type}")
            if not lo <= int(v) <= hi:
                raise TensorValueError(f"value {int(v)} is out of range for {data_type}")
        values = np.asarray([int(v) for v in flat], dtype=dtype)
    # A scalar fills the whole shape (WPT writes large constant tensors this
    # way: 6000x6000 "large inputs"). It stays one value seen through a
    # read-only broadcast view: no memory, pickled as one value
    # (harness/spec/uniform.py), and elementwise reference ops compute it once.
    return np.broadcast_to(values[0], tuple(shape)) if scalar else values.reshape(shape)


def generate(spec: dict, shape: Sequence[int], data_type: str) -> np.ndarray:
    """Seeded generated data: {"distribution": "uniform"|"normal"|"integers", ..., "seed": n}."""
    rng = np.random.default_rng(spec.get("seed", 0))
    dist = spec.get("distribution", "uniform")
    dtype = numpy_dtype(data_type)
    shape = tuple(shape)
    if dist == "uniform":
        values = rng.uniform(spec.get("low", -1.0), spec.get("high", 1.0), size=shape)
    elif dist == "normal":
        values = rng.normal(spec.get("mean", 0.0), spec.get("std", 1.0), size=shape)
    elif dist == "integers":
        lo, hi = integer_range(data_type) if not is_float(data_type) else (-(2**24), 2**24)
        low, high = int(decode_number(spec.get("low", max(lo, -100)))), int(decode_number(spec.get("high", min(hi, 100))))
        if not lo <= low <= high <= hi:
            raise TensorValueError(f"integers low {low} / high {high} do not fit {data_type}")
        return rng.integers(low, high, size=shape, endpoint=True, dtype=np.int64 if dtype != np.uint64 else np.uint64).astype(dtype)
    else:
        raise TensorValueError(f"unknown distribution {dist!r}")
    if not is_float(data_type):
        raise TensorValueError(f"distribution {dist!r} gives floats; use 'integers' for {data_type}")
    return values.astype(dtype)


def encode_number(value: Any) -> Any:
    """One numpy scalar to JSON (the inverse of decode_number)."""
    if isinstance(value, (np.floating, float)):
        f = float(value)
        if f != f:
            return "NaN"
        if f in (float("inf"), float("-inf")):
            return "Infinity" if f > 0 else "-Infinity"
        return f
    if isinstance(value, (np.integer, int)) or getattr(value, "dtype", None) in INT4_DTYPES:
        i = int(value)
        return i if abs(i) <= 2**53 else {"bigint": str(i)}
    return value


def encode_array(array: np.ndarray) -> list:
    return [encode_number(v) for v in np.asarray(array).reshape(-1)]
