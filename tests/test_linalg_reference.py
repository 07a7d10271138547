"""Linalg family (matmul, gemm, triangular): create steps, budgets, special
values, and a cross-check against ``onnx.reference.ReferenceEvaluator``.

Semantic differences between WebNN and ONNX found while cross-checking:
- MatMul: ONNX (numpy semantics) accepts 1-D operands and prepends/appends a
  1; WebNN's create steps throw for rank < 2 ("If either rankA or rankB is
  less than 2"). Only rank >= 2 is compared.
- Gemm: same formula and C broadcasting; ONNX calls the options transA/transB.
  WebNN casts alpha/beta to the operand type first (create steps), which the
  resolved attributes carry.
- Trilu vs triangular: the same keep rule (j - i >= k upper, <= k lower);
  ONNX takes k as an input tensor, WebNN ``diagonal`` as an option.
"""
from __future__ import annotations

import numpy as np
import pytest

from webnn_harness.spec.graph import Node, TensorDesc
from webnn_harness.spec.opspec import SpecError
from webnn_harness.verdict.tolerance import TOLERANCE
from test_reduction_reference import assert_same, onnx_run, reference, resolve

RNG = np.random.default_rng(7)


def _data(shape):
    return RNG.uniform(-2, 2, size=shape).astype(np.float32).astype(np.float64)


def _budget(op, descs, **attributes):
    created = resolve(op, descs, **attributes)
    names = {k: k for k in descs}
    node = Node(op, names, created.attributes, ("y",))
    return TOLERANCE[op](node, {**descs, "y": created.outputs[0]}).value


# --- create steps ----------------------------------------------------------

def test_matmul_shapes_and_broadcasting():
    f = lambda a, b: resolve("matmul", {"a": TensorDesc(a, "float32"), "b": TensorDesc(b, "float32")}).outputs[0].shape
    assert f((3, 4), (4, 5)) == (3, 5)
    assert f((2, 1, 3, 4), (5, 4, 2)) == (2, 5, 3, 2)
    assert f((3, 4), (2, 4, 1)) == (2, 3, 1)


@pytest.mark.parametrize("a, b, message", [
    ((3, 4), (5, 2), "columns"), ((2, 3, 4), (3, 4, 2), "batch"), ((4,), (4, 2), "rank"),
])
def test_matmul_errors(a, b, message):
    with pytest.raises(SpecError, match=message):
        resolve("matmul", {"a": TensorDesc(a, "float32"), "b": TensorDesc(b, "float32")})


def test_matmul_data_type_tie():
    with pytest.raises(SpecError, match="must match"):
        resolve("matmul", {"a": TensorDesc((2, 2), "float32"), "b": TensorDesc((2, 2), "float16")})


def test_gemm_create_steps():
    created = resolve("gemm", {"a": TensorDesc((4, 3), "float16"), "b": TensorDesc((5, 4), "float16"), "c": TensorDesc((5,), "float16")},
                      aTranspose=True, bTranspose=True, alpha=0.1)
    assert created.outputs[0] == TensorDesc((3, 5), "float16")
    # alpha cast to float16 per the create steps; beta default 1.0 resolved.
    assert created.attributes == {"alpha": float(np.float16(0.1)), "beta": 1.0, "aTranspose": True, "bTranspose": True}
    with pytest.raises(SpecError, match="K"):
        resolve("gemm", {"a": TensorDesc((4, 3), "float32"), "b": TensorDesc((4, 5), "float32")})
    with pytest.raises(SpecError, match="unidirectionally"):
        resolve("gemm", {"a": TensorDesc((2, 3), "float32"), "b": TensorDesc((3, 4), "float32"), "c": TensorDesc((3,), "float32")})
    with pytest.raises(SpecError, match="rank"):
        resolve("gemm", {"a": TensorDesc((2, 3, 3), "float32"), "b": TensorDesc((3, 4), "float32")})


def test_triangular_create_steps():
    created = resolve("triangular", {"input": TensorDesc((2, 3, 3), "uint64")})
    assert created.attributes == {"upper": True, "diagonal": 0}
    with pytest.raises(SpecError, match="rank"):
        resolve("triangular", {"input": TensorDesc((3,), "float32")})


