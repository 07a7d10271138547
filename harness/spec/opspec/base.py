"""What every op's create steps share: the error type, the result type and
the generic limit checks that the catalog states as data."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from webnn_harness.spec.catalog import OperatorSpec
from webnn_harness.spec.graph import TensorDesc


class SpecError(ValueError):
    """The spec's create steps say the builder method throws (a TypeError in
    the spec). The message says why, in the spec's terms."""


@dataclass(frozen=True)
class Created:
    """What an op's create steps produce: the output descriptors and every
    non-operand parameter and option resolved to a concrete value."""

    outputs: tuple[TensorDesc, ...]
    attributes: Mapping[str, Any]


OperandArg = TensorDesc | tuple[TensorDesc, ...] | None
# create(operands, attributes) -> Created. ``operands`` maps parameter/option
# names to descriptors (absent optional operands are missing). ``attributes``
# holds the remaining parameters and options with IDL defaults filled in.
CreateFn = Callable[[Mapping[str, OperandArg], Mapping[str, Any]], Created]


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SpecError(message)


def check_axis(axis: int, rank: int, what: str = "axis") -> None:
    check(isinstance(axis, int) and 0 <= axis < rank, f"{what} {axis} is out of range for rank {rank}")


def check_axes(axes: Sequence[int], rank: int, what: str = "axes") -> None:
    for axis in axes:
        check_axis(axis, rank, what)
    check(len(set(axes)) == len(axes), f"{what} {list(axes)} has duplicates")


def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """Bidirectional broadcasting (spec: "broadcast shapes")."""
    rank = max(len(a), len(b))
    pa = (1,) * (rank - len(a)) + tuple(a)
    pb = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(pa, pb):
        check(x == y or x == 1 or y == 1, f"shapes {list(a)} and {list(b)} are not broadcastable")
        out.append(y if x == 1 else x)
    return tuple(out)


def unidirectionally_broadcastable(source: Sequence[int], target: Sequence[int]) -> bool:
    if len(source) > len(target):
        return False
    padded = (1,) * (len(target) - len(source)) + tuple(source)
    return all(s == t or s == 1 for s, t in zip(padded, target))


# Data types beyond the spec's tables that browsers accept and WPT tests:
# int4/uint4 for the quantization ops' integer members (Chromium's
# kInts4ToInts8 / kInts4To8Int32). The create steps accept them; a case using
# them is never "required", and probing lists them beyond the spec.
EXTENSION_TYPES: Mapping[tuple[str, str], tuple[str, ...]] = {
    ("quantizeLinear", "zeroPoint"): ("int4", "uint4"), ("quantizeLinear", "output"): ("int4", "uint4"),
    ("dequantizeLinear", "input"): ("int4", "uint4"), ("dequantizeLinear", "zeroPoint"): ("int4", "uint4"),
}


def accepted_data_types(spec: OperatorSpec, member: str) -> tuple[str, ...]:
    """The spec's allowed data types for ``member`` and the extension ones."""
    return tuple(spec.operands[member].allowed_data_types) + EXTENSION_TYPES.get((spec.name, member), ())


def check_limits(spec: OperatorSpec, operands: Mapping[str, OperandArg]) -> None:
    """The tensor-limits table of the op: allowed data types, ranks and the
    'same as' ties, for every input member present."""
    for member in spec.input_members:
        arg = operands.get(member)
        if arg is None:
            continue
        limits = spec.operands[member]
        accepted = accepted_data_types(spec, member)
        for desc in arg if isinstance(arg, tuple) else (arg,):
            check(
                desc.data_type in accepted,
                f"{spec.name}: {member} data type {desc.data_type} is not allowed "
                f"(allowed: {', '.join(accepted)})",
            )
            check(
                limits.allowed_ranks.contains(desc.rank),
                f"{spec.name}: {member} rank {desc.rank} is outside the allowed ranks "
                f"{limits.allowed_ranks.min} to {limits.allowed_ranks.max if limits.allowed_ranks.max is not None else 'N'}",
            )
            tie = limits.same_data_type_as
            if tie and operands.get(tie) is not None:
                other = operands[tie]
                other_type = (other[0] if isinstance(other, tuple) else other).data_type
                check(
                    desc.data_type == other_type,
                    f"{spec.name}: {member} data type {desc.data_type} must match {tie} ({other_type})",
                )


