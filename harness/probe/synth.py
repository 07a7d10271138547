"""From a probe combination to a ``harness.cases.Case``: the same object a
case file yields, so probing runs on the ordinary execution path (worker
processes, batches, the reference's expected values, the judge).

In-spec combinations go through ``harness.builder.build_graph`` and so
through the catalog's limit checks and the op's create steps. Combinations
with a data type beyond the spec's allowed set skip the catalog check
deliberately (they are labelled ``inSpec: false``) but still run the op's own
create steps for shapes and attributes.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from webnn_harness.spec import opspec
from webnn_harness.spec.builder import build_graph, is_required
from webnn_harness.loading.cases import Case
from webnn_harness.spec.catalog import operator
from webnn_harness.spec.graph import Graph, Node, TensorDesc
from webnn_harness.probe.inputs import operand_values
from webnn_harness.probe.plan import Combo

PROBE_FILE = "probe"


def operand_names(combo: Combo) -> dict[str, Any]:
    """member -> graph operand name (a tuple of names for list members)."""
    return {m: tuple(f"{m}{i}" for i in range(len(s))) if isinstance(s, list) else m
            for m, s in combo.shapes.items()}


def output_names(op: str, count: int) -> tuple[str, ...]:
    members = operator(op).output_members
    if count == len(members) or (count < len(members) and count == 1):
        return tuple(members[:count])
    return tuple(f"{members[min(i, len(members) - 1)]}{i}" for i in range(count))


def output_member(op: str, index: int) -> str:
    members = operator(op).output_members
    return members[min(index, len(members) - 1)]


def _descs(combo: Combo) -> tuple[dict[str, TensorDesc], dict[str, Any]]:
    """(graph operand name -> desc, member -> desc or tuple of descs)."""
    by_name: dict[str, TensorDesc] = {}
    by_member: dict[str, Any] = {}
    names = operand_names(combo)
    for m, shape in combo.shapes.items():
        if isinstance(shape, list):
            descs = tuple(TensorDesc(tuple(s), combo.types[m]) for s in shape)
            by_member[m] = descs
            by_name.update(zip(names[m], descs))
        else:
            by_member[m] = by_name[names[m]] = TensorDesc(tuple(shape), combo.types[m])
    return by_name, by_member


# Arguments written in one object, as WPT's quantize/dequantize subgraph files
# do ({"scale": s, "zeroPoint": z}: the builder takes each key as the next
# argument), so every probe of the ops whose traits join them goes the way
# those files do.
JOINED_ARGUMENTS: Mapping[str, tuple[str, ...]] = {
    op: opspec.OPS[op].joined_arguments for op in opspec.ops_where(lambda spec: spec.joined_arguments)}


def _operators_json(combo: Combo, count: int) -> list[dict]:
    spec = operator(combo.op)
    names = operand_names(combo)
    args: list[dict] = []
    joined = JOINED_ARGUMENTS.get(combo.op, ())
    for p in spec.signature:
        value = list(names[p.name]) if p.is_operand_list else names.get(p.name, combo.attributes.get(p.name))
        if p.name in joined[1:] and args and set(args[-1]) <= set(joined):
            args[-1][p.name] = value
        else:
            args.append({p.name: value})
    options = {k: v for k, v in combo.attributes.items() if k in spec.options}
    options.update({m: names[m] for m in names if m in spec.options})
    args.append({"options": options})
    return [{"name": combo.op, "arguments": args, "outputs": list(output_names(combo.op, count))}]


def _graph_beyond_spec(combo: Combo, by_name, by_member, constants) -> Graph:
    """One node whose create steps run without the catalog's data-type check."""
    spec = operator(combo.op)
    attrs = {k: o.default for k, o in spec.options.items() if not o.is_operand}
    attrs.update({k: v for k, v in combo.attributes.items()})
    created = opspec.CREATE[combo.op](by_member, attrs)
    outs = output_names(combo.op, len(created.outputs))
    descs = {**by_name, **dict(zip(outs, created.outputs))}
    inputs = tuple(n for n in by_name if n not in constants)
    node = Node(combo.op, operand_names(combo), dict(created.attributes), outs)
    return Graph(inputs=inputs, constants=dict(constants), nodes=(node,), outputs=outs, descs=descs)


def build(combo: Combo, role: str | None = None) -> Graph:
    """The graph of one combination. ``role="constant"`` makes every operand
    a constant (graph-level constant limits). Raises SpecError / FieldError."""
    by_name, by_member = _descs(combo)
    constants = dict(input_values(combo)) if role == "constant" else {}
    if not combo.in_spec:
        return _graph_beyond_spec(combo, by_name, by_member, constants)
    created = opspec.create(combo.op, by_member, {
        **{k: o.default for k, o in operator(combo.op).options.items() if not o.is_operand}, **combo.attributes})
    inputs = {n: d for n, d in by_name.items() if n not in constants}
    return build_graph(inputs, constants, _operators_json(combo, len(created.outputs)), None)


def input_values(combo: Combo) -> dict[str, np.ndarray]:
    names = operand_names(combo)
    out: dict[str, np.ndarray] = {}
    for m, shape in combo.shapes.items():
        if isinstance(shape, list):
            for i, (name, s) in enumerate(zip(names[m], shape)):
                out[name] = operand_values(combo.op, m, s, combo.types[m], combo.shapes, combo.attributes, slot=i)
        else:
            out[names[m]] = operand_values(combo.op, m, shape, combo.types[m], combo.shapes, combo.attributes)
    return out


def to_case(combo: Combo, index: int, role: str | None = None, name: str | None = None) -> Case:
    graph = build(combo, role)
    values = input_values(combo)
    return Case(
        file=PROBE_FILE,
        name=name or combo.id,
        index=index,
        graph=graph,
        inputs={n: v for n, v in values.items() if n in graph.inputs},
        expected={},
        required=combo.in_spec and is_required(graph),
    )


def key(combo: Combo) -> str:
    """Identity of the call a combination makes: two sweeps reaching the
    same call run it once."""
    shapes = {m: [list(x) for x in s] if isinstance(s, list) else list(s) for m, s in sorted(combo.shapes.items())}
    return repr((combo.op, shapes, sorted(combo.types.items()), sorted((k, repr(v)) for k, v in combo.attributes.items())))


def single_node_graph(op: str, operands: Mapping[str, TensorDesc], attributes: Mapping[str, Any]) -> Graph:
    """A one-node graph outside any sweep (layout timing, byte-length search)."""
    combo = Combo(op, None, "adhoc", "", {m: d.shape for m, d in operands.items()},
                  {m: d.data_type for m, d in operands.items()}, dict(attributes), True)
    return build(combo)
