"""matmul and gemm."""
from __future__ import annotations

import openvino.opset16 as ops

from webnn_harness.backends.openvino.lower.base import const, output


def matmul(out, a, b):
    return output(ops.matmul(a, b, False, False))


def gemm(out, a, b, alpha, beta, aTranspose, bTranspose, c=None):
    # Spec: alpha * A' * B' + beta * C. Multiplications by 1 are left out so
    # that they add no rounding.
    result = output(ops.matmul(a, b, aTranspose, bTranspose))
    if alpha != 1:
        result = output(ops.multiply(result, const(alpha, a)))
    if c is not None and beta != 0:
        scaled_c = c if beta == 1 else ops.multiply(c, const(beta, a))
        result = output(ops.add(result, scaled_c))
    return result


LOWER = {"matmul": matmul, "gemm": gemm}
EMULATIONS = {"gemm": "MatMul(transpose_a, transpose_b), Multiply by alpha, Add beta * c"}
