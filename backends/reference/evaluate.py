"""Run a Graph through the reference operators, node by node.

This is the one wrapper that handles data types for every op: float operands
become float64, the op computes, and the result is rounded once to the
output's data type (round to nearest even; float16 overflow gives infinity).
It also tracks which output elements the spec leaves to the implementation.

``precision="operand"`` is the one switch that instead computes every op in
its operands' own float type (float32 stays float32; float16 is computed as
numpy computes float16): the spec's formulas evaluated in the operand type,
where an intermediate may overflow although the exact result does not. Fuzz
uses it to tell a backend bug from such a float32 effect
(harness/fuzz/precision.py). Integers are computed as in float64 mode. Ops
that convert to float64 themselves still compute in float64 under it (found
by evaluating every float32 case of WPT and our corpus in this mode and
checking each op's result type): erf and gelu (math.erf), dequantizeLinear
and quantizeLinear (exact float64 products), and resample2d linear (its
interpolation weights). PRECISIONS lists the modes.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from webnn_harness.backends.reference.ops import OPS, ImplementationDefined
from webnn_harness.spec.dtypes import is_float, numpy_dtype
from webnn_harness.spec.exact import ReferenceOutput
from webnn_harness.spec.graph import Graph, Node
from webnn_harness.spec.opspec import ops_where
from webnn_harness.spec.uniform import is_uniform, uniform_value

# Ops whose output elements each depend only on the same-position input
# elements (after broadcasting), so an undefined input element taints exactly
# the matching output elements. Any other op taints its whole output. The
# op's traits say which (harness/spec/opspec).
ELEMENTWISE = frozenset(ops_where(lambda traits: traits.elementwise))




PRECISIONS = ("float64", "operand")


def _as_compute_array(value: np.ndarray, precision: str = "float64") -> np.ndarray:
    value = np.asarray(value)
    return value.astype(np.float64) if value.dtype.kind == "f" and precision == "float64" else value


def _round_to(result, data_type: str) -> np.ndarray:
    dtype = numpy_dtype(data_type)
    result = np.asarray(result)
    if result.dtype == dtype:
        return result
    if is_float(data_type) or result.dtype.kind in "iub":
        with np.errstate(over="ignore", invalid="ignore"):
            return result.astype(dtype)
    raise TypeError(f"reference op returned {result.dtype} for a {data_type} output")


def _uniform_operands(node: Node, env: Mapping[str, np.ndarray]) -> bool:
    """An elementwise node whose operands each hold one value (harness/spec/uniform.py)."""
    if node.op not in ELEMENTWISE:
        return False
    arrays = [env[n] for n in node.operand_names()]
    return any(is_uniform(a) for a in arrays) and all(a.size == 1 or is_uniform(a) for a in arrays)


def run_node(node: Node, env: Mapping[str, np.ndarray], graph: Graph, precision: str = "float64") -> list[ReferenceOutput]:
    # Elementwise on one-value operands: compute one element and broadcast it
    # to the output shape, the same values as computing every element.
    one = _uniform_operands(node, env)
    operand = (lambda a: uniform_value(a).reshape((1,) * a.ndim)) if one else (lambda a: a)  # noqa: E731
    kwargs = {}
    for param, ref in node.operands.items():
        if isinstance(ref, tuple):
            kwargs[param] = [_as_compute_array(operand(env[r]), precision) for r in ref]
        else:
            kwargs[param] = _as_compute_array(operand(env[ref]), precision)
    kwargs.update(node.attributes)
    with np.errstate(all="ignore"):
        result = OPS[node.op](**kwargs)
    results = result if isinstance(result, (tuple, list)) else (result,)
    if len(results) != len(node.outputs):
        raise RuntimeError(f"reference {node.op} returned {len(results)} outputs, graph expects {len(node.outputs)}")
    outs = []
    for name, res in zip(node.outputs, results):
        desc = graph.descs[name]
        if isinstance(res, ImplementationDefined):
            values = _round_to(res.values, desc.data_type)
            undefined = np.broadcast_to(res.undefined, values.shape).copy()
            if one:
                values, undefined = np.broadcast_to(values, desc.shape), np.broadcast_to(undefined, desc.shape)
            out = ReferenceOutput(values, undefined, res.reason)
        else:
            values = _round_to(res, desc.data_type)
            out = ReferenceOutput(np.broadcast_to(values, desc.shape) if one else values)
        if out.values.shape != desc.shape:
            raise RuntimeError(f"reference {node.op} produced shape {list(out.values.shape)} for {name}, "
                               f"the spec's create steps say {list(desc.shape)}")
        outs.append(out)
    return outs


def _taint(node: Node, masks: Mapping[str, np.ndarray], outs: list[ReferenceOutput]) -> list[ReferenceOutput]:
    """Carry 'implementation-defined' marks from inputs to outputs."""
    in_masks = [masks[n] for n in node.operand_names() if n in masks]
    if not in_masks:
        return outs
    tainted = []
    for out in outs:
        if node.op in ELEMENTWISE:
            extra = np.zeros(out.values.shape, bool)
            for m in in_masks:
                extra |= np.broadcast_to(m, out.values.shape) if m.ndim <= out.values.ndim else m.any()
        else:
            extra = np.full(out.values.shape, any(m.any() for m in in_masks))
        mask = extra if out.undefined is None else (out.undefined | extra)
        reason = out.reason or "depends on an implementation-defined input element"
        tainted.append(ReferenceOutput(out.values, mask, reason))
    return tainted


def evaluate(graph: Graph, inputs: Mapping[str, np.ndarray], precision: str = "float64") -> dict[str, ReferenceOutput]:
    if precision not in PRECISIONS:
        raise ValueError(f"reference precision {precision!r}: one of {', '.join(PRECISIONS)}")
    env: dict[str, np.ndarray] = {**graph.constants, **inputs}
    masks: dict[str, np.ndarray] = {}
    reasons: dict[str, str] = {}
    for node in graph.nodes:
        outs = _taint(node, masks, run_node(node, env, graph, precision))
        for name, out in zip(node.outputs, outs):
            env[name] = out.values
            if out.undefined is not None and out.undefined.any():
                masks[name] = out.undefined
                reasons[name] = out.reason
    return {
        name: ReferenceOutput(env[name], masks.get(name), reasons.get(name, ""))
        for name in graph.outputs
    }
