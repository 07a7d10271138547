"""Create steps for the convolution operators (see harness/spec/opspec/__init__.py).

Spec: "conv2d" (#api-mlgraphbuilder-conv2d) and "convTranspose2d"
(#api-mlgraphbuilder-convtranspose2d). The layout tables below are the one
place that says where each dimension sits for every input and filter layout;
the pooling create steps and the reference operators read them too.
"""
from __future__ import annotations

from fractions import Fraction
from math import floor
from typing import Any, Mapping, Sequence

from webnn_harness.spec.graph import TensorDesc
from webnn_harness.spec.opspec.base import Budget, Created, check, counted
from webnn_harness.spec.opspec.traits import AccuracyPlan, InputValues, OpSpec, ProbePlan, Variation, declare

# MLInputOperandLayout: position of (channels, height, width) in the 4-D shape.
INPUT_LAYOUT_AXES: dict[str, tuple[int, int, int]] = {"nchw": (1, 2, 3), "nhwc": (3, 1, 2)}

# Filter layouts: the position of each named dimension in the 4-D filter shape.
# conv2d: o = outputChannels, i = inputChannels/groups (spec "filterInputChannels").
CONV2D_FILTER_LAYOUTS: tuple[str, ...] = ("oihw", "hwio", "ohwi", "ihwo")
# convTranspose2d: i = inputChannels, o = outputChannels/groups ("filterOutputChannels").
CONV_TRANSPOSE2D_FILTER_LAYOUTS: tuple[str, ...] = ("iohw", "hwoi", "ohwi")


def layout_axes(layout: str) -> dict[str, int]:
    """'ohwi' -> {'o': 0, 'h': 1, 'w': 2, 'i': 3}."""
    return {letter: axis for axis, letter in enumerate(layout)}


def filter_dims(shape: Sequence[int], layout: str) -> dict[str, int]:
    """The filter's named dimensions (o, i, h, w) under ``layout``."""
    return {letter: shape[axis] for letter, axis in layout_axes(layout).items()}


def spatial_input(shape: Sequence[int], layout: str) -> tuple[int, int, int, int]:
    """(batches, channels, height, width) of a 4-D input under ``layout``."""
    c, h, w = INPUT_LAYOUT_AXES[layout]
    return shape[0], shape[c], shape[h], shape[w]


def spatial_output_shape(batches: int, channels: int, height: int, width: int, layout: str) -> tuple[int, ...]:
    if layout == "nchw":
        return (batches, channels, height, width)
    return (batches, height, width, channels)


# --- option helpers shared with the pooling create steps -----------------------


def unsigned_list(op: str, name: str, value: Sequence[int] | None, default: Sequence[int], size: int) -> list[int]:
    """A sequence<[EnforceRange] unsigned long> option: absent -> ``default``,
    otherwise it must have ``size`` items (spec: "if its size is not N, throw")."""
    if value is None:
        return list(default)
    check(len(value) == size, f"{op}: {name} must have {size} items, got {list(value)}")
    for item in value:
        # WebIDL [EnforceRange] unsigned long: the conversion throws a TypeError.
        check(isinstance(item, int) and not isinstance(item, bool) and 0 <= item <= 0xFFFFFFFF,
              f"{op}: {name} item {item!r} is not an unsigned long")
    return [int(v) for v in value]


def nonzero(op: str, name: str, values: Sequence[int]) -> None:
    check(all(v != 0 for v in values), f"{op}: {name} {list(values)} has an item equal to 0")


def is_valid_dimension(value: Any) -> bool:
    """Spec "valid dimension": an integer greater than zero in the range of long."""
    return value == int(value) and 0 < int(value) <= 2**63 - 1


def conv_output_size(input_size: int, filter_size: int, begin: int, end: int, stride: int, dilation: int) -> Fraction:
    """Spec "calculate conv output size", as an exact rational (the spec's
    result is a number that callers floor or ceil)."""
    effective = (filter_size - 1) * dilation + 1
    return Fraction(input_size - effective + begin + end, stride) + 1


def conv_transpose_output_size(input_size: int, filter_size: int, begin: int, end: int, stride: int,
                               dilation: int) -> int:
    """Spec "calculate convtranspose output size"."""
    effective = (filter_size - 1) * dilation + 1
    return (input_size - 1) * stride + effective - begin - end


