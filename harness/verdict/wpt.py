"""WPT's own rule, and nothing else: the second judge (``run --judge wpt``).

The harness's judge (judge.py, the chain rule in tolerance.py) is never more
lenient than WPT's on WPT's own cases, and stricter where WPT's rule lets an
error through. This module answers the vendor's other question, "would this
pass WPT?", with WPT's answer, read from web-platform-tests
``webnn/resources/utils.js`` (``getPrecisionTolerance``,
``assert_array_approx_equals_ulp``, ``ulpDistance``, ``toHalf``, and
testharness.js's ``assert_approx_equals``):

- One budget for the whole graph: the sum over its operators of each one's
  ULP tolerance looked up at the data type of the *first* expected output
  (``getExpectedDataTypeOfSingleOutput``), applied to every output. An op
  utils.js has no entry for adds 0 (an absolute tolerance is dropped). A
  case file's own tolerance (``fileTolerance``: the WPT file's tolerance
  function) replaces the sum, as the file's function replaces utils.js's; a
  one-operator case whose file function utils.js lacks (exp, log, div,
  pow...) takes that op's budget from our tables, which copy those files.
- float32: ``actual === expected`` passes (so +0 and -0 are equal and NaN
  is not); else the distance of sign-magnitude bit patterns (NaN as the
  canonical 0x7fc00000: a NaN matches a NaN of any payload).
- float16: the raw 16-bit patterns subtracted (across the sign a huge
  distance), zero against zero of either sign 0; the expected value rounded
  by ``toHalf`` (float32 first, then ties away from zero, NaN as 0x7c01, so
  a backend's usual 0x7e00 NaN is 511 ULPs from it).
- Integers: ``|actual - expected|`` within the budget; a budget utils.js
  leaves undefined for an integer type (matmul, conv2d...) admits equality only.
- ATOL (testharness.js ``assert_array_approx_equals``): ``|actual -
  expected| <= tolerance``, so an infinity or a NaN never passes.
- A scalar expected value filling a larger shape is checked on its first
  1000 elements only (``kMaximumIndexToValidate``; see ``_filled``).

Expected values are the case file's data as loaded (rounded to the output
type; utils.js rounds float16 expected values itself, ties away from zero:
the same where the file's value is a float16, as in every WPT file), else
the reference's. Every element is compared, those the spec leaves to the
implementation too, as utils.js does (a maxPool2d window of padding alone).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from webnn_harness.loading.cases import Case
from webnn_harness.spec.graph import Graph, Node
from webnn_harness.spec.values import encode_number
from webnn_harness.verdict.comparison import BIT_EQUAL_SHORTCUT

JUDGES = ("harness", "wpt")
MAXIMUM_INDEX_TO_VALIDATE = 1000

# utils.js operatorToleranceDict: (float32, float16, integer types it names)
OPERATOR_TOLERANCE: Mapping[str, Mapping[str, int]] = {
    "argMax": {"float32": 0, "float16": 0}, "argMin": {"float32": 0, "float16": 0},
    "batchNormalization": {"float32": 6, "float16": 6}, "clamp": {"float32": 0, "float16": 0},
    "add": {"float32": 1, "float16": 1},
    "sub": {"float32": 1, "float16": 1, "int8": 0, "uint8": 0, "int32": 0, "uint32": 0, "int64": 0, "uint64": 0},
    "mul": {"float32": 1, "float16": 1}, "max": {"float32": 0, "float16": 0}, "min": {"float32": 0, "float16": 0},
    "elu": {"float32": 18, "float16": 18}, "gelu": {"float32": 18, "float16": 18},
    "hardSigmoid": {"float32": 2, "float16": 2}, "hardSwish": {"float32": 4, "float16": 4},
    "leakyRelu": {"float32": 1, "float16": 2}, "linear": {"float32": 2, "float16": 2},
    "prelu": {"float32": 1, "float16": 1}, "relu": {"float32": 0, "float16": 0, "int8": 0, "int32": 0},
    "sigmoid": {"float32": 34, "float16": 10}, "softplus": {"float32": 18, "float16": 18},
    "softsign": {"float32": 3, "float16": 3}, "tanh": {"float32": 16, "float16": 16},
}

# utils.js zeroULPToleranceOperatorList
ZERO_ULP_OPS = frozenset({
    "concat", "expand", "gather", "gatherElements", "gatherND", "identity", "pad", "reshape", "reverse",
    "scatterElements", "scatterND", "slice", "split", "tile", "transpose",
    "equal", "notEqual", "greater", "greaterOrEqual", "lesser", "lesserOrEqual",
    "logicalNot", "logicalAnd", "logicalOr", "logicalXor",
})

REDUCTIONS = {
    "reduceL1": lambda r: r, "reduceL2": lambda r: 2 * r + 2, "reduceLogSum": lambda r: r + 18,
    "reduceLogSumExp": lambda r: 2 * r + 18, "reduceMax": lambda r: 0, "reduceMean": lambda r: r + 2,
    "reduceMin": lambda r: 0, "reduceProduct": lambda r: r, "reduceSum": lambda r: r, "reduceSumSquare": lambda r: 2 * r,
}
FLOATS = ("float32", "float16")


def _shape(graph: Graph, node: Node, param: str) -> tuple[int, ...]:
    return graph.descs[node.operands[param]].shape


def _floats_only(value: float, data_type: str) -> float | None:
    """utils.js's ``{float32: t, float16: t}[dataType]``: undefined for an integer type."""
    return value if data_type in FLOATS else None


