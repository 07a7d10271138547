"""OpenVINO lowerings, one op at a time: every WebNN op lowers, agrees with
the float64 reference on random data, and the WebNN-specific semantics the
adapter composes (index clamping, sign of NaN, slice windows, gate orders,
resample coordinates...) hold on hand-checked values."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino")

from webnn_harness import backends  # noqa: E402
from webnn_harness.backends.openvino.lower import LOWER  # noqa: E402
from webnn_harness.backends.reference import evaluate  # noqa: E402
from webnn_harness.spec.builder import build_graph  # noqa: E402
from webnn_harness.spec.catalog import operators  # noqa: E402
from webnn_harness.spec.graph import TensorDesc  # noqa: E402

RNG = np.random.default_rng(7)


@pytest.fixture(scope="module")
def ov_backend():
    return backends.create("openvino", {})


def graph_of(op, args, inputs, outputs="out", constants=None):
    descs = {n: TensorDesc(tuple(v.shape), v.dtype.name) for n, v in inputs.items()}
    return build_graph(descs, constants or {}, [{"name": op, "arguments": args, "outputs": outputs}], None)


def run(backend, op, args, inputs, outputs="out", constants=None):
    graph = graph_of(op, args, inputs, outputs, constants)
    got = backend.compute(backend.build(graph), inputs)
    return graph, got


def f32(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape).astype(np.float32)


def x(*shape, **kw):
    return {"x": f32(*shape, **kw)}


UNARY_FLOAT = "abs ceil cos erf exp floor neg reciprocal roundEven sin tan identity sign elu gelu hardSigmoid " \
    "hardSwish leakyRelu linear relu sigmoid softplus softsign tanh".split()
BINARY = "add sub mul div max min pow equal notEqual greater greaterOrEqual lesser lesserOrEqual".split()

# op -> (arguments, inputs); every op of the catalog is here (test_table_covers_every_op).
TABLE = {
    **{op: ([{"input": "x"}], x(2, 3)) for op in UNARY_FLOAT},
    **{op: ([{"a": "a"}, {"b": "b"}], {"a": f32(2, 3, low=0.5), "b": f32(3, low=0.5)}) for op in BINARY},
    "log": ([{"input": "x"}], x(2, 3, low=0.1)),
    "sqrt": ([{"input": "x"}], x(2, 3, low=0.0)),
    "logicalNot": ([{"a": "a"}], {"a": np.array([0, 1, 7, 255], np.uint8)}),
    "logicalAnd": ([{"a": "a"}, {"b": "b"}], {"a": np.array([0, 3, 0, 9], np.uint8), "b": np.array([0, 0, 5, 1], np.uint8)}),
    "logicalOr": ([{"a": "a"}, {"b": "b"}], {"a": np.array([0, 3, 0, 9], np.uint8), "b": np.array([0, 0, 5, 1], np.uint8)}),
    "logicalXor": ([{"a": "a"}, {"b": "b"}], {"a": np.array([0, 3, 0, 9], np.uint8), "b": np.array([0, 0, 5, 1], np.uint8)}),
    "isNaN": ([{"a": "x"}], {"x": np.array([np.nan, 1, np.inf], np.float32)}),
    "isInfinite": ([{"a": "x"}], {"x": np.array([np.nan, -np.inf, np.inf, 2], np.float32)}),
    "cast": ([{"input": "x"}, {"type": "int32"}], x(2, 3, low=-50, high=50)),
    "clamp": ([{"input": "x"}, {"options": {"minValue": -0.5, "maxValue": 0.7}}], x(2, 3)),
    "prelu": ([{"input": "x"}, {"slope": "s"}], {"x": f32(2, 3), "s": f32(3)}),
    "softmax": ([{"input": "x"}, {"axis": 1}], x(2, 5)),
    "where": ([{"condition": "c"}, {"trueValue": "a"}, {"falseValue": "b"}],
              {"c": np.array([0, 2, 1], np.uint8), "a": f32(2, 3), "b": f32(3)}),
    "argMin": ([{"input": "x"}, {"axis": 1}], x(3, 4)),
    "argMax": ([{"input": "x"}, {"axis": 0}, {"options": {"keepDimensions": True, "outputDataType": "int64"}}], x(3, 4)),
    "cumulativeSum": ([{"input": "x"}, {"axis": 1}, {"options": {"exclusive": True, "reversed": True}}], x(2, 4)),
    **{op: ([{"input": "x"}, {"options": {"axes": [1, 2], "keepDimensions": True}}], x(2, 3, 4, low=0.1))
       for op in "reduceL1 reduceL2 reduceLogSum reduceLogSumExp reduceMax reduceMean reduceMin reduceProduct "
                 "reduceSum reduceSumSquare".split()},
    "matmul": ([{"a": "a"}, {"b": "b"}], {"a": f32(2, 3, 4), "b": f32(4, 5)}),
    "gemm": ([{"a": "a"}, {"b": "b"}, {"options": {"c": "c", "alpha": 2.0, "beta": 0.5, "bTranspose": True}}],
             {"a": f32(3, 4), "b": f32(5, 4), "c": f32(5)}),
    "triangular": ([{"input": "x"}, {"options": {"upper": False, "diagonal": 1}}], x(2, 3, 4)),
    "conv2d": ([{"input": "x"}, {"filter": "w"}, {"options": {"padding": [1, 0, 0, 1], "strides": [2, 1], "groups": 2,
                                                               "inputLayout": "nhwc", "filterLayout": "ohwi", "bias": "b"}}],
               {"x": f32(1, 5, 6, 4), "w": f32(6, 3, 2, 2), "b": f32(6)}),
    "convTranspose2d": ([{"input": "x"}, {"filter": "w"}, {"options": {"strides": [2, 2], "padding": [1, 0, 0, 1],
                                                                        "outputSizes": [8, 9], "filterLayout": "hwoi"}}],
                        {"x": f32(1, 3, 4, 4), "w": f32(3, 3, 2, 3)}),
    "averagePool2d": ([{"input": "x"}, {"options": {"windowDimensions": [3, 3], "strides": [2, 2],
                                                    "padding": [1, 1, 1, 1], "outputShapeRounding": "ceil"}}], x(1, 2, 6, 7)),
    "l2Pool2d": ([{"input": "x"}, {"options": {"windowDimensions": [2, 2], "layout": "nhwc"}}], x(1, 4, 5, 3)),
    "maxPool2d": ([{"input": "x"}, {"options": {"windowDimensions": [2, 3], "dilations": [2, 1]}}], x(1, 2, 6, 7)),
    "resample2d": ([{"input": "x"}, {"options": {"mode": "linear", "sizes": [5, 7]}}], x(1, 2, 3, 4)),
    "batchNormalization": ([{"input": "x"}, {"mean": "m"}, {"variance": "v"}, {"options": {"axis": 2, "scale": "s"}}],
                           {"x": f32(2, 3, 4), "m": f32(4), "v": f32(4, low=0.1), "s": f32(4)}),
    "instanceNormalization": ([{"input": "x"}, {"options": {"layout": "nhwc", "bias": "b"}}], {"x": f32(2, 3, 4, 5), "b": f32(5)}),
    "layerNormalization": ([{"input": "x"}, {"options": {"axes": [2, 1], "scale": "s"}}], {"x": f32(2, 3, 4), "s": f32(4, 3)}),
    "concat": ([{"inputs": ["a", "b"]}, {"axis": 1}], {"a": f32(2, 1), "b": f32(2, 3)}),
    "expand": ([{"input": "x"}, {"newShape": [2, 3, 4]}], x(3, 1)),
    "gather": ([{"input": "x"}, {"indices": "i"}, {"options": {"axis": 1}}], {"x": f32(2, 4), "i": np.array([[3, -1], [0, 2]], np.int32)}),
    "gatherElements": ([{"input": "x"}, {"indices": "i"}, {"options": {"axis": 0}}],
                       {"x": f32(3, 2), "i": np.array([[2, 0], [-1, 1]], np.int64)}),
    "gatherND": ([{"input": "x"}, {"indices": "i"}], {"x": f32(2, 3, 2), "i": np.array([[1, 2], [0, -1]], np.uint32 if False else np.int32)}),
    "scatterElements": ([{"input": "x"}, {"indices": "i"}, {"updates": "u"}, {"options": {"axis": 1}}],
                        {"x": f32(2, 3), "i": np.array([[2], [0]], np.int32), "u": f32(2, 1)}),
    "scatterND": ([{"input": "x"}, {"indices": "i"}, {"updates": "u"}],
                  {"x": f32(3, 2), "i": np.array([[2], [0]], np.int32), "u": f32(2, 2)}),
    "pad": ([{"input": "x"}, {"beginningPadding": [1, 2]}, {"endingPadding": [0, 1]}, {"options": {"mode": "reflection"}}], x(3, 4)),
    "reshape": ([{"input": "x"}, {"newShape": [3, 2]}], x(2, 3)),
    "reverse": ([{"input": "x"}, {"options": {"axes": [0, 2]}}], x(2, 3, 4)),
    "slice": ([{"input": "x"}, {"starts": [0, 1]}, {"sizes": [2, 5]}, {"options": {"strides": [1, 2]}}], x(2, 7)),
    "split": ([{"input": "x"}, {"splits": [1, 3]}, {"options": {"axis": 1}}], x(2, 4)),
    "tile": ([{"input": "x"}, {"repetitions": [2, 1, 3]}], x(1, 2, 2)),
    "transpose": ([{"input": "x"}, {"options": {"permutation": [2, 0, 1]}}], x(2, 3, 4)),
    "quantizeLinear": ([{"input": "x"}, {"scale": "s"}, {"zeroPoint": "z"}],
                       {"x": f32(2, 4, low=-3, high=3), "s": np.array([[0.05, 0.1]], np.float32), "z": np.array([[3, -2]], np.int8)}),
    "dequantizeLinear": ([{"input": "x"}, {"scale": "s"}, {"zeroPoint": "z"}],
                         {"x": np.array([[0, 17, 255, 128]], np.uint8), "s": np.array([[0.5, 0.25]], np.float32),
                          "z": np.array([[128, 3]], np.uint8)}),
    "gruCell": ([{"input": "x"}, {"weight": "w"}, {"recurrentWeight": "r"}, {"hiddenState": "h"}, {"hiddenSize": 3},
                 {"options": {"bias": "b", "recurrentBias": "rb", "resetAfter": True, "layout": "rzn"}}],
                {"x": f32(2, 4), "w": f32(9, 4), "r": f32(9, 3), "h": f32(2, 3), "b": f32(9), "rb": f32(9)}),
    "gru": ([{"input": "x"}, {"weight": "w"}, {"recurrentWeight": "r"}, {"steps": 3}, {"hiddenSize": 2},
             {"options": {"bias": "b", "recurrentBias": "rb", "resetAfter": False, "returnSequence": True,
                          "direction": "both", "activations": ["sigmoid", "relu"]}}],
            {"x": f32(3, 2, 4), "w": f32(2, 6, 4), "r": f32(2, 6, 2), "b": f32(2, 6), "rb": f32(2, 6)}),
    "lstmCell": ([{"input": "x"}, {"weight": "w"}, {"recurrentWeight": "r"}, {"hiddenState": "h"}, {"cellState": "c"},
                  {"hiddenSize": 2}, {"options": {"bias": "b", "layout": "ifgo"}}],
                 {"x": f32(2, 3), "w": f32(8, 3), "r": f32(8, 2), "h": f32(2, 2), "c": f32(2, 2), "b": f32(8)}),
    "lstm": ([{"input": "x"}, {"weight": "w"}, {"recurrentWeight": "r"}, {"steps": 3}, {"hiddenSize": 2},
              {"options": {"bias": "b", "recurrentBias": "rb", "returnSequence": True, "direction": "backward",
                           "initialCellState": "c0"}}],
             {"x": f32(3, 2, 3), "w": f32(1, 8, 3), "r": f32(1, 8, 2), "b": f32(1, 8), "rb": f32(1, 8), "c0": f32(1, 2, 2)}),
}
OUTPUTS = {"split": ["o1", "o2"], "gru": ["hn", "seq"], "lstmCell": ["hn", "cn"], "lstm": ["hn", "cn", "seq"]}


def test_table_covers_every_op():
    assert set(LOWER) == set(operators())
    assert set(TABLE) == set(operators())


@pytest.mark.parametrize("op", sorted(TABLE))
def test_lowering_agrees_with_reference(ov_backend, op):
    args, inputs = TABLE[op]
    graph, got = run(ov_backend, op, args, inputs, OUTPUTS.get(op, "out"))
    want = evaluate(graph, inputs)
    for name in graph.outputs:
        expected, actual = want[name].values, got[name]
        assert actual.dtype == expected.dtype and actual.shape == expected.shape, name
        mask = want[name].undefined
        if mask is not None:
            expected, actual = expected[~mask], actual[~mask]
        if expected.dtype.kind == "f":
            np.testing.assert_allclose(actual, expected, rtol=2e-5, atol=2e-6, equal_nan=True, err_msg=f"{op} {name}")
        else:
            np.testing.assert_array_equal(actual, expected, err_msg=f"{op} {name}")


# ---- WebNN semantics the adapter composes, checked on hand-worked values ----

def test_gather_clamps_out_of_range_indices(ov_backend):
    # Spec note: indices clamp to [-N, N-1]; OpenVINO alone would give zeros.
    data = np.array([10, 20, 30], np.float32)
    _, got = run(ov_backend, "gather", [{"input": "x"}, {"indices": "i"}], {"x": data, "i": np.array([5, -7, -1], np.int32)})
    np.testing.assert_array_equal(got["out"], [30, 10, 30])


def test_sign_of_nan_is_zero(ov_backend):
    _, got = run(ov_backend, "sign", [{"input": "x"}], {"x": np.array([np.nan, -3, 0, 2], np.float32)})
    np.testing.assert_array_equal(got["out"], [0, -1, 0, 1])


def test_integer_division_truncates_toward_zero(ov_backend):
    a, b = np.array([7, -7, 7, -7], np.int32), np.array([2, 2, -2, -2], np.int32)
    _, got = run(ov_backend, "div", [{"a": "a"}, {"b": "b"}], {"a": a, "b": b})
    np.testing.assert_array_equal(got["out"], [3, -3, -3, 3])


def test_slice_sizes_are_window_extents(ov_backend):
    # sizes [5] with stride 2 from 1 reads elements 1, 3, 5.
    _, got = run(ov_backend, "slice", [{"input": "x"}, {"starts": [1]}, {"sizes": [5]}, {"options": {"strides": [2]}}],
                 {"x": np.arange(8, dtype=np.float32)})
    np.testing.assert_array_equal(got["out"], [1, 3, 5])


def test_resample_nearest_rounds_half_down(ov_backend):
    # Upscale 2 -> 4: inputCoordinate = (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25;
    # ceil(c - 0.5) clamped = 0, 0, 1, 1.
    _, got = run(ov_backend, "resample2d", [{"input": "x"}, {"options": {"sizes": [1, 4]}}],
                 {"x": np.array([[[[1.0, 2.0]]]], np.float32)})
    np.testing.assert_array_equal(got["out"].ravel(), [1, 1, 2, 2])


def test_resample_linear_clamps_coordinates(ov_backend):
    # Coordinates -0.25 and 1.25 clamp to the edges; 0.25 and 0.75 blend.
    _, got = run(ov_backend, "resample2d", [{"input": "x"}, {"options": {"mode": "linear", "sizes": [1, 4]}}],
                 {"x": np.array([[[[0.0, 4.0]]]], np.float32)})
    np.testing.assert_allclose(got["out"].ravel(), [0, 1, 3, 4])


def test_triangular_lower_with_diagonal(ov_backend):
    data = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
    _, got = run(ov_backend, "triangular", [{"input": "x"}, {"options": {"upper": False, "diagonal": -1}}], {"x": data})
    np.testing.assert_array_equal(got["out"], [[0, 0, 0], [4, 0, 0], [7, 8, 0]])


def test_quantize_rounds_half_to_even_and_saturates(ov_backend):
    data = np.array([0.5, 1.5, 2.5, 300.0, -300.0], np.float32)
    _, got = run(ov_backend, "quantizeLinear", [{"input": "x"}, {"scale": "s"}, {"zeroPoint": "z"}],
                 {"x": data, "s": np.array([1.0], np.float32), "z": np.array([0], np.int8)})
    np.testing.assert_array_equal(got["out"], [0, 2, 2, 127, -128])


def test_conv_transpose_output_sizes(ov_backend):
    # 1x1 input, 1x1 filter of 2, strides 2, outputSizes 2x2: the value lands
    # at (0, 0) and the extra row/column are output padding (zeros).
    graph, got = run(ov_backend, "convTranspose2d", [{"input": "x"}, {"filter": "w"},
                     {"options": {"strides": [2, 2], "outputSizes": [2, 2]}}],
                     {"x": np.array([[[[3.0]]]], np.float32), "w": np.array([[[[2.0]]]], np.float32)})
    np.testing.assert_array_equal(got["out"], [[[[6, 0], [0, 0]]]])


def test_lstm_cell_peephole_uses_previous_cell_state(ov_backend):
    # hiddenSize 1, all weights 0: every gate is sigmoid(bias + peephole * c).
    # i = sigmoid(1*c), o = sigmoid(2*c) (previous c, per the spec's emulation), f = sigmoid(3*c), g = tanh(0) = 0.
    c = 0.5
    inputs = {"x": np.zeros((1, 1), np.float32), "w": np.zeros((4, 1), np.float32), "r": np.zeros((4, 1), np.float32),
              "h": np.zeros((1, 1), np.float32), "c": np.full((1, 1), c, np.float32),
              "p": np.array([1.0, 2.0, 3.0], np.float32)}
    _, got = run(ov_backend, "lstmCell", [{"input": "x"}, {"weight": "w"}, {"recurrentWeight": "r"}, {"hiddenState": "h"},
                 {"cellState": "c"}, {"hiddenSize": 1}, {"options": {"peepholeWeight": "p"}}], inputs, ["h1", "c1"])
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    c1 = sig(3 * c) * c
    np.testing.assert_allclose(got["c1"].ravel(), [c1], rtol=1e-6)
    np.testing.assert_allclose(got["h1"].ravel(), [sig(2 * c) * np.tanh(c1)], rtol=1e-6)


def test_logical_and_with_constant_operand_recomputes(ov_backend):
    # Regression: the CPU plugin returned the first inference's result for
    # LogicalAnd(NotEqual(Constant, 0), NotEqual(Parameter, 0)).
    graph = graph_of("logicalAnd", [{"a": "a"}, {"b": "b"}], {"b": np.zeros(3, np.uint8)},
                     constants={"a": np.array([1, 0, 2], np.uint8)})
    compiled = ov_backend.build(graph)
    ov_backend.compute(compiled, {"b": np.zeros(3, np.uint8)})
    got = ov_backend.compute(compiled, {"b": np.array([1, 1, 1], np.uint8)})
    np.testing.assert_array_equal(got["out"], [1, 0, 1])
