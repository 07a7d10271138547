"""Create steps for the linalg operators (see harness/spec/opspec/__init__.py):
matmul, gemm, triangular.

Spec: #api-mlgraphbuilder-matmul, #api-mlgraphbuilder-gemm,
#api-mlgraphbuilder-triangular.
"""
from __future__ import annotations

import numpy as np

from webnn_harness.spec.dtypes import numpy_dtype
from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.opspec.base import (
    EXACT,
    MOVEMENT,
    Budget,
    Created,
    SpecError,
    broadcast_shapes,
    check,
    counted,
    unidirectionally_broadcastable,
)
from webnn_harness.spec.opspec.traits import (
    AccuracyPlan, InputValues, OpSpec, ProbePlan, Skip, Variation, declare, dims)


def cast_number(value: float, data_type: str) -> float:
    """Spec "casting" an MLNumber/double option to the operand's float type
    (round to nearest, float16 overflow to infinity), back as a Python float."""
    with np.errstate(over="ignore"):
        return float(np.asarray(value, dtype=np.float64).astype(numpy_dtype(data_type)))


def matmul(operands, attributes) -> Created:
    a: TensorDesc = operands["a"]
    b: TensorDesc = operands["b"]
    # The spec dropped 1-D operands: "If either rankA or rankB is less than 2, throw."
    check(a.rank >= 2 and b.rank >= 2, f"matmul: ranks {a.rank} and {b.rank}: both must be at least 2")
    rows_a, cols_a = a.shape[-2:]
    rows_b, cols_b = b.shape[-2:]
    check(cols_a == rows_b, f"matmul: a's columns ({cols_a}) differ from b's rows ({rows_b})")
    try:
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except SpecError as e:
        raise SpecError(f"matmul: batch dimensions: {e}") from None
    return Created((TensorDesc(batch + (rows_a, cols_b), a.data_type),), {})


def gemm(operands, attributes) -> Created:
    a: TensorDesc = operands["a"]
    b: TensorDesc = operands["b"]
    c: TensorDesc | None = operands.get("c")
    a_transpose = bool(attributes["aTranspose"])
    b_transpose = bool(attributes["bTranspose"])
    shape_a = a.shape[::-1] if a_transpose else a.shape
    shape_b = b.shape[::-1] if b_transpose else b.shape
    check(shape_a[1] == shape_b[0],
          f"gemm: a's K ({shape_a[1]}) differs from b's K ({shape_b[0]}) "
          f"(aTranspose={a_transpose}, bTranspose={b_transpose})")
    out_shape = (shape_a[0], shape_b[1])
    if c is not None:
        check(unidirectionally_broadcastable(c.shape, out_shape),
              f"gemm: c shape {list(c.shape)} is not unidirectionally broadcastable to {list(out_shape)}")
    resolved = {
        # "Set options.alpha/beta to the result of casting them to a's dataType."
        "alpha": cast_number(attributes["alpha"], a.data_type),
        "beta": cast_number(attributes["beta"], a.data_type),
        "aTranspose": a_transpose,
        "bTranspose": b_transpose,
    }
    return Created((TensorDesc(out_shape, a.data_type),), resolved)


def triangular(operands, attributes) -> Created:
    # Rank >= 2 is the tensor-limits check that runs before this function.
    x: TensorDesc = operands["input"]
    diagonal = attributes["diagonal"]
    check(isinstance(diagonal, int), f"triangular: diagonal {diagonal!r} is not an integer")
    return Created((x,), {"upper": bool(attributes["upper"]), "diagonal": diagonal})


# --- Tolerances: exactly WPT's (resources/utils.js getMatmulPrecisionTolerance,
# getGemmPrecisionTolerance): a dot product of K terms costs 2 roundings per term.


def matmul_budget(node, descs) -> Budget:
    return Budget("ULP", descs[node.operands["a"]].shape[-1] * 2)


def gemm_budget(node, descs) -> Budget:
    shape_a = descs[node.operands["a"]].shape
    attrs = node.attributes
    k = shape_a[0] if attrs["aTranspose"] else shape_a[1]
    value = k * 2
    if attrs["alpha"] != 1.0:
        value += 1  # the alpha multiply
    if "c" in node.operands and attrs["beta"] != 0.0:
        value += 1  # the c addition
        if attrs["beta"] != 1.0:
            value += 1  # the beta multiply
    return Budget("ULP", value)


# --- Costs (see base.py "What a Cost counts").


@counted
def matmul_flops(node, descs) -> int:
    """2 * M * N * K per batch matrix (a multiply-add per term of each dot
    product); batch is the broadcast batch shape of the output."""
    k = descs[node.operands["a"]].shape[-1]
    return 2 * descs[node.outputs[0]].size * k


@counted
def gemm_flops(node, descs) -> int:
    """2 * M * N * K for a*b, then per output element one multiply for alpha
    (when alpha != 1), and with c (when beta != 0) one add, plus one multiply
    for beta when beta != 1."""
    attrs = node.attributes
    shape_a = descs[node.operands["a"]].shape
    k = shape_a[0] if attrs["aTranspose"] else shape_a[1]
    out = descs[node.outputs[0]].size
    per_element = 2 * k + (attrs["alpha"] != 1.0)
    if "c" in node.operands and attrs["beta"] != 0.0:
        per_element += 1 + (attrs["beta"] != 1.0)
    return out * per_element


# Probe plans (see traits.py).


def matmul_arguments(v: Variation):
    ra, rb = v.rank_of("a", 2), v.rank_of("b", 2)
    if min(ra, rb) < 2:
        raise Skip("needs rank >= 2")
    batch = dims(max(ra, rb) - 2)
    return {"a": batch[len(batch) - (ra - 2):] + (2, 3), "b": batch[len(batch) - (rb - 2):] + (3, 4)}, {}


def gemm_arguments(v: Variation):
    shapes = {"a": (2, 3), "b": (3, 4)}
    attrs: dict = {}
    if "c" in v.present:
        shapes["c"] = ((), (4,), (2, 4))[v.rank_of("c", 2)]
    if v.axis == "option" and v.value == "aTranspose":
        shapes["a"], attrs["aTranspose"] = (3, 2), True
    if v.axis == "option" and v.value == "bTranspose":
        shapes["b"], attrs["bTranspose"] = (4, 3), True
    return shapes, attrs


def triangular_arguments(v: Variation):
    r = v.rank_of("input", 2)
    if r < 2:
        raise Skip("needs rank >= 2")
    upper = not (v.axis == "option" and v.value == "lower")
    return {"input": dims(r)}, {"upper": upper, "diagonal": 0}


OPS = declare(
    OpSpec("matmul", matmul, matmul_budget, matmul_flops, ProbePlan(matmul_arguments), InputValues("dyadic"),
           accuracy=AccuracyPlan("MATMUL", (16, 256, 2048))),
    # TOSA FULLY_CONNECTED: gemm(a, b, {c, bTranspose: true}).
    OpSpec("gemm", gemm, gemm_budget, gemm_flops, ProbePlan(gemm_arguments, options=("aTranspose", "bTranspose")),
           InputValues("dyadic"), accuracy=AccuracyPlan("FULLY_CONNECTED", (16, 256, 2048))),
    # triangular keeps or zeroes elements by position: exact, a masked copy with no arithmetic.
    OpSpec("triangular", triangular, EXACT, MOVEMENT, ProbePlan(triangular_arguments, options=("lower",)),
           InputValues("wide")),
)