def _conv(graph: Graph, node: Node, data_type: str) -> float | None:
    a = node.attributes
    x, w = _shape(graph, node, "input"), _shape(graph, node, "filter")
    channels = x[3] if a.get("inputLayout") == "nhwc" else x[1]
    layout = a.get("filterLayout") or ("iohw" if node.op == "convTranspose2d" else "oihw")
    height, width = {"oihw": (w[2], w[3]), "iohw": (w[2], w[3]), "hwio": (w[0], w[1]), "hwoi": (w[0], w[1]),
                     "ohwi": (w[1], w[2]), "ihwo": (w[1], w[2])}[layout]
    return _floats_only(width * height * (channels / (a.get("groups") or 1)) * 2, data_type)


def _gemm(graph: Graph, node: Node, data_type: str) -> float | None:
    a = node.attributes
    shape = _shape(graph, node, "a")
    tolerance = (shape[0] if a.get("aTranspose") else shape[1]) * 2
    alpha, beta = a.get("alpha", 1.0), a.get("beta", 1.0)
    tolerance += alpha != 1.0
    if "c" in node.operands and beta != 0.0:
        tolerance += 1 + (beta != 1.0)
    return _floats_only(tolerance, data_type)


def _pool(graph: Graph, node: Node, data_type: str) -> float | None:
    if node.op == "maxPool2d":
        return _floats_only(0, data_type)
    window = node.attributes.get("windowDimensions")
    if not window:
        x = _shape(graph, node, "input")
        window = (x[1], x[2]) if node.attributes.get("layout") == "nhwc" else (x[2], x[3])
    return _floats_only(window[0] * window[1] + 2, data_type)


def _reduction(graph: Graph, node: Node, data_type: str) -> float:
    x = _shape(graph, node, "input")
    axes = node.attributes.get("axes")
    sizes = x if axes is None else [x[a] for a in axes]
    return REDUCTIONS[node.op](int(np.prod(sizes, dtype=np.int64)))


def _resample(graph: Graph, node: Node, data_type: str) -> float:
    if node.attributes.get("mode") == "linear":
        return {"float32": 84, "float16": 10}.get(data_type, 1)
    return 0


SHAPED = {
    "conv2d": _conv, "convTranspose2d": _conv, "gemm": _gemm,
    "matmul": lambda graph, node, t: _floats_only(_shape(graph, node, "a")[-1] * 2, t),
    "softmax": lambda graph, node, t: _floats_only(_shape(graph, node, "input")[node.attributes.get("axis", 1)] * 3 + 3, t),
    "averagePool2d": _pool, "l2Pool2d": _pool, "maxPool2d": _pool,
    **{op: _reduction for op in REDUCTIONS},
    "resample2d": _resample,
}


