"""The accuracy cases: for each sum-of-products op, graphs of a few
accumulation lengths filled with TOSA's data sets (harness/accuracy/datasets.py).

An op has accuracy cases where its traits (harness/spec/opspec) name the
TOSA operator whose layout its dot products follow, and the sizes. One small
function per TOSA operator says where each operand's elements sit in the dot
products (``k``, in TOSA's layout), builds the WebNN graph of the op and
moves the values to WebNN's default layouts. Weights and biases are
constants, as in a model: some backends pick other kernels (or precisions)
for constant weights.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from webnn_harness.accuracy.check import DotProductCheck
from webnn_harness.accuracy.datasets import BIAS, DATA_SETS, FIRST, SECOND, dot_product_values
from webnn_harness.loading.cases import Case
from webnn_harness.spec.builder import build_graph, is_required
from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.opspec import OPS, ops_where

DATA_TYPES = ("float32", "float16")
CORPUS = "accuracy"  # the stable file ids of the generated cases: accuracy/<op>
OUTPUTS = 16  # rows x columns of matmul/gemm outputs per batch, rows of the reductions
KERNEL = 3  # conv2d and convTranspose2d kernels are KERNEL x KERNEL
CONV_CHANNELS_OUT = 8
CONV_SPATIAL = 6  # conv2d input is CONV_SPATIAL + 2 square (output 6 x 6); convTranspose2d input 6 x 6


@dataclass(frozen=True)
class Operands:
    """One op's graph as case JSON, with its values in WebNN's layouts."""

    operators: list
    inputs: Mapping[str, np.ndarray]
    constants: Mapping[str, np.ndarray]
    k: int  # products per output
    shape: str  # what the sizes are, for people ("[1,16,256] x [1,256,16]")


def _values(data_set: int, position: int, k_index: np.ndarray, k: int, data_type: str) -> np.ndarray:
    return dot_product_values(data_set, position, k_index, k, data_type).reshape(k_index.shape)


def matmul_operands(op: str, k: int, data_type: str, data_set: int) -> Operands:
    """TOSA MATMUL: a [N, H, C] with k = c, b [N, C, W] with k = c; WebNN's layout is the same."""
    a_k = np.indices((1, OUTPUTS, k))[2]
    b_k = np.indices((1, k, OUTPUTS))[1]
    a = _values(data_set, FIRST, a_k, k, data_type)
    b = _values(data_set, SECOND, b_k, k, data_type)
    ops = [{"name": op, "arguments": [{"a": "a"}, {"b": "b"}], "outputs": "output"}]
    return Operands(ops, {"a": a, "b": b}, {}, k, f"[1,{OUTPUTS},{k}] x [1,{k},{OUTPUTS}]")


def gemm_operands(op: str, k: int, data_type: str, data_set: int) -> Operands:
    """TOSA FULLY_CONNECTED: input [N, IC] and weight [OC, IC] with k = ic,
    bias [OC]: WebNN gemm(a, b, {c, bTranspose: true})."""
    a = _values(data_set, FIRST, np.indices((OUTPUTS, k))[1], k, data_type)
    b = _values(data_set, SECOND, np.indices((OUTPUTS, k))[1], k, data_type)
    c = _values(data_set, BIAS, np.full((OUTPUTS,), 2), k, data_type)
    ops = [{"name": op, "arguments": [{"a": "a"}, {"b": "b"}, {"options": {"c": "c", "bTranspose": True}}],
            "outputs": "output"}]
    return Operands(ops, {"a": a}, {"b": b, "c": c}, k, f"[{OUTPUTS},{k}] x [{OUTPUTS},{k}]^T + [{OUTPUTS}]")


def _conv_values(channels_in: int, spatial: int, data_type: str, data_set: int):
    """TOSA CONV2D / TRANSPOSE_CONV2D data: input NHWC with k = ((iy % KH) KW +
    (ix % KW)) IC + ic, weight OHWI with k = (ky KW + kx) IC + ic, bias [OC]."""
    k = KERNEL * KERNEL * channels_in
    _, iy, ix, ic = np.indices((1, spatial, spatial, channels_in))
    input_k = ((iy % KERNEL) * KERNEL + (ix % KERNEL)) * channels_in + ic
    _, ky, kx, wc = np.indices((CONV_CHANNELS_OUT, KERNEL, KERNEL, channels_in))
    weight_k = (ky * KERNEL + kx) * channels_in + wc
    nhwc = _values(data_set, FIRST, input_k, k, data_type)
    ohwi = _values(data_set, SECOND, weight_k, k, data_type)
    bias = _values(data_set, BIAS, np.full((CONV_CHANNELS_OUT,), 2), k, data_type)
    return k, nhwc, ohwi, bias