def check_window_fits(op: str, input_size: int, window: int, begin: int, end: int, dilation: int, what: str) -> None:
    """The padded input must hold one (dilated) window. The spec reaches the
    same verdict through "valid dimension" for floor rounding; for ceil
    rounding a negative numerator can still round up to 1, which Chromium
    rejects ("input ... too small to fill the window", WPT validation_tests/
    pooling "Throw if the input height is too small to fill the pool window
    height"). We follow that: such a window would hold only padding."""
    effective = (window - 1) * dilation + 1
    check(input_size + begin + end >= effective,
          f"{op}: the padded input {what} {input_size + begin + end} is smaller than the "
          f"effective window {what} {effective}")


def _conv_common_options(op: str, attributes: Mapping[str, Any]) -> dict[str, Any]:
    padding = unsigned_list(op, "padding", attributes.get("padding"), (0, 0, 0, 0), 4)
    strides = unsigned_list(op, "strides", attributes.get("strides"), (1, 1), 2)
    nonzero(op, "strides", strides)
    dilations = unsigned_list(op, "dilations", attributes.get("dilations"), (1, 1), 2)
    nonzero(op, "dilations", dilations)
    return {"padding": padding, "strides": strides, "dilations": dilations}


def _check_bias(op: str, operands: Mapping[str, Any], output_channels: int) -> None:
    bias = operands.get("bias")
    if bias is not None:
        check(tuple(bias.shape) == (output_channels,),
              f"{op}: bias shape {list(bias.shape)} must be [{output_channels}] (outputChannels)")


def _check_groups(op: str, groups: Any) -> int:
    check(isinstance(groups, int) and not isinstance(groups, bool) and 0 <= groups <= 0xFFFFFFFF,
          f"{op}: groups {groups!r} is not an unsigned long")
    check(groups != 0, f"{op}: groups is 0")
    return groups


def _check_enum(op: str, name: str, value: str, allowed: Sequence[str]) -> None:
    check(value in allowed, f"{op}: {name} {value!r} is not one of {', '.join(allowed)}")


def _layouts_and_shapes(op: str, operands: Mapping[str, Any], attributes: Mapping[str, Any],
                        filter_layouts: Sequence[str], default_filter_layout: str):
    """The steps conv2d and convTranspose2d share: groups, both layouts, and the
    input's and filter's dimensions read through those layouts."""
    groups = _check_groups(op, attributes.get("groups", 1))
    input_layout = attributes.get("inputLayout", "nchw")
    filter_layout = attributes.get("filterLayout", default_filter_layout)
    _check_enum(op, "inputLayout", input_layout, tuple(INPUT_LAYOUT_AXES))
    _check_enum(op, "filterLayout", filter_layout, filter_layouts)
    inp: TensorDesc = operands["input"]
    spatial = spatial_input(inp.shape, input_layout)
    f = filter_dims(operands["filter"].shape, filter_layout)
    return groups, input_layout, filter_layout, inp, spatial, f


def conv2d(operands: Mapping[str, Any], attributes: Mapping[str, Any]) -> Created:
    op = "conv2d"
    options = _conv_common_options(op, attributes)
    groups, input_layout, filter_layout, inp, spatial, f = _layouts_and_shapes(
        op, operands, attributes, CONV2D_FILTER_LAYOUTS, "oihw")
    batches, input_channels, input_height, input_width = spatial
    output_channels = f["o"]
    check(input_channels % groups == 0,
          f"{op}: inputChannels {input_channels} is not divisible by groups {groups}")
    check(input_channels // groups == f["i"],
          f"{op}: inputChannels / groups = {input_channels // groups} does not equal the filter's "
          f"input channels {f['i']} ({filter_layout})")
    check(output_channels % groups == 0,
          f"{op}: outputChannels {output_channels} is not divisible by groups {groups}")
    _check_bias(op, operands, output_channels)
    pad, strides, dil = options["padding"], options["strides"], options["dilations"]
    height = floor(conv_output_size(input_height, f["h"], pad[0], pad[1], strides[0], dil[0]))
    width = floor(conv_output_size(input_width, f["w"], pad[2], pad[3], strides[1], dil[1]))
    check(is_valid_dimension(height) and is_valid_dimension(width),
          f"{op}: output size [{height}, {width}] is not valid (the dilated filter does not fit "
          f"the padded input)")
    shape = spatial_output_shape(batches, output_channels, height, width, input_layout)
    resolved = {**attributes, **options, "groups": groups, "inputLayout": input_layout,
                "filterLayout": filter_layout}
    return Created(outputs=(TensorDesc(shape, inp.data_type),), attributes=resolved)


