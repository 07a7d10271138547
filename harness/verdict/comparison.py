"""Comparing a backend's outputs with expected values, the way WPT does.

ULP: distance between the bit patterns of expected and actual in the output
data type (float16 compared as 16-bit patterns), with +0 == -0 and NaN ==
NaN. ATOL: absolute difference. Integers: exact. Elements the spec leaves to
the implementation are not compared; the result counts them.

Signed zero: where an op hands on a value (a cast, data movement) the sign
of a zero is part of the value, as WPT's zero-ULP cast checks hold it
(``Object.is`` in cast_rounding.https.any.js): ``wrong_zero_sign`` finds the
zeros of the other sign, which fail whatever the budget (judge.py says where).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from webnn_harness.verdict.record import budget_slack
from webnn_harness.spec.dtypes import FLOAT_BITS, is_float
from webnn_harness.spec.values import encode_number

INF = float("inf")


def ordered_bits(values: np.ndarray) -> np.ndarray:
    """Float bit patterns mapped to integers that order like the floats, with
    +0 and -0 both mapped to 0 (so adjacent floats differ by exactly 1)."""
    values = np.asarray(values)
    bits_dtype = FLOAT_BITS[values.dtype.name]
    bits = values.view(bits_dtype).astype(np.int64)
    magnitude = bits & (np.iinfo(bits_dtype).max)
    return np.where(bits < 0, -magnitude, magnitude)


def ulp_distance(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Element-wise ULP distance as float64 (inf where exactly one side is NaN)."""
    expected = np.asarray(expected)
    actual = np.asarray(actual).astype(expected.dtype, copy=False)
    dist = np.asarray(np.abs(ordered_bits(expected) - ordered_bits(actual)), dtype=np.float64)
    e_nan, a_nan = np.isnan(expected), np.isnan(actual)
    dist[e_nan & a_nan] = 0.0
    dist[e_nan ^ a_nan] = INF
    return dist


def abs_distance(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    e = np.asarray(expected, dtype=np.float64)
    a = np.asarray(actual, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        dist = np.asarray(np.abs(e - a), dtype=np.float64)
    same = (e == a) | (np.isnan(e) & np.isnan(a))  # inf == inf, NaN == NaN
    dist[same] = 0.0
    dist[np.isnan(dist)] = INF
    return dist


def integer_distance(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Exact |expected - actual| for any integer type (64-bit included), as float64."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    dist = np.zeros(expected.shape, dtype=np.float64)
    diff = expected != actual
    if diff.any():
        e = expected[diff].astype(object)
        a = actual[diff].astype(object)
        dist[diff] = [float(abs(int(x) - int(y))) for x, y in zip(e, a)]
    return dist


def wrong_zero_sign(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Where both are zeros (float) and their signs differ."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.dtype.kind != "f" or actual.dtype != expected.dtype or actual.shape != expected.shape:
        return np.zeros(np.shape(expected), bool)
    return (expected == 0) & (actual == 0) & (np.signbit(expected) != np.signbit(actual))


# From this many elements on, outputs are first checked for identical bit
# patterns, which costs a tenth of computing distances (6000x6000 outputs).
BIT_EQUAL_SHORTCUT = 1 << 16


def _bit_equal(expected: np.ndarray, actual: np.ndarray) -> bool:
    bits = np.dtype(f"u{expected.dtype.itemsize}")
    return bool(np.array_equal(expected.view(bits), actual.view(bits)))


@dataclass(frozen=True)
class Comparison:
    passed: bool
    metric: str
    budget: float
    max_error: float | None = None
    worst_index: tuple[int, ...] | None = None
    expected_value: object = None
    actual_value: object = None
    uncompared: int = 0  # implementation-defined elements not judged
    message: str = ""
    # max_error is the distance beyond the interval the ancestors' budgets
    # allow (the chain rule, harness/verdict/tolerance.py), not from the expected value
    carried: bool = False

    @property
    def excess(self) -> float:
        """How far over budget (for picking the worst output of a case)."""
        if self.max_error is None:
            return INF if not self.passed else -INF
        return self.max_error - self.budget

    @property
    def slack(self) -> float | None:
        return budget_slack(self.max_error, self.budget)


def compare(
    expected: np.ndarray,
    actual: np.ndarray,
    data_type: str,
    metric: str,
    budget: float,
    undefined: np.ndarray | None = None,
) -> Comparison:
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    if actual.shape != expected.shape:
        return Comparison(False, metric, budget, message=f"shape {list(actual.shape)}, expected {list(expected.shape)}")
    if actual.dtype != expected.dtype:
        return Comparison(False, metric, budget, message=f"data type {actual.dtype.name}, expected {expected.dtype.name}")
    if expected.size >= BIT_EQUAL_SHORTCUT and _bit_equal(expected, actual):
        dist = np.zeros(expected.shape)  # what every metric gives for identical bits
    elif not is_float(data_type):
        dist = integer_distance(expected, actual)
    elif metric == "ULP":
        dist = ulp_distance(expected, actual)
    else:
        dist = abs_distance(expected, actual)
    uncompared = 0
    if undefined is not None and undefined.any():
        dist = np.where(undefined, 0.0, dist)
        uncompared = int(undefined.sum())
    if dist.size == 0:
        return Comparison(True, metric, budget, 0.0, uncompared=uncompared)
    flat = int(np.argmax(dist))
    worst = np.unravel_index(flat, dist.shape) if dist.ndim else ()
    max_error = float(dist.reshape(-1)[flat])
    return Comparison(
        passed=max_error <= budget,
        metric=metric,
        budget=budget,
        max_error=max_error,
        worst_index=tuple(int(i) for i in worst),
        expected_value=encode_number(expected.reshape(-1)[flat]),
        actual_value=encode_number(actual.reshape(-1)[flat]),
        uncompared=uncompared,
    )
