"""matmul and gemm."""
from __future__ import annotations

import openvino.opset16 as ops

from webnn_harness.backends.lowering import Call
from webnn_harness.backends.openvino.lower.base import const, output


def matmul(e, c: Call):
    return output(ops.matmul(c["a"], c["b"], False, False))


def gemm(e, c: Call):
    # Spec: alpha * A' * B' + beta * C. Multiplications by 1 are left out so
    # that they add no rounding.
    a, alpha, beta, addend = c["a"], c.attr("alpha"), c.attr("beta"), c.get("c")
    result = output(ops.matmul(a, c["b"], c.attr("aTranspose"), c.attr("bTranspose")))
    if alpha != 1:
        result = output(ops.multiply(result, const(alpha, a)))
    if addend is not None and beta != 0:
        scaled = addend if beta == 1 else ops.multiply(addend, const(beta, a))
        result = output(ops.add(result, scaled))
    return result


LOWER = {"matmul": matmul, "gemm": gemm}
EMULATED = {"gemm": "MatMul(transpose_a, transpose_b), Multiply by alpha, Add beta * c"}