def conv_transpose2d_output_sizes(input_height: int, input_width: int, filter_height: int, filter_width: int,
                                  attributes: Mapping[str, Any]) -> tuple[int, int]:
    """The output's spatial sizes from resolved attributes (spec steps
    "calculatedOutputHeight ... outputPadding / outputSizes"), validated."""
    op = "convTranspose2d"
    pad, strides, dil = attributes["padding"], attributes["strides"], attributes["dilations"]
    calc_h = conv_transpose_output_size(input_height, filter_height, pad[0], pad[1], strides[0], dil[0])
    calc_w = conv_transpose_output_size(input_width, filter_width, pad[2], pad[3], strides[1], dil[1])
    sizes = attributes.get("outputSizes")
    if sizes is not None:
        height, width = sizes
        check(calc_h <= height < calc_h + strides[0],
              f"{op}: outputSizes height {height} must be in [{calc_h}, {calc_h + strides[0]})")
        check(calc_w <= width < calc_w + strides[1],
              f"{op}: outputSizes width {width} must be in [{calc_w}, {calc_w + strides[1]})")
    else:
        out_pad = attributes["outputPadding"]
        height, width = calc_h + out_pad[0], calc_w + out_pad[1]
    check(is_valid_dimension(height) and is_valid_dimension(width),
          f"{op}: output size [{height}, {width}] is not valid (padding larger than the full output)")
    return height, width


def conv_transpose2d(operands: Mapping[str, Any], attributes: Mapping[str, Any]) -> Created:
    op = "convTranspose2d"
    options = _conv_common_options(op, attributes)
    output_padding = unsigned_list(op, "outputPadding", attributes.get("outputPadding"), (0, 0), 2)
    output_sizes = attributes.get("outputSizes")
    if output_sizes is not None:
        output_sizes = unsigned_list(op, "outputSizes", output_sizes, (), 2)
    else:
        strides = options["strides"]
        check(output_padding[0] < strides[0] and output_padding[1] < strides[1],
              f"{op}: outputPadding {output_padding} must be smaller than strides {strides}")
    groups, input_layout, filter_layout, inp, spatial, f = _layouts_and_shapes(
        op, operands, attributes, CONV_TRANSPOSE2D_FILTER_LAYOUTS, "iohw")
    batches, input_channels, input_height, input_width = spatial
    check(input_channels == f["i"],
          f"{op}: inputChannels {input_channels} does not equal the filter's input channels "
          f"{f['i']} ({filter_layout})")
    # Not a spec step: the spec never checks inputChannels % groups, yet the
    # grouped computation is undefined without it (Chromium and ONNX reject it).
    check(input_channels % groups == 0,
          f"{op}: inputChannels {input_channels} is not divisible by groups {groups}")
    output_channels = f["o"] * groups
    check(is_valid_dimension(output_channels), f"{op}: outputChannels {output_channels} is not valid")
    _check_bias(op, operands, output_channels)
    resolved = {**attributes, **options, "outputPadding": output_padding, "outputSizes": output_sizes,
                "groups": groups, "inputLayout": input_layout, "filterLayout": filter_layout}
    height, width = conv_transpose2d_output_sizes(input_height, input_width, f["h"], f["w"], resolved)
    shape = spatial_output_shape(batches, output_channels, height, width, input_layout)
    return Created(outputs=(TensorDesc(shape, inp.data_type),), attributes=resolved)


