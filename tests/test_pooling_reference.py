"""Create steps and reference of averagePool2d / l2Pool2d / maxPool2d /
resample2d: validation errors the spec's steps throw, resolved defaults,
hand-worked values, WPT budgets, and a cross-check against onnx.reference
(AveragePool count_include_pad=0, LpPool p=2, MaxPool, Resize).

WebNN vs ONNX, found while writing this (each one pinned by a test below):
- padding [beginH, endH, beginW, endW] -> ONNX pads [beginH, beginW, endH, endW].
- ceil rounding: ONNX (like PyTorch) drops a last window that would start in
  the end padding; WebNN keeps it (spec: output size = ceil(...), no
  exception), and such a window holds only padding, so its average / max is
  implementation-defined in our reference (l2 gives 0).
- onnx.reference's LpPool is (kernelSize * AveragePool(|x|^p))^(1/p) with
  count_include_pad off, which scales windows that overlap padding; we give
  it count_include_pad=1 so padding counts as the zeros it adds nothing as,
  and compare only windows inside the padded input.
- resample2d: WebNN samples with scale = outputSize / inputSize even when
  `scales` set the size; ONNX Resize uses the given scale. Sizes agree.
  Nearest uses ceil(coordinate - 0.5) = ONNX nearest_mode round_prefer_floor;
  coordinates are half_pixel clamped to the input.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from webnn_harness.backends.reference.evaluate import evaluate
from webnn_harness.backends.reference.ops import pooling as ref
from webnn_harness.backends.reference.ops.base import ImplementationDefined
from webnn_harness.spec.builder import build_graph
from webnn_harness.spec.catalog import operator
from webnn_harness.spec.graph import Node, TensorDesc
from webnn_harness.spec.opspec import SpecError, create
from webnn_harness.spec.opspec import TOLERANCE

POOLS = ["averagePool2d", "l2Pool2d", "maxPool2d"]
TO_NCHW = {"nchw": (0, 1, 2, 3), "nhwc": (0, 3, 1, 2)}
FROM_NCHW = {"nchw": (0, 1, 2, 3), "nhwc": (0, 2, 3, 1)}


def desc(shape, data_type="float32"):
    return TensorDesc(tuple(shape), data_type)


def attrs(op, **given):
    out = {name: o.default for name, o in operator(op).options.items() if not o.is_operand}
    out.update(given)
    return out


def pool(op, x, **given):
    """Call the reference op with resolved attributes, as the evaluator does."""
    created = create(op, {"input": desc(x.shape)}, attrs(op, **given))
    return getattr(ref, op)(x, **created.attributes), created


def values(result):
    return result.values if isinstance(result, ImplementationDefined) else result


# ---------------------------------------------------------------- create steps

INVALID_POOL = [
    ({"windowDimensions": [1, 1, 1]}, [1, 2, 5, 5], "2 items"),
    ({"windowDimensions": [0, 2]}, [1, 2, 5, 5], "equal to 0"),
    ({"windowDimensions": [8, 2]}, [1, 2, 5, 5], "smaller than the effective window height"),
    ({"windowDimensions": [2, 3], "dilations": [1, 3]}, [1, 2, 5, 5], "effective window width 7"),
    ({"windowDimensions": [6, 3]}, [1, 2, 5, 5], "smaller than the effective window"),
    # padded input 5 + 1 holds the 6-window: valid, see test below; 5 + 0 does not:
    ({"windowDimensions": [6, 6], "padding": [1, 0, 0, 0]}, [1, 2, 5, 5], "width"),
    ({"padding": [2, 2]}, [1, 2, 5, 5], "4 items"),
    ({"strides": [2]}, [1, 2, 5, 5], "2 items"),
    ({"strides": [0, 2]}, [1, 2, 5, 5], "equal to 0"),
    ({"dilations": [1, 1, 2]}, [1, 2, 5, 5], "2 items"),
    ({"dilations": [1, 0]}, [1, 2, 5, 5], "equal to 0"),
    # WPT "Throw if the output sizes is incorrect": calculated 4.5 -> 4 or 5.
    ({"windowDimensions": [2, 2], "padding": [2, 2, 2, 2], "strides": [2, 2], "outputSizes": [3, 3]},
     [1, 2, 5, 5], "outputSizes"),
    # one floor and one ceil is neither: calculated [3.5, 3.5].
    ({"windowDimensions": [4, 4], "padding": [1, 1, 1, 1], "strides": [2, 2], "outputSizes": [3, 4]},
     [1, 3, 7, 7], "outputSizes"),
    ({"windowDimensions": [2, 2], "padding": [2, 2, 2, 2], "strides": [2, 2], "outputSizes": [1, 2, 4, 4]},
     [1, 2, 5, 5], "2 items"),
    ({"windowDimensions": [2, 2], "padding": [2, 2, 2, 2], "strides": [2, 2], "outputSizes": [0, 4]},
     [1, 2, 5, 5], "outputSizes"),
    ({"layout": "nchwc"}, [1, 2, 5, 5], "layout"),
    ({"outputShapeRounding": "round"}, [1, 2, 5, 5], "outputShapeRounding"),
    ({"padding": [2**32, 0, 0, 0]}, [1, 2, 5, 5], "unsigned long"),
    ({}, [1, 5, 5], "rank"),
]


@pytest.mark.parametrize("op", POOLS)
@pytest.mark.parametrize("given, shape, message", INVALID_POOL, ids=[c[2] for c in INVALID_POOL])
def test_pool_create_rejects(op, given, shape, message):
    with pytest.raises(SpecError, match=message):
        create(op, {"input": desc(shape)}, attrs(op, **given))


@pytest.mark.parametrize("op, data_type", [("averagePool2d", "int32"), ("l2Pool2d", "uint8"),
                                           ("averagePool2d", "int64")])
def test_average_and_l2_pool_reject_integers(op, data_type):
    with pytest.raises(SpecError, match="not allowed"):
        create(op, {"input": desc([1, 2, 4, 4], data_type)}, attrs(op))


@pytest.mark.parametrize("data_type", ["int32", "uint32", "int64", "uint64", "int8", "uint8", "float16"])
def test_max_pool_accepts_every_type(data_type):
    created = create("maxPool2d", {"input": desc([1, 3, 4, 4], data_type)}, attrs("maxPool2d"))
    assert created.outputs == (desc([1, 3, 1, 1], data_type),)


WPT_VALID_SHAPES = [  # WPT validation_tests/pooling.https.any.js, every op
    ({}, [1, 3, 4, 4], [1, 3, 1, 1]),
    ({"windowDimensions": [3, 3]}, [1, 3, 4, 4], [1, 3, 2, 2]),
    ({"windowDimensions": [5, 5], "padding": [2, 2, 2, 2]}, [1, 3, 5, 5], [1, 3, 5, 5]),
    ({"windowDimensions": [2, 2], "strides": [2, 2]}, [1, 3, 5, 5], [1, 3, 2, 2]),
    ({"windowDimensions": [4, 4], "padding": [2, 1, 2, 1], "strides": [2, 2]}, [1, 3, 7, 7], [1, 3, 4, 4]),
    ({"windowDimensions": [4, 4], "padding": [1, 1, 1, 1], "strides": [2, 2], "outputShapeRounding": "ceil"},
     [1, 3, 7, 7], [1, 3, 4, 4]),
    # outputSizes with padding kept (the spec's text would zero the padding
    # and reject sizes >= strides; WPT and Chromium do neither).
    ({"windowDimensions": [4, 4], "padding": [1, 1, 1, 1], "strides": [2, 2], "outputShapeRounding": "ceil",
      "outputSizes": [3, 3]}, [1, 3, 7, 7], [1, 3, 3, 3]),
    ({"windowDimensions": [4, 4], "padding": [1, 1, 1, 1], "strides": [2, 2], "outputSizes": [4, 4]},
     [1, 3, 7, 7], [1, 3, 4, 4]),
    ({"windowDimensions": [3, 3], "layout": "nhwc"}, [1, 5, 5, 2], [1, 3, 3, 2]),
    ({"windowDimensions": [6, 6], "padding": [1, 0, 1, 0]}, [1, 2, 5, 5], [1, 2, 1, 1]),
]


@pytest.mark.parametrize("op", POOLS)
@pytest.mark.parametrize("given, shape, out_shape", WPT_VALID_SHAPES)
def test_pool_output_shapes(op, given, shape, out_shape):
    created = create(op, {"input": desc(shape)}, attrs(op, **given))
    assert created.outputs == (desc(out_shape),)


def test_pool_resolves_defaults_and_keeps_output_sizes_absent():
    created = create("l2Pool2d", {"input": desc([2, 6, 7, 3])}, attrs("l2Pool2d", layout="nhwc"))
    assert created.outputs == (desc([2, 1, 1, 3]),)
    assert created.attributes == {"windowDimensions": [6, 7], "padding": [0, 0, 0, 0], "strides": [1, 1],
                                  "dilations": [1, 1], "layout": "nhwc", "outputShapeRounding": "floor",
                                  "outputSizes": None}


INVALID_RESAMPLE = [
    ({"axes": [1, 1]}, "duplicates"),
    ({"axes": [2, 4]}, "out of range"),
    ({"axes": [1, 2, 3]}, "2 items"),
    ({"axes": [2]}, "2 items"),
    ({"scales": [1.0, 0.0]}, "greater than 0"),
    ({"scales": [-2.0, 1.0]}, "greater than 0"),
    ({"scales": [2.0, 2.0, 2.0]}, "2 items"),
    ({"sizes": [3, 0]}, "equal to 0"),
    ({"sizes": [3, 3, 3]}, "2 items"),
    ({"scales": [0.1, 1.0]}, "not valid"),  # floor(4 * 0.1) = 0
    ({"mode": "cubic"}, "mode"),
]


@pytest.mark.parametrize("given, message", INVALID_RESAMPLE, ids=[c[1] for c in INVALID_RESAMPLE])
def test_resample2d_create_rejects(given, message):
    with pytest.raises(SpecError, match=message):
        create("resample2d", {"input": desc([1, 2, 4, 6])}, attrs("resample2d", **given))


@pytest.mark.parametrize("axes", [[0, 1], [1, 2], [2, 3], [0, 2], [0, 3], [1, 3], [3, 2], [1, 0]])
def test_resample2d_any_distinct_axes_pair(axes):
    # The spec (and Chromium) allow any two distinct in-range axes, in any order.
    created = create("resample2d", {"input": desc([2, 3, 4, 5])}, attrs("resample2d", sizes=[7, 8], axes=axes))
    shape = [2, 3, 4, 5]
    shape[axes[0]], shape[axes[1]] = 7, 8
    assert created.outputs == (desc(shape),)


def test_resample2d_resolves_defaults_and_sizes_win():
    created = create("resample2d", {"input": desc([1, 2, 3, 5], "int8")}, attrs("resample2d", scales=[1.5, 0.5]))
    assert created.outputs == (desc([1, 2, 4, 2], "int8"),)
    assert created.attributes == {"mode": "nearest-neighbor", "scales": [1.5, 0.5], "sizes": None, "axes": [2, 3]}
    created = create("resample2d", {"input": desc([1, 2, 3, 5])}, attrs("resample2d", scales=[9.0, 9.0],
                                                                        sizes=[2, 2]))
    assert created.outputs == (desc([1, 2, 2, 2]),)
    created = create("resample2d", {"input": desc([1, 2, 3, 5])}, attrs("resample2d"))
    assert created.attributes["scales"] == [1.0, 1.0] and created.attributes["axes"] == [2, 3]


# ---------------------------------------------------------------- values worked by hand

X44 = np.arange(1, 17, dtype=np.float64).reshape(1, 1, 4, 4)  # rows [1..4], [5..8], [9..12], [13..16]


def test_average_pool_excludes_padding():
    # window 2x2, padding 1 all round, stride 2 -> 3x3; corner window holds only x[0,0] = 1;
    # top middle holds 2, 3 -> 2.5; centre holds 6, 7, 10, 11 -> 8.5.
    out, _ = pool("averagePool2d", X44, windowDimensions=[2, 2], padding=[1, 1, 1, 1], strides=[2, 2])
    np.testing.assert_array_equal(out[0, 0], [[1, 2.5, 4], [7, 8.5, 10], [13, 14.5, 16]])


def test_l2_pool_is_root_of_sum_of_squares():
    # global window over [[3, 4], [0, 0]]: sqrt(9 + 16) = 5; no division by the count.
    x = np.array([[[[3.0, 4.0], [0.0, 0.0]]]])
    out, _ = pool("l2Pool2d", x)
    np.testing.assert_array_equal(out, [[[[5.0]]]])
    # window 2x2, padding [0, 1, 1, 0]: windows {3}, {3, 4}, {0}, {0, 0} -> 3, 5, 0, 0.
    out, _ = pool("l2Pool2d", x, windowDimensions=[2, 2], padding=[0, 1, 1, 0])
    np.testing.assert_array_equal(out, [[[[3.0, 5.0], [0.0, 0.0]]]])


def test_max_pool_dilation_and_ceil():
    # window 2x2, dilation 2 -> effective 3; stride 2; ceil: (4 - 3) / 2 + 1 = 1.5 -> 2.
    # out[0,0] = max(1, 3, 9, 11) = 11; out[0,1] = max(3, 11) (cols 2 and 4; 4 is past the end) = 11;
    # out[1,0] = max(9, 11) = 11; out[1,1] = 11.
    out, created = pool("maxPool2d", X44, windowDimensions=[2, 2], dilations=[2, 2], strides=[2, 2],
                        outputShapeRounding="ceil")
    assert created.outputs[0].shape == (1, 1, 2, 2)
    np.testing.assert_array_equal(out, [[[[11, 11], [11, 11]]]])


def test_max_pool_integers_stay_exact():
    big = np.array([[[[2**62 + 1, 2**62], [-5, 2**62 + 3]]]], dtype=np.int64)
    out, _ = pool("maxPool2d", big, windowDimensions=[1, 2], padding=[0, 0, 1, 0])
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [[[[2**62 + 1, 2**62 + 1], [-5, 2**62 + 3]]]])


def test_max_pool_nan_and_empty_windows_are_implementation_defined():
    x = np.array([[[[1.0, np.nan], [-np.inf, -np.inf]]]])
    out, _ = pool("maxPool2d", x, windowDimensions=[1, 1], padding=[0, 0, 0, 0])
    assert not isinstance(out, ImplementationDefined)  # window 1x1 never compares
    out, _ = pool("maxPool2d", x, windowDimensions=[1, 2], padding=[0, 0, 0, 0])
    assert isinstance(out, ImplementationDefined)
    np.testing.assert_array_equal(out.undefined, [[[[True], [False]]]])
    assert out.values[0, 0, 1, 0] == -np.inf
    # ceil: last window starts in the end padding and holds no input element.
    out, created = pool("maxPool2d", np.ones((1, 1, 6, 6)), windowDimensions=[2, 2], strides=[3, 3],
                        padding=[0, 1, 0, 1], outputShapeRounding="ceil")
    assert created.outputs[0].shape == (1, 1, 3, 3)
    assert out.undefined[0, 0, 2].all() and out.undefined[0, 0, :, 2].all() and not out.undefined[0, 0, 0, 0]


def test_resample2d_nearest_wpt_half_pixel_cases():
    # WPT resample2d-nearest-half-pixel.https.any.js (values worked from the spec formulas).
    run = lambda data, shape, **o: values(ref.resample2d(np.array(data, float).reshape(shape),
                                                         **create("resample2d", {"input": desc(shape)},
                                                                  attrs("resample2d", **o)).attributes))
    np.testing.assert_array_equal(run([10, 20, 30], [1, 1, 1, 3], scales=[1, 1.5]).ravel(), [10, 20, 20, 30])
    np.testing.assert_array_equal(run([10, 20, 30, 40], [1, 1, 1, 4], scales=[1, 0.75]).ravel(), [10, 20, 40])
    np.testing.assert_array_equal(run([10, 20, 30, 40, 50], [1, 1, 1, 5], sizes=[1, 2]).ravel(), [20, 40])
    np.testing.assert_array_equal(run([10, 20], [1, 1, 1, 2], sizes=[1, 3]).ravel(), [10, 10, 20])
    np.testing.assert_array_equal(run([10, 20, 30], [1, 1, 1, 3], sizes=[1, 1]).ravel(), [20])
    np.testing.assert_array_equal(run(list(range(1, 13)), [1, 2, 3, 2], axes=[3, 2], sizes=[3, 4]).ravel(),
                                  [1, 1, 2, 3, 3, 4, 3, 3, 4, 5, 5, 6, 7, 7, 8, 9, 9, 10, 9, 9, 10, 11, 11, 12])


def test_resample2d_linear_spec_note_example():
    x = np.array([[0, 1, 2, 3], [0, 1, 2, 3], [12, 13, 14, 15], [12, 13, 14, 15]], float).reshape(1, 1, 4, 4)
    row = [0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3]
    expected = np.array([row, row, row] + [[v + d for v in row] for d in (3, 9, 12, 12, 12)])
    out = ref.resample2d(x, mode="linear", scales=[2.0, 2.0], sizes=None, axes=[2, 3])
    np.testing.assert_array_equal(out[0, 0], expected)


def test_resample2d_linear_integer_blend_is_implementation_defined():
    out = ref.resample2d(np.array([[[[0, 3]]]], dtype=np.uint8), mode="linear", scales=[1.0, 2.0], sizes=None,
                         axes=[2, 3])
    # coordinates: clamp(-0.25) = 0, 0.25, 0.75, clamp(1.25) = 1 -> 0, 0.75, 2.25, 3
    assert isinstance(out, ImplementationDefined)
    np.testing.assert_array_equal(out.undefined.ravel(), [False, True, True, False])
    np.testing.assert_array_equal(out.values.ravel()[[0, 3]], [0, 3])


# ---------------------------------------------------------------- tolerance


def test_budgets():
    def budget(op, shape, **given):
        created = create(op, {"input": desc(shape)}, attrs(op, **given))
        node = Node(op, {"input": "x"}, created.attributes, ("y",))
        return TOLERANCE[op](node, {"x": desc(shape), "y": created.outputs[0]})

    assert budget("averagePool2d", [1, 2, 5, 6]).value == 5 * 6 + 2  # default window = spatial size
    assert budget("l2Pool2d", [1, 5, 6, 2], layout="nhwc", windowDimensions=[3, 2]).value == 8
    assert budget("maxPool2d", [1, 2, 5, 6]).value == 0
    assert budget("resample2d", [1, 2, 5, 6], mode="linear").value == 84
    assert budget("resample2d", [1, 2, 5, 6], mode="nearest-neighbor").value == 0
    created = create("resample2d", {"input": desc([1, 2, 5, 6], "float16")}, attrs("resample2d", mode="linear"))
    node = Node("resample2d", {"input": "x"}, created.attributes, ("y",))
    assert TOLERANCE["resample2d"](node, {"y": created.outputs[0]}).value == 10


# ---------------------------------------------------------------- ONNX cross-check


def onnx_run(node, inputs, int_inputs=()):
    def info(name):
        return helper.make_tensor_value_info(name, TensorProto.INT64 if name in int_inputs else TensorProto.DOUBLE,
                                             None)

    graph = helper.make_graph([node], "g", [info(n) for n in inputs],
                              [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    return ReferenceEvaluator(model).run(None, inputs)[0]


ONNX_POOL = {
    "averagePool2d": ("AveragePool", {"count_include_pad": 0}),
    "l2Pool2d": ("LpPool", {"p": 2, "count_include_pad": 1}),  # see the module docstring
    "maxPool2d": ("MaxPool", {}),
}

POOL_CASES = [  # (NCHW shape, window, padding, strides, dilations, rounding)
    ((1, 2, 7, 6), [3, 2], [0, 0, 0, 0], [1, 1], [1, 1], "floor"),
    ((2, 3, 7, 6), [3, 2], [1, 1, 1, 1], [2, 2], [1, 2], "ceil"),
    ((1, 2, 8, 9), [2, 3], [0, 2, 0, 1], [3, 2], [1, 1], "ceil"),
    ((1, 1, 9, 9), [3, 3], [2, 0, 1, 2], [2, 3], [2, 1], "floor"),
    ((1, 2, 5, 5), [5, 5], [2, 2, 2, 2], [1, 1], [1, 1], "floor"),
    ((1, 1, 6, 6), [2, 2], [0, 1, 0, 1], [3, 3], [1, 1], "ceil"),  # ONNX drops the last window
]


def _onnx_kept(size, window, begin, stride, dilation, n_out):
    """How many leading output positions ONNX keeps in ceil mode: it drops
    windows that start at or past input + beginning padding (PyTorch rule)."""
    return sum(1 for i in range(n_out) if i * stride < size + begin)


@pytest.mark.parametrize("op", POOLS)
@pytest.mark.parametrize("case", POOL_CASES)
@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_pool_matches_onnx(op, case, layout):
    shape, window, padding, strides, dilations, rounding = case
    rng = np.random.default_rng(sum(shape) * 31 + sum(padding))
    x = rng.uniform(-1, 1, shape)
    result, created = pool(op, np.transpose(x, FROM_NCHW[layout]), windowDimensions=window, padding=padding,
                           strides=strides, dilations=dilations, outputShapeRounding=rounding, layout=layout)
    actual = np.transpose(values(result), TO_NCHW[layout])
    onnx_op, extra = ONNX_POOL[op]
    node = helper.make_node(onnx_op, ["X"], ["y"], kernel_shape=window, strides=strides, dilations=dilations,
                            pads=[padding[0], padding[2], padding[1], padding[3]],
                            ceil_mode=int(rounding == "ceil"), **extra)
    expected = onnx_run(node, {"X": x})
    # Compare the windows both define: ONNX keeps fewer in ceil mode; and
    # onnx.reference's LpPool mis-scales windows that run past the padded input.
    h, w = expected.shape[2:]
    assert h == _onnx_kept(shape[2], window[0], padding[0], strides[0], dilations[0], actual.shape[2])
    assert w == _onnx_kept(shape[3], window[1], padding[2], strides[1], dilations[1], actual.shape[3])
    if op == "l2Pool2d":
        h = min(h, (shape[2] + padding[0] + padding[1] - (window[0] - 1) * dilations[0] - 1) // strides[0] + 1)
        w = min(w, (shape[3] + padding[2] + padding[3] - (window[1] - 1) * dilations[1] - 1) // strides[1] + 1)
    np.testing.assert_allclose(actual[:, :, :h, :w], expected[:, :, :h, :w], rtol=1e-12, atol=1e-12)


def test_pool_cross_check_can_fail():
    """With padding in ONNX's own order but count_include_pad=1, the average
    disagrees wherever a window overlaps padding: the check sees it."""
    x = np.random.default_rng(1).uniform(-1, 1, (1, 1, 4, 4))
    actual, _ = pool("averagePool2d", x, windowDimensions=[2, 2], padding=[1, 1, 1, 1])
    included = onnx_run(helper.make_node("AveragePool", ["X"], ["y"], kernel_shape=[2, 2], pads=[1, 1, 1, 1],
                                         count_include_pad=1), {"X": x})
    assert not np.allclose(actual, included)


def onnx_resize(x, mode, output_shape):
    node = helper.make_node("Resize", ["X", "", "", "sizes"], ["y"], mode=mode,
                            coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_floor")
    return onnx_run(node, {"X": x, "sizes": np.array(output_shape, np.int64)}, int_inputs={"sizes"})


AXES_PAIRS = [[0, 1], [1, 2], [2, 3], [0, 2], [0, 3], [1, 3], [3, 2], [2, 1]]


@pytest.mark.parametrize("mode", ["nearest-neighbor", "linear"])
@pytest.mark.parametrize("axes", AXES_PAIRS)
@pytest.mark.parametrize("sizes", [[7, 3], [1, 9], [2, 2], [4, 5]])
def test_resample2d_matches_onnx_with_sizes(mode, axes, sizes):
    x = np.random.default_rng(len(str(axes + sizes))).uniform(-1, 1, (2, 3, 4, 5))
    created = create("resample2d", {"input": desc(x.shape)}, attrs("resample2d", mode=mode, sizes=sizes, axes=axes))
    actual = ref.resample2d(x, **created.attributes)
    expected = onnx_resize(x, "nearest" if mode == "nearest-neighbor" else "linear", created.outputs[0].shape)
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["nearest-neighbor", "linear"])
def test_resample2d_scales_sample_with_output_over_input(mode):
    """WebNN: scale = outputSize / inputSize even when `scales` is given.
    ONNX given scales=[1.5, 1.5] on a 3x3 input samples with 1.5 and differs;
    given the sizes it matches."""
    x = np.random.default_rng(5).uniform(-1, 1, (1, 1, 3, 3))
    created = create("resample2d", {"input": desc(x.shape)}, attrs("resample2d", mode=mode, scales=[1.5, 1.5]))
    actual = ref.resample2d(x, **created.attributes)
    onnx_mode = "nearest" if mode == "nearest-neighbor" else "linear"
    np.testing.assert_allclose(actual, onnx_resize(x, onnx_mode, (1, 1, 4, 4)), rtol=1e-12)
    node = helper.make_node("Resize", ["X", "", "scales"], ["y"], mode=onnx_mode,
                            coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_floor")
    with_scales = onnx_run(node, {"X": x, "scales": np.array([1, 1, 1.5, 1.5], np.float32)})
    assert with_scales.shape == actual.shape and not np.allclose(actual, with_scales)


# ---------------------------------------------------------------- through the evaluator


def test_float16_average_pool_rounds_once():
    x = np.random.default_rng(2).uniform(-1, 1, (1, 2, 5, 5)).astype(np.float16)
    graph = build_graph({"x": desc(x.shape, "float16")}, {},
                        [{"name": "averagePool2d", "arguments": [{"input": "x"}, {"options": {
                            "windowDimensions": [3, 3], "padding": [1, 1, 1, 1]}}], "outputs": "y"}], None)
    out = evaluate(graph, {"x": x})["y"]
    exact = values(pool("averagePool2d", x.astype(np.float64), windowDimensions=[3, 3], padding=[1, 1, 1, 1])[0])
    assert out.values.dtype == np.float16
    np.testing.assert_array_equal(out.values, exact.astype(np.float16))
    assert math.isfinite(float(out.values.max()))
