"""quantizeLinear and dequantizeLinear, composed in float32 as the spec's
emulation writes them:

    dequantizeLinear: (float(input) - float(zeroPoint)) * scale
    quantizeLinear:   cast(clamp(ROUND(input / scale) + zeroPoint, type's min, max))

with scale and zeroPoint blockwise-expanded to the input's shape. Chromium
emits TFLite's QUANTIZE / DEQUANTIZE (quantization parameters on a tensor)
where scale and zeroPoint are constants it can fold, and composes otherwise;
here every graph is composed, so one path is judged whatever the operands.
int4/uint4 are refused: LiteRT has no int4 CAST (Chromium refuses them for
quantizeLinear too: tensorflow/tensorflow#80335).
"""
from __future__ import annotations

import numpy as np

from webnn_harness.backends.litert.emitter import OP, Call, Emitter, Unlowerable
from webnn_harness.backends.litert.lower.elementwise import binary, unary
from webnn_harness.spec.dtypes import EXTENSION_DATA_TYPES, integer_range, is_float


def blockwise_expanded(e: Emitter, x: int, shape) -> int:
    """``x`` with each element repeated along each axis up to ``shape``
    (RESHAPE to [.., s, 1, ..], BROADCAST_TO [.., s, n / s, ..], RESHAPE to n);
    axes of size 1 are left to broadcasting."""
    current = list(e.desc(x).shape)
    if len(current) != len(shape) or all(s in (1, n) for s, n in zip(current, shape)):
        return x
    if x in e.values:  # a constant: expanded here
        values = e.values[x]
        for axis, (s, n) in enumerate(zip(current, shape)):
            if s not in (1, n):
                values = np.repeat(values, n // s, axis=axis)
        return e.constant(values, e.desc(x).data_type)
    split, target = [], []
    for s, n in zip(current, shape):
        blocked = s not in (1, n)
        split += [s, 1] if blocked else [s]
        target += [s, n // s] if blocked else [s]
    y = e.reshape(x, split)
    y = e.op(OP.BROADCAST_TO, [y, e.i32(target)], e.like(y, shape=target))
    return e.reshape(y, [n if s not in (1, n) else s for s, n in zip(current, shape)])


def _refuse_int4(c: Call, *params: str) -> None:
    for param in params:
        if c.desc(param).data_type in EXTENSION_DATA_TYPES:
            raise Unlowerable(f"{c.node.op} with {param} {c.desc(param).data_type}: LiteRT has no int4 cast")


def _refuse_arithmetic_on(c: Call, param: str, wanted_float: bool) -> None:
    """The composition computes in the float type: an integer scale (or a
    float input to dequantize) beyond the spec would put int8/uint8
    arithmetic in the graph, which aborts LiteRT."""
    if is_float(c.desc(param).data_type) != wanted_float:
        kind = "a float" if wanted_float else "an integer"
        raise Unlowerable(f"{c.node.op} with {param} {c.desc(param).data_type}: composed in float with {kind} "
                          f"{param} only")


def dequantize_linear(e: Emitter, c: Call) -> int:
    _refuse_int4(c, "input", "zeroPoint")
    _refuse_arithmetic_on(c, "scale", True)
    _refuse_arithmetic_on(c, "input", False)
    shape = c.desc("input").shape
    data_type = c.out.data_type
    zero_point = e.cast(blockwise_expanded(e, c["zeroPoint"], shape), data_type)
    scale = blockwise_expanded(e, c["scale"], shape)
    return binary(e, OP.MUL, binary(e, OP.SUB, e.cast(c["input"], data_type), zero_point), scale)


def quantize_linear(e: Emitter, c: Call) -> int:
    _refuse_int4(c, "zeroPoint")
    _refuse_arithmetic_on(c, "input", True)
    _refuse_arithmetic_on(c, "scale", True)
    shape = c.desc("input").shape
    data_type = c.desc("input").data_type
    output_type = c.out.data_type
    scale = blockwise_expanded(e, c["scale"], shape)
    zero_point = e.cast(blockwise_expanded(e, c["zeroPoint"], shape), data_type)
    y = binary(e, OP.ADD, unary(e, OP.ROUND, binary(e, OP.DIV, c["input"], scale)), zero_point)
    low, high = integer_range(output_type)
    y = binary(e, OP.MINIMUM, binary(e, OP.MAXIMUM, y, e.scalar(low, data_type)), e.scalar(high, data_type))
    return e.cast(y, output_type)


LOWER = {"dequantizeLinear": dequantize_linear, "quantizeLinear": quantize_linear}
EMULATED = {
    "dequantizeLinear": "(CAST(input) - CAST(zeroPoint)) * scale, blockwise expansion by RESHAPE/BROADCAST_TO",
    "quantizeLinear": "CAST(clamp(ROUND(input / scale) + zeroPoint)) with MAXIMUM/MINIMUM, blockwise expansion "
    "by RESHAPE/BROADCAST_TO",
}