def test_budgets():
    a, b, c = TensorDesc((3, 7), "float32"), TensorDesc((7, 2), "float32"), TensorDesc((2,), "float32")
    assert _budget("matmul", {"a": a, "b": b}) == 14
    assert _budget("gemm", {"a": a, "b": b}) == 14
    assert _budget("gemm", {"a": a, "b": b}, alpha=2.0) == 15
    assert _budget("gemm", {"a": a, "b": b, "c": c}) == 15
    assert _budget("gemm", {"a": a, "b": b, "c": c}, beta=0.5, alpha=3.0) == 17
    assert _budget("gemm", {"a": a, "b": b, "c": c}, beta=0.0) == 14
    assert _budget("gemm", {"a": TensorDesc((7, 3), "float32"), "b": b}, aTranspose=True) == 14
    assert _budget("triangular", {"input": a}) == 0


# --- special values -----------------------------------------------------------

def test_matmul_inf_times_zero_is_nan():
    out, _ = reference("matmul", {"a": np.array([[np.inf, 1.0]], np.float32), "b": np.array([[0.0], [1.0]], np.float32)})
    assert np.isnan(out).all()


def test_triangular_keeps_integer_type_and_64_bit_values():
    x = np.array([[2**63 - 1, 5], [-(2**63), 2**53 + 1]], np.int64)
    out, _ = reference("triangular", {"input": x}, upper=False)
    assert out.dtype == np.int64 and out.tolist() == [[2**63 - 1, 0], [-(2**63), 2**53 + 1]]


def test_large_matmul_loop_path_matches_products_path(monkeypatch):
    import webnn_harness.backends.reference.ops.linalg as linalg
    a, b = _data((2, 3, 6)), _data((6, 4))
    whole = linalg.matmul(a, b)
    monkeypatch.setattr(linalg, "_PRODUCTS_AT_ONCE", 0)
    np.testing.assert_allclose(linalg.matmul(a, b), whole, rtol=1e-14)


# --- cross-check against onnx.reference --------------------------------------

@pytest.mark.parametrize("shape_a, shape_b", [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
                                              ((3, 4), (2, 4, 1)), ((2, 2, 1, 3, 4), (1, 2, 4, 5))])
def test_matmul_matches_onnx(shape_a, shape_b):
    a, b = _data(shape_a), _data(shape_b)
    ours, _ = reference("matmul", {"a": a, "b": b})
    assert_same(ours, onnx_run("MatMul", [("a", a), ("b", b)], opset=13), rtol=1e-13)


@pytest.mark.parametrize("a_t", [False, True])
@pytest.mark.parametrize("b_t", [False, True])
@pytest.mark.parametrize("c_shape", [None, (), (5,), (3, 1), (3, 5)])
def test_gemm_matches_onnx(a_t, b_t, c_shape):
    m, k, n = 3, 4, 5
    a = _data((k, m) if a_t else (m, k))
    b = _data((n, k) if b_t else (k, n))
    operands, inputs = {"a": a, "b": b}, [("a", a), ("b", b)]
    if c_shape is not None:
        c = _data(c_shape)
        operands["c"], inputs = c, inputs + [("c", c)]
    ours, created = reference("gemm", operands, alpha=0.5, beta=-2.0, aTranspose=a_t, bTranspose=b_t)
    attrs = created.attributes
    theirs = onnx_run("Gemm", inputs, opset=13, alpha=attrs["alpha"], beta=attrs["beta"], transA=int(a_t), transB=int(b_t))
    assert_same(ours, theirs, rtol=1e-13)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (2, 3, 4), (2, 1, 4, 3)])
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("diagonal", [-5, -1, 0, 2, 6])
def test_triangular_matches_onnx(shape, upper, diagonal):
    x = RNG.integers(-100, 100, size=shape).astype(np.int64)
    ours, _ = reference("triangular", {"input": x}, upper=upper, diagonal=diagonal)
    assert_same(ours, onnx_run("Trilu", [("x", x), ("k", np.array(diagonal, np.int64))], opset=14, upper=int(upper)))


def test_cross_check_can_fail():
    x = _data((3, 3))
    ours, _ = reference("triangular", {"input": x}, upper=True, diagonal=1)
    with pytest.raises(AssertionError):
        assert_same(ours, onnx_run("Trilu", [("x", x), ("k", np.array(0, np.int64))], opset=14, upper=1))
