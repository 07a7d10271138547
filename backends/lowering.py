"""The one lowering contract of the backends that turn a Graph into a
runtime's model (onnxruntime, litert, openvino): the ``Call`` one WebNN node
is seen as, made by ``node_call`` from the values its operands were given;
the loop over a graph's nodes (``lower_nodes``), each through its op's
function ``fn(emitter, call)`` of a family ``LOWER`` table; the refusal a
lowering raises (``Unlowerable``) and the bug it reports
(``LoweringMismatch``). Beside it, the spec-level compositions every
runtime writes with its own steps: clamp's bounds, a reduction over no
axes, a logSumExp that cannot overflow."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from webnn_harness.spec.dtypes import integer_range, is_float
from webnn_harness.spec.graph import Node, TensorDesc


class Unlowerable(Exception):
    """The lowering refuses this node (an op, option or data type the runtime cannot express)."""


class LoweringMismatch(RuntimeError):
    """A lowering gave other outputs than the spec's create steps computed
    (another count, or where the runtime infers them, another shape or type):
    a bug in the adapter, not a verdict on the runtime."""


@dataclass
class Call:
    """One WebNN node as a lowering function sees it."""

    node: Node
    inputs: Mapping[str, Any]  # param -> the backend's value (a list for sequence operands)
    in_descs: Mapping[str, Any]  # param -> TensorDesc (a list for sequence operands)
    out_descs: Sequence[TensorDesc]

    def __getitem__(self, param: str):
        return self.inputs[param]

    def get(self, param: str, default=None):
        return self.inputs.get(param, default)

    def has(self, param: str) -> bool:
        return param in self.inputs

    def desc(self, param: str) -> TensorDesc:
        return self.in_descs[param]

    def attr(self, key: str):
        """An attribute as the op's create steps resolved it, defaults filled
        (None only where an option stays unset, as resample2d's sizes)."""
        return self.node.attributes.get(key)

    @property
    def out(self) -> TensorDesc:
        return self.out_descs[0]


class Lowerings(dict):
    """A family's ``LOWER`` table filled where each function is written:
    ``@LOWER.op("gatherElements")`` above a function says which op it lowers,
    so the op list is not written again as a table beside the functions."""

    def op(self, *names: str) -> Callable[[Callable], Callable]:
        def register(fn: Callable) -> Callable:
            for name in names:
                if name in self:
                    raise RuntimeError(f"{name} is lowered twice ({self[name].__name__}, {fn.__name__})")
                self[name] = fn
            return fn

        return register


def node_call(node: Node, env: Mapping[str, Any], descs: Mapping[str, TensorDesc]) -> Call:
    """``node`` with each operand as ``env`` names it (its value in the model being written)."""
    inputs, in_descs = {}, {}
    for param, ref in node.operands.items():
        if isinstance(ref, tuple):
            inputs[param] = [env[r] for r in ref]
            in_descs[param] = [descs[r] for r in ref]
        else:
            inputs[param] = env[ref]
            in_descs[param] = descs[ref]
    return Call(node, inputs, in_descs, [descs[o] for o in node.outputs])


def refuse_missing(nodes: Sequence[Node], lower: Mapping[str, Any], runtime: str) -> None:
    """Unlowerable naming every op of ``nodes`` that ``lower`` has no function for."""
    missing = sorted({n.op for n in nodes} - set(lower))
    if missing:
        raise Unlowerable(f"no {runtime} lowering for {', '.join(missing)}")


def lower_nodes(emitter, nodes: Sequence[Node], env: dict[str, Any], descs: Mapping[str, TensorDesc],
                lower: Mapping[str, Any], value_type: type | tuple[type, ...], runtime: str,
                settle: Callable[[Node, str, Any, TensorDesc], Any] | None = None) -> None:
    """Each node through its op's lowering function (``lower[op](emitter,
    call)``), its outputs then named in ``env``; first Unlowerable where an
    op has none (``runtime`` names the runtime in that message). A function
    returns one value of ``value_type`` (an ONNX tensor name, a TFLite tensor
    index, an OpenVINO node or output) or a sequence, one per output.
    ``settle(node, name, value, desc)``, where given, turns each output into
    the value ``env`` keeps (and may check it against its descriptor)."""
    refuse_missing(nodes, lower, runtime)
    for node in nodes:
        result = lower[node.op](emitter, node_call(node, env, descs))
        results = [result] if isinstance(result, value_type) else list(result)
        if len(results) != len(node.outputs):
            raise LoweringMismatch(f"lowering of {node.op} gave {len(results)} outputs for {len(node.outputs)}")
        if settle is not None:
            results = [settle(node, name, value, descs[name]) for name, value in zip(node.outputs, results)]
        env.update(zip(node.outputs, results))


def clamp_bounds(low, high, data_type: str, *, drop_limits: bool = False) -> tuple[Any, Any]:
    """clamp's minValue and maxValue (the create steps cast them to the
    input's type) as the bounds a lowering applies, None for no bound: a NaN
    bound clamps nothing (the reference and WPT's "minValue as NaN"); with
    ``drop_limits``, neither does a bound at the type's own limit (an
    infinity, an integer type's minimum or maximum)."""
    low_limit, high_limit = (-math.inf, math.inf) if is_float(data_type) else integer_range(data_type)
    return (None if math.isnan(low) or (drop_limits and low <= low_limit) else low,
            None if math.isnan(high) or (drop_limits and high >= high_limit) else high)


# Spec "reduction operations": axes [] reduces no dimension, yet the function
# still applies, to each element alone: these reductions of one element x
# are abs(x), log(x), x * x; every other one (sum, mean, max, min, product,
# logSumExp) is x itself ("identity").
ONE_ELEMENT_REDUCTION: Mapping[str, str] = {
    "reduceL1": "abs",
    "reduceL2": "abs",
    "reduceLogSum": "log",
    "reduceSumSquare": "square",
}


def reduce_over_no_axes(op: str, x, elementwise: Mapping[str, Callable[[Any], Any]]):
    """The reduction ``op`` of ``x`` over no axes, with the runtime's
    ``elementwise`` steps named in ONE_ELEMENT_REDUCTION (and "identity")."""
    return elementwise[ONE_ELEMENT_REDUCTION.get(op, "identity")](x)


@dataclass(frozen=True)
class LogSumExpSteps:
    """The runtime's steps ``log_sum_exp`` composes, each on its values."""

    reduce_max_kept: Callable[[Any, Sequence[int]], Any]  # (x, axes): reduced dimensions kept
    reduce_sum: Callable[[Any, Sequence[int], bool], Any]  # (x, axes, keepDimensions)
    zero_where_infinite: Callable[[Any], Any]
    exp: Callable[[Any], Any]
    log: Callable[[Any], Any]
    sub: Callable[[Any, Any], Any]
    add: Callable[[Any, Any], Any]
    shaped_like: Callable[[Any, Any], Any]  # (x, like): x reshaped to like's shape


def log_sum_exp(x, axes: Sequence[int], keep: bool, steps: LogSumExpSteps):
    """reduceLogSumExp as max + log(sum(exp(x - max))): exp of the input
    alone overflows float32 past 88 where the result is finite. An infinite
    max is taken as 0 (inf - inf would be NaN), so all -inf gives -inf and
    any +inf gives +inf."""
    peak = steps.zero_where_infinite(steps.reduce_max_kept(x, axes))
    total = steps.reduce_sum(steps.exp(steps.sub(x, peak)), axes, keep)
    return steps.add(steps.log(total), steps.shaped_like(peak, total))
