"""Create steps and reference of conv2d / convTranspose2d: validation errors
the spec's method steps throw, resolved defaults, hand-worked values, WPT
tolerance budgets, and a cross-check against onnx.reference's Conv and
ConvTranspose over every input layout, filter layout and option we can map.

WebNN -> ONNX mapping (differences noted where they matter):
- padding [beginH, endH, beginW, endW] -> ONNX pads [beginH, beginW, endH, endW].
- conv2d filter oihw = ONNX Conv W [M, C/group, kH, kW]; other layouts are
  transposed first. convTranspose2d filter iohw = ONNX ConvTranspose W
  [C, M/group, kH, kW].
- convTranspose2d outputSizes -> ONNX output_padding = outputSizes - the
  calculated size. ONNX's own output_shape attribute is NOT equivalent: it
  re-derives the pads (auto_pad style, spreading the extra between begin and
  end) while WebNN keeps the explicit padding and adds the extra at the end.
- nhwc input: ONNX has no layout option; data is transposed to nchw.
"""
from __future__ import annotations


import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from webnn_harness.backends.reference.evaluate import evaluate
from webnn_harness.backends.reference.ops import convolution as ref
from webnn_harness.spec.builder import build_graph
from webnn_harness.spec.catalog import operator
from webnn_harness.spec.graph import Node, TensorDesc
from webnn_harness.spec.opspec import SpecError, create
from webnn_harness.spec.opspec import TOLERANCE

# Explicit permutations, written out here rather than taken from the code
# under test, so a layout mistake there cannot cancel out in the check.
TO_NCHW = {"nchw": (0, 1, 2, 3), "nhwc": (0, 3, 1, 2)}
FROM_NCHW = {"nchw": (0, 1, 2, 3), "nhwc": (0, 2, 3, 1)}
CONV_FILTER_FROM_OIHW = {"oihw": (0, 1, 2, 3), "hwio": (2, 3, 1, 0), "ohwi": (0, 2, 3, 1), "ihwo": (1, 2, 3, 0)}
TRANSPOSE_FILTER_FROM_IOHW = {"iohw": (0, 1, 2, 3), "hwoi": (2, 3, 1, 0), "ohwi": (1, 2, 3, 0)}


def desc(shape, data_type="float32"):
    return TensorDesc(tuple(shape), data_type)


def attrs(op, **given):
    """Every non-operand option of ``op`` with its IDL default, overridden by ``given``."""
    spec = operator(op)
    out = {name: o.default for name, o in spec.options.items() if not o.is_operand}
    out.update(given)
    return out


def run_graph(op, inputs, options, data_type="float32"):
    descs = {name: desc(value.shape, data_type) for name, value in inputs.items()}
    arguments = [{"input": "x"}, {"filter": "w"}, {"options": options}]
    graph = build_graph(descs, {}, [{"name": op, "arguments": arguments, "outputs": "out"}], None)
    return graph, evaluate(graph, {k: v.astype(data_type) for k, v in inputs.items()})["out"].values


# ---------------------------------------------------------------- create steps

