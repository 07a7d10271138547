"""Create steps for the pooling operators (see harness/spec/opspec/__init__.py).

Spec: "create a pooling operation" (#api-mlgraphbuilder-pool2d) for
averagePool2d, l2Pool2d and maxPool2d, and resample2d
(#api-mlgraphbuilder-resample2d-method).

Where we part from the spec's literal text (both times to agree with WPT's
validation_tests/pooling.https.any.js and Chromium's
ValidatePool2dAndInferOutput, which the text contradicts):
- The spec step "If outputSizes exists, or if padding does not exist, then
  set padding to [0, 0, 0, 0]" would drop explicit padding whenever
  outputSizes is given. WPT "Test pool2d with strides, padding and
  outputSizes=[4, 4]" (input 7x7, window 4, padding 1, stride 2) expects a
  4x4 output, which only holds with the padding kept. We keep it.
- The spec step "If its [outputSizes] items are not smaller than the items
  ... for strides, then throw" would reject that same WPT case (4 >= 2). We
  omit it; the floor/ceil rule that follows is the real constraint.
"""
from __future__ import annotations

from math import ceil, floor
from typing import Any, Mapping

import numpy as np

from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.opspec.base import EXACT, Budget, Created, check, check_axes, counted, ulp
from webnn_harness.spec.opspec.convolution import (
    INPUT_LAYOUT_AXES,
    check_window_fits,
    conv_output_size,
    is_valid_dimension,
    nonzero,
    spatial_input,
    spatial_output_shape,
    unsigned_list,
)
from webnn_harness.spec.opspec.traits import InputValues, OpSpec, ProbePlan, Variation, declare

ROUNDING_TYPES = ("floor", "ceil")
INTERPOLATION_MODES = ("nearest-neighbor", "linear")


def pool2d_output_sizes(op: str, input_height: int, input_width: int, attributes: Mapping[str, Any]) -> tuple[int, int]:
    """Spec "Calculate the output shape" of a pooling operation, from
    resolved attributes; raises SpecError where the spec throws."""
    window = attributes["windowDimensions"]
    pad, strides, dil = attributes["padding"], attributes["strides"], attributes["dilations"]
    check_window_fits(op, input_height, window[0], pad[0], pad[1], dil[0], "height")
    check_window_fits(op, input_width, window[1], pad[2], pad[3], dil[1], "width")
    calc_h = conv_output_size(input_height, window[0], pad[0], pad[1], strides[0], dil[0])
    calc_w = conv_output_size(input_width, window[1], pad[2], pad[3], strides[1], dil[1])
    sizes = attributes.get("outputSizes")
    if sizes is not None:
        height, width = sizes
        # Both floor or both ceil (spec: "If neither ... nor ..., throw").
        check((height, width) in {(floor(calc_h), floor(calc_w)), (ceil(calc_h), ceil(calc_w))},
              f"{op}: outputSizes {list(sizes)} must be [{floor(calc_h)}, {floor(calc_w)}] (floor) or "
              f"[{ceil(calc_h)}, {ceil(calc_w)}] (ceil)")
    else:
        rounding = floor if attributes["outputShapeRounding"] == "floor" else ceil
        height, width = rounding(calc_h), rounding(calc_w)
    check(is_valid_dimension(height) and is_valid_dimension(width),
          f"{op}: output size [{height}, {width}] is not valid")
    return height, width


