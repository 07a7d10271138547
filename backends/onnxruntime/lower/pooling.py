"""averagePool2d, l2Pool2d, maxPool2d and resample2d."""
from __future__ import annotations

from webnn_harness.backends.onnxruntime.emitter import Call, Emitter
from webnn_harness.backends.onnxruntime.lower.convolution import NCHW_TO_NHWC, NHWC_TO_NCHW, onnx_pads
from webnn_harness.spec.dtypes import integer_range, is_float


def _explicit_pad(e: Emitter, x: str, padding: list[int], value, data_type: str) -> str:
    """NCHW ``x`` padded on H and W by [top, bottom, left, right] with ``value``."""
    top, bottom, left, right = padding
    return e.op("Pad", [x, e.i64([0, 0, top, left, 0, 0, bottom, right]), e.scalar(value, data_type)], mode="constant")


def _pad_value(onnx_op: str, data_type: str):
    """What explicit padding holds so that it never changes the result: the
    lowest value for a max, 0 for an L2 sum. None for an average (padded
    elements must not be counted, which only the operator's own pads give)."""
    if onnx_op == "MaxPool":
        return float("-inf") if is_float(data_type) else integer_range(data_type)[0]
    if onnx_op == "LpPool":
        return 0
    return None


def _pool(onnx_op: str, **extra):
    def lower(e: Emitter, c: Call) -> str:
        nhwc = c.attr("layout") == "nhwc"
        in_shape = c.desc("input").shape
        in_hw = in_shape[1:3] if nhwc else in_shape[2:4]
        out_hw = c.out.shape[1:3] if nhwc else c.out.shape[2:4]
        window = list(c.attr("windowDimensions"))
        padding = list(c.attr("padding"))
        strides = list(c.attr("strides"))
        dilations = list(c.attr("dilations"))
        # The create steps fixed the output size (floor, ceil or outputSizes).
        # ORT's ceil_mode drops a last window that starts in the end padding,
        # which WebNN keeps, so ceil rounding is expressed as extra end
        # padding with ceil_mode=0: padded elements never win a max, are
        # excluded from an average (count_include_pad=0) and add 0 to an L2 sum.
        for i in range(2):
            effective = (window[i] - 1) * dilations[i] + 1
            needed = (out_hw[i] - 1) * strides[i] + effective - (in_hw[i] + padding[2 * i] + padding[2 * i + 1])
            if needed > 0:
                padding[2 * i + 1] += needed
        x = e.transpose(c["input"], NHWC_TO_NCHW) if nhwc else c["input"]
        # ORT refuses pads as large as the kernel ("Pad should be smaller than
        # kernel"), which ceil rounding's extra end padding or a WebNN padding
        # can reach: pad explicitly first where the padded value cannot change
        # the result (max, L2); an average keeps the operator's pads.
        data_type = c.desc("input").data_type
        value = _pad_value(onnx_op, data_type)
        if value is not None and any(p >= window[i // 2] for i, p in enumerate(padding)):
            x = _explicit_pad(e, x, padding, value, data_type)
            padding = [0, 0, 0, 0]
        y = e.op(onnx_op, [x], kernel_shape=window, pads=onnx_pads(padding), strides=strides,
                 dilations=dilations, ceil_mode=0, **extra)
        return e.transpose(y, NCHW_TO_NHWC) if nhwc else y

    return lower


def resample2d(e: Emitter, c: Call) -> str:
    """WebNN's coordinate mapping is ONNX's half_pixel with scale =
    outputSize / inputSize (spec resample2d: the scale is recomputed from the
    sizes, even when scales were given), so the output sizes the create steps
    resolved go to Resize as ``sizes``. Nearest-neighbor picks
    ceil(coordinate - 0.5), i.e. rounds halves down: round_prefer_floor."""
    mode = c.attr("mode")
    attrs = {"coordinate_transformation_mode": "half_pixel"}
    axes = sorted(c.attr("axes"))
    x, out_shape, back = c["input"], list(c.out.shape), None
    if mode == "linear":
        attrs["mode"] = "linear"
        if axes not in ([2, 3], [1, 2]):
            # ORT's linear Resize on 4-D only scales axes [2, 3] or [1, 2]:
            # move the two axes last, resize, move them back.
            perm = [a for a in range(4) if a not in axes] + axes
            x = e.transpose(x, perm)
            out_shape = [out_shape[a] for a in perm]
            back = [perm.index(a) for a in range(4)]
    else:
        attrs.update(mode="nearest", nearest_mode="round_prefer_floor")
    y = e.op("Resize", [x, "", "", e.i64(out_shape)], **attrs)
    return e.transpose(y, back) if back else y


LOWER = {
    "averagePool2d": _pool("AveragePool", count_include_pad=0),
    "l2Pool2d": _pool("LpPool", p=2),
    "maxPool2d": _pool("MaxPool"),
    "resample2d": resample2d,
}
EMULATED = {
    "maxPool2d": "padding (with ceil rounding's extra end padding) as large as the window: explicit Pad with the "
    "lowest value, then MaxPool without pads (ORT: 'Pad should be smaller than kernel')",
    "l2Pool2d": "padding as large as the window: explicit Pad with zeros, then LpPool without pads",
    "resample2d": "mode linear on axes other than [2, 3] / [1, 2]: Transpose the axes last, Resize, "
    "Transpose back (ORT's 4-D linear Resize scales only those pairs)",
}
