"""TOSA's dot-product test data sets S0 to S5, for the accuracy command.

Written from the TOSA reference model's generator (mlplatform's
tosa-reference-model, read in its GitHub mirror jerryzhao173985/reference_model
at commit 5daa7d4f67ba64c1e15929a15717c26736d830c3 of 2025-06-09:
``reference_model/src/generate/generate_dot_product_states.cpp`` for the
sets and ``generate_dot_product.cpp`` for where each element sits; the TOSA
specification calls it ``tosa_mi_data``). Each data set draws from 32-bit
linear congruential sequences numbered 3 S + p (operand position p) and
places values by ``k``, the index of an element within the dot product it
feeds (so the first term of every sum, or the middle one, can be special):

- S0: products with zero: each element is zero or not by the sign of a shared draw.
- S1: large exponents: +-(0.75 + 0.25 s) B / sqrt(KS + 1) (the bias B^2 / (KS + 1) times the same).
- S2: small terms of similar size added onto a large first term (1.0).
- S3: small terms of varying size (``exp(2 s0) s1``) added onto +-16.
- S4: a mixture of zero and non-zero products, with one +-0.25 product in the middle.
- S5: signed values of large range, ``B / sqrt(KS + 1)`` times uniform [-1, 1].

(Older versions of the generator, e.g. commit d1a08ce of the same file as
``.cc``, numbered the sequences 2 S + p and had S1, S3 and S4 one-signed.)

``B`` keeps the exact sum finite in the accumulator type
(``getBoundParameter``): (2^64 - 2^40) for float32 inputs with a float32
accumulator, and 255.875 for float16 inputs with a float16 accumulator.
TOSA's other float16 value, 65504, assumes a float32 accumulator; a WebNN op
names no accumulator type and returns float16, where sums up to 65504^2 would
overflow and be left unchecked, so the float16-accumulator value is used.

Values are generated in TOSA's tensor layouts (NHWC input, OHWI weights, the
reduction axis last); harness/accuracy/plans.py moves them to WebNN's layouts
by transposing, which keeps each element's value.
"""
from __future__ import annotations

import numpy as np

DATA_SETS = (0, 1, 2, 3, 4, 5)
# Operand positions, as TOSA numbers them: the two factors and the bias.
FIRST, SECOND, BIAS = 0, 1, 2

BOUND_PARAMETER = {"float32": float(2**64 - 2**40), "float16": 255.875}

_MASK32 = 0xFFFFFFFF


def pseudo_random(stream: int, count: int) -> np.ndarray:
    """The first ``count`` values of TOSA's primitive generator number
    ``stream`` as float32 in [-1, 1]: r_0 = m + 1, r_{n+1} = r_n m + 1 (mod
    2^32) with m = (8 stream + 1) * 0x705A5E75; the value is the sign of bit 31
    times (r & 0x7FFFFFFF) / 2^31, computed in float32 as the C++ does.

    The recurrence is unrolled by doubling (r_{i+n} = r_i m^n + (m^{n-1} +
    ... + 1)), so a million values cost a few numpy passes, not a Python loop."""
    m = ((8 * stream + 1) * 0x705A5E75) & _MASK32
    r = np.empty(max(count, 1), np.uint32)
    r[0] = (m + 1) & _MASK32
    filled, mult, add = 1, m, 1
    while filled < count:
        take = min(filled, count - filled)
        r[filled:filled + take] = r[:take] * np.uint32(mult) + np.uint32(add)
        mult, add = (mult * mult) & _MASK32, (add * mult + add) & _MASK32
        filled += take
    r = r[:count]
    magnitude = (r & np.uint32(0x7FFFFFFF)).astype(np.float32) / np.float32(2**31)
    return np.where(r >> np.uint32(31), -magnitude, magnitude).astype(np.float32)


def dot_product_values(data_set: int, position: int, k: np.ndarray, ks: int, data_type: str) -> np.ndarray:
    """The values of one operand, element by element in its TOSA layout:
    ``k`` holds each element's index within its dot product, ``ks`` the number
    of products per output (without the bias), ``position`` FIRST, SECOND or
    BIAS. Returned in ``data_type`` (float32 or float16), rounded to nearest."""
    k = np.asarray(k).reshape(-1)
    n = k.size
    big = np.float64(np.float32(BOUND_PARAMETER[data_type]))
    f32 = np.float32
    with np.errstate(over="ignore"):
        if data_set == 0:
            s0, s1 = pseudo_random(0, n), pseudo_random(1, n)
            values = {FIRST: np.where(s0 < 0, f32(0), s1), SECOND: np.where(s0 < 0, s1, f32(0))}.get(position)
        elif data_set == 1:
            pairs = pseudo_random(3 + position, 2 * n)  # two draws per element: the sign, then the value
            v = np.where(pairs[0::2] < 0, f32(-0.75), f32(0.75)) + f32(0.25) * pairs[1::2]
            if position == BIAS:  # B * B / (KS + 1) in float, then times v
                values = (f32(big) * f32(big) / f32(ks + 1)) * v
            else:
                values = (big / np.sqrt(ks + 1) * v.astype(np.float64)).astype(f32)
        elif data_set == 2:
            s = pseudo_random(6 + position, n).astype(np.float64)
            values = None if position == BIAS else np.where(k == 0, 1.0, s / np.sqrt(ks)).astype(f32)
        elif data_set == 3:
            pairs = pseudo_random(9 + position, 2 * n)  # two draws per element: s0 then s1
            s0, s1 = pairs[0::2], pairs[1::2]
            first = np.where(s0 < 0, f32(-16), f32(16))
            values = None if position == BIAS else np.where(k == 0, first, np.exp(f32(2) * s0) * s1)
        elif data_set == 4:
            s0, s1 = pseudo_random(12, n), pseudo_random(13, n)
            term = (big / np.sqrt(ks) * s1.astype(np.float64)).astype(f32)
            middle, negative = k == ks // 2, s0 < 0
            if position == FIRST:
                values = np.where(middle, np.where(negative, f32(-0.5), f32(0.5)), np.where(negative, f32(0), term))
            elif position == SECOND:
                values = np.where(middle, np.where(negative, f32(0.5), f32(-0.5)), np.where(negative, term, f32(0)))
            else:
                values = None
        elif data_set == 5:
            s = pseudo_random(15 + position, n).astype(np.float64)
            values = None if position == BIAS else (big / np.sqrt(ks + 1) * s).astype(f32)
        else:
            raise ValueError(f"data set S{data_set}: TOSA defines S0 to S5")
        if values is None:  # the bias of every set but S1 is zero
            values = np.zeros(n, f32)
        return np.asarray(values, f32).astype(np.dtype(data_type))