def _pool2d(op: str, operands: Mapping[str, Any], attributes: Mapping[str, Any]) -> Created:
    layout = attributes.get("layout", "nchw")
    check(layout in INPUT_LAYOUT_AXES, f"{op}: layout {layout!r} is not one of nchw, nhwc")
    rounding = attributes.get("outputShapeRounding", "floor")
    check(rounding in ROUNDING_TYPES, f"{op}: outputShapeRounding {rounding!r} is not one of floor, ceil")
    inp: TensorDesc = operands["input"]
    batches, channels, input_height, input_width = spatial_input(inp.shape, layout)
    window = unsigned_list(op, "windowDimensions", attributes.get("windowDimensions"),
                           (input_height, input_width), 2)
    nonzero(op, "windowDimensions", window)
    padding = unsigned_list(op, "padding", attributes.get("padding"), (0, 0, 0, 0), 4)
    strides = unsigned_list(op, "strides", attributes.get("strides"), (1, 1), 2)
    nonzero(op, "strides", strides)
    output_sizes = attributes.get("outputSizes")
    if output_sizes is not None:
        output_sizes = unsigned_list(op, "outputSizes", output_sizes, (), 2)
    dilations = unsigned_list(op, "dilations", attributes.get("dilations"), (1, 1), 2)
    nonzero(op, "dilations", dilations)
    resolved = {**attributes, "windowDimensions": window, "padding": padding, "strides": strides,
                "dilations": dilations, "layout": layout, "outputShapeRounding": rounding,
                "outputSizes": output_sizes}
    height, width = pool2d_output_sizes(op, input_height, input_width, resolved)
    shape = spatial_output_shape(batches, channels, height, width, layout)
    return Created(outputs=(TensorDesc(shape, inp.data_type),), attributes=resolved)


def average_pool2d(operands, attributes) -> Created:
    return _pool2d("averagePool2d", operands, attributes)


def l2_pool2d(operands, attributes) -> Created:
    return _pool2d("l2Pool2d", operands, attributes)


def max_pool2d(operands, attributes) -> Created:
    return _pool2d("maxPool2d", operands, attributes)


def resample2d(operands: Mapping[str, Any], attributes: Mapping[str, Any]) -> Created:
    op = "resample2d"
    inp: TensorDesc = operands["input"]
    mode = attributes.get("mode", "nearest-neighbor")
    check(mode in INTERPOLATION_MODES, f"{op}: mode {mode!r} is not one of {', '.join(INTERPOLATION_MODES)}")
    scales = attributes.get("scales")
    if scales is None:
        scales = [1.0, 1.0]
    else:
        check(len(scales) == 2 and all(s > 0 for s in scales),
              f"{op}: scales {list(scales)} must be 2 items greater than 0")
        scales = [float(s) for s in scales]
    sizes = attributes.get("sizes")
    if sizes is not None:
        check(len(sizes) == 2, f"{op}: sizes {list(sizes)} must have 2 items")
        sizes = unsigned_list(op, "sizes", sizes, (), 2)
        nonzero(op, "sizes", sizes)
    axes = attributes.get("axes")
    if axes is None:
        axes = [2, 3]
    else:
        # The spec checks duplicates and range only; its IDL says "a list of
        # length 2" and Chromium throws on any other length, so we do too.
        check(len(axes) == 2, f"{op}: axes {list(axes)} must have 2 items")
        axes = unsigned_list(op, "axes", axes, (), 2)
        check_axes(axes, inp.rank, f"{op}: axes")
    shape = list(inp.shape)
    for axis, size in zip(axes, resample2d_output_sizes(inp.shape, scales, sizes, axes)):
        check(is_valid_dimension(size), f"{op}: output size {size} along axis {axis} is not valid")
        shape[axis] = size
    resolved = {**attributes, "mode": mode, "scales": scales, "sizes": sizes, "axes": axes}
    return Created(outputs=(TensorDesc(tuple(shape), inp.data_type),), attributes=resolved)


def resample2d_output_sizes(input_shape, scales, sizes, axes) -> list[int]:
    """Spec: size = sizes[index] if given, else floor(inputShape[axes[index]]
    * scales[index]); scales are sequence<float>, so the float32 value
    multiplies (as Chromium does, in double precision)."""
    if sizes is not None:
        return [int(s) for s in sizes]
    return [floor(input_shape[axis] * float(np.float32(scale))) for axis, scale in zip(axes, scales)]


def window_budget(node, descs: Mapping[str, TensorDesc]) -> Budget:
    """WPT: averagePool2d / l2Pool2d get windowHeight * windowWidth + 2 ULP
    (the window's sum, plus the division or square root)."""
    height, width = node.attributes["windowDimensions"]
    return Budget("ULP", height * width + 2)


