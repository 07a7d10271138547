"""The "host framework" side of the interop scenarios: plain float32 numpy,
the way a framework's own (custom) ops would compute on the CPU. Convolution
is im2col + one BLAS matrix product per group; everything stays in the
operand's data type (this is not the float64 reference).

One function per op, taking the node's operands and resolved attributes
(``harness.graph.Node``), registered in HOST_OPS."""
from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from webnn_harness.spec.graph import Graph, Node


def _permute(x: np.ndarray, source: str, target: str) -> np.ndarray:
    return np.transpose(x, [source.index(letter) for letter in target])


def conv2d(input, filter, padding, strides, dilations, groups, inputLayout, filterLayout, bias=None):
    x = _permute(input, inputLayout, "nhwc") if inputLayout != "nhwc" else input
    w = _permute(filter, filterLayout, "hwio")  # (kh, kw, c/groups, o)
    kh, kw, cg, o = w.shape
    top, bottom, left, right = padding
    x = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    eff_h, eff_w = (kh - 1) * dilations[0] + 1, (kw - 1) * dilations[1] + 1
    windows = sliding_window_view(x, (eff_h, eff_w), axis=(1, 2))  # n, oh, ow, c, eh, ew
    windows = windows[:, ::strides[0], ::strides[1], :, ::dilations[0], ::dilations[1]]
    n, oh, ow = windows.shape[:3]
    og = o // groups
    if groups > 1 and cg == 1 and og == 1:  # depthwise: no matrix product to hand to BLAS
        out = np.einsum("nyxchw,hwc->nyxc", windows, w[:, :, 0, :], optimize=True)
    else:
        parts = []
        for g in range(groups):
            cols = windows[:, :, :, g * cg:(g + 1) * cg].transpose(0, 1, 2, 4, 5, 3).reshape(n * oh * ow, kh * kw * cg)
            parts.append(cols @ w[..., g * og:(g + 1) * og].reshape(kh * kw * cg, og))
        out = np.concatenate(parts, axis=1).reshape(n, oh, ow, o)
    if bias is not None:
        out = out + bias
    out = out.astype(input.dtype, copy=False)
    return _permute(out, "nhwc", inputLayout) if inputLayout != "nhwc" else out


def gemm(a, b, alpha, beta, aTranspose, bTranspose, c=None):
    a = a.T if aTranspose else a
    b = b.T if bTranspose else b
    out = a @ b
    if alpha != 1:
        out *= a.dtype.type(alpha)
    if c is not None:
        out += c * a.dtype.type(beta) if beta != 1 else c
    return out


def softmax(input, axis):
    shifted = input - input.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


def clamp(input, minValue, maxValue):
    return np.clip(input, input.dtype.type(minValue), input.dtype.type(maxValue))


def transpose(input, permutation):
    return np.ascontiguousarray(np.transpose(input, permutation))


HOST_OPS: Mapping[str, Callable] = {
    "conv2d": conv2d,
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "relu": lambda input: np.maximum(input, input.dtype.type(0)),
    "clamp": clamp,
    "matmul": lambda a, b: a @ b,
    "gemm": gemm,
    "softmax": softmax,
    "transpose": transpose,
}


def missing_host_ops(nodes) -> list[str]:
    return sorted({node.op for node in nodes} - set(HOST_OPS))


def run_node(node: Node, values: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One node on host values; returns its outputs by name."""
    kwargs = {}
    for member, ref in node.operands.items():
        kwargs[member] = [values[r] for r in ref] if isinstance(ref, tuple) else values[ref]
    kwargs.update(node.attributes)
    result = HOST_OPS[node.op](**kwargs)
    results = result if isinstance(result, tuple) else (result,)
    return dict(zip(node.outputs, results))


def run_nodes(graph: Graph, nodes, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run ``nodes`` in order on the host; ``values`` holds the graph's
    constants and whatever inputs those nodes need."""
    for node in nodes:
        values.update(run_node(node, values))
    return values
