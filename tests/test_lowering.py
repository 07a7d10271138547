"""The one lowering contract (backends/lowering.py) with numpy as the runtime:
the loop, its refusals, and the spec-level compositions every backend writes
with its own steps."""
from __future__ import annotations

import importlib
import inspect
import math

import numpy as np
import pytest

from webnn_harness.backends.lowering import (
    ONE_ELEMENT_REDUCTION,
    LogSumExpSteps,
    LoweringMismatch,
    Unlowerable,
    clamp_bounds,
    log_sum_exp,
    lower_nodes,
    reduce_over_no_axes,
)
from webnn_harness.spec.graph import Node, TensorDesc

DESCS = {name: TensorDesc((2,), "float32") for name in ("x", "y", "z")}


def _numpy_lower(e, c):
    return -c["input"]


def test_lower_nodes_names_each_output_in_env():
    env = {"x": np.array([1.0, 2.0])}
    lower_nodes(None, [Node("neg", {"input": "x"}, {}, ("y",))], env, DESCS, {"neg": _numpy_lower}, np.ndarray,
                "numpy")
    np.testing.assert_array_equal(env["y"], [-1.0, -2.0])


def test_lower_nodes_refuses_every_missing_op_before_lowering_any():
    lowered = []
    nodes = [Node("neg", {"input": "x"}, {}, ("y",)), Node("tan", {"input": "y"}, {}, ("z",)),
             Node("erf", {"input": "z"}, {}, ("w",))]
    with pytest.raises(Unlowerable, match="^no numpy lowering for erf, tan$"):
        lower_nodes(None, nodes, {"x": np.zeros(2)}, DESCS, {"neg": lambda e, c: lowered.append(c)}, np.ndarray,
                    "numpy")
    assert not lowered


def test_lower_nodes_reports_a_wrong_output_count_as_a_mismatch():
    node = Node("neg", {"input": "x"}, {}, ("y",))
    with pytest.raises(LoweringMismatch, match="gave 2 outputs for 1"):
        lower_nodes(None, [node], {"x": np.zeros(2)}, DESCS, {"neg": lambda e, c: (c["input"], c["input"])},
                    np.ndarray, "numpy")


def test_lower_nodes_settles_each_output():
    seen = []

    def settle(node, name, value, desc):
        seen.append((node.op, name, desc))
        return value * 2

    env = {"x": np.array([1.0, 2.0])}
    lower_nodes(None, [Node("neg", {"input": "x"}, {}, ("y",))], env, DESCS, {"neg": _numpy_lower}, np.ndarray,
                "numpy", settle)
    np.testing.assert_array_equal(env["y"], [-2.0, -4.0])
    assert seen == [("neg", "y", DESCS["y"])]


@pytest.mark.parametrize("low, high, data_type, drop_limits, expected", [
    (math.nan, 1.0, "float32", False, (None, 1.0)),
    (-1.0, math.nan, "float32", False, (-1.0, None)),
    (-math.inf, math.inf, "float32", False, (-math.inf, math.inf)),
    (-math.inf, math.inf, "float32", True, (None, None)),
    (0, 2**64 - 1, "uint64", False, (0, 2**64 - 1)),
    (0, 2**64 - 1, "uint64", True, (None, None)),
    (-128, 5, "int8", True, (None, 5)),
])
def test_clamp_bounds(low, high, data_type, drop_limits, expected):
    assert clamp_bounds(low, high, data_type, drop_limits=drop_limits) == expected


NUMPY_ONE_ELEMENT = {"abs": np.abs, "log": np.log, "square": np.square, "identity": lambda x: x}


X = [-2.0, 0.5, 3.0]


@pytest.mark.parametrize("op, x, expected", [
    ("reduceL1", X, [2.0, 0.5, 3.0]),
    ("reduceL2", X, [2.0, 0.5, 3.0]),
    ("reduceSumSquare", X, [4.0, 0.25, 9.0]),
    ("reduceLogSum", [1.0, math.e, 1.0], [0.0, 1.0, 0.0]),
    *((op, X, X) for op in ("reduceLogSumExp", "reduceMax", "reduceMean", "reduceMin", "reduceProduct",
                            "reduceSum")),
])
def test_reduce_over_no_axes_is_the_reduction_of_each_element_alone(op, x, expected):
    np.testing.assert_allclose(reduce_over_no_axes(op, np.array(x), NUMPY_ONE_ELEMENT), expected)


def test_every_one_element_step_is_named():
    assert set(ONE_ELEMENT_REDUCTION.values()) | {"identity"} == set(NUMPY_ONE_ELEMENT)


NUMPY_LOG_SUM_EXP = LogSumExpSteps(
    reduce_max_kept=lambda x, axes: np.max(x, axis=tuple(axes), keepdims=True),
    reduce_sum=lambda x, axes, keep: np.sum(x, axis=tuple(axes), keepdims=keep),
    zero_where_infinite=lambda m: np.where(np.isinf(m), 0, m),
    exp=np.exp,
    log=np.log,
    sub=np.subtract,
    add=np.add,
    shaped_like=lambda x, like: np.reshape(x, np.shape(like)),
)


@pytest.mark.parametrize("keep", [True, False])
def test_log_sum_exp_stays_finite_past_exp_overflow(keep):
    x = np.array([[1000.0, 1000.0], [1.0, 2.0]], np.float32)
    got = log_sum_exp(x, [1], keep, NUMPY_LOG_SUM_EXP)
    want = np.array([1000 + math.log(2), 2 + math.log(1 + math.exp(-1))], np.float32)
    np.testing.assert_allclose(got, want.reshape((2, 1)) if keep else want, rtol=1e-6)


def test_log_sum_exp_keeps_infinities():
    x = np.array([[-np.inf, -np.inf], [np.inf, 1.0]], np.float32)
    with np.errstate(invalid="ignore", divide="ignore"):
        got = log_sum_exp(x, [1], False, NUMPY_LOG_SUM_EXP)
    np.testing.assert_array_equal(got, [-np.inf, np.inf])


@pytest.mark.parametrize("backend, runtime_module", [
    ("onnxruntime", "onnx"), ("litert", "ai_edge_litert"), ("openvino", "openvino"),
])
def test_every_lowering_backend_keeps_the_one_contract(backend, runtime_module):
    pytest.importorskip(runtime_module)
    lower = importlib.import_module(f"webnn_harness.backends.{backend}.lower")
    assert lower.Unlowerable is Unlowerable
    assert set(lower.EMULATED) <= set(lower.LOWER)
    assert all(list(inspect.signature(fn).parameters)[:2] == ["e", "c"] for fn in lower.LOWER.values())
