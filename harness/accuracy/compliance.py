"""TOSA's dot-product compliance check, as small pure functions.

From the TOSA reference model's verifier (``reference_model/src/verify/
verify_dot_product.cpp`` and the compliance settings in
``verif/generator/tosa_test_gen.py``, at commit
5daa7d4f67ba64c1e15929a15717c26736d830c3 of 2025-06-09 of its GitHub mirror
jerryzhao173985/reference_model; the TOSA specification's "Dot product
accuracy requirements"). For each of the T output elements, with ``ref`` the
exact (float64) result, ``bnd`` the same op on the operands' magnitudes (sum
|a_i b_i|, plus |bias|) and f the output type's fraction bits:

- ``ref`` NaN: the result must be NaN; ``bnd`` NaN: no requirement;
- ``bnd (1 + A 2^-(1+f))`` overflows the output type: no accuracy limit (the
  sum itself may overflow), the element's error counts as 0;
- ``bnd == 0``: the result must be exactly zero (and ``ref`` is);
- otherwise ``err = (imp - ref) / max(bnd 2^-(1+f), smallest normal)`` and
  ``|err| <= A``.

Over the output: ``sum(err^2) <= V T``, and for the data sets that are not
biased by construction (S3 to S5) ``|sum(err)| <= sqrt(10 V T)``, which
catches a rounding that always goes one way (the factor 10 allows a 4-sigma
spread of the sum of normally distributed errors). With KSB the number of
products per output plus one when the bias is non-zero: A = 2 KSB and V =
4 x 0.4 KSB = 1.6 KSB (the bounds TOSA loosened in January 2025, commit
9d52ee1; before, A = KS and V = 0.4 KS). TOSA divides KSB by
2^((f_acc - f_out) / 2) where the accumulator is wider than the output; a
WebNN op names no accumulator type, so the accumulator is taken to be the
output type (float16 sums may accumulate in float16), and KSB is not divided.
Fraction bits and smallest normals are the output type's (``AccPrecision`` of
the implementation's type in the verifier).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

# (fraction bits, smallest normal) of the output types the check applies to
FLOAT_FORMATS: Mapping[str, tuple[int, float]] = {
    "float32": (23, 2.0**-126),
    "float16": (10, 2.0**-14),
}
ABSOLUTE_FACTOR = 2  # A = 2 KSB
VARIANCE_FACTOR = 4 * 0.4  # V = 1.6 KSB
BIASED_SETS_CHECKED = (3, 4, 5)  # TOSA tests the bias of these sets only ("not positive biased")


def error_unit(bound: np.ndarray, data_type: str) -> np.ndarray:
    """The error one unit of ``err`` stands for: ``max(bnd 2^-(1+f), smallest normal)``."""
    fraction_bits, normal_min = FLOAT_FORMATS[data_type]
    return np.maximum(np.asarray(bound, np.float64) * 2.0 ** (-1 - fraction_bits), normal_min)


def max_error_limit(ksb: int) -> float:
    """A: the largest |err| of one element."""
    return float(ABSOLUTE_FACTOR * ksb)


def variance_limit(ksb: int, outputs: int) -> float:
    """V T: the largest sum of err^2 over the output."""
    return VARIANCE_FACTOR * ksb * outputs


def bias_limit(ksb: int, outputs: int) -> float:
    """sqrt(10 V T): the largest |sum of err| over the output."""
    return math.sqrt(10 * VARIANCE_FACTOR * ksb * outputs)


def unchecked(reference: np.ndarray, bound: np.ndarray, data_type: str, ksb: int) -> np.ndarray:
    """Elements with no accuracy limit: a NaN bound, or a bound that widened
    by A half-ulps overflows the output type (the sum itself may overflow)."""
    fraction_bits, _ = FLOAT_FORMATS[data_type]
    bnd = np.asarray(bound, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        widened = (bnd * (1 + max_error_limit(ksb) * 2.0 ** (-1 - fraction_bits))).astype(data_type)
    return (np.isnan(bnd) | np.isinf(widened)) & ~np.isnan(np.asarray(reference, np.float64))


def element_errors(reference: np.ndarray, bound: np.ndarray, actual: np.ndarray, data_type: str, ksb: int) -> np.ndarray:
    """Per element ``(imp - ref) / error_unit(bnd)``, with TOSA's special
    cases: 0 where unchecked; where ``ref`` is NaN, 0 if ``imp`` is NaN too;
    where ``bnd == 0``, 0 if ``imp`` and ``ref`` are both zero. Where those
    cases are broken, and for any other NaN result, the error is infinite."""
    ref = np.asarray(reference, np.float64)
    bnd = np.asarray(bound, np.float64)
    imp = np.asarray(actual).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        err = (imp - ref) / error_unit(bnd, data_type)
    err = np.where(np.isnan(err), np.inf, err)
    err = np.where(bnd == 0, np.where((imp == 0) & (ref == 0), 0.0, np.inf), err)
    err = np.where(np.isnan(ref), np.where(np.isnan(imp), 0.0, np.inf), err)
    return np.where(unchecked(ref, bnd, data_type, ksb), 0.0, err)


def bias_checked(data_set: int) -> bool:
    return data_set in BIASED_SETS_CHECKED


@dataclass(frozen=True)
class DotProductCompliance:
    """The verdict on one output. ``failed`` names the checks that failed:
    "element" (some |err| > A, a non-zero result where the bound is 0, a NaN
    where none belongs or none where one does), "variance" (sum err^2 > V T),
    "bias" (|sum err| over its limit)."""

    compliant: bool
    failed: tuple[str, ...]
    ksb: int
    outputs: int  # T
    max_err: float  # max |err|
    sum_sq: float
    sum_err: float
    max_err_limit: float
    sum_sq_limit: float
    sum_err_limit: float | None  # None: no bias test for this data set
    worst_index: tuple[int, ...] | None
    unchecked: int  # elements with no accuracy limit: their bound overflows the output type, or is NaN
    zero_bound: int  # elements whose bound is 0 (must be exactly 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "compliant": self.compliant, "failed": list(self.failed), "ksb": self.ksb, "T": self.outputs,
            "maxErr": _json_number(self.max_err), "sumSq": _json_number(self.sum_sq), "sumErr": _json_number(self.sum_err),
            "bounds": {"maxErr": self.max_err_limit, "sumSq": self.sum_sq_limit, "sumErr": self.sum_err_limit},
            "worstIndex": list(self.worst_index) if self.worst_index is not None else None,
            "unchecked": self.unchecked, "zeroBound": self.zero_bound,
        }


def _json_number(value: float) -> float | str:
    """Infinity as the string the records use (JSON has no infinity)."""
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def dot_product_compliance(reference: np.ndarray, bound: np.ndarray, actual: np.ndarray, data_type: str,
                           ksb: int, data_set: int) -> DotProductCompliance:
    """Apply the three checks to one output (all arrays of the output's shape)."""
    err = element_errors(reference, bound, actual, data_type, ksb)
    outputs = int(err.size)
    magnitude = np.abs(err)
    flat = int(np.argmax(magnitude)) if outputs else 0
    max_err = float(magnitude.reshape(-1)[flat]) if outputs else 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        sum_sq = float(np.sum(err * err))
        sum_err = float(np.sum(err)) if np.isfinite(err).all() else math.inf
    limits = (max_error_limit(ksb), variance_limit(ksb, outputs), bias_limit(ksb, outputs) if bias_checked(data_set) else None)
    failed = tuple(name for name, over in (("element", max_err > limits[0]), ("variance", sum_sq > limits[1]),
                                           ("bias", limits[2] is not None and abs(sum_err) > limits[2])) if over)
    worst = tuple(int(i) for i in np.unravel_index(flat, err.shape)) if outputs and err.ndim else None
    return DotProductCompliance(
        compliant=not failed, failed=failed, ksb=ksb, outputs=outputs, max_err=max_err, sum_sq=sum_sq, sum_err=sum_err,
        max_err_limit=limits[0], sum_sq_limit=limits[1], sum_err_limit=limits[2], worst_index=worst,
        unchecked=int(unchecked(reference, bound, data_type, ksb).sum()), zero_bound=int((np.asarray(bound) == 0).sum()),
    )
