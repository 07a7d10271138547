"""TOSA's dot-product compliance check, as small pure functions.

From the TOSA reference model's verifier (``reference_model/src/verify/
verify_dot_product.cc`` at commit 94a35f79ba70a96af8ae14d30005c38a75ac7695 of
its GitHub mirror jerryzhao173985/reference_model; the TOSA specification's
"Dot product accuracy requirements"). For each of the T output elements, with
``ref`` the exact (float64) result, ``bnd`` the same op on the operands'
magnitudes (sum |a_i b_i|, plus |bias|) and f the output type's fraction bits:

- ``bnd`` so large that ``bnd (1 + 2^-(1+f))`` overflows the output type: no
  accuracy limit (the sum may overflow), the element's error counts as 0;
- ``bnd == 0``: the result must be exactly zero (and ``ref`` is);
- otherwise ``err = (imp - ref) / max(bnd 2^-(1+f), smallest normal)`` and
  ``|err| <= KS`` (A = KS).

Over the output: ``sum(err^2) <= 0.4 KS T`` (V = 0.4 KS), and for the data
sets that are not biased by construction (S3 to S5) ``|sum(err)| <= 2
sqrt(KS T)`` (sqrt(10 V T)), which catches a rounding that always goes one
way. KS is the number of products per output, plus one when the bias is
non-zero. Fraction bits and smallest normals are those of the output type
(``AccPrecision`` of the implementation's type in the verifier).
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
VARIANCE_FACTOR = 0.4  # V = 0.4 KS
BIASED_SETS_CHECKED = (3, 4, 5)  # S0 to S2 are one-signed or exact by construction: no bias test


def error_unit(bound: np.ndarray, data_type: str) -> np.ndarray:
    """The error one unit of ``err`` stands for: ``max(bnd 2^-(1+f), smallest normal)``."""
    fraction_bits, normal_min = FLOAT_FORMATS[data_type]
    return np.maximum(np.asarray(bound, np.float64) * 2.0 ** (-1 - fraction_bits), normal_min)


def unbounded(bound: np.ndarray, data_type: str) -> np.ndarray:
    """Elements whose bound, widened by half an ulp, overflows the output
    type: the sum itself may overflow, so TOSA sets no accuracy limit there."""
    fraction_bits, _ = FLOAT_FORMATS[data_type]
    with np.errstate(over="ignore"):
        return np.isinf((np.asarray(bound, np.float64) * (1 + 2.0 ** (-1 - fraction_bits))).astype(data_type))


def element_errors(reference: np.ndarray, bound: np.ndarray, actual: np.ndarray, data_type: str) -> np.ndarray:
    """Per element ``(imp - ref) / error_unit(bnd)``; 0 where unbounded; where
    ``bnd == 0``, 0 if ``imp`` and ``ref`` are both zero and infinity if not
    (no error is allowed there). NaN results are infinite errors."""
    ref = np.asarray(reference, np.float64)
    bnd = np.asarray(bound, np.float64)
    imp = np.asarray(actual).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        err = (imp - ref) / error_unit(bnd, data_type)
    err = np.where(np.isnan(err), np.inf, err)
    err = np.where(bnd == 0, np.where((imp == 0) & (ref == 0), 0.0, np.inf), err)
    return np.where(unbounded(bnd, data_type), 0.0, err)


def max_error_limit(ks: int) -> float:
    """A: the largest |err| of one element."""
    return float(ks)


def variance_limit(ks: int, outputs: int) -> float:
    """V T: the largest sum of err^2 over the output."""
    return VARIANCE_FACTOR * ks * outputs


def bias_limit(ks: int, outputs: int) -> float:
    """sqrt(10 V T) = 2 sqrt(KS T): the largest |sum of err| over the output."""
    return math.sqrt(10 * VARIANCE_FACTOR * ks * outputs)


def bias_checked(data_set: int) -> bool:
    return data_set in BIASED_SETS_CHECKED


@dataclass(frozen=True)
class DotProductCompliance:
    """The verdict on one output. ``failed`` names the checks that failed:
    "element" (some |err| > A, a non-zero result where the bound is 0, or
    NaN), "variance" (sum err^2 > V T), "bias" (|sum err| over its limit)."""

    compliant: bool
    failed: tuple[str, ...]
    ks: int
    outputs: int  # T
    max_err: float  # max |err|
    sum_sq: float
    sum_err: float
    max_err_limit: float
    sum_sq_limit: float
    sum_err_limit: float | None  # None: no bias test for this data set
    worst_index: tuple[int, ...] | None
    unbounded: int  # elements left unchecked: their bound overflows the output type
    zero_bound: int  # elements whose bound is 0 (must be exactly 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "compliant": self.compliant, "failed": list(self.failed), "ks": self.ks, "T": self.outputs,
            "maxErr": _json_number(self.max_err), "sumSq": _json_number(self.sum_sq), "sumErr": _json_number(self.sum_err),
            "bounds": {"maxErr": self.max_err_limit, "sumSq": self.sum_sq_limit, "sumErr": self.sum_err_limit},
            "worstIndex": list(self.worst_index) if self.worst_index is not None else None,
            "unbounded": self.unbounded, "zeroBound": self.zero_bound,
        }


def _json_number(value: float) -> float | str:
    """Infinity as the string the records use (JSON has no infinity)."""
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def dot_product_compliance(reference: np.ndarray, bound: np.ndarray, actual: np.ndarray, data_type: str,
                           ks: int, data_set: int) -> DotProductCompliance:
    """Apply the three checks to one output (all arrays of the output's shape)."""
    err = element_errors(reference, bound, actual, data_type)
    outputs = int(err.size)
    magnitude = np.abs(err)
    flat = int(np.argmax(magnitude)) if outputs else 0
    max_err = float(magnitude.reshape(-1)[flat]) if outputs else 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        sum_sq = float(np.sum(err * err))
        sum_err = float(np.sum(err)) if np.isfinite(err).all() else math.inf
    limits = (max_error_limit(ks), variance_limit(ks, outputs), bias_limit(ks, outputs) if bias_checked(data_set) else None)
    failed = tuple(name for name, over in (("element", max_err > limits[0]), ("variance", sum_sq > limits[1]),
                                           ("bias", limits[2] is not None and abs(sum_err) > limits[2])) if over)
    worst = tuple(int(i) for i in np.unravel_index(flat, err.shape)) if outputs and err.ndim else None
    return DotProductCompliance(
        compliant=not failed, failed=failed, ks=ks, outputs=outputs, max_err=max_err, sum_sq=sum_sq, sum_err=sum_err,
        max_err_limit=limits[0], sum_sq_limit=limits[1], sum_err_limit=limits[2], worst_index=worst,
        unbounded=int(unbounded(bound, data_type).sum()), zero_bound=int((np.asarray(bound) == 0).sum()),
    )
