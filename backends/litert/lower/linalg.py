"""matmul, gemm, triangular.

matmul is BATCH_MATMUL (broadcasting batch dimensions); gemm is composed
from BATCH_MATMUL with the transposes, alpha and beta (Chromium uses
FULLY_CONNECTED, which wants a constant-friendly [out, in] filter; the
composition here is the simpler exact one); triangular multiplies by a
constant 0/1 mask, as Chromium does.
"""
from __future__ import annotations

import numpy as np
from ai_edge_litert import schema_py_generated as schema

from webnn_harness.backends.litert.emitter import OP, Call, Emitter
from webnn_harness.backends.litert.lower.elementwise import binary, refuse_quantized


def batch_matmul(e: Emitter, a: int, b: int, out, adj_x: bool = False, adj_y: bool = False) -> int:
    options = schema.BatchMatMulOptionsT()
    options.adjX, options.adjY = adj_x, adj_y
    return e.op(OP.BATCH_MATMUL, [a, b], out, options)


def matmul(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "a")
    return batch_matmul(e, c["a"], c["b"], c.out)


def gemm(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "a")
    data_type = c.desc("a").data_type
    y = batch_matmul(e, c["a"], c["b"], c.out, bool(c.attr("aTranspose")), bool(c.attr("bTranspose")))
    alpha, beta = float(c.attr("alpha")), float(c.attr("beta"))
    if alpha != 1.0:
        y = binary(e, OP.MUL, y, e.scalar(alpha, data_type))
    if c.has("c") and beta != 0.0:
        addend = c["c"] if beta == 1.0 else binary(e, OP.MUL, c["c"], e.scalar(beta, data_type))
        y = binary(e, OP.ADD, y, addend)
    return y


def triangular(e: Emitter, c: Call) -> int:
    refuse_quantized(c, "input")
    desc = c.desc("input")
    if desc.rank < 2:
        return e.op(OP.RESHAPE, [c["input"], e.i32(c.out.shape)], c.out)
    rows, cols = desc.shape[-2:]
    k = int(c.attr("diagonal"))
    j_minus_i = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = j_minus_i >= k if c.attr("upper") else j_minus_i <= k
    mask = e.constant(keep, "bool")
    zero = e.scalar(0, desc.data_type)
    return e.op(OP.SELECT_V2, [mask, c["input"], zero], c.out)


LOWER = {"matmul": matmul, "gemm": gemm, "triangular": triangular}
EMULATED = {
    "gemm": "BATCH_MATMUL (adjX/adjY for the transposes), MUL by alpha, ADD beta * c",
    "triangular": "SELECT_V2 with a constant mask of the kept triangle, as Chromium",
}
