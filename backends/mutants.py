"""A backend that applies one cheap wrong optimisation a real graph compiler
makes, and computes everything else as the reference does: the judge must
fail it wherever the optimisation changes a value (the mutation audit,
tests/test_mutants.py). Not registered: load it by its factory.

    webnn-harness run --backend webnn_harness.backends.mutants:create -o mutation=fold_cast_round_trip

Options (``-o key=value``):
    mutation   one of ``MUTATIONS``' names (required):
      fold_cast_round_trip  cast(cast(x, float16), float32) computed as x
      fold_qdq_round_trip   dequantizeLinear(quantizeLinear(x, s, z), s, z) computed as x
      drop_clamp            clamp computed as identity
      flush_subnormals      every float result with a subnormal magnitude made a zero of its sign
      reassociate_sum       reduceSum, reduceMean and matmul accumulated in the output's float
                            type, one element after the other (no float64, no pairwise sums)
      pool_count_padding    averagePool2d dividing by the whole window, padding included
      half_precision_weights  conv2d, convTranspose2d, matmul, gemm, gru, lstm (and their cells)
                            with float32 operands rounded to float16 first (fp16 inference)
      drop_epsilon          batch, instance and layer normalization without their epsilon
"""
from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from webnn_harness.backends.base import BackendInfo
from webnn_harness.spec.dtypes import is_float, numpy_dtype
from webnn_harness.spec.graph import Graph, Node

# A mutation computes one node's outputs, or returns None to leave the node to the reference.
Mutation = Callable[[Node, Mapping[str, np.ndarray], Graph, Mapping[str, Node]], "list[np.ndarray] | None"]


def _bits(data_type: str) -> int:
    return numpy_dtype(data_type).itemsize * 8


def fold_cast_round_trip(node, env, graph, producer):
    """A widening cast of a narrowing cast of a value of the wide type: the value itself."""
    if node.op != "cast":
        return None
    inner = producer.get(node.operand_names()[0])
    if inner is None or inner.op != "cast":
        return None
    source, middle, target = (graph.descs[inner.operand_names()[0]].data_type, graph.descs[inner.outputs[0]].data_type,
                              graph.descs[node.outputs[0]].data_type)
    if source == target and is_float(middle) and is_float(target) and _bits(middle) < _bits(target):
        return [np.asarray(env[inner.operand_names()[0]])]
    return None


def fold_qdq_round_trip(node, env, graph, producer):
    """dequantizeLinear of quantizeLinear with the same scale and zero point: the float input."""
    if node.op != "dequantizeLinear":
        return None
    inner = producer.get(node.operands.get("input"))
    if inner is None or inner.op != "quantizeLinear":
        return None
    same = all(node.operands.get(k) == inner.operands.get(k) for k in ("scale", "zeroPoint"))
    x = inner.operands.get("input")
    if same and graph.descs[x].data_type == graph.descs[node.outputs[0]].data_type:
        return [np.asarray(env[x])]
    return None


def drop_clamp(node, env, graph, producer):
    return [np.asarray(env[node.operand_names()[0]])] if node.op == "clamp" else None


