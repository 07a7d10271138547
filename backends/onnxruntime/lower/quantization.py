"""quantizeLinear and dequantizeLinear.

WebNN's scale and zeroPoint have the input's rank and are blockwise
broadcast (each dimension repeated input/scale times, spec "blockwise
broadcasting"). ONNX (De)QuantizeLinear takes per-tensor, per-axis or
blocked-on-one-axis parameters and a narrower set of types, so:
- one axis (or none) varies, and the types are ONNX's: native, with the
  parameters reshaped (and expanded on the other axes for blocked);
- otherwise: composed in float64 with the parameters blockwise expanded.
"""
from __future__ import annotations

from webnn_harness.backends.onnxruntime.emitter import Call, Emitter
from webnn_harness.spec.dtypes import integer_range

# int4/uint4 arrive in int8/uint8 carrier tensors (emitter.ONNX_TYPES): the
# int8 kernels give the same values.
NATIVE_DEQUANTIZE_INPUTS = {"int8", "uint8", "int32", "int4", "uint4"}
NATIVE_QUANTIZE_OUTPUTS = {"int8", "uint8"}


def _native_params(e: Emitter, c: Call, input_shape):
    """(scale, zeroPoint, attrs) for the ONNX op, or None when ONNX cannot
    express this blockwise broadcast."""
    scale_shape = c.desc("scale").shape
    varying = [i for i, s in enumerate(scale_shape) if s != 1]
    if not varying:  # per-tensor
        return e.reshape(c["scale"], []), e.reshape(c["zeroPoint"], []), {}
    if len(varying) > 1:
        return None
    axis = varying[0]
    if scale_shape[axis] == input_shape[axis]:  # per-axis
        n = scale_shape[axis]
        return e.reshape(c["scale"], [n]), e.reshape(c["zeroPoint"], [n]), {"axis": axis}
    # Blocked: ONNX wants the parameters shaped like the input except on axis.
    target = list(input_shape)
    target[axis] = scale_shape[axis]
    block = input_shape[axis] // scale_shape[axis]

    def expanded(name):
        return e.op("Expand", [c[name], e.i64(target)])

    return expanded("scale"), expanded("zeroPoint"), {"axis": axis, "block_size": block}


def _blockwise_expand(e: Emitter, x: str, small, big) -> str:
    """Repeat every element of ``x`` (shape ``small``) big/small times per axis:
    reshape to [s0, 1, s1, 1, ...], expand to [s0, b0, s1, b1, ...], merge."""
    if list(small) == list(big):
        return x
    interleaved = [d for s in small for d in (s, 1)]
    repeated = [d for s, n in zip(small, big) for d in (s, n // s)]
    return e.reshape(e.op("Expand", [e.reshape(x, interleaved), e.i64(repeated)]), big)


def _native(e: Emitter, c: Call, onnx_op: str, native_types: set[str], data_type: str) -> str | None:
    """The ONNX op itself where ``data_type`` (the integer side) is one of
    its types and it can express the blockwise broadcast; else None."""
    if data_type not in native_types:
        return None
    params = _native_params(e, c, c.desc("input").shape)
    if params is None:
        return None
    scale, zero_point, attrs = params
    return e.op(onnx_op, [c["input"], scale, zero_point], **attrs)


def _float64_parameters(e: Emitter, c: Call) -> tuple[str, str]:
    """scale and zeroPoint blockwise expanded to the input's shape, in float64."""
    shape, small = c.desc("input").shape, c.desc("scale").shape
    scale = e.cast(_blockwise_expand(e, c["scale"], small, shape), "float64")
    zero_point = e.cast(_blockwise_expand(e, c["zeroPoint"], small, shape), "float64")
    return scale, zero_point


def dequantize_linear(e: Emitter, c: Call) -> str:
    native = _native(e, c, "DequantizeLinear", NATIVE_DEQUANTIZE_INPUTS, c.desc("input").data_type)
    if native is not None:
        return native
    scale, zero_point = _float64_parameters(e, c)
    y = e.op("Mul", [e.op("Sub", [e.cast(c["input"], "float64"), zero_point]), scale])
    return e.cast(y, c.out.data_type)


def quantize_linear(e: Emitter, c: Call) -> str:
    out_type = c.out.data_type
    native = _native(e, c, "QuantizeLinear", NATIVE_QUANTIZE_OUTPUTS, out_type)
    if native is not None:
        return native
    # clamp(roundEven(x / scale) + zeroPoint) in float64, exact for 32-bit results.
    scale, zero_point = _float64_parameters(e, c)
    q = e.op("Add", [e.op("Round", [e.op("Div", [e.cast(c["input"], "float64"), scale])]), zero_point])
    low, high = integer_range(out_type)
    q = e.op("Clip", [q, e.scalar(low, "float64"), e.scalar(high, "float64")])
    return e.cast(q, out_type)


LOWER = {"dequantizeLinear": dequantize_linear, "quantizeLinear": quantize_linear}
EMULATED = {
    "dequantizeLinear": "uint32 input, or scale varying on more than one axis: (float64(x) - zeroPoint) * scale "
    "with the parameters blockwise expanded (Reshape/Expand/Reshape); int4/uint4 carried in int8/uint8 tensors",
    "quantizeLinear": "int32/uint32/int4/uint4 output, or scale varying on more than one axis: Clip(Round(x / scale) + "
    "zeroPoint) in float64, parameters blockwise expanded; int4/uint4 carried in int8/uint8 tensors",
}