INVALID = [
    ("conv2d", {"input": desc([1, 4, 5, 5]), "filter": desc([2, 3, 3, 3])}, {}, "does not equal"),
    ("conv2d", {"input": desc([1, 4, 5, 5]), "filter": desc([2, 2, 3, 3])}, {"groups": 3}, "divisible by groups"),
    ("conv2d", {"input": desc([1, 4, 5, 5]), "filter": desc([3, 2, 3, 3])}, {"groups": 2}, "outputChannels 3"),
    ("conv2d", {"input": desc([1, 4, 5, 5]), "filter": desc([2, 4, 3, 3])}, {"groups": 0}, "groups is 0"),
    ("conv2d", {"input": desc([1, 1, 5, 5]), "filter": desc([1, 1, 3, 3])}, {"padding": [1, 1]}, "4 items"),
    ("conv2d", {"input": desc([1, 1, 5, 5]), "filter": desc([1, 1, 3, 3])}, {"strides": [1, 0]}, "equal to 0"),
    ("conv2d", {"input": desc([1, 1, 5, 5]), "filter": desc([1, 1, 3, 3])}, {"dilations": [0, 1]}, "equal to 0"),
    ("conv2d", {"input": desc([1, 1, 5, 5]), "filter": desc([1, 1, 3, 3])}, {"dilations": [3, 1]}, "not valid"),
    ("conv2d", {"input": desc([1, 1, 2, 2]), "filter": desc([1, 1, 3, 3])}, {}, "not valid"),
    ("conv2d", {"input": desc([1, 1, 5, 5]), "filter": desc([2, 1, 3, 3]), "bias": desc([1])}, {}, "bias shape"),
    ("conv2d", {"input": desc([1, 4, 5, 5]), "filter": desc([2, 4, 3, 3])}, {"inputLayout": "nhwc"}, "does not equal"),
    ("conv2d", {"input": desc([1, 4, 5, 5]), "filter": desc([3, 3, 4, 2])}, {"filterLayout": "ohwi"}, "does not"),
    ("conv2d", {"input": desc([1, 4, 5, 5]), "filter": desc([3, 3, 4, 2])}, {"filterLayout": "oihw2"}, "not one of"),
    ("conv2d", {"input": desc([1, 4, 5, 5], "int32"), "filter": desc([2, 4, 3, 3], "int32")}, {}, "not allowed"),
    ("conv2d", {"input": desc([1, 4, 5, 5]), "filter": desc([2, 4, 3, 3], "float16")}, {}, "must match"),
    ("conv2d", {"input": desc([4, 5, 5]), "filter": desc([2, 4, 3, 3])}, {}, "rank"),
    ("convTranspose2d", {"input": desc([1, 3, 2, 2]), "filter": desc([2, 1, 3, 3])}, {}, "does not equal"),
    ("convTranspose2d", {"input": desc([1, 3, 2, 2]), "filter": desc([3, 1, 3, 3])}, {"groups": 2}, "divisible"),
    ("convTranspose2d", {"input": desc([1, 1, 2, 2]), "filter": desc([1, 1, 3, 3])}, {"groups": 0}, "groups is 0"),
    ("convTranspose2d", {"input": desc([1, 1, 2, 2]), "filter": desc([1, 1, 3, 3])},
     {"strides": [2, 2], "outputPadding": [2, 0]}, "smaller than strides"),
    ("convTranspose2d", {"input": desc([1, 1, 2, 2]), "filter": desc([1, 1, 3, 3])},
     {"outputPadding": [0, 0, 0]}, "2 items"),
    # calculated size 5 with stride 2: outputSizes must be 5 or 6.
    ("convTranspose2d", {"input": desc([1, 1, 2, 2]), "filter": desc([1, 1, 3, 3])},
     {"strides": [2, 2], "outputSizes": [7, 5]}, "outputSizes height 7"),
    ("convTranspose2d", {"input": desc([1, 1, 2, 2]), "filter": desc([1, 1, 3, 3])},
     {"strides": [2, 2], "outputSizes": [5, 4]}, "outputSizes width 4"),
    ("convTranspose2d", {"input": desc([1, 1, 2, 2]), "filter": desc([1, 1, 3, 3])},
     {"outputSizes": [4]}, "2 items"),
    ("convTranspose2d", {"input": desc([1, 1, 2, 2]), "filter": desc([1, 1, 3, 3])},
     {"padding": [2, 2, 0, 0]}, "not valid"),
    ("convTranspose2d", {"input": desc([1, 1, 2, 2]), "filter": desc([1, 2, 3, 3]), "bias": desc([1])},
     {}, "bias shape"),
    ("convTranspose2d", {"input": desc([1, 1, 2, 2]), "filter": desc([1, 1, 3, 3])},
     {"filterLayout": "oihw"}, "not one of"),
]


@pytest.mark.parametrize("op, operands, given, message", INVALID, ids=[f"{c[0]}-{c[3]}" for c in INVALID])
def test_create_rejects(op, operands, given, message):
    with pytest.raises(SpecError, match=message):
        create(op, operands, attrs(op, **given))


def test_conv2d_resolves_defaults():
    created = create("conv2d", {"input": desc([1, 2, 5, 5]), "filter": desc([4, 2, 3, 3])}, attrs("conv2d"))
    assert created.outputs == (desc([1, 4, 3, 3]),)
    assert created.attributes == {"padding": [0, 0, 0, 0], "strides": [1, 1], "dilations": [1, 1], "groups": 1,
                                  "inputLayout": "nchw", "filterLayout": "oihw"}


@pytest.mark.parametrize("layout, filter_shape", [("oihw", [6, 1, 3, 2]), ("hwio", [3, 2, 1, 6]),
                                                  ("ohwi", [6, 3, 2, 1]), ("ihwo", [1, 3, 2, 6])])
