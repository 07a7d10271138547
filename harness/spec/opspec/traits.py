"""One record per op: ``OpSpec`` holds everything the harness knows of an
op (its create steps, tolerance budget, cost, probe plan, input values and
the flags below), declared once in its family's module (each family exports
``OPS = declare(OpSpec(...), ...)``; the package joins them). The create
steps, tolerance and cost tables, the probe's plan and input values, the
fuzz's choice of values, the accuracy cases, the reference's element-wise
shortcuts and the judge's discrete outputs are all read from these records,
so a new op states its facts in one place and every list elsewhere follows.

The probe's argument builders (``ProbePlan.make``) are written in the family
modules too: a ``Variation`` (which member is varied, to what) in, operand
shapes and attributes out; ``Skip`` where the variation has no valid
argument set.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from webnn_harness.spec.opspec.base import BudgetFn, CostFn, CreateFn

# Dimension sizes for a rank-r probe operand: distinct leading sizes so a
# transposed or mis-strided result cannot pass; 1152 elements at rank 8.
DIMS = (2, 3, 4, 2, 3, 2, 2, 2)


def dims(rank: int) -> tuple[int, ...]:
    return DIMS[:rank]


class Skip(Exception):
    """This variation has no valid argument set (the message says why)."""


@dataclass(frozen=True)
class Variation:
    op: str
    member: str | None  # the member varied (None: the baseline itself)
    axis: str  # "dataType" | "rank" | "option" | "baseline"
    value: Any  # the data type, the rank, or the option label
    types: Mapping[str, str]  # data type of every input member present (and attribute-typed outputs)
    present: frozenset[str]  # optional operand members present in this variation

    @property
    def rank(self) -> int | None:
        return self.value if self.axis == "rank" else None

    def rank_of(self, member: str, default: int) -> int:
        return self.value if self.axis == "rank" and self.member == member else default


MakeFn = Callable[[Variation], tuple[dict, dict]]


@dataclass(frozen=True)
class ProbePlan:
    """What a probe tries for one op (harness/probe/plan.py): ``make`` turns a
    Variation into ({member: shape}, {attribute: value})."""

    make: MakeFn
    base_types: Mapping[str, str] = field(default_factory=dict)  # overrides of the first required type
    base_ranks: Mapping[str, int] = field(default_factory=dict)  # member -> baseline rank
    rank_ties: Mapping[str, str] = field(default_factory=dict)  # follower -> leader, beyond the catalog's
    typed_outputs: tuple[str, ...] = ()  # output members whose data type an argument picks
    options: tuple[str, ...] = ()  # option/layout variant labels make() understands
    extras: tuple[tuple[str, str, Any], ...] = ()  # extra (member, axis, value) variations make() understands
    output_sweeps: tuple[str, ...] = ()  # outputs present only with an option (make() sets it)


# The value domains of probe inputs (harness/probe/inputs.py says what each
# holds). Those marked "floats" apply to float operands only; an integer
# operand falls through to the op's domain, then to "uniform".
VALUE_DOMAINS = frozenset({
    "uniform",  # smooth random values in [-1, 1] (small integers)
    "wide",  # the full width of the data type: values beyond 2^24, 2^31, 2^53
    "additive",  # halves of the wide values: sums of two stay in range
    "product",  # products of two stay in range but exceed 2^53 / 2^24
    "longProduct",  # products of up to 4 stay in range (reduceProduct)
    "squares",  # sums of up to 4 squares stay in range
    "dyadic",  # floats: multiples of 1/4, exact whatever the summation order
    "smooth",  # floats: inside every transcendental's comfortable domain
    "positive",  # floats: positive only (log, sqrt)
    "nonzero",  # floats: no zero (reciprocal)
    "divisor",  # small non-zero values of any type (div's divisor)
    "integerDivisor",  # integers: small non-zero values (sub's b); floats: the op's domain
    "positiveUniform",  # random values in [0.25, 2] (a variance)
    "powBase", "powExponent",  # pow's operands: the power stays in range
    "boolean",  # 0, 1 and other non-zero bytes
    "axisIndices",  # valid indices along the attribute ``axis``, negative ones too
    "coordinates",  # valid coordinate rows into the input (gatherND, scatterND)
    "quantization",  # scale, zeroPoint and input of the quantization ops
    "quotients",  # quantizeLinear's input: quotients stay small and in range after the zero point
})


@dataclass(frozen=True)
class InputValues:
    """Where the probe's input values come from: the op's domain, member
    domains that override it, and whether NaN and infinities are passed
    (only to ops that define them or move values bit for bit)."""

    domain: str = "uniform"
    members: Mapping[str, str] = field(default_factory=dict)
    specials: bool = False

    def domains(self, member: str) -> tuple[str, ...]:
        """The domains to try for ``member``, first the member's own."""
        own = self.members.get(member)
        return (own, self.domain) if own else (self.domain,)


@dataclass(frozen=True)
class AccuracyPlan:
    """The op's accuracy cases (harness/accuracy/plans.py): TOSA's data sets
    laid out as in the TOSA operator ``tosa`` (its dot products and bound),
    at each of ``sizes`` (accumulation lengths, or input channels for
    convolutions)."""

    tosa: str  # "MATMUL", "FULLY_CONNECTED", "CONV2D", "TRANSPOSE_CONV2D", "REDUCE_SUM"
    sizes: tuple[int, ...]


@dataclass(frozen=True)
class OpSpec:
    """One op, declared once: what its create steps compute, how far a
    backend may stray (tolerance), what it costs, and what the probe, fuzz,
    accuracy, reference and judge need of it."""

    name: str  # the builder method, as the spec names it
    create: CreateFn  # the spec's create steps (base.py: CreateFn)
    tolerance: BudgetFn  # the budget of its float outputs (base.py: "Tolerance budgets")
    cost: CostFn  # flops and bytes (base.py: "What a Cost counts")
    probe: ProbePlan
    values: InputValues = InputValues()
    # Each output element depends only on the same-position input elements
    # (after broadcasting): the reference's one-value shortcut and its
    # "implementation-defined" taint follow elements (backends/reference/evaluate.py).
    elementwise: bool = False
    # The integer output is one of a few outcomes (a comparison, a logical
    # op, an index), not a rounded float (harness/verdict/tolerance.py).
    discrete: bool = False
    # The result is one of the input values, converted at most, so a zero
    # keeps its sign (WPT's zero-ULP list for data movement, and cast;
    # harness/verdict/judge.py).
    keeps_zero_sign: bool = False
    # Arguments the probe writes in one object, as WPT's files do (harness/probe/synth.py).
    joined_arguments: tuple[str, ...] = ()
    # Preference (lower first) among the ops the probe's graph-level sweeps
    # may run on: each takes every data type and rank (harness/probe/driver.py).
    graph_sweep: int | None = None
    accuracy: AccuracyPlan | None = None


def declare(*specs: OpSpec) -> Mapping[str, OpSpec]:
    """A family's table, ``{name: OpSpec}``; a name declared twice is a bug."""
    table: dict[str, OpSpec] = {}
    for spec in specs:
        if spec.name in table:
            raise RuntimeError(f"{spec.name} is declared twice")
        table[spec.name] = spec
    return table