def op_tolerance(graph: Graph, node: Node, data_type: str) -> float | None:
    """One operator's term of getPrecisionTolerance at ``data_type`` (None: undefined)."""
    if node.op in SHAPED:
        return SHAPED[node.op](graph, node, data_type)
    if node.op in ZERO_ULP_OPS:
        return 0
    return OPERATOR_TOLERANCE.get(node.op, {}).get(data_type, 0)


def _file_function(case: Case, data_type: str) -> tuple[str, float | None] | None:
    """The tolerance of the case's WPT file's own function, where it has one:
    its ``fileTolerance`` (undefined for a data type it does not list; an
    expression of the shape is what the op's budget function computes), or,
    for a one-operator case of an op utils.js has no entry for (exp, log,
    div, pow...), that op's budget in our tables, which are copied from
    those files. None: the file calls getPrecisionTolerance."""
    from webnn_harness.verdict.tolerance import node_budget

    ft = case.file_tolerance
    single = case.graph.nodes[0] if len(case.graph.nodes) == 1 else None
    if ft and ft.get("metric"):
        value = ft.get("value", (ft.get("byDataType") or {}).get(data_type))
        if value is None:
            return ft["metric"], None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return ft["metric"], float(value)
        if single is not None:
            budget = node_budget(single, case.graph)
            return budget.metric, float(budget.value)
    if single is not None and single.op not in SHAPED and single.op not in ZERO_ULP_OPS \
            and single.op not in OPERATOR_TOLERANCE:
        budget = node_budget(single, case.graph)
        return budget.metric, float(budget.value)
    return None


def wpt_tolerance(case: Case) -> tuple[str, float | None]:
    """(metric, value) WPT applies to every output of ``case``; value None
    where utils.js computes undefined (equality only)."""
    data_type = case.graph.descs[case.graph.outputs[0]].data_type
    if case.tolerance:
        return case.tolerance.metric, float(case.tolerance.value)
    own = _file_function(case, data_type)
    if own is not None:
        return own
    total: float | None = 0
    for node in case.graph.nodes:
        term = op_tolerance(case.graph, node, data_type)
        total = None if term is None or total is None else total + term
    return "ULP", total


def to_half_bits(values: np.ndarray) -> np.ndarray:
    """utils.js ``toHalf``: float32 (``Float32Array``) then 16-bit patterns,
    ties away from zero, underflow below 2^-25 to a signed zero, NaN 0x7c01."""
    x = np.asarray(values, dtype=np.float64).astype(np.float32).view(np.uint32).astype(np.int64)
    bits = (x >> 16) & 0x8000
    m = (x >> 12) & 0x07FF
    e = (x >> 23) & 0xFF
    overflow = bits | 0x7C00 | ((e == 255) & ((x & 0x007FFFFF) != 0))
    shift = np.clip(114 - e, 0, 31)
    sub = bits | (((m | 0x0800) >> shift) + (((m | 0x0800) >> np.clip(113 - e, 0, 31)) & 1))
    normal = (bits | ((e - 112) << 10) | (m >> 1)) + (m & 1)
    out = np.where(e < 103, bits, np.where(e > 142, overflow, np.where(e < 113, sub, normal)))
    return out.astype(np.int64)


def _float32_bitwise(values: np.ndarray) -> np.ndarray:
    """utils.js ``getBitwise``: |v| as float32 bits, negated for v < 0 (NaN canonical)."""
    v = np.asarray(values, dtype=np.float64)
    magnitude = np.abs(v).astype(np.float32)
    magnitude = np.where(np.isnan(magnitude), np.float32(np.nan), magnitude).astype(np.float32)
    bits = magnitude.view(np.uint32).astype(np.int64)
    bits = np.where(np.isnan(v), 0x7FC00000, bits)
    return np.where(v < 0, -bits, bits)


