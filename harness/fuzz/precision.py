"""Is a finding a backend bug, or the spec's own formula evaluated in float32?

The reference computes every op in float64 and rounds once to the output type
(backends/reference/evaluate.py). A backend that follows the spec's
decomposition in the operand's type (float32) may overflow where float64 does
not: reduceMean of -2.27e38 values sums to -inf, and an infinite gate
pre-activation in lstmCell gives inf + -inf = NaN. Such a finding is a
precision effect, not a deviation from the spec's formulas.

A finding's minimal case is evaluated again with ``precision="operand"``; when
the backend's value at the worst element passes against that evaluation
(the same metric and budget the run judged it with), the finding's cause is
``"precision"``, else ``"backend"``. Only the worst element is checked: it
is the one value of the backend's output a finding keeps.
"""
from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from webnn_harness.backends.reference.evaluate import evaluate
from webnn_harness.loading.cases import Case
from webnn_harness.verdict.comparison import Comparison, compare
from webnn_harness.spec.dtypes import is_float, numpy_dtype
from webnn_harness.spec.values import decode_number

BACKEND, PRECISION = "backend", "precision"
STALE = "stale"  # reclassify.py: the backend's value passes against the current reference


def operand_float_types(case: Case) -> list[str]:
    """The float data types the case computes in (its inputs' and operands')."""
    types = {d.data_type for d in case.graph.descs.values() if is_float(d.data_type)}
    return sorted(types)


def _why(value: float, expected: float) -> str:
    if math.isnan(value) and not math.isnan(expected):
        return "an intermediate overflows to infinity and inf - inf or inf * 0 gives NaN"
    if math.isinf(value):
        return "an intermediate overflows"
    if value == 0 and expected != 0:
        return "an intermediate overflows or underflows"
    return "rounding of intermediates in the operand type"


def judge_worst(case: Case, worst: Mapping, precision: str) -> Comparison | None:
    """The backend's value at the worst element judged against the reference
    of ``case`` computed at ``precision``, with the metric and budget the run
    used; None where the element is implementation-defined there."""
    output = worst["output"]
    desc = case.graph.descs[output]
    evaluated = evaluate(case.graph, case.inputs, precision=precision)[output]
    index = tuple(worst["index"])
    if evaluated.undefined is not None and evaluated.undefined[index]:
        return None
    dtype = numpy_dtype(desc.data_type)
    expected = np.asarray(evaluated.values[index], dtype=dtype).reshape(1)
    actual = np.array([decode_number(worst["actual"])], dtype=dtype)
    return compare(expected, actual, desc.data_type, worst["metric"], float(worst["budget"]))


def classify_cause(case: Case, status: str, worst: Mapping) -> tuple[str, str]:
    """(cause, one-line explanation) of a finding whose minimal case is
    ``case`` and whose worst element is ``worst`` (findings.worst_of)."""
    if status != "fail" or worst.get("index") is None or worst.get("actual") is None or worst.get("metric") is None:
        return BACKEND, ""
    output = worst["output"]
    desc = case.graph.descs.get(output)
    floats = operand_float_types(case)
    if desc is None or not floats:
        return BACKEND, ""
    try:
        verdict = judge_worst(case, worst, "operand")
    except Exception as exc:  # noqa: BLE001 -- an op the operand mode cannot compute: say so, keep "backend"
        return BACKEND, f"not evaluated in the operand type ({type(exc).__name__}: {exc})"
    if verdict is None or not verdict.passed:
        return BACKEND, ""
    value = verdict.expected_value
    expected = worst.get("expected")
    types = "/".join(floats)
    if not is_float(desc.data_type):
        return PRECISION, f"the spec's formula evaluated in {types} gives {value} too (float64 gives {expected})"
    why = _why(float(decode_number(value)), float(decode_number(expected)) if expected is not None else 0.0)
    return PRECISION, f"the spec's formula evaluated in {types} gives {_text(value)} too (float64 gives {_text(expected)}): {why}"


def _text(value) -> str:
    if isinstance(value, str):
        return {"Infinity": "inf", "-Infinity": "-inf"}.get(value, value)
    return str(value)
