"""WebNN operand data types as data: numpy dtypes, classes, ranges.

MLOperandDataType in the spec's enum order; every list of data types the
harness writes (opSupportLimits included) keeps this order.

int4 and uint4 are not MLOperandDataType members: browsers accept them as an
extension for quantizeLinear / dequantizeLinear (Chromium, and WPT's cases
for those ops), so the harness knows them as data types beyond the spec
(``EXTENSION_DATA_TYPES``), held in numpy through ml_dtypes (one element per
byte, values in [-8, 7] and [0, 15]). They never appear in the spec-shaped
data-type lists; ``in_spec_order`` puts them after the spec's types.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

DATA_TYPES: tuple[str, ...] = (
    "float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8",
)
EXTENSION_DATA_TYPES: tuple[str, ...] = ("int4", "uint4")
ALL_DATA_TYPES = DATA_TYPES + EXTENSION_DATA_TYPES
FLOAT_TYPES = frozenset({"float32", "float16"})
INTEGER_TYPES = frozenset(ALL_DATA_TYPES) - FLOAT_TYPES
SIGNED_TYPES = frozenset({"int32", "int64", "int8", "int4"})
UNSIGNED_TYPES = frozenset({"uint32", "uint64", "uint8", "uint4"})

NUMPY_DTYPES: dict[str, np.dtype] = {name: np.dtype(name) for name in DATA_TYPES}
NUMPY_DTYPES.update(int4=np.dtype(ml_dtypes.int4), uint4=np.dtype(ml_dtypes.uint4))

# Unsigned integer types of the same width, used to read float bit patterns.
FLOAT_BITS = {"float32": np.dtype("int32"), "float16": np.dtype("int16")}


def numpy_dtype(data_type: str) -> np.dtype:
    try:
        return NUMPY_DTYPES[data_type]
    except KeyError:
        raise ValueError(f"unknown data type {data_type!r}; expected one of {', '.join(ALL_DATA_TYPES)}") from None


def is_float(data_type: str) -> bool:
    return data_type in FLOAT_TYPES


def integer_range(data_type: str) -> tuple[int, int]:
    dtype = numpy_dtype(data_type)
    info = ml_dtypes.iinfo(dtype) if data_type in EXTENSION_DATA_TYPES else np.iinfo(dtype)
    return int(info.min), int(info.max)


def byte_size(data_type: str) -> int:
    return numpy_dtype(data_type).itemsize


def in_spec_order(data_types) -> list[str]:
    """The spec's enum order, the extension types (int4, uint4) after it."""
    wanted = set(data_types)
    return [t for t in ALL_DATA_TYPES if t in wanted]