def test_conv2d_output_shape_depthwise_every_filter_layout(layout, filter_shape):
    # 7x8 input, 3x2 filter, dilation 2x1, stride 2x3, padding 1,0,2,1:
    # height 1 + (7 - 5 + 1) // 2 = 2, width 1 + (8 - 2 + 3) // 3 = 4.
    created = create("conv2d", {"input": desc([2, 7, 8, 6], "float16"), "filter": desc(filter_shape, "float16")},
                     attrs("conv2d", groups=6, inputLayout="nhwc", filterLayout=layout, strides=[2, 3],
                           dilations=[2, 1], padding=[1, 0, 2, 1]))
    assert created.outputs == (desc([2, 2, 4, 6], "float16"),)


def test_conv_transpose2d_resolves_defaults_and_keeps_output_sizes_absent():
    created = create("convTranspose2d", {"input": desc([1, 2, 3, 3]), "filter": desc([2, 3, 2, 2])},
                     attrs("convTranspose2d"))
    assert created.outputs == (desc([1, 3, 4, 4]),)
    assert created.attributes == {"padding": [0, 0, 0, 0], "strides": [1, 1], "dilations": [1, 1],
                                  "outputPadding": [0, 0], "outputSizes": None, "groups": 1,
                                  "inputLayout": "nchw", "filterLayout": "iohw"}


def test_conv_transpose2d_output_sizes_ignore_output_padding():
    # calculated (2 - 1) * 3 + 3 = 6; outputSizes 8 < 6 + 3 is allowed even
    # though outputPadding (ignored when outputSizes is given) is >= strides.
    created = create("convTranspose2d", {"input": desc([1, 2, 2, 1]), "filter": desc([3, 3, 2, 1])},
                     attrs("convTranspose2d", strides=[3, 3], outputPadding=[5, 5], outputSizes=[8, 6],
                           inputLayout="nhwc", filterLayout="hwoi", groups=1))
    assert created.outputs == (desc([1, 8, 6, 2]),)
    assert created.attributes["outputSizes"] == [8, 6]


# ---------------------------------------------------------------- values worked by hand


def test_conv2d_hand_values_padding_stride_bias():
    # input 1..9 in a 3x3, filter all ones 2x2, padding [1,0,0,1], stride 2, bias 10.
    # padded rows: [0 0 0 0], [1 2 3 0], [4 5 6 0], [7 8 9 0] (width padded at the end)
    # windows at rows 0,2 x cols 0,2: [0+0+1+2, 0+0+3+0], [4+5+7+8, 6+0+9+0]
    x = np.arange(1, 10, dtype=np.float64).reshape(1, 1, 3, 3)
    out = ref.conv2d(x, np.ones((1, 1, 2, 2)), padding=[1, 0, 0, 1], strides=[2, 2], dilations=[1, 1], groups=1,
                     inputLayout="nchw", filterLayout="oihw", bias=np.array([10.0]))
    np.testing.assert_array_equal(out, [[[[13, 13], [34, 25]]]])


def test_conv_transpose2d_hand_values_stride_and_output_padding():
    # 1-D in effect: input [1, 2], filter [1, 10], stride 2 -> full [1, 10, 2, 20];
    # outputPadding 1 appends a zero column: [1, 10, 2, 20, 0].
    out = ref.convTranspose2d(np.array([[[[1.0, 2.0]]]]), np.array([[[[1.0, 10.0]]]]), padding=[0, 0, 0, 0],
                              strides=[1, 2], dilations=[1, 1], outputPadding=[0, 1], outputSizes=None, groups=1,
                              inputLayout="nchw", filterLayout="iohw")
    np.testing.assert_array_equal(out, [[[[1, 10, 2, 20, 0]]]])


def test_conv_transpose2d_hand_values_groups_and_padding():
    # 2 groups of 1 channel, filter [2, 1, 1, 2] iohw: channel 0 uses [1, 1], channel 1 uses [1, -1].
    # input channel 0 = [1, 2], channel 1 = [3, 5]; full outputs [1, 3, 2] and [3, 2, -5];
    # padding [0, 0, 1, 0] drops the first column.
    x = np.array([[[[1.0, 2.0]], [[3.0, 5.0]]]])
    w = np.array([[[[1.0, 1.0]]], [[[1.0, -1.0]]]])
    out = ref.convTranspose2d(x, w, padding=[0, 0, 1, 0], strides=[1, 1], dilations=[1, 1], outputPadding=[0, 0],
                              outputSizes=None, groups=2, inputLayout="nchw", filterLayout="iohw")
    np.testing.assert_array_equal(out, [[[[3, 2]], [[2, -5]]]])


# ---------------------------------------------------------------- tolerance


def _budget(op, operands, given):
    created = create(op, operands, attrs(op, **given))
    names = {k: k for k in operands}
    node = Node(op, names, created.attributes, ("out",))
    return TOLERANCE[op](node, {**operands, "out": created.outputs[0]}).value