def _accumulate(values: np.ndarray, axes: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Sum over ``axes`` one element after the other, rounding to ``dtype`` at each step."""
    moved = np.moveaxis(values.astype(dtype), axes, tuple(range(len(axes))))
    flat = moved.reshape((-1,) + moved.shape[len(axes):])
    total = np.zeros(flat.shape[1:], dtype)
    for row in flat:
        total = (total + row).astype(dtype)
    return total


def reassociate_sum(node, env, graph, producer):
    """reduceSum / reduceMean / matmul accumulated in the output's type, in order."""
    out = graph.descs[node.outputs[0]]
    if not is_float(out.data_type) or node.op not in ("reduceSum", "reduceMean", "matmul"):
        return None
    dtype = numpy_dtype(out.data_type)
    if node.op == "matmul":
        a, b = (np.asarray(env[n]) for n in node.operand_names())
        if a.ndim < 2 or b.ndim < 2:
            return None
        products = (a[..., :, :, np.newaxis] * b[..., np.newaxis, :, :]).astype(dtype)
        return [_accumulate(products, (products.ndim - 2,), dtype).reshape(out.shape)]
    x = np.asarray(env[node.operand_names()[0]])
    axes = node.attributes.get("axes")
    axes = tuple(range(x.ndim)) if axes is None else tuple(int(a) for a in axes)
    if not axes or x.size == 0:
        return None
    total = _accumulate(x, axes, dtype)
    if node.op == "reduceMean":
        total = (total / dtype.type(np.prod([x.shape[a] for a in axes]))).astype(dtype)
    return [total.reshape(out.shape)]


def pool_count_padding(node, env, graph, producer):
    """averagePool2d as the window's sum over its full size (count_include_pad)."""
    if node.op != "averagePool2d" or not any(node.attributes.get("padding") or ()):
        return None
    from webnn_harness.backends.reference.ops.pooling import _flat, _pool_windows
    from webnn_harness.backends.reference.ops.convolution import from_nchw

    a = dict(node.attributes)
    layout = a.pop("layout")
    windows, _ = _pool_windows(np.asarray(env[node.operands["input"]], np.float64), layout=layout, op="averagePool2d",
                               fill=0.0, **a)
    flat = _flat(windows)
    return [from_nchw(flat.sum(axis=-1) / flat.shape[-1], layout)]


HALF_PRECISION_OPS = frozenset({"conv2d", "convTranspose2d", "matmul", "gemm", "gru", "gruCell", "lstm", "lstmCell"})


def half_precision_weights(node, env, graph, producer):
    """The op run on its float32 operands rounded to float16."""
    if node.op not in HALF_PRECISION_OPS:
        return None
    from webnn_harness.backends.reference.evaluate import run_node

    rounded = {n: (np.asarray(env[n]).astype(np.float16).astype(np.float32) if np.asarray(env[n]).dtype == np.float32
                   else env[n]) for n in node.operand_names()}
    return [out.values for out in run_node(node, {**env, **rounded}, graph)]


def drop_epsilon(node, env, graph, producer):
    if node.op not in ("batchNormalization", "instanceNormalization", "layerNormalization"):
        return None
    from dataclasses import replace

    from webnn_harness.backends.reference.evaluate import run_node

    return [out.values for out in run_node(replace(node, attributes={**node.attributes, "epsilon": 0.0}), env, graph)]


def _flush(values: np.ndarray) -> np.ndarray:
    if values.dtype.kind != "f":
        return values
    tiny = np.finfo(values.dtype).tiny
    return np.where(np.abs(values) < tiny, np.copysign(np.zeros((), values.dtype), values), values).astype(values.dtype)


MUTATIONS: Mapping[str, Mutation] = {
    "fold_cast_round_trip": fold_cast_round_trip,
    "fold_qdq_round_trip": fold_qdq_round_trip,
    "drop_clamp": drop_clamp,
    "reassociate_sum": reassociate_sum,
    "pool_count_padding": pool_count_padding,
    "half_precision_weights": half_precision_weights,
    "drop_epsilon": drop_epsilon,
    "flush_subnormals": lambda node, env, graph, producer: None,  # applied to every result in compute
}


class MutantBackend:
    name = "mutant"

    def __init__(self, options: Mapping[str, str]):
        unknown = set(options) - {"mutation"}
        if unknown or options.get("mutation") not in MUTATIONS:
            raise ValueError(f"mutants: -o mutation= one of {', '.join(MUTATIONS)} (got {dict(options)})")
        self.mutation = options["mutation"]

    def info(self) -> BackendInfo:
        return BackendInfo(self.name, "0", "cpu (the reference, one wrong optimisation)", {"mutation": self.mutation})

    def build(self, graph: Graph) -> Graph:
        from webnn_harness.backends.reference import ReferenceBackend

        return ReferenceBackend({}).build(graph)

    def compute(self, compiled: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        from webnn_harness.backends.reference.evaluate import run_node

        flush = self.mutation == "flush_subnormals"
        env: dict[str, np.ndarray] = {n: (_flush(v) if flush else v) for n, v in {**compiled.constants, **inputs}.items()}
        producer = {name: node for node in compiled.nodes for name in node.outputs}
        for node in compiled.nodes:
            values = MUTATIONS[self.mutation](node, env, compiled, producer)
            if values is None:
                values = [out.values for out in run_node(node, env, compiled)]
            for name, value in zip(node.outputs, values):
                value = np.asarray(value).astype(numpy_dtype(compiled.descs[name].data_type), copy=False)
                env[name] = _flush(value) if flush else value
        return {name: env[name] for name in compiled.outputs}

    def emulations(self) -> dict[str, str]:
        return {}


def create(options: Mapping[str, str]) -> MutantBackend:
    return MutantBackend(options)
