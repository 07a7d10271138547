"""Reference (float64 numpy) implementations of the linalg operators:
matmul, gemm, triangular."""
from __future__ import annotations

import numpy as np

_PRODUCTS_AT_ONCE = 1 << 24  # beyond this many products, loop over K to bound memory


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Batched a @ b as an explicit sum of products in float64.

    Not ``np.matmul``: BLAS kernels may skip zero terms or use FMA, so
    inf * 0 = NaN could vanish; the spec's plain sum-of-products keeps it."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    if np.prod(batch, dtype=np.int64) * m * k * n <= _PRODUCTS_AT_ONCE:
        return np.sum(a[..., :, :, None] * b[..., None, :, :], axis=-2)  # [..., M, K, N] summed over K
    out = np.zeros(batch + (m, n), np.result_type(a, b))
    for i in range(k):  # large operands: accumulate one rank-1 update at a time
        out += a[..., :, i, None] * b[..., None, i, :]
    return out


def matmul(a, b):
    # Batch dimensions broadcast like numpy (spec: "bidirectionally broadcasting"
    # batchShapeA and batchShapeB); ranks are >= 2 by the create steps.
    return _dot(a, b)


def gemm(a, b, alpha, beta, aTranspose, bTranspose, c=None):
    """alpha * A' * B' + beta * C (spec #api-mlgraphbuilder-gemm), alpha and
    beta already cast to the operand type by the create steps. Without c the
    spec computes "as if c is a scalar 0.0"; the term is skipped (it only
    matters for the sign of a zero result, which comparison ignores)."""
    a = a.T if aTranspose else a
    b = b.T if bTranspose else b
    out = alpha * _dot(a, b)
    if c is not None:
        out = out + beta * c
    return out


def triangular(input, upper, diagonal):
    """Keep the upper (column - row >= diagonal) or lower (column - row <=
    diagonal) part of the last two dimensions, zero elsewhere; any dtype."""
    rows, cols = input.shape[-2:]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = offset >= diagonal if upper else offset <= diagonal
    return np.where(keep, input, np.zeros((), dtype=input.dtype))


OPS = {"matmul": matmul, "gemm": gemm, "triangular": triangular}