def conv_budget(node, descs: Mapping[str, TensorDesc]) -> Budget:
    """WPT getConv2dPrecisionTolerance, for both ops: ULP =
    filterHeight * filterWidth * (inputChannels / groups) * 2, with
    inputChannels read from the input under inputLayout (also for
    convTranspose2d, where WPT uses the same formula) and the filter's
    height/width under its filterLayout."""
    attrs = node.attributes
    _, input_channels, _, _ = spatial_input(descs[node.operands["input"]].shape, attrs["inputLayout"])
    f = filter_dims(descs[node.operands["filter"]].shape, attrs["filterLayout"])
    return Budget("ULP", f["h"] * f["w"] * (input_channels // attrs["groups"]) * 2)


# --- Costs (see base.py "What a Cost counts"). Taps that fall on padding are
# counted like any other (what a dense implementation computes).


def _bias_adds(node, descs) -> int:
    return descs[node.outputs[0]].size if "bias" in node.operands else 0


@counted
def conv2d_flops(node, descs) -> int:
    """2 * N * Cout * Hout * Wout * (Cin / groups) * kh * kw: every output
    element is a dot product over its group's input channels and the window;
    plus one add per output element for the bias."""
    attrs = node.attributes
    f = filter_dims(descs[node.operands["filter"]].shape, attrs["filterLayout"])
    # f["i"] is inputChannels / groups (spec "filterInputChannels").
    return 2 * descs[node.outputs[0]].size * f["i"] * f["h"] * f["w"] + _bias_adds(node, descs)


@counted
def conv_transpose2d_flops(node, descs) -> int:
    """2 * N * Cin * Hin * Win * (Cout / groups) * kh * kw: every input
    element is scattered, multiplied by its group's filter, onto the output;
    plus one add per output element for the bias."""
    attrs = node.attributes
    f = filter_dims(descs[node.operands["filter"]].shape, attrs["filterLayout"])
    # f["o"] is outputChannels / groups (spec "filterOutputChannels").
    return 2 * descs[node.operands["input"]].size * f["o"] * f["h"] * f["w"] + _bias_adds(node, descs)


# Probe plans (see traits.py).

# conv2d filter shapes for 2 input channels, 3 output channels, 3x3 kernel.
CONV_FILTER = {"oihw": (3, 2, 3, 3), "hwio": (3, 3, 2, 3), "ohwi": (3, 3, 3, 2), "ihwo": (2, 3, 3, 3)}
CONV_T_FILTER = {"iohw": (2, 3, 3, 3), "hwoi": (3, 3, 3, 2), "ohwi": (3, 3, 3, 2)}
CONV_OPTIONS = ("inputLayout=nhwc", "groups=2", "dilations=2", "strides=2", "padding")


def _conv_arguments(v: Variation, filters: Mapping[str, tuple], default_filter: str, spatial: int,
                    grouped_filter: tuple, padding: list[int]):
    """conv2d and convTranspose2d baselines: 2 input channels, 3 output
    channels (4 with groups=2), a 3x3 kernel, one option varied at a time."""
    opt = v.value if v.axis == "option" else ""
    layout = "nhwc" if opt == "inputLayout=nhwc" else "nchw"
    filter_layout = opt.split("=")[1] if opt.startswith("filterLayout=") else default_filter
    shapes = {"input": (1, spatial, spatial, 2) if layout == "nhwc" else (1, 2, spatial, spatial),
              "filter": filters[filter_layout]}
    attrs: dict = {"inputLayout": layout, "filterLayout": filter_layout}
    if opt == "groups=2":
        shapes["filter"] = grouped_filter
        attrs["groups"] = 2
    elif opt == "dilations=2":
        attrs["dilations"] = [2, 2]
    elif opt == "strides=2":
        attrs["strides"] = [2, 2]
    elif opt == "padding":
        attrs["padding"] = padding
    elif opt == "outputPadding":
        attrs["strides"], attrs["outputPadding"] = [2, 2], [1, 1]
    if "bias" in v.present:
        shapes["bias"] = (4,) if opt == "groups=2" else (3,)
    return shapes, attrs


def conv2d_arguments(v: Variation):
    return _conv_arguments(v, CONV_FILTER, "oihw", 6, (4, 1, 3, 3), [1, 0, 2, 1])


def conv_transpose2d_arguments(v: Variation):
    return _conv_arguments(v, CONV_T_FILTER, "iohw", 4, (2, 2, 3, 3), [1, 0, 1, 1])


# k = 18, 288, 1152 accumulated products at 2, 32, 128 input channels (3x3 kernels).
ACCURACY_CHANNELS = (2, 32, 128)

OPS = declare(
    OpSpec("conv2d", conv2d, conv_budget, conv2d_flops,
           ProbePlan(conv2d_arguments,
                     options=CONV_OPTIONS + tuple(f"filterLayout={x}" for x in CONV_FILTER if x != "oihw")),
           InputValues("dyadic"), accuracy=AccuracyPlan("CONV2D", ACCURACY_CHANNELS)),
    OpSpec("convTranspose2d", conv_transpose2d, conv_budget, conv_transpose2d_flops,
           ProbePlan(conv_transpose2d_arguments, options=CONV_OPTIONS + ("outputPadding",)
                     + tuple(f"filterLayout={x}" for x in CONV_T_FILTER if x != "iohw")),
           InputValues("dyadic"), accuracy=AccuracyPlan("TRANSPOSE_CONV2D", ACCURACY_CHANNELS)),
)

__all__ = ["OPS"]