def distances(expected: np.ndarray, actual: np.ndarray, data_type: str, metric: str) -> np.ndarray:
    """WPT's per-element distance (float64); 0 where ``actual === expected``."""
    e = np.asarray(expected)
    a = np.asarray(actual)
    if data_type in ("float32", "float16") and metric == "ATOL":
        # testharness.js assert_array_approx_equals: |a - e| <= epsilon, so a
        # NaN or an infinity never passes, not even against itself.
        with np.errstate(invalid="ignore"):
            gap = np.abs(a.astype(np.float64) - e.astype(np.float64))
        return np.where(np.isnan(gap), np.inf, gap)
    if data_type == "float32":
        ef, af = e.astype(np.float64), a.astype(np.float64)
        dist = np.abs(_float32_bitwise(af) - _float32_bitwise(ef)).astype(np.float64)
        return np.where(af == ef, 0.0, dist)
    if data_type == "float16":
        raw = a.astype(np.float16).view(np.uint16).astype(np.int64)
        half = to_half_bits(e)
        dist = np.abs(raw - half).astype(np.float64)
        zeros = ((raw & 0x7FFF) == 0) & ((half & 0x7FFF) == 0)
        return np.where(zeros | (raw == e.astype(np.float64)), 0.0, dist)
    from webnn_harness.verdict.comparison import integer_distance

    return integer_distance(e, a)


@dataclass(frozen=True)
class WptVerdict:
    """WPT's verdict on one case: status, the budget, and the worst element."""

    status: str
    metric: str
    budget: float | None
    max_error: float | None = None
    output: str | None = None
    worst_index: tuple[int, ...] | None = None
    expected_value: Any = None
    actual_value: Any = None
    message: str = ""

    def to_json(self) -> dict:
        from webnn_harness.verdict.record import json_float

        return {"status": self.status, "metric": self.metric, "budget": self.budget,
                "maxError": json_float(self.max_error), "output": self.output,
                "worstIndex": list(self.worst_index) if self.worst_index is not None else None,
                "expected": self.expected_value, "actual": self.actual_value, "message": self.message}


def _filled(expected: np.ndarray) -> bool:
    """Whether the expected data were one number filling the shape (then WPT
    checks the first 1000 elements): the case as loaded keeps no trace of
    that, so more than 1000 elements all with the same bits stand for it."""
    flat = np.ascontiguousarray(expected).reshape(-1)
    if flat.size <= MAXIMUM_INDEX_TO_VALIDATE:
        return False
    bits = flat.view(np.dtype(f"u{flat.dtype.itemsize}")) if flat.dtype.itemsize in (1, 2, 4, 8) else flat
    return bool(np.all(bits == bits[0]))


def _same_bits(expected: np.ndarray, actual: np.ndarray) -> bool:
    """Identical bit patterns and no NaN (utils.js's own NaN pattern is
    0x7c01 for float16): every distance is 0. Checked first on large outputs,
    where it costs a fraction of the distances (a 6000x6000 add)."""
    if expected.size < BIT_EQUAL_SHORTCUT:
        return False
    if expected.dtype.kind == "f" and np.isnan(expected).any():
        return False
    bits = np.dtype(f"u{expected.dtype.itemsize}") if expected.dtype.itemsize in (1, 2, 4, 8) else None
    return bits is not None and bool(np.array_equal(np.ascontiguousarray(expected).view(bits),
                                                    np.ascontiguousarray(actual).view(bits)))


def _within(dist: float, budget: float | None) -> bool:
    return dist == 0 if budget is None else dist <= budget


def wpt_judge(case: Case, actual: Mapping[str, np.ndarray], expected: Mapping[str, np.ndarray],
              undefined: Mapping[str, np.ndarray | None]) -> WptVerdict:
    """WPT's verdict (see the module's docstring) on ``actual``; ``undefined``
    (the elements the spec leaves to the implementation) is not used: WPT
    compares every element."""
    if not case.graph.outputs:  # nothing expected: WPT asserts nothing, as ours compares nothing
        return WptVerdict("pass", "ULP", 0.0)
    metric, budget = wpt_tolerance(case)
    worst: WptVerdict | None = None
    for name in case.graph.outputs:
        if name not in actual:
            return WptVerdict("fail", metric, budget, output=name, message=f"backend returned no output {name!r}")
        e, a = np.asarray(expected[name]), np.asarray(actual[name])
        if a.shape != e.shape or a.dtype != e.dtype:
            return WptVerdict("fail", metric, budget, output=name, message=f"{a.dtype.name}{list(a.shape)}, expected {e.dtype.name}{list(e.shape)}")
        flat_e, flat_a = e.reshape(-1), a.reshape(-1)
        if _filled(e):
            flat_e, flat_a = flat_e[:MAXIMUM_INDEX_TO_VALIDATE], flat_a[:MAXIMUM_INDEX_TO_VALIDATE]
        if _same_bits(flat_e, flat_a):
            dist = np.zeros(flat_e.shape)
        else:
            dist = distances(flat_e, flat_a, case.graph.descs[name].data_type, metric)
        if dist.size == 0:
            continue
        flat = int(np.argmax(dist))
        index = tuple(int(i) for i in np.unravel_index(flat, e.shape)) if e.ndim else ()
        verdict = WptVerdict("pass" if _within(float(dist[flat]), budget) else "fail", metric, budget, float(dist[flat]), name,
                             index, encode_number(e.reshape(-1)[flat]), encode_number(a.reshape(-1)[flat]))
        if worst is None or (verdict.status == "fail" and worst.status == "pass") or \
                (verdict.status == worst.status and (verdict.max_error or 0) > (worst.max_error or 0)):
            worst = verdict
    return worst or WptVerdict("pass", metric, budget)