# Tolerance budgets live beside each op's create steps: one op's facts in one
# place. Each family module exports TOLERANCE = {op: BudgetFn}. A BudgetFn gets
# the node (with resolved attributes) and the graph's descriptors and returns
# the budget for the node's float outputs; integer outputs are always exact.


@dataclass(frozen=True)
class Budget:
    metric: str  # "ULP" (distance between bit patterns) or "ATOL" (absolute)
    value: float


BudgetFn = Callable[[Any, Mapping[str, TensorDesc]], Budget]


def _output_type(node, descs: Mapping[str, TensorDesc]) -> str:
    return descs[node.outputs[0]].data_type


def _fixed(metric: str, value: float, float16: float | None) -> BudgetFn:
    def budget(node, descs) -> Budget:
        if float16 is not None and _output_type(node, descs) == "float16":
            return Budget(metric, float16)
        return Budget(metric, value)

    return budget


def ulp(value: float, float16: float | None = None) -> BudgetFn:
    """A fixed ULP budget (optionally a different one for float16 outputs)."""
    return _fixed("ULP", value, float16)


def atol(value: float, float16: float | None = None) -> BudgetFn:
    """A fixed absolute budget (optionally a different one for float16 outputs)."""
    return _fixed("ATOL", value, float16)


EXACT: BudgetFn = ulp(0)


# Cost functions live beside each op's create steps too. Each family module
# exports COST = {op: CostFn}; a CostFn gets the node (with resolved
# attributes) and the graph's descriptors and returns the node's Cost.
#
# What a Cost counts, for every op (the bench's GFLOP/s, GB/s and roofline
# share are read from these):
# - flops: arithmetic operations on tensor elements. A multiply-add is 2. A
#   transcendental or other library function (exp, log, erf, tanh, sqrt, pow,
#   sin ...) is 1: we count the spec's formula, not the instructions of one
#   backend's polynomial. Pure data movement (reshape, transpose, gather,
#   slice, nearest-neighbor resampling ...) is 0. Index arithmetic is never
#   counted.
# - bytes: tensor bytes the op reads and writes at their data types: every
#   distinct operand it takes (graph inputs, constants and intermediate
#   values alike) plus every output, once each. That is the traffic of one
#   op run on its own (what an op-by-op backend moves); a fused graph may
#   move less, so the figure is an upper bound for a fused graph.


@dataclass(frozen=True)
class Cost:
    flops: int
    bytes: int

    def __add__(self, other: "Cost") -> "Cost":
        return Cost(self.flops + other.flops, self.bytes + other.bytes)

    def to_json(self) -> dict:
        return {"flops": self.flops, "bytes": self.bytes}


CostFn = Callable[[Any, Mapping[str, TensorDesc]], Cost]
FlopsFn = Callable[[Any, Mapping[str, TensorDesc]], int]


def tensor_bytes(node, descs: Mapping[str, TensorDesc]) -> int:
    """Bytes of every distinct operand the node reads plus every output it
    writes. An operand passed twice (add(x, x)) is read once."""
    names = dict.fromkeys(node.operand_names())
    return sum(descs[n].byte_length for n in names) + sum(descs[n].byte_length for n in node.outputs)


def counted(flops: FlopsFn) -> CostFn:
    """A CostFn from a flop count; bytes are the node's tensor bytes."""

    def cost(node, descs) -> Cost:
        return Cost(int(flops(node, descs)), tensor_bytes(node, descs))

    cost.__name__ = getattr(flops, "__name__", "cost")
    cost.__doc__ = flops.__doc__
    return cost


def per_output_element(count: int) -> CostFn:
    """``count`` flops per element of the first output (elementwise ops)."""

    def flops(node, descs) -> int:
        return count * descs[node.outputs[0]].size

    return counted(flops)


MOVEMENT: CostFn = per_output_element(0)
"""Data movement: no arithmetic, only bytes."""
