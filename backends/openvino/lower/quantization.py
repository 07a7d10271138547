"""quantizeLinear and dequantizeLinear, composed: OpenVINO's FakeQuantize
and FakeConvert do not express WebNN's blockwise scale and zero point."""
from __future__ import annotations

import numpy as np
import openvino.opset16 as ops

from webnn_harness.backends.lowering import Call
from webnn_harness.backends.openvino.lower.base import carried, const, convert, data_type, i64, output, reshape, shape
from webnn_harness.spec.dtypes import integer_range


def blockwise(operand, target_shape):
    """Spec "blockwise broadcast": each element of ``operand`` covers a block
    of target_shape[i] / shape[i] elements along every axis i."""
    source = shape(operand)
    if source == tuple(target_shape):
        return output(operand)
    interleaved = []
    blocks = []
    for size, target in zip(source, target_shape):
        interleaved += [size, 1]
        blocks += [size, target // size]
    x = reshape(operand, interleaved)
    x = ops.broadcast(x, i64(blocks), None, "NUMPY")
    return reshape(x, target_shape)


def quantize_linear(e, c: Call):
    # Spec: clamp(roundEven(input / scale) + zeroPoint, range of the output
    # type). Computed in float32 (float16 inputs are widened first, so the
    # quotient is rounded once, as the reference does).
    target = shape(c["input"])
    x = convert(c["input"], "float32")
    q = ops.round(ops.divide(x, blockwise(convert(c["scale"], "float32"), target)), "half_to_even")
    q = ops.add(q, blockwise(convert(c["zeroPoint"], "float32"), target))
    out_type = c.out.data_type  # zeroPoint's type; int4/uint4 arrive in an 8-bit carrier
    low, high = integer_range(out_type)
    # Bounds representable in float32 (2^31 - 1 is not: it rounds up to 2^31).
    lo = np.float32(low)
    hi = np.nextafter(np.float32(high), np.float32(0)) if int(np.float32(high)) > high else np.float32(high)
    q = ops.minimum(ops.maximum(q, const(lo, "float32")), const(hi, "float32"))
    return convert(q, carried(out_type))


def dequantize_linear(e, c: Call):
    # Spec: (input - zeroPoint) * scale, in float32 (exact for 8-bit inputs;
    # the CPU plugin runs int64 as int32, so integer subtraction would not
    # be wider).
    target = shape(c["input"])
    diff = ops.subtract(convert(c["input"], "float32"), blockwise(convert(c["zeroPoint"], "float32"), target))
    result = ops.multiply(diff, blockwise(convert(c["scale"], "float32"), target))
    return convert(result, data_type(c["scale"]))


LOWER = {"quantizeLinear": quantize_linear, "dequantizeLinear": dequantize_linear}
EMULATED = {
    "quantizeLinear": "Convert to f32, Divide by blockwise-broadcast scale, Round(half_to_even), "
    "Add zero point, clamp to the output range, Convert",
    "dequantizeLinear": "Convert to f32, Subtract blockwise-broadcast zero point, Multiply by scale, Convert",
}
