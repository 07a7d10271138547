"""Helpers every OpenVINO lowering shares: data-type tables, constants,
static shapes.

Lowering functions are called as ``fn(e, c)`` (backends/lowering.py): ``e``
is None (opset functions make the nodes), ``c`` the node's ``Call``: its
operands are OpenVINO outputs (a list for list operands such as concat
``inputs``), its attributes resolved by the spec's create steps. They return
one OpenVINO node or output, or a tuple for ops with several.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import openvino as ov
import openvino.opset16 as ops

# The newest complete opset of the installed OpenVINO. opset17 exists in
# 2026.x but is still being written: it exports only its new ops (erfinv,
# grouped_matmul), none of the ones WebNN needs.
OPSET = "opset16"

OV_TYPES: dict[str, ov.Type] = {
    "float32": ov.Type.f32,
    "float16": ov.Type.f16,
    "int32": ov.Type.i32,
    "uint32": ov.Type.u32,
    "int64": ov.Type.i64,
    "uint64": ov.Type.u64,
    "int8": ov.Type.i8,
    "uint8": ov.Type.u8,
}
WEBNN_TYPES: dict[str, str] = {t.get_type_name(): name for name, t in OV_TYPES.items()}
NUMPY_OF: dict[str, np.dtype] = {name: np.dtype(name) for name in OV_TYPES}
# int4/uint4 (a browser extension for the quantization ops) travel in i8/u8
# tensors: the CPU plugin refuses i4/u4 parameters and constants ("Unsupported
# data type: int4"); every 4-bit value is exact in 8 bits, and the
# quantizeLinear lowering saturates to the 4-bit range itself.
CARRIERS: dict[str, str] = {"int4": "int8", "uint4": "uint8"}
OV_TYPES.update({t: OV_TYPES[c] for t, c in CARRIERS.items()})
NUMPY_OF.update({t: NUMPY_OF[c] for t, c in CARRIERS.items()})


def carried(data_type_name: str) -> str:
    """The WebNN type an OpenVINO tensor of ``data_type_name`` really has."""
    return CARRIERS.get(data_type_name, data_type_name)


def output(x) -> ov.Output:
    """The single output of a node (OpenVINO ops return Nodes)."""
    return x.output(0) if isinstance(x, ov.Node) else x


def shape(x) -> tuple[int, ...]:
    return tuple(int(d) for d in output(x).get_shape())


def rank(x) -> int:
    return len(shape(x))


def data_type(x) -> str:
    return WEBNN_TYPES[output(x).get_element_type().get_type_name()]


def is_float(x) -> bool:
    return data_type(x) in ("float32", "float16")


def constant(array: np.ndarray) -> ov.Output:
    """A Constant holding a copy of ``array``, a numpy array of its final type.

    ``ov.op.Constant`` itself: ``opset.constant`` makes exactly this call for
    an array with no dtype given, after about 18 us of argument dispatch
    (its overloading and checks), five times the node's own cost; lowering
    makes some 10,000 constants in a probe (issue 14). The IR is the same:
    benchmarks/probe_lowering_dump.py."""
    return ov.op.Constant(array).output(0)


def const(value, like_or_type) -> ov.Output:
    """A constant of the data type of ``like_or_type`` (an operand or a WebNN type name)."""
    dt = like_or_type if isinstance(like_or_type, str) else data_type(like_or_type)
    return constant(np.asarray(value, dtype=NUMPY_OF[dt]))


def i64(values: Sequence[int] | int) -> ov.Output:
    return constant(np.asarray(values, dtype=np.int64))


def to_bool(x) -> ov.Output:
    """WebNN booleans are uint8 where any non-zero value is true.

    A constant operand is converted here, at build time: the CPU plugin
    (2026.4) computes LogicalAnd(NotEqual(Constant, 0), NotEqual(Parameter, 0))
    once and returns that first result on every later inference."""
    node = output(x).get_node()
    if node.get_type_name() == "Constant":
        return constant(node.get_data() != 0)
    return output(ops.not_equal(x, const(0, x)))


def from_bool(x) -> ov.Output:
    return output(ops.convert(x, ov.Type.u8))


def reshape(x, new_shape: Sequence[int]) -> ov.Output:
    return output(ops.reshape(x, i64(list(new_shape)), special_zero=False))


def transpose(x, permutation: Sequence[int]) -> ov.Output:
    return output(ops.transpose(x, i64(list(permutation))))


def squeeze(x, axes: Sequence[int]) -> ov.Output:
    return output(ops.squeeze(x, i64(list(axes))))


def unsqueeze(x, axes: Sequence[int]) -> ov.Output:
    return output(ops.unsqueeze(x, i64(list(axes))))


def slice_axis(x, axis: int, start: int, size: int) -> ov.Output:
    return output(ops.slice(x, i64([start]), i64([start + size]), i64([1]), i64([axis])))


def convert(x, data_type_name: str) -> ov.Output:
    if data_type(x) == data_type_name:
        return output(x)
    return output(ops.convert(x, OV_TYPES[data_type_name]))


def along_axis(vector, axis: int, target_rank: int) -> ov.Output:
    """A 1-D tensor reshaped to broadcast along ``axis`` of a rank-``target_rank`` tensor."""
    dims = [1] * target_rank
    dims[axis] = shape(vector)[0]
    return reshape(vector, dims)