_LINEAR_RESAMPLE = ulp(84, float16=10)


def resample2d_budget(node, descs: Mapping[str, TensorDesc]) -> Budget:
    """WPT: nearest-neighbor copies values (0 ULP); linear 84 ULP (float16: 10)."""
    if node.attributes["mode"] == "linear":
        return _LINEAR_RESAMPLE(node, descs)
    return Budget("ULP", 0)


# --- Costs (see base.py "What a Cost counts"). Window positions on padding
# are counted like any other.


def _window_flops(per_tap: int, per_output: int):
    """``per_tap`` flops for each window position of each output element, plus
    ``per_output`` flops per output element."""

    def flops(node, descs) -> int:
        height, width = node.attributes["windowDimensions"]
        return descs[node.outputs[0]].size * (per_tap * height * width + per_output)

    return counted(flops)


# Linear resampling as a weighted sum of 4 taps per output element (4
# multiplies, 3 adds); computing the weights from coordinates is index
# arithmetic and not counted. Nearest-neighbor only copies.
LINEAR_RESAMPLE_FLOPS_PER_ELEMENT = 7


@counted
def resample2d_flops(node, descs) -> int:
    if node.attributes["mode"] == "linear":
        return LINEAR_RESAMPLE_FLOPS_PER_ELEMENT * descs[node.outputs[0]].size
    return 0


# Probe plans (see traits.py).

POOL_OPTIONS = ("layout=nhwc", "outputShapeRounding=ceil", "dilations=2", "strides=2", "padding", "global")


def pool_arguments(v: Variation):
    opt = v.value if v.axis == "option" else ""
    layout = "nhwc" if opt == "layout=nhwc" else "nchw"
    attrs: dict = {"windowDimensions": [3, 3], "layout": layout}
    if opt == "outputShapeRounding=ceil":
        attrs.update(strides=[2, 2], outputShapeRounding="ceil")
    elif opt == "dilations=2":
        attrs["dilations"] = [2, 2]
    elif opt == "strides=2":
        attrs["strides"] = [2, 2]
    elif opt == "padding":
        attrs["padding"] = [1, 1, 0, 1]
    elif opt == "global":
        attrs["windowDimensions"] = None
    return {"input": (1, 6, 6, 2) if layout == "nhwc" else (1, 2, 6, 6)}, attrs


def resample2d_arguments(v: Variation):
    opt = v.value if v.axis == "option" else ""
    attrs: dict = {"mode": "linear" if opt == "mode=linear" else "nearest-neighbor", "scales": [2.0, 2.0]}
    if opt == "sizes":
        attrs = {"mode": "nearest-neighbor", "sizes": [5, 7]}
    elif opt == "axes=[1,2]":
        attrs["axes"] = [1, 2]
    elif opt == "scales=0.5":
        attrs["scales"] = [0.5, 0.5]
    return {"input": (1, 2, 4, 4)}, attrs


POOL_PLAN = ProbePlan(pool_arguments, options=POOL_OPTIONS)

OPS = declare(
    # an add per tap, a divide per output
    OpSpec("averagePool2d", average_pool2d, window_budget, _window_flops(1, 1), POOL_PLAN, InputValues("dyadic")),
    # square and add per tap, sqrt per output
    OpSpec("l2Pool2d", l2_pool2d, window_budget, _window_flops(2, 1), POOL_PLAN, InputValues("dyadic")),
    # a compare per tap; the maximum is one of the inputs: exact
    OpSpec("maxPool2d", max_pool2d, EXACT, _window_flops(1, 0), POOL_PLAN, InputValues("wide")),
    OpSpec("resample2d", resample2d, resample2d_budget, resample2d_flops,
           ProbePlan(resample2d_arguments, options=("mode=linear", "sizes", "axes=[1,2]", "scales=0.5")),
           InputValues("wide")),
)
