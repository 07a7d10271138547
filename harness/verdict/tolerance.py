"""Tolerance budgets: per op (from the ops' records in harness/spec/opspec),
carried through a multi-operator graph (``carried_interval``), overridden per
case.

The chain rule
--------------
WPT's conformance tests (web-platform-tests ``webnn/resources/utils.js``,
``getPrecisionTolerance``) judge a multi-operator graph with one ULP budget:
the sum of each operator's ULP tolerance looked up at the *expected output's*
data type. That drops operators judged by an absolute tolerance (erf, cos,
log: ``ATOL`` in the same file), counts a float16 operator's ULPs before a
cast to float32 as float32 ULPs (2^13 times too few), and assumes an error
reaches the output unchanged: an exp after a 1-ULP sqrt, or a sub that cancels
what a mul rounded, turns one ULP of the intermediate into many of the output.

So each op's budget is applied where the op is, in its own metric and type:

1. The output's producer keeps its own budget, in its metric (a single-op
   graph is judged exactly as before).
2. Every ancestor A with a non-zero budget and a float output may be off by
   that budget at each element: ``x_A`` anywhere in ``[lo, hi]``, k ULP steps
   of A's own data type, or +-atol rounded outward into A's type. What that does
   to the output is measured by rerunning the reference on the moved
   intermediate: once with every element at ``lo``, once at ``hi``, and (up
   to ``COORDINATE_RUNS`` reruns of a downstream op in all, unless every
   downstream op is elementwise) once per element and side, adding up the single-element moves.
   The carried interval of an output element is its expected value widened by
   the moves of every carried ancestor, added up.

The backend's value passes when its distance *from the carried interval*, in
the producer's metric, is within the producer's budget. With nothing to
carry (one op, or exact ancestors such as reshape or relu) the interval is
the expected value itself: the usual comparison. An integer output is exact
as before, but exact within its carried interval: an argMax after a pooling
op may pick another channel where the pooling's budget allows a tie.

Why this is sound. It does not admit an error no op could produce: each point
of the interval is the exact downstream result of an intermediate that its
producer's budget allows (to first order, for the sum of single-element
moves), and the producer's budget is applied on top. It does not reject an
error the budgets allow when each output element moves one way with the
carried elements (elementwise monotone functions, min/max/clamp/relu, casts,
data movement, sum/mean/max/min reductions and pooling: the all-``lo`` and
all-``hi`` runs are exact) or linearly with them (matmul, gemm, conv, mul: the
single-element sum is ``sum |w| * radius``, exact). Limits: a downstream
function with an extremum strictly inside the carried range (cos of an erf
near a multiple of pi) is measured at the ends and the centre only, an
intermediate whose single-element runs would cost more than ``COORDINATE_RUNS``
op runs (elements x 2 x downstream ops; a 16-cell lstm chain) gets only the
all-``lo``/all-``hi`` runs (which under-count a linear op with weights of
both signs), errors of several ancestors are added, not compounded
(second order). Cost: two reference runs of the downstream ops per carried
op, plus two per element where the single-element runs apply; only multi-op
graphs pay.

Integer outputs
---------------
Adding up moves is a float's rule: for an integer output it admits values no
implementation can give (an equal after two dequantizeLinear ops, each of
whose moves flips 1 to 0, added up to -1). An integer output's carried *set*
is what the runs reached, per element: every run above, plus one run with
every carried ancestor at ``lo`` at once and one at ``hi`` (each ancestor's
bounds taken around its value in that run, so the moves compound as they
would in a backend). Where the integer values come from a comparison, a
logical op, isNaN/isInfinite or argMin/argMax (through data movement, casts
and integer arithmetic), only the reached values pass: 0 or 1, an index some
run picked. Where they are a float rounded (a cast, quantizeLinear), every
integer between the lowest and highest reached value passes: the cast of the
carried interval. Limits: a combination of moves that none of the runs makes
(three tied argMax candidates, two of them moved by different ancestors) is
not admitted.

Twins
-----
A backend is one function per op: the same op, with the same attributes and
data types, gives the same value wherever its operands' elements are the
same. Moving one dequantizeLinear of a comparison's operand by its ULP while
the other stays (the moves added up above) admits a flip no backend makes:
the two sides of ``equal(dequantizeLinear(q_a, s, z), dequantizeLinear(q_b,
s, z))`` are equal wherever ``q_a == q_b``, at the exact value or one ULP off
together. So for an integer output, a move of a carried elementwise node (or
a quantizeLinear/dequantizeLinear, blockwise-expanded) brings along every
element of each *twin* (a carried node with the same op, attributes and data
types) whose operands there equal those of a moved element, to the same
value. A backend that folds a quantizeLinear -> dequantizeLinear pair leaves
one side unrounded, unequal to the other: it fails, as it fails WPT's rule
(every one of WPT's six "quantized element-wise logical" cases). Limits: a
backend whose two copies of an op round differently (one constant-folded at
build time by other code than the kernel's) is failed there; WPT's rule,
exact for these graphs, fails it too. A float output still adds the moves
up (its interval is continuous: ``sub`` of the twins is within their two
ULPs of 0), and twins of more than ``TWIN_ELEMENTS`` elements move alone.

Narrowing casts
---------------
A cast to a narrower float type (float32 to float16) leaves only that type's
values to flow on: where the output is reached from such a cast through ops
that only copy, widen or flip the sign of a value (casts, data movement
taking one operand, identity, neg, abs, relu), every value the output can
hold is representable in the narrow type. The carried interval alone would
admit the values between them (a backend folding ``cast(cast(x, float16),
float32)`` into ``x`` lies within one float16 ULP of the rounded value), so
the point judged against is the narrow type's value in the interval nearest
to the backend's: folding the round trip fails, as it fails WPT's rule. The
same holds for a float16 op's own result widened by a cast: its tensor holds
float16 values, and the exact widening keeps them. ONNX Runtime 1.32 (CPU,
optimizations on) computes ``cast(reduceLogSumExp(x16), float32)`` without
the float16 rounding (ln 2 = 0.6931472 for x = [0, 0], not the float16
0.693359375: 3560 float32 ULPs, past WPT's 22, inside 1 float16 ULP); that
is failed here as WPT's rule fails it (tests/test_chain_budget.py). Behind
an add after the round trip the result is no longer a float16 value, but it
is still not any float32 value (next section; tests/test_mutants.py).

Arithmetic on narrowed values
-----------------------------
An add, sub or mul computed in float32 on values a cast narrowed to float16
gives a result that need not be a float16 value, but is not any float32
value either: every float16 value is a multiple of its binade's spacing q
(2^-24 at least), so a sum of narrowed values is a multiple of the smaller
q, a narrowed value plus a value no carried op moves (a constant, an input)
is that value plus a multiple of q, and a product is a multiple of q_a q_b
(or of q |c| with an unmoved c). Where the output's producer is such an op,
the point judged against is the lattice point nearest the backend's value
inside the carried interval, and the producer's own budget applies on top.
Folding the round trip leaves the unrounded x, up to q/2 off the lattice:
it fails where WPT's exact expectation fails it, instead of passing inside
the interval the cast's one float16 ULP spans. q is taken at the lowest
magnitude the narrowed value can reach: its cast's (or float16 op's) own
ULPs when nothing upstream of it is carried, else the type's smallest
spacing (sound, and catching only folds of tiny values). Not tracked: a lattice through a
second arithmetic op (the first one's own rounding and budget leave the
lattice) or through data movement between the cast and the op (the value
set is still judged there by "Narrowing casts" when it is the output).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from webnn_harness.spec.blockwise import blockwise_expand
from webnn_harness.spec.exact import exact_reference
from webnn_harness.spec.dtypes import is_float, numpy_dtype
from webnn_harness.spec.graph import Graph, Node
from webnn_harness.spec.opspec import TOLERANCE, ops_where
from webnn_harness.spec.opspec.base import Budget

# A carried intermediate is also moved one element at a time when that costs
# at most this many op runs (elements x 2 sides x downstream ops): every
# 2-op fuzz graph up to 512 elements, not a 16-cell lstm chain, whose
# single-element runs took 36 s of CPU to judge.
COORDINATE_RUNS = 1024

# A move of one intermediate: the overrides it brings along (its twins', see
# "Twins") and the node the reruns start from; None moves it alone.
Tie = Callable[[np.ndarray], "tuple[dict[str, np.ndarray], int]"] | None


def node_budget(node: Node, graph: Graph) -> Budget:
    fn = TOLERANCE.get(node.op)
    if fn is None:
        raise KeyError(f"no tolerance budget defined for {node.op}")
    return fn(node, graph.descs)


def step_ulps(values: np.ndarray, steps: float) -> np.ndarray:
    """``values`` moved ``steps`` ULPs (of their own float type) up, or down
    for negative ``steps``; +-0 count as one point, infinity is the end."""
    values = np.asarray(values)
    bits = np.dtype(f"u{values.dtype.itemsize}")
    top = int(np.array(np.inf, values.dtype).view(bits))
    sign_bit = 1 << (8 * values.dtype.itemsize - 1)
    raw = values.view(bits).astype(np.int64)
    magnitude = raw & (sign_bit - 1)
    ordered = np.where(raw & sign_bit, -magnitude, magnitude)
    moved = np.clip(ordered + int(steps), -top, top)
    out = np.where(moved < 0, sign_bit | -moved, moved).astype(bits).view(values.dtype)
    return np.where(np.isnan(values), values, out)


def _atol_side(values: np.ndarray, delta: float) -> np.ndarray:
    """``values + delta`` rounded away from ``values`` into their float type."""
    exact = values.astype(np.float64) + delta
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = exact.astype(values.dtype)
    toward = np.array(np.inf if delta > 0 else -np.inf, values.dtype)
    inside = (rounded < exact) if delta > 0 else (rounded > exact)
    return np.where(inside, np.nextafter(rounded, toward), rounded)


def budget_bounds(values: np.ndarray, budget: Budget) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest values an op's budget allows around its exact ``values``."""
    if budget.metric == "ULP":
        return step_ulps(values, -budget.value), step_ulps(values, budget.value)
    return _atol_side(values, -budget.value), _atol_side(values, budget.value)


