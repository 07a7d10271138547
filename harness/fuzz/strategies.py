"""Hypothesis strategies for valid WebNN graphs, drawn from the catalog and
checked by the spec's create steps.

An operator call is drawn in one of two ways, both ending in
``opspec.create`` (a draw the create steps refuse is rejected, never run):

- generic: every operand's data type from the catalog's allowed (and
  extension) types with the "same data type as" ties, ranks from the
  allowed range, shapes equal to the first operand's, broadcast from it
  (dimensions set to 1, leading ones dropped) or drawn freely, and every
  non-operand option drawn by its IDL type (enums from the catalog's enum
  table, numbers with edge values). This covers elementwise ops and
  broadcasting well and the structured ops rarely;
- from the probe's plan (``probe.plan.combos_for``): a valid call per data
  type, rank and layout variant of each op, so convolutions, recurrent ops
  and reshapes are reached too.

A graph is one call or a short chain: each next call takes the previous
call's first output as its first operand where the catalog and the create
steps accept it. Input values mix ordinary numbers with edge values (NaN,
infinities, signed zeros, subnormals, integer extremes, values beyond 2^24,
2^31 and 2^53); indices, booleans and quantization parameters take the
probe's in-domain values, since out-of-range ones are implementation-defined.
Everything shrinks toward one call, small shapes, defaults and 0.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
from hypothesis import assume, strategies as st

from webnn_harness.spec import opspec
from webnn_harness.spec.builder import FieldError, build_graph, is_required
from webnn_harness.loading.cases import Case
from webnn_harness.spec.catalog import OperatorSpec, enum_values, operator, operators
from webnn_harness.spec.dtypes import integer_range, is_float
from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.opspec.base import SpecError, accepted_data_types
from webnn_harness.probe.inputs import operand_values
from webnn_harness.probe.plan import combos_for
from webnn_harness.probe.synth import output_names
from webnn_harness.spec.values import to_array

MAX_RANK = 4
MAX_DIM = 3
FUZZ_FILE = "fuzz"

# Operands whose values have a domain the spec leaves implementation-defined
# outside (indices) or that the probe already keeps meaningful (booleans,
# quantization parameters): they take the probe's values, not fuzzed ones.
# Named by the probe's value domains (OpSpec.values).
PROBE_VALUE_DOMAINS = frozenset({"axisIndices", "coordinates", "boolean", "quantization"})


def takes_probe_values(op: str, member: str) -> bool:
    """Whether ``op``'s operand ``member`` is filled with the probe's values."""
    return not PROBE_VALUE_DOMAINS.isdisjoint(opspec.OPS[op].values.domains(member))


FLOAT_EDGES = {
    "float32": [-0.0, float("nan"), float("inf"), float("-inf"), 1e-45, -1e-45, 1.1754942e-38, 3.4028235e38,
                -3.4028235e38, 1e30, 1.0 + 2**-20, 65504.0, 2.0**24 + 2],
    "float16": [-0.0, float("nan"), float("inf"), float("-inf"), 6e-8, -6e-8, 6.1e-5, 65504.0, -65504.0,
                1.0009765625, 2048.0, 0.5],
}


def _integer_edges(data_type: str) -> list[int]:
    lo, hi = integer_range(data_type)
    cands = [lo, hi, -1, 1, lo + 1, hi - 1, 2**7, 2**15, 2**24 + 1, -(2**24) - 1, 2**31, 2**31 + 1,
             -(2**31) - 1, 2**32 + 3, 2**53 + 1, -(2**53) - 1, 2**63 + 5]
    return [c for c in cands if lo <= c <= hi]


def element_values(data_type: str) -> st.SearchStrategy:
    """One element: ordinary values first (what shrinking moves toward), edge ones mixed in."""
    if is_float(data_type):
        width = 16 if data_type == "float16" else 32
        return st.one_of(
            st.floats(-8, 8, width=width),
            st.sampled_from(FLOAT_EDGES[data_type]),
            st.floats(width=width),
        )
    lo, hi = integer_range(data_type)
    return st.one_of(
        st.integers(max(lo, -8), min(hi, 8)),
        st.sampled_from(_integer_edges(data_type)),
        st.integers(lo, hi),
    )


@st.composite
def tensor_values(draw, desc: TensorDesc) -> np.ndarray:
    """A pattern of 1..size values cycled over the tensor: shrinking shortens
    the pattern, so the value that trips a backend survives a smaller shape."""
    if desc.size == 0:
        return to_array([], desc.shape, desc.data_type)
    pattern = draw(st.lists(element_values(desc.data_type), min_size=1, max_size=desc.size))
    flat = [pattern[i % len(pattern)] for i in range(desc.size)]
    return to_array(flat, desc.shape, desc.data_type)


@dataclass(frozen=True)
class Call:
    """One operator call with concrete descriptors (member -> desc, or a tuple for list members)."""

    op: str
    operands: Mapping[str, Any]
    attributes: Mapping[str, Any]  # arguments and options given explicitly


def _shape(draw, rank: int) -> tuple[int, ...]:
    return tuple(draw(st.integers(1, MAX_DIM)) for _ in range(rank))


def _related_shape(draw, base: tuple[int, ...], ranks) -> tuple[int, ...]:
    kind = draw(st.sampled_from(("same", "broadcast", "free")))
    if kind == "same":
        return base
    if kind == "broadcast":
        keep = draw(st.integers(0, len(base)))
        return tuple(1 if draw(st.booleans()) else d for d in base[len(base) - keep:])
    hi = min(ranks.max if ranks.max is not None else MAX_RANK, MAX_RANK)
    return _shape(draw, draw(st.integers(ranks.min, max(ranks.min, hi))))


def _data_types(draw, spec: OperatorSpec, members: list[str], fixed: Mapping[str, str]) -> dict[str, str]:
    types = dict(fixed)
    pending = [m for m in members if m not in types]
    for _ in range(len(pending) + 1):  # ties may point forward: resolve leaders first
        for m in list(pending):
            tie = spec.operands[m].same_data_type_as
            if tie in types:
                types[m] = types[tie]
            elif tie is None or tie not in members:
                types[m] = draw(st.sampled_from(accepted_data_types(spec, m)))
            else:
                continue
            pending.remove(m)
    return types


def _number(data_type: str | None) -> st.SearchStrategy:
    """An MLNumber argument (clamp bounds, pad value): the operand type's range with its edges."""
    if data_type is None or is_float(data_type):
        return st.one_of(st.floats(-4, 4), st.sampled_from(FLOAT_EDGES["float32"]))
    return element_values(data_type)