def conv2d_operands(op: str, channels_in: int, data_type: str, data_set: int) -> Operands:
    spatial = CONV_SPATIAL + KERNEL - 1
    k, nhwc, ohwi, bias = _conv_values(channels_in, spatial, data_type, data_set)
    ops = [{"name": op, "arguments": [{"input": "input"}, {"filter": "filter"}, {"options": {"bias": "bias"}}],
            "outputs": "output"}]
    return Operands(ops, {"input": np.ascontiguousarray(nhwc.transpose(0, 3, 1, 2))},  # nchw, WebNN's default
                    {"filter": np.ascontiguousarray(ohwi.transpose(0, 3, 1, 2)), "bias": bias},  # oihw
                    k, f"[1,{channels_in},{spatial},{spatial}] * [{CONV_CHANNELS_OUT},{channels_in},{KERNEL},{KERNEL}]")


def conv_transpose2d_operands(op: str, channels_in: int, data_type: str, data_set: int) -> Operands:
    """KS = KH KW IC as TOSA counts it for TRANSPOSE_CONV2D: an upper bound,
    border outputs sum fewer products (their bound is smaller too)."""
    k, nhwc, ohwi, bias = _conv_values(channels_in, CONV_SPATIAL, data_type, data_set)
    ops = [{"name": op, "arguments": [{"input": "input"}, {"filter": "filter"}, {"options": {"bias": "bias"}}],
            "outputs": "output"}]
    return Operands(ops, {"input": np.ascontiguousarray(nhwc.transpose(0, 3, 1, 2))},
                    {"filter": np.ascontiguousarray(ohwi.transpose(3, 0, 1, 2)), "bias": bias},  # iohw, WebNN's default
                    k, f"[1,{channels_in},{CONV_SPATIAL},{CONV_SPATIAL}] *T [{channels_in},{CONV_CHANNELS_OUT},{KERNEL},{KERNEL}]")


def reduction_operands(op: str, k: int, data_type: str, data_set: int) -> Operands:
    """TOSA REDUCE_SUM: k is the index along the reduced axis (here the last).
    reduceMean is checked the same way, as TOSA checks AVG_POOL2D: the
    division by the count scales ref and bound alike."""
    x = _values(data_set, FIRST, np.indices((OUTPUTS, k))[1], k, data_type)
    ops = [{"name": op, "arguments": [{"input": "input"}, {"options": {"axes": [1]}}], "outputs": "output"}]
    return Operands(ops, {"input": x}, {}, k, f"[{OUTPUTS},{k}] over axis 1")


OperandsFn = Callable[[str, int, str, int], Operands]  # (op, size, data type, data set)

# TOSA operator -> the operands of an op laid out as it is, in the order the
# plan runs them.
TOSA_LAYOUTS: Mapping[str, OperandsFn] = {
    "MATMUL": matmul_operands,
    "FULLY_CONNECTED": gemm_operands,
    "CONV2D": conv2d_operands,
    "TRANSPOSE_CONV2D": conv_transpose2d_operands,
    "REDUCE_SUM": reduction_operands,
}


def _accuracy_ops() -> dict[str, tuple[OperandsFn, tuple[int, ...]]]:
    """op -> (its operands, its sizes), from the ops' accuracy traits, in the
    order of TOSA_LAYOUTS and then the catalog's."""
    ops = ops_where(lambda traits: traits.accuracy is not None)
    order = list(TOSA_LAYOUTS)
    ops = sorted(ops, key=lambda op: order.index(OPS[op].accuracy.tosa))
    return {op: (TOSA_LAYOUTS[OPS[op].accuracy.tosa], OPS[op].accuracy.sizes) for op in ops}


# op -> (its operands for one size, the sizes: accumulation lengths, or input channels for convolutions)
OPS: Mapping[str, tuple[OperandsFn, tuple[int, ...]]] = _accuracy_ops()


def accuracy_case(op: str, size: int, data_type: str, data_set: int, index: int = 0) -> Case:
    made = OPS[op][0](op, size, data_type, data_set)
    descs = {name: TensorDesc(tuple(v.shape), data_type) for name, v in made.inputs.items()}
    graph = build_graph(descs, dict(made.constants), made.operators, None)
    bias = any(np.any(v != 0) for name, v in made.constants.items() if name in ("c", "bias"))
    return Case(file=f"{CORPUS}/{op}", name=f"{op} {data_type} S{data_set} k={made.k} {made.shape}", index=index,
                graph=graph, inputs=dict(made.inputs), expected={}, required=is_required(graph),
                dot_product=DotProductCheck(data_set=data_set, ksb=made.k + bias, k=made.k, shape=made.shape))


def check_ops(ops: Sequence[str]) -> None:
    """A ValueError, one line, naming the ops the check does not cover (before any work)."""
    unknown = [op for op in ops if op not in OPS]
    if unknown:
        raise ValueError(f"accuracy covers {', '.join(OPS)}; not {', '.join(unknown)}")


def plan(ops: tuple[str, ...] = (), data_types: tuple[str, ...] = DATA_TYPES,
         data_sets: tuple[int, ...] = DATA_SETS) -> list[tuple[str, int, str, int]]:
    """(op, size, data type, data set) of every case, in a stable order."""
    return [(op, size, dt, s) for op in (ops or tuple(OPS)) for size in OPS[op][1] for dt in data_types for s in data_sets]