@dataclass(frozen=True)
class CarriedInterval:
    """Per element of one output (float64): the reference's exact value, the
    lowest and highest exact values when the carried ancestors are off by
    their budgets, and where one of them can make it NaN."""

    exact: np.ndarray
    low: np.ndarray
    high: np.ndarray
    may_be_nan: np.ndarray
    carried: tuple[str, ...]  # the ops whose error is carried
    # An integer output only: every value the runs reached (stacked on axis 0),
    # and whether only those pass (a comparison's 0/1, an index) or every
    # integer between the lowest and highest of them (a rounded float).
    reached: np.ndarray | None = None
    discrete: bool = False
    # A float output every value of which is representable in this narrower
    # float type (numpy dtype name; see "Narrowing casts"), or None.
    narrowed: str | None = None
    # An add, sub or mul of narrowed values (see "Arithmetic on narrowed
    # values"): per element, the exact result is offset + k * step for an
    # integer k; None where no such lattice is known.
    lattice: tuple[np.ndarray, np.ndarray] | None = None

    def _admits(self, actual: np.ndarray) -> np.ndarray:
        """Where an integer ``actual`` is a value the graph reaches (see "Integer outputs")."""
        if self.discrete:
            return (self.reached == actual[np.newaxis]).any(axis=0)
        return (actual >= self.reached.min(axis=0)) & (actual <= self.reached.max(axis=0))

    def nearest(self, expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
        """The point of the interval (moved onto ``expected``, which may be a
        case file's literal value) nearest to ``actual``, rounded outward into
        the output's type: what ``actual`` is judged against."""
        expected = np.asarray(expected)
        e = expected.astype(np.float64)
        a = np.asarray(actual).astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            shift = np.where(np.isfinite(e - self.exact), e - self.exact, 0.0)
            low, high = np.fmin(e, self.low + shift), np.fmax(e, self.high + shift)
            if expected.dtype.kind in "iub":
                # An integer output (argMax of a pooled float, a cast) is exact
                # within its carried set; float64 holds it exactly below 2^53.
                reached = self.reached is not None and self.reached.shape[1:] == a.shape
                inside = (self._admits(a) & (e == self.exact)) if reached else (a == e)
                return np.where(inside & (np.abs(e) < 2.0**53), np.asarray(actual), expected)
            near = np.clip(a, low, high)
            if self.narrowed is not None:
                near = _representable_within(near, low, high, np.dtype(self.narrowed))
            on_lattice = np.zeros(near.shape, bool)
            if self.lattice is not None:
                near, on_lattice = _lattice_within((self.lattice[0] + shift, self.lattice[1]), near, low, high,
                                                   expected.dtype)
            out = near.astype(expected.dtype)
            # Rounding the interval's end into the output type must not move it inward.
            wide = out.astype(np.float64)
            out = np.where(wide > near, np.nextafter(out, np.array(-np.inf, out.dtype)), out)
            out = np.where(wide < near, np.nextafter(out, np.array(np.inf, out.dtype)), out)
            # A lattice point is the producer's exact result: rounded to nearest, as the producer rounds it.
            out = np.where(on_lattice, near.astype(expected.dtype), out)
        out = np.where(np.isnan(e), expected, out)  # an expected NaN is judged as always
        return np.where(self.may_be_nan & np.isnan(a) & ~np.isnan(e), np.array(np.nan, expected.dtype), out)


def _lattice_within(lattice: tuple[np.ndarray, np.ndarray], near: np.ndarray, low: np.ndarray,
                    high: np.ndarray, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(the judged point, where it is a lattice point): see "Arithmetic on narrowed values"."""
    # The interval's ends are the reruns' results rounded into the output type: the
    # lattice points they round from may lie up to half a step of that type outside.
    with np.errstate(over="ignore", invalid="ignore"):
        ulp = np.spacing(np.fmax(np.abs(low), np.abs(high)).astype(dtype)).astype(np.float64)
    point = _lattice_point_within(near, low - ulp, high + ulp, lattice[0], lattice[1])
    return point, point != near


def _representable_within(near: np.ndarray, low: np.ndarray, high: np.ndarray, narrow: np.dtype) -> np.ndarray:
    """``near`` rounded to the nearest value of the ``narrow`` float type,
    moved one step inward where that left [low, high]; where no such value
    lies inside, ``near`` itself (the interval's ends then stand)."""
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = near.astype(narrow)
        wide = rounded.astype(np.float64)
        rounded = np.where(wide > high, np.nextafter(rounded, np.array(-np.inf, narrow)), rounded)
        rounded = np.where(wide < low, np.nextafter(rounded, np.array(np.inf, narrow)), rounded)
        wide = rounded.astype(np.float64)
    inside = (wide >= low) & (wide <= high)
    return np.where(inside | np.isnan(near), wide, near)


def _lattice_point_within(near: np.ndarray, low: np.ndarray, high: np.ndarray, offset: np.ndarray,
                          step: np.ndarray) -> np.ndarray:
    """The point ``offset + k * step`` nearest to ``near``, moved one step
    inward where that left [low, high]; ``near`` itself where there is none
    inside (or no lattice: a step of 0, a value not finite)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        k = np.round((near - offset) / step)
        point = offset + k * step
        point = np.where(point > high, point - step, point)
        point = np.where(point < low, point + step, point)
    ok = (step > 0) & np.isfinite(point) & (point >= low) & (point <= high)
    return np.where(ok, point, near)


# Ops that hand on a value of their (single) float input unchanged but for its
# sign or its type: a value representable in a narrower type stays so.
VALUE_COPYING_OPS = frozenset({
    "cast", "identity", "neg", "abs", "relu",
    "reshape", "transpose", "slice", "expand", "tile", "reverse", "split",
})


def _float_bits(data_type: str) -> int:
    return numpy_dtype(data_type).itemsize * 8


def _producers(graph: Graph) -> dict[str, Node]:
    """Each operand name's producing node."""
    return {name: node for node in graph.nodes for name in node.outputs}


def _narrow_source(graph: Graph, output: str) -> Node | None:
    """The node whose output, of a float type narrower than ``output``'s,
    reaches ``output`` through value-copying ops only (the narrowest such);
    None where there is none."""
    producer = _producers(graph)
    if not is_float(graph.descs[output].data_type):
        return None
    narrowest, source, name = _float_bits(graph.descs[output].data_type), None, output
    while True:
        if is_float(graph.descs[name].data_type) and _float_bits(graph.descs[name].data_type) < narrowest:
            narrowest, source = _float_bits(graph.descs[name].data_type), producer.get(name)
        node = producer.get(name)
        if node is None or node.op not in VALUE_COPYING_OPS:
            return source
        operands = node.operand_names()
        if len(operands) != 1 or not is_float(graph.descs[operands[0]].data_type):
            return source
        name = operands[0]


def narrowed_type(graph: Graph, output: str) -> str | None:
    """The narrowest float type the values of float ``output`` were held in
    on their way from the op that made them through value-copying ops (see
    "Narrowing casts"); None where none is narrower than the output's own."""
    source = _narrow_source(graph, output)
    return None if source is None else numpy_dtype(graph.descs[source.outputs[0]].data_type).name


def _ancestors(graph: Graph, name: str) -> set[int]:
    """The ids of the nodes ``name`` is computed from, its producer included."""
    producer = _producers(graph)
    seen: set[int] = set()
    stack = [name]
    while stack:
        node = producer.get(stack.pop())
        if node is not None and id(node) not in seen:
            seen.add(id(node))
            stack.extend(node.operand_names())
    return seen


def _quantum(values: np.ndarray, narrow: np.dtype) -> np.ndarray:
    """The spacing of the ``narrow`` float type's values at magnitudes from
    ``values`` up: every such value is a multiple of it."""
    info = np.finfo(narrow)
    smallest = float(info.smallest_subnormal)
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log2(np.abs(values.astype(np.float64))))
    exponent = np.maximum(np.where(np.isfinite(exponent), exponent, info.minexp), info.minexp)
    return np.maximum(np.exp2(exponent - info.nmant), smallest)


def _operand_lattice(graph: Graph, env: Mapping[str, np.ndarray], name: str, carried: list[Node],
                     shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """(offset, step) of the values operand ``name`` can take: a narrowed
    value is a multiple of its narrow type's spacing at the lowest magnitude
    it can reach (0 + k * q); a value no carried op moves is itself (value, 0)."""
    ids = _ancestors(graph, name)
    values = np.broadcast_to(np.asarray(env[name], dtype=np.float64), shape)
    if not any(id(node) in ids for node in carried):
        return values, np.zeros(shape)
    source = _narrow_source(graph, name)
    if source is None:
        return None
    narrow = numpy_dtype(graph.descs[source.outputs[0]].data_type)
    budget = node_budget(source, graph)
    upstream = set().union(*(_ancestors(graph, n) for n in source.operand_names()))
    if budget.metric != "ULP" or any(id(node) in upstream for node in carried):
        # moved by more than the source's own ULPs: only the type's smallest spacing is sure
        return np.zeros(shape), np.full(shape, float(np.finfo(narrow).smallest_subnormal))
    held = values.astype(narrow)
    lowest = np.fmin(np.abs(step_ulps(held, -budget.value)), np.abs(step_ulps(held, budget.value)))
    return np.zeros(shape), _quantum(np.fmin(lowest, np.abs(held)), narrow)


def lattice_of(graph: Graph, env: Mapping[str, np.ndarray], output: str,
               carried: list[Node]) -> tuple[np.ndarray, np.ndarray] | None:
    """(offset, step) per element of float ``output`` produced by add, sub or
    mul from narrowed values (see "Arithmetic on narrowed values"), or None."""
    producer = _producers(graph)
    node = producer.get(output)
    if node is None or node.op not in ("add", "sub", "mul") or not is_float(graph.descs[output].data_type):
        return None
    shape = tuple(graph.descs[output].shape)
    a, b = (_operand_lattice(graph, env, n, carried, shape) for n in (node.operands["a"], node.operands["b"]))
    if a is None or b is None or not ((a[1] > 0) | (b[1] > 0)).all():
        return None
    (oa, sa), (ob, sb) = a, b
    if node.op == "mul":
        # (ka qa)(kb qb) is a multiple of qa qb; ka qa times a fixed c of qa |c|
        step = np.where(sa == 0, sb * np.abs(oa), np.where(sb == 0, sa * np.abs(ob), sa * sb))
        return np.zeros(shape), step
    step = np.where(sa == 0, sb, np.where(sb == 0, sa, np.fmin(sa, sb)))
    return (oa + ob if node.op == "add" else oa - ob), step


def _downstream(graph: Graph, env: Mapping[str, np.ndarray], start: int, overrides: Mapping[str, np.ndarray],
                output: str) -> np.ndarray:
    """The reference's ``output`` with the nodes from ``start`` on rerun on ``overrides``."""
    run_node = exact_reference().run_node
    env = {**env, **overrides}
    for node in graph.nodes[start:]:
        for name, out in zip(node.outputs, run_node(node, env, graph)):
            if name not in overrides:  # a twin moved with the intermediate (see "Twins") stays moved
                env[name] = out.values
    return np.asarray(env[output], dtype=np.float64)


def _elementwise(nodes) -> bool:
    """Every output element of these nodes depends on one element of each
    operand: moving all elements at once moves each output as far as moving
    its own element alone, so the single-element runs add nothing."""
    return all(node.op in ELEMENTWISE_OPS for node in nodes)


def _moves(graph: Graph, env: Mapping[str, np.ndarray], start: int, name: str, lo: np.ndarray, hi: np.ndarray,
           output: str, exact: np.ndarray, tie: Tie = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """(lowest, highest, may be NaN, every run's output) of ``output`` when
    intermediate ``name`` lies anywhere in [lo, hi]; ``tie`` (see "Twins")
    gives the overrides a moved ``name`` brings along, and the run's start."""
    tie = tie or (lambda moved: ({name: moved}, start))

    def rerun(moved: np.ndarray) -> np.ndarray:
        overrides, first = tie(moved)
        return _downstream(graph, env, first, overrides, output)

    runs = [rerun(lo), rerun(hi)]
    down, up = np.zeros(exact.shape), np.zeros(exact.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        downstream = graph.nodes[start:]
        if 2 * lo.size * len(downstream) <= COORDINATE_RUNS and not _elementwise(downstream):
            x = env[name]
            for i in range(x.size):
                for side in (lo, hi):
                    if side.flat[i] == x.flat[i] or np.isnan(side.flat[i]):
                        continue
                    moved = x.copy()
                    moved.flat[i] = side.flat[i]
                    y = rerun(moved)
                    runs.append(y)
                    d = y - exact
                    down += np.where(d < 0, d, 0.0)
                    up += np.where(d > 0, d, 0.0)
        for y in runs[:2]:
            d = np.nan_to_num(y - exact, nan=0.0, posinf=np.inf, neginf=-np.inf)
            down, up = np.fmin(down, d), np.fmax(up, d)
        stack = np.stack(runs)
        # Where the exact output is infinite, moves are not differences: the
        # interval reaches the most finite value a run gave.
        finite = np.isfinite(exact)
        low = np.where(finite, exact + down, np.fmin(exact, np.fmin.reduce(stack, axis=0)))
        high = np.where(finite, exact + up, np.fmax(exact, np.fmax.reduce(stack, axis=0)))
        nan = np.isnan(stack).any(axis=0) & ~np.isnan(exact)
    return low, high, nan, runs


# Ops whose output element is a function of their operands' elements at that
# position (broadcast, or blockwise-expanded for the quantization ops).
BLOCKWISE_OPS = frozenset({"quantizeLinear", "dequantizeLinear"})
# A twin group's elements are matched one by one in Python: beyond this many
# elements the twins move alone, as before (more lenient, never stricter).
TWIN_ELEMENTS = 1 << 16


def _per_element(node: Node, env: Mapping[str, np.ndarray], graph: Graph) -> np.ndarray | None:
    """Per output element of ``node``, its operands' values there as one row of
    bytes (a key), or None where the op's elements are not such a function."""
    shape = tuple(graph.descs[node.outputs[0]].shape)
    if len(node.outputs) != 1 or int(np.prod(shape, dtype=np.int64)) > TWIN_ELEMENTS:
        return None
    if node.op in BLOCKWISE_OPS:
        expand = blockwise_expand
    elif node.op in ELEMENTWISE_OPS:
        expand = np.broadcast_to
    else:
        return None
    columns = [np.ascontiguousarray(expand(np.asarray(env[n]), shape)).reshape(-1, 1).view(np.uint8)
               for n in node.operand_names()]
    return np.concatenate(columns, axis=1) if columns else None


def _twin_key(node: Node, graph: Graph) -> tuple:
    """What makes two nodes one function of their operands' elements."""
    import json

    return (node.op, json.dumps(dict(node.attributes), sort_keys=True, default=str),
            tuple(graph.descs[n].data_type for n in node.operand_names()),
            tuple(graph.descs[n].data_type for n in node.outputs))


def _tie(graph: Graph, env: Mapping[str, np.ndarray], position: Mapping[str, int], node: Node,
         carried: list[Node]) -> Tie:
    """The overrides a move of ``node``'s output brings along (see "Twins"):
    every element of a twin whose operands equal those of a moved element
    takes the same value; None where ``node`` has no twin."""
    rows = _per_element(node, env, graph)
    twins = [t for t in carried if t is not node and _twin_key(t, graph) == _twin_key(node, graph)]
    twin_rows = [(t, _per_element(t, env, graph)) for t in twins]
    twin_rows = [(t, r) for t, r in twin_rows if r is not None]
    if rows is None or not twin_rows:
        return None
    name = node.outputs[0]
    first = min(position[t.outputs[0]] - 1 for t, _ in twin_rows + [(node, rows)])

    def tie(moved: np.ndarray) -> tuple[dict[str, np.ndarray], int]:
        flat, exact = (np.ascontiguousarray(v).reshape(-1) for v in (moved, env[name]))
        changed = flat.view(np.uint8).reshape(flat.size, -1) != exact.view(np.uint8).reshape(exact.size, -1)
        table = {rows[i].tobytes(): flat[i] for i in np.flatnonzero(changed.any(axis=1))}
        overrides = {name: moved}
        for twin, keys in twin_rows:
            values = np.array(env[twin.outputs[0]], copy=True).reshape(-1)
            for j, key in enumerate(keys):
                values[j] = table.get(key.tobytes(), values[j])
            overrides[twin.outputs[0]] = values.reshape(np.shape(env[twin.outputs[0]]))
        return overrides, first

    return tie


# Ops whose integer output is one of a few outcomes, not a rounded float
# (comparisons, logical ops, isNaN/isInfinite, argMin/argMax: their traits say so).
DISCRETE_OPS = frozenset(ops_where(lambda traits: traits.discrete))
ELEMENTWISE_OPS = frozenset(ops_where(lambda spec: spec.elementwise))


def _discrete(graph: Graph, output: str) -> bool:
    """Whether integer ``output`` takes its values from a comparison, a logical
    op or argMin/argMax, through ops on integers (data movement, casts,
    integer arithmetic): its carried set is then the reached values alone."""
    producer = _producers(graph)
    seen, stack = set(), [output]
    while stack:
        node = producer.get(stack.pop())
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if node.op in DISCRETE_OPS:
            return True
        stack.extend(n for n in node.operand_names() if not is_float(graph.descs[n].data_type))
    return False


def _joint_run(graph: Graph, inputs: Mapping[str, np.ndarray], output: str, carried: list[Node],
               side: int) -> np.ndarray:
    """``output`` with every carried node's float outputs at the ``side``
    (-1 low, +1 high) of its budget around its value in this same run."""
    run_node = exact_reference().run_node
    env: dict[str, np.ndarray] = {**graph.constants, **inputs}
    moved = {id(n) for n in carried}
    for node in graph.nodes:
        for name, out in zip(node.outputs, run_node(node, env, graph)):
            env[name] = out.values
            if id(node) in moved and is_float(graph.descs[name].data_type):
                values = np.asarray(out.values, dtype=numpy_dtype(graph.descs[name].data_type))
                env[name] = budget_bounds(values, node_budget(node, graph))[side > 0]
    return np.asarray(env[output], dtype=np.float64)


def carried_interval(graph: Graph, inputs: Mapping[str, np.ndarray], output: str,
                     carried: list[Node]) -> CarriedInterval | None:
    """The carried error of ``carried`` ancestors at ``output`` (see the module's docstring);
    None when nothing is carried or the reference cannot run the graph."""
    run_node = exact_reference().run_node
    if not carried:
        return None
    env: dict[str, np.ndarray] = {**graph.constants, **inputs}
    position = {}
    try:
        for i, node in enumerate(graph.nodes):
            for name, out in zip(node.outputs, run_node(node, env, graph)):
                env[name] = out.values
                position[name] = i + 1
        exact = np.asarray(env[output], dtype=np.float64)
        low, high, nan = exact.copy(), exact.copy(), np.zeros(exact.shape, bool)
        integer = not is_float(graph.descs[output].data_type)
        reached = [exact]
        with np.errstate(invalid="ignore", over="ignore"):
            for node in carried:
                budget = node_budget(node, graph)
                for name in node.outputs:
                    if not is_float(graph.descs[name].data_type):
                        continue
                    values = np.asarray(env[name], dtype=numpy_dtype(graph.descs[name].data_type))
                    lo, hi = budget_bounds(values, budget)
                    tie = _tie(graph, env, position, node, carried) if integer else None
                    node_low, node_high, may_be_nan, runs = _moves(graph, env, position[name], name, lo, hi, output,
                                                                   exact, tie)
                    if integer:
                        reached.extend(runs)
                    # Errors of several ancestors add up; at an infinite output the widest reach stands.
                    finite = np.isfinite(exact)
                    low = np.where(finite, low + (node_low - exact), np.fmin(low, node_low))
                    high = np.where(finite, high + (node_high - exact), np.fmax(high, node_high))
                    nan |= may_be_nan
            if integer:
                reached += [_joint_run(graph, inputs, output, carried, side) for side in (-1, 1)]
    except Exception:  # noqa: BLE001 - a reference failure is reported where the expected values are computed
        return None
    ops = tuple(n.op for n in carried)
    if integer:
        return CarriedInterval(exact, low, high, nan, ops, np.stack(reached), _discrete(graph, output))
    return CarriedInterval(exact, low, high, nan, ops, narrowed=narrowed_type(graph, output),
                           lattice=lattice_of(graph, env, output, carried))