def test_budget_follows_wpt_formula():
    # kH * kW * (inputChannels / groups) * 2, dims read through the layouts.
    assert _budget("conv2d", {"input": desc([1, 5, 5, 4]), "filter": desc([3, 2, 2, 6])},
                   {"inputLayout": "nhwc", "filterLayout": "hwio", "groups": 2}) == 3 * 2 * 2 * 2
    assert _budget("convTranspose2d", {"input": desc([1, 4, 3, 3]), "filter": desc([2, 3, 2, 4])},
                   {"filterLayout": "ohwi", "groups": 2}) == 3 * 2 * 2 * 2


# ---------------------------------------------------------------- ONNX cross-check


def onnx_run(node, inputs: dict[str, np.ndarray]) -> np.ndarray:
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(name, TensorProto.DOUBLE, None) for name in inputs],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    return ReferenceEvaluator(model).run(None, inputs)[0]


def onnx_pads(padding):
    begin_h, end_h, begin_w, end_w = padding
    return [begin_h, begin_w, end_h, end_w]


def onnx_conv(x_nchw, w_oihw, bias, padding, strides, dilations, groups):
    inputs = {"X": x_nchw, "W": w_oihw, **({"B": bias} if bias is not None else {})}
    node = helper.make_node("Conv", list(inputs), ["y"], pads=onnx_pads(padding), strides=strides,
                            dilations=dilations, group=groups, kernel_shape=list(w_oihw.shape[2:]))
    return onnx_run(node, inputs)


def onnx_conv_transpose(x_nchw, w_iohw, bias, padding, strides, dilations, groups, output_padding):
    """ONNX ConvTranspose, one group at a time: onnx.reference (1.23) gets
    group > 1 wrong (op_conv_transpose.py slices W by output channels
    instead of input channels, adds the whole bias to every group and keeps
    one channel per group), so we split the groups ourselves."""
    c, og = w_iohw.shape[:2]
    cg = c // groups
    outputs = []
    for g in range(groups):
        inputs = {"X": x_nchw[:, g * cg:(g + 1) * cg], "W": w_iohw[g * cg:(g + 1) * cg]}
        if bias is not None:
            inputs["B"] = bias[g * og:(g + 1) * og]
        node = helper.make_node("ConvTranspose", list(inputs), ["y"], pads=onnx_pads(padding), strides=strides,
                                dilations=dilations, kernel_shape=list(w_iohw.shape[2:]),
                                output_padding=output_padding)
        outputs.append(onnx_run(node, inputs))
    return np.concatenate(outputs, axis=1)


CONV_SHAPES = [  # (N, C, H, W, O, kH, kW, groups)
    (1, 3, 7, 6, 4, 3, 2, 1),
    (2, 4, 6, 7, 6, 2, 3, 2),
    (1, 6, 5, 5, 6, 3, 3, 6),  # depthwise
    (1, 2, 9, 8, 2, 1, 1, 1),
]
CONV_OPTIONS = [  # (padding, strides, dilations, bias)
    ([0, 0, 0, 0], [1, 1], [1, 1], False),
    ([1, 2, 0, 1], [2, 1], [1, 2], True),
    ([2, 0, 1, 3], [1, 3], [2, 1], True),
]