def _option_value(draw, spec: OperatorSpec, name: str, idl: str, first_type: str | None):
    if idl == "boolean":
        return draw(st.booleans())
    if idl in ("unsigned long",):
        return draw(st.integers(0, 3))
    if idl == "long":
        return draw(st.integers(-3, 3))
    if idl == "double":
        return draw(st.sampled_from((0.5, 1.0, 0.0, -1.0, 1e-5, 2.0)))
    if idl == "MLNumber":
        return draw(_number(first_type))
    if idl == "sequence<unsigned long>":
        return draw(st.lists(st.integers(0, 3), max_size=MAX_RANK))
    if idl == "sequence<float>":
        return draw(st.lists(st.sampled_from((1.0, 2.0, 0.5, 1.5)), min_size=2, max_size=2))
    if idl == "(unsigned long or sequence<unsigned long>)":
        return draw(st.one_of(st.integers(1, 3), st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    if idl == "MLOperandDataType":
        outs = spec.output_members
        return draw(st.sampled_from(accepted_data_types(spec, outs[0]) if outs else ("float32",)))
    if idl.startswith("sequence<ML"):
        return draw(st.lists(st.sampled_from(enum_values(idl[len("sequence<"):-1])), min_size=1, max_size=3))
    if idl.startswith("ML"):
        return draw(st.sampled_from(enum_values(idl)))
    raise ValueError(f"{spec.name}.{name}: no strategy for IDL type {idl}")


@st.composite
def generic_call(draw, op: str, first: TensorDesc | None = None) -> Call:
    """A call drawn from the catalog alone; ``first`` fixes the first operand (chains)."""
    spec = operator(op)
    positional = [p for p in spec.signature if p.is_operand or p.is_operand_list]
    optional = [o.name for o in spec.options.values() if o.is_operand and o.name in spec.operands]
    present = [p.name for p in positional] + [m for m in optional if draw(st.booleans())]
    members = [m for m in present if m in spec.operands]
    lead = members[0]
    types = _data_types(draw, spec, members, {lead: first.data_type} if first else {})
    ranks = spec.operands[lead].allowed_ranks
    if first is not None:
        base = first.shape
    else:
        hi = min(ranks.max if ranks.max is not None else MAX_RANK, MAX_RANK)
        base = _shape(draw, draw(st.integers(ranks.min, max(ranks.min, hi))))
    operands: dict[str, Any] = {}
    for p in positional:
        if p.is_operand_list:
            count = draw(st.integers(1, 3))
            operands[p.name] = tuple(TensorDesc(base if i == 0 else _related_shape(draw, base, spec.operands[p.name].allowed_ranks),
                                                types[p.name]) for i in range(count))
    for m in members:
        if m in operands:
            continue
        shape = base if m == lead else _related_shape(draw, base, spec.operands[m].allowed_ranks)
        operands[m] = TensorDesc(shape, types[m])
    attributes: dict[str, Any] = {}
    for p in spec.signature:
        if not (p.is_operand or p.is_operand_list):
            attributes[p.name] = _option_value(draw, spec, p.name, p.type, types.get(lead))
    for o in spec.options.values():
        if not o.is_operand and draw(st.booleans()):
            attributes[o.name] = _option_value(draw, spec, o.name, o.type, types.get(lead))
    return Call(op, operands, attributes)


def probe_calls(op: str) -> list[Call]:
    """The probe plan's valid in-spec calls of ``op`` up to MAX_RANK."""
    out = []
    for combo in combos_for(op, max_rank=MAX_RANK)[0]:
        if not combo.in_spec:
            continue
        operands = {m: tuple(TensorDesc(tuple(x), combo.types[m]) for x in s) if isinstance(s, list)
                    else TensorDesc(tuple(s), combo.types[m]) for m, s in combo.shapes.items()}
        out.append(Call(op, operands, dict(combo.attributes)))
    return out


def created(call: Call):
    """The call's output descriptors per the create steps, or None where the spec throws."""
    spec = operator(call.op)
    attrs = {k: o.default for k, o in spec.options.items() if not o.is_operand}
    attrs.update(call.attributes)
    try:
        return opspec.create(call.op, call.operands, attrs)
    except (SpecError, TypeError, ValueError, KeyError, IndexError, NotImplementedError):
        return None


def call_strategy(op: str, first: TensorDesc | None = None) -> st.SearchStrategy:
    generic = generic_call(op, first)
    if first is not None:
        return generic
    planned = probe_calls(op)
    # generic first: shrinking moves toward it, and so toward the smallest shapes
    return st.one_of(generic, st.sampled_from(planned)) if planned else generic


def chainable(op: str, desc: TensorDesc) -> bool:
    spec = operator(op)
    first = next((p for p in spec.signature if p.is_operand), None)
    if first is None or first.name not in spec.operands:
        return False
    lim = spec.operands[first.name]
    return desc.data_type in accepted_data_types(spec, first.name) and lim.allowed_ranks.contains(desc.rank)


def _graph_json(calls: list[Call], outs: list[tuple[str, ...]]) -> tuple[dict[str, TensorDesc], list[dict]]:
    """Input descriptors and the case's "operators" list; call i>0 takes call i-1's first output first."""
    inputs: dict[str, TensorDesc] = {}
    ops_json = []
    for i, (call, out) in enumerate(zip(calls, outs)):
        spec = operator(call.op)
        names: dict[str, Any] = {}
        for j, (m, desc) in enumerate(call.operands.items()):
            if i > 0 and j == 0:
                names[m] = outs[i - 1][0]
            elif isinstance(desc, tuple):
                names[m] = [f"{m}{k}_{i}" for k in range(len(desc))]
                inputs.update(zip(names[m], desc))
            else:
                names[m] = f"{m}_{i}"
                inputs[names[m]] = desc
        args: list[dict] = []
        for p in spec.signature:
            args.append({p.name: names[p.name] if (p.is_operand or p.is_operand_list) else call.attributes.get(p.name)})
        options = {k: v for k, v in call.attributes.items() if k in spec.options}
        options.update({m: names[m] for m in names if m in spec.options})
        args.append({"options": options})
        ops_json.append({"name": call.op, "arguments": args, "outputs": list(out)})
    return inputs, ops_json


@dataclass(frozen=True)
class FuzzGraph:
    """A drawn graph: the case that runs, and the JSON it came from (for the case file)."""

    case: Case
    operators_json: tuple[dict, ...]
    input_descs: Mapping[str, TensorDesc]


@st.composite
def graphs(draw, ops: tuple[str, ...], max_ops: int = 2) -> FuzzGraph:
    """A valid graph of 1..max_ops chained calls with fuzzed input values."""
    count = draw(st.integers(1, max_ops))
    calls: list[Call] = []
    outs: list[tuple[str, ...]] = []
    first: TensorDesc | None = None
    for i in range(count):
        candidates = ops if first is None else tuple(o for o in ops if chainable(o, first))
        if not candidates:
            break
        op = draw(st.sampled_from(candidates))
        call = draw(call_strategy(op, first))
        made = created(call)
        assume(made is not None)
        calls.append(call)
        outs.append(tuple(f"{n}_{i}" for n in output_names(op, len(made.outputs))))
        first = made.outputs[0]
    input_descs, ops_json = _graph_json(calls, outs)
    try:
        graph = build_graph(input_descs, {}, ops_json, None)
    except FieldError:
        assume(False)
    values = {}
    for name, desc in input_descs.items():
        node = next(n for n in graph.nodes if name in n.operand_names())
        member = next(m for m, ref in node.operands.items() if name == ref or (isinstance(ref, tuple) and name in ref))
        if takes_probe_values(node.op, member):
            shapes = {m: (graph.descs[r].shape if isinstance(r, str) else [graph.descs[x].shape for x in r])
                      for m, r in node.operands.items()}
            values[name] = operand_values(node.op, member, desc.shape, desc.data_type, shapes, node.attributes)
        else:
            values[name] = draw(tensor_values(desc))
    ops_label = "+".join(c.op for c in calls)
    types = "/".join(graph.data_types)
    case = Case(file=FUZZ_FILE, name=f"{ops_label} {types} fuzz", index=0, graph=graph, inputs=values,
                expected={}, required=is_required(graph))
    return FuzzGraph(case, tuple(ops_json), input_descs)


def fuzzable_ops(selected=None) -> tuple[str, ...]:
    """Every catalog op with create steps (or the selected ones); unknown names are a KeyError."""
    names = list(selected) if selected else list(operators())
    for n in names:
        operator(n)
    return tuple(n for n in names if n in opspec.CREATE)
