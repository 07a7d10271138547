"""matmul, gemm, triangular."""
from __future__ import annotations

from webnn_harness.backends.onnxruntime.emitter import Call, Emitter


def matmul(e: Emitter, c: Call) -> str:
    return e.op("MatMul", [c["a"], c["b"]])


def gemm(e: Emitter, c: Call) -> str:
    inputs = [c["a"], c["b"]] + ([c["c"]] if c.has("c") else [])
    return e.op("Gemm", inputs, alpha=float(c.attr("alpha", 1.0)), beta=float(c.attr("beta", 1.0)),
                transA=int(bool(c.attr("aTranspose", False))), transB=int(bool(c.attr("bTranspose", False))))


def triangular(e: Emitter, c: Call) -> str:
    # Same convention as WebNN: upper keeps j - i >= k, lower keeps j - i <= k.
    k = e.scalar(int(c.attr("diagonal", 0)), "int64")
    return e.op("Trilu", [c["input"], k], upper=int(bool(c.attr("upper", True))))


LOWER = {"matmul": matmul, "gemm": gemm, "triangular": triangular}
EMULATED: dict[str, str] = {}