@pytest.mark.parametrize("shape", CONV_SHAPES)
@pytest.mark.parametrize("options", CONV_OPTIONS)
@pytest.mark.parametrize("input_layout", ["nchw", "nhwc"])
@pytest.mark.parametrize("filter_layout", ["oihw", "hwio", "ohwi", "ihwo"])
def test_conv2d_matches_onnx(shape, options, input_layout, filter_layout):
    n, c, h, w, o, kh, kw, groups = shape
    padding, strides, dilations, with_bias = options
    rng = np.random.default_rng(hash((shape, str(options))) % 2**32)
    x = rng.uniform(-1, 1, (n, c, h, w))
    f = rng.uniform(-1, 1, (o, c // groups, kh, kw))
    bias = rng.uniform(-1, 1, o) if with_bias else None
    expected = onnx_conv(x, f, bias, padding, strides, dilations, groups)
    actual = ref.conv2d(np.transpose(x, FROM_NCHW[input_layout]),
                        np.transpose(f, CONV_FILTER_FROM_OIHW[filter_layout]),
                        padding=padding, strides=strides, dilations=dilations, groups=groups,
                        inputLayout=input_layout, filterLayout=filter_layout, bias=bias)
    np.testing.assert_allclose(np.transpose(actual, TO_NCHW[input_layout]), expected, rtol=1e-12, atol=1e-12)


TRANSPOSE_SHAPES = [  # (N, C, H, W, O/groups, kH, kW, groups)
    (1, 2, 3, 4, 3, 3, 2, 1),
    (2, 4, 4, 3, 2, 2, 3, 2),
    (1, 3, 3, 3, 1, 3, 3, 3),  # depthwise
]
TRANSPOSE_OPTIONS = [  # (padding, strides, dilations, outputPadding, outputSizes-extra, bias)
    ([0, 0, 0, 0], [1, 1], [1, 1], [0, 0], None, False),
    ([1, 0, 0, 2], [2, 3], [1, 1], [1, 2], None, True),
    ([0, 1, 1, 0], [3, 2], [2, 1], [0, 0], (2, 1), True),
]


@pytest.mark.parametrize("shape", TRANSPOSE_SHAPES)
@pytest.mark.parametrize("options", TRANSPOSE_OPTIONS)
@pytest.mark.parametrize("input_layout", ["nchw", "nhwc"])
@pytest.mark.parametrize("filter_layout", ["iohw", "hwoi", "ohwi"])
def test_conv_transpose2d_matches_onnx(shape, options, input_layout, filter_layout):
    n, c, h, w, og, kh, kw, groups = shape
    padding, strides, dilations, output_padding, extra, with_bias = options
    rng = np.random.default_rng(hash((shape, str(options))) % 2**32)
    x = rng.uniform(-1, 1, (n, c, h, w))
    f = rng.uniform(-1, 1, (c, og, kh, kw))
    bias = rng.uniform(-1, 1, og * groups) if with_bias else None
    output_sizes = None
    if extra is not None:  # WebNN outputSizes = calculated + extra == ONNX output_padding extra
        calc_h = (h - 1) * strides[0] + (kh - 1) * dilations[0] + 1 - padding[0] - padding[1]
        calc_w = (w - 1) * strides[1] + (kw - 1) * dilations[1] + 1 - padding[2] - padding[3]
        output_sizes = [calc_h + extra[0], calc_w + extra[1]]
        output_padding, onnx_output_padding = [0, 0], list(extra)
    else:
        onnx_output_padding = output_padding
    expected = onnx_conv_transpose(x, f, bias, padding, strides, dilations, groups, onnx_output_padding)
    actual = ref.convTranspose2d(np.transpose(x, FROM_NCHW[input_layout]),
                                 np.transpose(f, TRANSPOSE_FILTER_FROM_IOHW[filter_layout]),
                                 padding=padding, strides=strides, dilations=dilations, outputPadding=output_padding,
                                 outputSizes=output_sizes, groups=groups, inputLayout=input_layout,
                                 filterLayout=filter_layout, bias=bias)
    np.testing.assert_allclose(np.transpose(actual, TO_NCHW[input_layout]), expected, rtol=1e-12, atol=1e-12)


def test_cross_check_can_fail():
    """The ONNX comparison has teeth: a flipped kernel (convolution instead
    of WebNN's cross-correlation, a plausible adapter bug) and WebNN's
    padding order fed to ONNX unchanged both disagree with it."""
    rng = np.random.default_rng(0)
    x, f = rng.uniform(-1, 1, (1, 1, 5, 5)), rng.uniform(-1, 1, (1, 1, 3, 3))
    padding = [1, 0, 2, 1]
    actual = ref.conv2d(x, f, padding=padding, strides=[1, 1], dilations=[1, 1], groups=1, inputLayout="nchw",
                        filterLayout="oihw")
    np.testing.assert_allclose(actual, onnx_conv(x, f, None, padding, [1, 1], [1, 1], 1), rtol=1e-12)
    flipped = onnx_conv(x, f[..., ::-1, ::-1].copy(), None, padding, [1, 1], [1, 1], 1)
    assert not np.allclose(actual, flipped)
    wrong_order = onnx_run(helper.make_node("Conv", ["X", "W"], ["y"], pads=padding, kernel_shape=[3, 3]),
                           {"X": x, "W": f})
    assert wrong_order.shape != actual.shape


def test_float16_rounds_once():
    # Through the graph: float16 inputs, float64 compute, one rounding to float16.
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (1, 3, 4, 4)).astype(np.float16)
    f = rng.uniform(-1, 1, (2, 3, 3, 3)).astype(np.float16)
    graph, out = run_graph("conv2d", {"x": x, "w": f}, {"padding": [1, 1, 1, 1]}, "float16")
    exact = onnx_conv(x.astype(np.float64), f.astype(np.float64), None, [1, 1, 1, 1], [1, 1], [1, 1], 1)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, exact.astype(np.float16))
