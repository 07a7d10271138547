"""What a probe tries: for every operator, one small valid argument set (the
baseline) and the combinations that vary one operand at a time.

For each operator and each input operand (spec member names):
- every data type (the spec's allowed ones, and the others labelled "beyond
  spec") at the baseline rank, the operands the spec ties to it ("same data
  type as") moving with it;
- every rank from 0 to 8 that the spec allows, at the baseline data type, the
  operands tied to it by rank moving with it;
- for outputs whose data type an argument chooses (cast ``dataType``,
  argMin ``outputDataType``), every data type of that argument;
- option and layout variants the spec has no limits member for (input and
  filter layouts, padding and interpolation modes, rounding types, RNN
  directions, weight layouts and activations, conv groups and dilations).

Each operator's trait record (harness/spec/opspec, beside its create steps)
holds its ``ProbePlan``: one small function ``make(v)`` that turns a
``Variation`` (which member is varied, to what) into operand shapes and
attributes, and the option variants it understands; the operand data types
come from ``Variation.types``. A shape the create steps refuse raises
``Skip`` and the combination is not tried.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from webnn_harness.spec.catalog import OperatorSpec, operator, operators
from webnn_harness.spec.dtypes import DATA_TYPES, EXTENSION_DATA_TYPES
from webnn_harness.spec.opspec import OPS
from webnn_harness.spec.opspec.base import EXTENSION_TYPES
from webnn_harness.spec.opspec.traits import ProbePlan, Skip, Variation

MAX_RANK = 8  # ranks beyond this are not probed ("capped at rank 8")


# Data types beyond MLOperandDataType that browsers accept where they extend
# the spec: int4/uint4 for quantizeLinear / dequantizeLinear (Chromium's
# kInts4ToInts8), the ops with extension types in the create steps. Other
# operators are not swept with them.
EXTENSION_OPS = frozenset(op for op, _member in EXTENSION_TYPES)


def probed_data_types(op: str) -> tuple[str, ...]:
    return DATA_TYPES + EXTENSION_DATA_TYPES if op in EXTENSION_OPS else DATA_TYPES


@dataclass(frozen=True)
class Combo:
    """One combination to try: an operator call with concrete descriptors."""

    op: str
    member: str | None
    axis: str
    value: Any
    shapes: Mapping[str, Any]  # member -> shape, or list of shapes for list members
    types: Mapping[str, str]  # member -> data type
    attributes: Mapping[str, Any]  # non-operand arguments and options given explicitly
    in_spec: bool  # every operand inside the spec's allowed data types and ranks
    note: str = ""

    @property
    def id(self) -> str:
        where = f"{self.member}." if self.member else ""
        return f"{self.op}/{where}{self.axis}={self.value}"


PLANS: Mapping[str, ProbePlan] = {op: spec.probe for op, spec in OPS.items()}


def _leader(spec: OperatorSpec, member: str, extra: Mapping[str, str], kind: str) -> str:
    """Follow 'same data type as' (kind "type") or 'same rank as' (kind "rank")
    ties among input members to the member that leads them."""
    seen = set()
    while member not in seen:
        seen.add(member)
        lim = spec.operands[member]
        tie = lim.same_data_type_as if kind == "type" else (extra.get(member) or lim.same_rank_as)
        if not tie or tie not in spec.input_members:
            return member
        member = tie
    return member


def baseline_types(op: str) -> dict[str, str]:
    """Per input member, the first required data type (the most likely to work),
    tied members following their leader."""
    spec, plan = operator(op), PLANS[op]
    types: dict[str, str] = {}
    for m in spec.input_members:
        lim = spec.operands[m]
        types[m] = plan.base_types.get(m) or (lim.required_data_types or lim.allowed_data_types)[0]
    for m in spec.input_members:
        types[m] = types[_leader(spec, m, {}, "type")]
    for m in plan.typed_outputs:
        lim = spec.operands[m]
        types[m] = plan.base_types.get(m) or (lim.required_data_types or lim.allowed_data_types)[0]
    return types


def optional_members(op: str) -> list[str]:
    spec = operator(op)
    return [m for m in spec.input_members if m in spec.options]


SWEEPS = ("types", "ranks")  # "types": baseline, data types, options; "ranks": the rank sweeps


def variations(op: str, max_rank: int = MAX_RANK, sweeps: tuple[str, ...] = SWEEPS,
               rank_types: Mapping[str, str] | None = None) -> Iterator[Variation]:
    """The variations of ``op``. ``rank_types`` replaces the baseline data
    types in the rank sweeps: a probe runs them at a data type the type sweep
    found working, so one broken type cannot charge every rank."""
    spec, plan = operator(op), PLANS[op]
    base = baseline_types(op)
    rank_base = {**base, **(rank_types or {})}
    optional = set(optional_members(op))
    types_sweep, ranks_sweep = "types" in sweeps, "ranks" in sweeps
    if types_sweep:
        yield Variation(op, None, "baseline", "", base, frozenset())
    for m in spec.input_members:
        present = frozenset({m} & optional)
        leader = _leader(spec, m, {}, "type")
        if types_sweep and (leader == m or m in optional):
            # An optional operand tied to another's type gets that sweep again, present.
            followers = [f for f in spec.input_members if _leader(spec, f, {}, "type") == leader]
            for t in probed_data_types(op):
                yield Variation(op, m, "dataType", t, {**base, **{f: t for f in followers}}, present)
        if ranks_sweep and _leader(spec, m, plan.rank_ties, "rank") == m:
            for r in range(0, max_rank + 1):
                yield Variation(op, m, "rank", r, rank_base, present)
    if not types_sweep:
        for member, axis, value in plan.extras:
            if axis == "rank":
                yield Variation(op, member, axis, value, rank_base, frozenset())
        return
    for m in plan.typed_outputs:
        for t in probed_data_types(op):
            yield Variation(op, m, "dataType", t, {**base, m: t}, frozenset())
    for m in plan.output_sweeps:  # outputs present only with an option: their own type sweep
        leader = _leader(spec, spec.input_members[0], {}, "type")
        followers = [f for f in spec.input_members if _leader(spec, f, {}, "type") == leader]
        for t in probed_data_types(op):
            yield Variation(op, m, "dataType", t, {**base, **{f: t for f in followers}}, frozenset())
    for label in plan.options:
        yield Variation(op, None, "option", label, base, frozenset())
    for member, axis, value in plan.extras:
        if axis != "rank" or ranks_sweep:
            yield Variation(op, member, axis, value, rank_base if axis == "rank" else base, frozenset())


def _in_spec(spec: OperatorSpec, shapes: Mapping[str, Any], types: Mapping[str, str]) -> bool:
    for m, shape in shapes.items():
        lim = spec.operands[m]
        for s in shape if isinstance(shape, list) else [shape]:
            if types[m] not in lim.allowed_data_types or not lim.allowed_ranks.contains(len(s)):
                return False
    return True


def combos_for(op: str, max_rank: int = MAX_RANK, sweeps: tuple[str, ...] = SWEEPS,
               rank_types: Mapping[str, str] | None = None) -> tuple[list[Combo], list[dict]]:
    """(combinations to try, combinations not tried with the reason)."""
    spec = operator(op)
    out: list[Combo] = []
    skipped: list[dict] = []
    for v in variations(op, max_rank, sweeps, rank_types):
        if v.axis == "rank" and not spec.operands[v.member].allowed_ranks.contains(v.value):
            skipped.append({"op": op, "member": v.member, "axis": "rank", "value": v.value,
                            "reason": "rank not allowed by the spec"})
            continue
        try:
            shapes, attrs = PLANS[op].make(v)
        except Skip as exc:
            skipped.append({"op": op, "member": v.member, "axis": v.axis, "value": v.value, "reason": str(exc)})
            continue
        shapes = {m: (list(map(tuple, s)) if isinstance(s, list) else tuple(s)) for m, s in shapes.items()}
        types = {m: v.types[m] for m in shapes}
        types.update({m: v.types[m] for m in PLANS[op].typed_outputs})
        in_spec = _in_spec(spec, shapes, types) and all(
            v.types[m] in spec.operands[m].allowed_data_types for m in PLANS[op].typed_outputs)
        out.append(Combo(op, v.member, v.axis, v.value, shapes, types, attrs, in_spec))
    return out, skipped


def plan(ops: list[str] | None = None, max_rank: int = MAX_RANK, sweeps: tuple[str, ...] = SWEEPS,
         rank_types: Mapping[str, Mapping[str, str]] | None = None) -> tuple[list[Combo], list[dict]]:
    """Every combination for ``ops`` (default: all operators) in ``sweeps``;
    ``rank_types`` (op -> member -> data type) sets the rank sweeps' types."""
    combos: list[Combo] = []
    skipped: list[dict] = []
    for op in ops or list(operators()):
        if op not in PLANS:
            raise KeyError(f"no probe plan for operator {op!r}")
        c, s = combos_for(op, max_rank, sweeps, (rank_types or {}).get(op))
        combos.extend(c)
        skipped.extend(s)
    return combos, skipped