def _is_nan_text(value: Any) -> bool:
    return value == "NaN"


def why_they_differ(ours: Mapping[str, Any], wpt: Mapping[str, Any], ops: tuple[str, ...], carried: bool,
                    uncompared: int) -> str:
    """The written reason the two judges part on one case, from the two
    verdicts as records keep them (``status``, ``metric``, ``budget``,
    ``maxError``, ``expected``, ``actual``, ``message``)."""
    if ours["status"] == "fail":  # ours is the stricter here
        if "wrong sign" in (ours.get("message") or ""):
            return ("a zero of the wrong sign from a cast or data movement: the harness holds the sign there "
                    "(WPT's cast_rounding checks it with Object.is), utils.js's ULP rule counts +0 == -0")
        if ours.get("metric") == "exact":
            return (f"an integer output off by {ours.get('maxError')}: the harness compares integers exactly (only "
                    f"reachable values pass); the WPT file's own tolerance allows {wpt.get('budget')}")
        if carried and "cast" in ops:
            return ("a value a cast narrowed to float16 is not a float16 value at the output: the harness holds "
                    "narrowed values to the narrow type (the chain rule, \"Narrowing casts\"); WPT sums ULPs")
        if len(ops) > 1:
            return (f"the chain rule: each op's budget applied where the op is, in its own type and metric "
                    f"(beyond the carried interval {ours.get('maxError')} > {ours.get('budget')}); WPT's sum of "
                    f"{wpt.get('budget')} output ULPs admits it")
        return (f"the harness's budget for {ops[0]} ({ours.get('budget')} {ours.get('metric')}) is tighter than "
                f"the WPT file's ({wpt.get('budget')} {wpt.get('metric')})")
    if _is_nan_text(wpt.get("expected")) and wpt.get("metric") == "ULP":
        return ("an expected float16 NaN: utils.js's toHalf writes it 0x7c01 and measures raw bit patterns, so a "
                "NaN of another payload (0x7e00) is hundreds of ULPs away; the harness matches NaN with NaN")
    if wpt.get("metric") == "ATOL" and wpt.get("maxError") in ("Infinity", float("inf")):
        return ("an infinity or NaN under an absolute tolerance: testharness.js's assert_array_approx_equals "
                "computes |actual - expected|, which is NaN there; the harness compares equal specials as equal")
    if uncompared:
        return (f"{uncompared} element(s) the spec leaves to the implementation: the harness does not judge "
                f"them, utils.js compares every element")
    if carried:
        return (f"the chain rule carries each ancestor's budget in its own type and metric to the output (an "
                f"atol op, or float16 ULPs through a cast, WPT drops or counts as output ULPs); WPT's sum of "
                f"{wpt.get('budget')} output ULPs is exceeded ({wpt.get('maxError')})")
    if wpt.get("budget") is None:
        return "utils.js's budget is undefined for this data type (its table has no entry): only equality passes"
    return (f"the harness's budget ({ours.get('budget')} {ours.get('metric')}) is wider than WPT's "
            f"({wpt.get('budget')} {wpt.get('metric')}) for this graph; WPT's error {wpt.get('maxError')}")
