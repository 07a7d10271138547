"""matmul, gemm, triangular."""
from __future__ import annotations

from webnn_harness.backends.onnxruntime.emitter import Call, Emitter


def matmul(e: Emitter, c: Call) -> str:
    return e.op("MatMul", [c["a"], c["b"]])


def gemm(e: Emitter, c: Call) -> str:
    inputs = [c["a"], c["b"]] + ([c["c"]] if c.has("c") else [])
    return e.op("Gemm", inputs, alpha=float(c.attr("alpha")), beta=float(c.attr("beta")),
                transA=int(bool(c.attr("aTranspose"))), transB=int(bool(c.attr("bTranspose"))))


def triangular(e: Emitter, c: Call) -> str:
    # Same convention as WebNN: upper keeps j - i >= k, lower keeps j - i <= k.
    k = e.scalar(int(c.attr("diagonal")), "int64")
    return e.op("Trilu", [c["input"], k], upper=int(bool(c.attr("upper"))))


LOWER = {"matmul": matmul, "gemm": gemm, "triangular": triangular}
EMULATED: dict[str, str] = {}
