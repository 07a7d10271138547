"""WebNN operand data types as data: numpy dtypes, classes, ranges.

MLOperandDataType in the spec's enum order; every list of data types the
harness writes (opSupportLimits included) keeps this order.
"""
from __future__ import annotations

import numpy as np

DATA_TYPES: tuple[str, ...] = (
    "float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8",
)
FLOAT_TYPES = frozenset({"float32", "float16"})
INTEGER_TYPES = frozenset(DATA_TYPES) - FLOAT_TYPES
SIGNED_TYPES = frozenset({"int32", "int64", "int8"})
UNSIGNED_TYPES = frozenset({"uint32", "uint64", "uint8"})

NUMPY_DTYPES: dict[str, np.dtype] = {name: np.dtype(name) for name in DATA_TYPES}

# Unsigned integer types of the same width, used to read float bit patterns.
FLOAT_BITS = {"float32": np.dtype("int32"), "float16": np.dtype("int16")}


def numpy_dtype(data_type: str) -> np.dtype:
    try:
        return NUMPY_DTYPES[data_type]
    except KeyError:
        raise ValueError(f"unknown data type {data_type!r}; expected one of {', '.join(DATA_TYPES)}") from None


def data_type_of(array: np.ndarray) -> str:
    name = np.asarray(array).dtype.name
    if name == "bool":
        return "uint8"
    if name not in NUMPY_DTYPES:
        raise ValueError(f"numpy dtype {name} is not a WebNN data type")
    return name


def is_float(data_type: str) -> bool:
    return data_type in FLOAT_TYPES


def integer_range(data_type: str) -> tuple[int, int]:
    info = np.iinfo(numpy_dtype(data_type))
    return int(info.min), int(info.max)


def byte_size(data_type: str) -> int:
    return numpy_dtype(data_type).itemsize


def in_spec_order(data_types) -> list[str]:
    wanted = set(data_types)
    return [t for t in DATA_TYPES if t in wanted]
