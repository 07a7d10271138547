"""Generate cases/quantization/*.json: quantizeLinear, dequantizeLinear.

Run: /work/venv/bin/python tools/cases/quantization.py
Hand cases use scales that are powers of two (so input / scale is exact in
every float type and only the spec's roundEven, the zero point and the
saturation decide the result) and have their expected values worked out
below with plain Python integer arithmetic from the spec's formulas:
    quantizeLinear:   clamp(roundEven(x / scale) + zeroPoint, type min, type max)
    dequantizeLinear: (x - zeroPoint) * scale
Generated cases (per-tensor, per-axis, blockwise, every zeroPoint type) omit
expected values; the reference computes them and marks the few elements
whose quotient sits within a float ULP of a .5 tie as implementation-defined.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reduction import INF, NAN, NINF, case, gen, op, tensor, write  # noqa: E402

FAMILY = "quantization"
RANGE = {"int8": (-128, 127), "uint8": (0, 255), "int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1)}


def round_even(x: float) -> int:
    """Round half to even, written out (Python's round() does the same, but
    this keeps the rule visible)."""
    floor = int(x // 1)
    rest = x - floor
    if rest > 0.5 or (rest == 0.5 and floor % 2 == 1):
        return floor + 1
    return floor


def quantize(x: float, scale: float, zero_point: int, data_type: str) -> int:
    lo, hi = RANGE[data_type]
    if x in (float("inf"), float("-inf")):
        return hi if x > 0 else lo
    return min(max(round_even(x / scale) + zero_point, lo), hi)


def blocks(shape, scale_shape):
    """For every input element (row-major), the index of its scale element."""
    sizes = [n // s for n, s in zip(shape, scale_shape)]
    out = []

    def walk(prefix):
        if len(prefix) == len(shape):
            flat = 0
            for axis, i in enumerate(prefix):
                flat = flat * scale_shape[axis] + i // sizes[axis]
            out.append(flat)
            return
        for i in range(shape[len(prefix)]):
            walk(prefix + [i])

    walk([])
    return out


def _q_op(outputs="output"):
    return op("quantizeLinear", [{"input": "x"}, {"scale": "scale"}, {"zeroPoint": "zeroPoint"}], outputs)


def _dq_op(outputs="output"):
    return op("dequantizeLinear", [{"input": "x"}, {"scale": "scale"}, {"zeroPoint": "zeroPoint"}], outputs)


def _quantize_hand(name, float_type, zp_type, x, shape, scale, zero_point, scale_shape) -> dict:
    index = blocks(shape, scale_shape)
    want = [quantize(v, scale[index[k]], zero_point[index[k]], zp_type) for k, v in enumerate(x)]
    encode = {float("inf"): INF, float("-inf"): NINF}
    return case(f"quantizeLinear {float_type} to {zp_type} {name} (hand)",
                {"x": tensor([encode.get(v, v) for v in x], shape, float_type),
                 "scale": tensor(scale, scale_shape, float_type, constant=True),
                 "zeroPoint": tensor(zero_point, scale_shape, zp_type, constant=True)},
                _q_op(), {"output": tensor(want, shape, zp_type)})


def _dequantize_hand(name, int_type, float_type, x, shape, scale, zero_point, scale_shape, want=None) -> dict:
    index = blocks(shape, scale_shape)
    want = want or [(v - zero_point[index[k]]) * scale[index[k]] for k, v in enumerate(x)]
    return case(f"dequantizeLinear {int_type} to {float_type} {name} (hand)",
                {"x": tensor(x, shape, int_type),
                 "scale": tensor(scale, scale_shape, float_type, constant=True),
                 "zeroPoint": tensor(zero_point, scale_shape, int_type, constant=True)},
                _dq_op(), {"output": tensor(want, shape, float_type)})


def _generated(op_name, name, seed, float_type, int_type, shape, scale_shape, low=-20.0, high=20.0) -> dict:
    lo, hi = RANGE[int_type]
    zp_lo, zp_hi = max(lo, -100), (200 if int_type == "uint8" else 100)
    if op_name == "quantizeLinear":
        x = tensor(gen(seed, "uniform", low=low, high=high), shape, float_type)
    else:
        # Non-cancelling: zero points in the lowest eighth of the input range,
        # inputs in the upper half, so x - zeroPoint is never near 0 and an
        # implementation computing x * scale - zeroPoint * scale (OpenVINO's
        # fused dequantization) stays within the budget.
        low, high = max(lo, int(low)), min(hi, int(high))
        span = high - low
        zp_lo, zp_hi = low, low + span // 8
        x = tensor(gen(seed, "integers", low=low + span // 2, high=high), shape, int_type)
    return case(f"{op_name} {float_type} {int_type} {name} generated",
                {"x": x,
                 "scale": tensor(gen(seed + 1, "uniform", low=0.05, high=0.2), scale_shape, float_type, constant=True),
                 "zeroPoint": tensor(gen(seed + 2, "integers", low=zp_lo, high=zp_hi), scale_shape, int_type,
                                     constant=True)},
                _q_op() if op_name == "quantizeLinear" else _dq_op())


def quantize_cases() -> list[dict]:
    h = _quantize_hand
    ties = [-1.0, 0.0, 0.5, 1.5, 2.5, 3.5, 126.5, 127.5, 254.5, 300.0, -0.25, 255.5]
    out = [
        # scale 1: roundEven ties 0.5->0, 1.5->2, 2.5->2, 3.5->4, 126.5->126, 127.5->128,
        # 254.5->254, 255.5->256->255; -1 and -0.25 saturate/round to 0; 300 saturates.
        h("per-tensor rounding ties and saturation", "float32", "uint8", ties, [12], [1.0], [0], [1]),
        h("per-tensor rounding ties and saturation", "float16", "uint8", ties, [3, 4], [1.0], [0], [1, 1]),
        # scale 0.5, zeroPoint -3: 2x then -3.  0.25->0.5->0, 0.75->1.5->2, -0.75->-2,
        # 1.25->2.5->2, 10->20, 70->140 (137 saturates to 127), -70->-143 -> -128.
        h("per-tensor zeroPoint -3", "float32", "int8", [0.25, 0.75, -0.75, 1.25, 10.0, 70.0, -70.0, -63.25],
          [2, 4], [0.5], [-3], [1, 1]),
        h("per-tensor zeroPoint -3", "float16", "int8", [0.25, 0.75, -0.75, 1.25, 10.0, 70.0, -70.0, -63.25],
          [2, 4], [0.5], [-3], [1, 1]),
        h("per-axis scale and zeroPoint", "float32", "uint8", [1.0, 2.5, -3.0, 10.0, -100.0, 40.0, 0.5, 0.125, 0.375],
          [3, 3], [1.0, 0.5, 0.25], [0, 10, 128], [1, 3]),
        h("blockwise along the last axis", "float32", "int8", [0.5, 1.5, 3.0, -5.0, -0.25, 0.75, 9.0, 100.0],
          [2, 4], [0.5, 2.0], [0, -1], [1, 2]),
        h("blockwise along both axes", "float16", "uint8", [float(v) for v in range(-8, 8)] * 1,
          [4, 4], [0.25, 0.5, 1.0, 2.0], [100, 0, 50, 255], [2, 2]),
        h("0-D scalars", "float32", "int8", [10.5], [], [2.0], [1], []),
        h("Infinity saturates", "float32", "uint8", [float("inf"), float("-inf")], [2], [1.0], [7], [1]),
        h("Infinity saturates", "float16", "int8", [float("inf"), float("-inf")], [2], [0.5], [7], [1]),
        # 32-bit outputs (values below 2^24, where float32 holds every integer):
        # 1000.5/0.25 = 4002, -70000.25/0.25 = -280001, 65536.75/0.25 = 262147, zeroPoint -5.
        h("32-bit output", "float32", "int32", [1000.5, -70000.25, 65536.75, 0.125], [4], [0.25], [-5], [1]),
        # -1/0.5 = -2 (+3 = 1), 7.5/0.5 = 15 (+3 = 18), 1e6/0.5 = 2e6 (+3), -100 saturates at 0.
        h("32-bit output", "float32", "uint32", [-1.0, 7.5, 1.0e6, -100.0], [4], [0.5], [3], [1]),
        # float16: results stay below 2^11, where float16 holds every integer.
        h("32-bit output", "float16", "int32", [100.5, -3.25, 400.0, 0.75], [2, 2], [0.25], [7], [1, 1]),
    ]
    out.append(case("quantizeLinear float32 to uint8 NaN is implementation-defined",
                    {"x": tensor([NAN, 1.0, 2.0], [3], "float32"), "scale": tensor([1.0], [1], "float32", constant=True),
                     "zeroPoint": tensor([3], [1], "uint8", constant=True)}, _q_op()))
    # 0.25/0.1, 0.35/0.1, ... land within a float32 ULP of .5 ties: the
    # reference marks those elements implementation-defined; 0.3/0.1 is judged.
    out.append(case("quantizeLinear float32 to int8 quotients near .5 ties",
                    {"x": tensor([0.25, 0.35, 0.45, 0.3, -0.25, 1.05], [6], "float32"),
                     "scale": tensor([0.1], [1], "float32", constant=True),
                     "zeroPoint": tensor([0], [1], "int8", constant=True)}, _q_op()))
    g = _generated
    out += [
        g("quantizeLinear", "per-tensor", 700, "float32", "uint8", [4, 8], [1, 1]),
        g("quantizeLinear", "per-axis", 710, "float16", "int8", [3, 4, 5], [1, 4, 1]),
        g("quantizeLinear", "blockwise", 720, "float32", "int8", [4, 8], [2, 2]),
        g("quantizeLinear", "blockwise 3-D", 730, "float16", "uint8", [2, 6, 4], [1, 3, 2]),
        g("quantizeLinear", "per-axis", 740, "float32", "int32", [3, 5], [3, 1], low=-1000.0, high=1000.0),
        g("quantizeLinear", "per-tensor", 750, "float16", "uint32", [2, 3, 4], [1, 1, 1], low=-20.0, high=60.0),
        g("quantizeLinear", "blockwise 4-D", 760, "float32", "uint8", [2, 2, 4, 6], [1, 2, 2, 3]),
    ]
    # dequantizeLinear -> quantizeLinear with the same scale and zero point is
    # the identity: (x - 128) * 0.5 / 0.5 + 128 = x (all exact).
    out.append(case("dequantizeLinear then quantizeLinear round trip uint8 (hand)",
                    {"x": tensor([0, 1, 127, 128, 200, 255], [2, 3], "uint8"),
                     "scale": tensor([0.5], [1, 1], "float32", constant=True),
                     "zeroPoint": tensor([128], [1, 1], "uint8", constant=True)},
                    [op("dequantizeLinear", [{"input": "x"}, {"scale": "scale"}, {"zeroPoint": "zeroPoint"}], "dq"),
                     op("quantizeLinear", [{"input": "dq"}, {"scale": "scale"}, {"zeroPoint": "zeroPoint"}], "output")],
                    {"output": tensor([0, 1, 127, 128, 200, 255], [2, 3], "uint8")}))
    out.append(case("dequantizeLinear then quantizeLinear float16 int8 blockwise generated",
                    {"x": tensor(gen(790, "integers", low=-128, high=127), [4, 6], "int8"),
                     "scale": tensor(gen(791, "uniform", low=0.01, high=0.1), [2, 3], "float16", constant=True),
                     "zeroPoint": tensor(gen(792, "integers", low=-10, high=10), [2, 3], "int8", constant=True)},
                    [op("dequantizeLinear", [{"input": "x"}, {"scale": "scale"}, {"zeroPoint": "zeroPoint"}], "dq"),
                     op("quantizeLinear", [{"input": "dq"}, {"scale": "scale"}, {"zeroPoint": "zeroPoint"}], "output")]))
    return out


def dequantize_cases() -> list[dict]:
    h = _dequantize_hand
    out = [
        h("per-tensor", "uint8", "float32", [0, 1, 128, 255], [4], [0.5], [128], [1]),
        h("per-tensor", "int8", "float16", [-128, -1, 0, 127], [2, 2], [0.25], [-1], [1, 1]),
        h("per-axis", "uint8", "float32", [0, 10, 255, 1, 20, 100], [2, 3], [1.0, 0.5, 2.0], [0, 10, 255], [1, 3]),
        h("blockwise along the last axis", "int8", "float32", [-128, 127, 0, 5, 10, -10, 64, -64],
          [2, 4], [0.5, 4.0], [0, -8], [1, 2]),
        h("blockwise along both axes", "uint8", "float16", list(range(0, 160, 10)), [4, 4],
          [0.25, 0.5, 1.0, 2.0], [0, 100, 50, 255], [2, 2]),
        # |x - zeroPoint| stays below 2^24 so float32 holds every value exactly.
        h("32-bit input", "int32", "float32", [-1000000, 0, 16000000], [3], [0.5], [7], [1]),
        h("32-bit input", "uint32", "float32", [0, 100, 1000100], [3], [0.25], [100], [1]),
        h("32-bit input", "int32", "float16", [-1000, 0, 1000, 3], [4], [0.5], [-2], [1]),
        h("0-D scalars", "uint8", "float32", [200], [], [0.5], [100], []),
        # (255 - 0) * 300 = 76500 overflows float16 (max 65504): Infinity.
        h("float16 overflow gives Infinity", "uint8", "float16", [255, 1], [2], [300.0], [0], [1], want=[INF, 300.0]),
    ]
    out.append(case("dequantizeLinear uint8 to float32 non-positive scale is implementation-defined",
                    {"x": tensor([1, 2, 3], [3], "uint8"), "scale": tensor([0.0, -1.0, 1.0], [3], "float32", constant=True),
                     "zeroPoint": tensor([0, 0, 0], [3], "uint8", constant=True)}, _dq_op()))
    g = _generated
    out += [
        g("dequantizeLinear", "per-tensor", 800, "float32", "uint8", [3, 8], [1, 1], low=0, high=255),
        g("dequantizeLinear", "per-axis", 810, "float16", "int8", [3, 4, 5], [3, 1, 1], low=-128, high=127),
        g("dequantizeLinear", "blockwise", 820, "float32", "int8", [4, 6], [2, 3], low=-128, high=127),
        g("dequantizeLinear", "blockwise 3-D", 830, "float16", "uint8", [2, 6, 4], [2, 2, 2], low=0, high=255),
        g("dequantizeLinear", "per-axis", 840, "float32", "int32", [4, 5], [1, 5], low=-1000000, high=1000000),
        g("dequantizeLinear", "per-tensor", 850, "float16", "uint32", [2, 3, 4], [1, 1, 1], low=0, high=2000),
    ]
    # quantizeLinear -> dequantizeLinear ("fake quantization"), scale 0.5, zp 0:
    # 0.3/0.5 = 0.6 -> 1 -> 0.5; -1.2/0.5 = -2.4 -> -2 -> -1; 5 -> 10 -> 5;
    # 100/0.5 = 200 saturates to 127 -> 63.5.
    out.append(case("quantizeLinear then dequantizeLinear float32 int8 (hand)",
                    {"x": tensor([0.3, -1.2, 5.0, 100.0], [4], "float32"),
                     "scale": tensor([0.5], [1], "float32", constant=True),
                     "zeroPoint": tensor([0], [1], "int8", constant=True)},
                    [op("quantizeLinear", [{"input": "x"}, {"scale": "scale"}, {"zeroPoint": "zeroPoint"}], "q"),
                     op("dequantizeLinear", [{"input": "q"}, {"scale": "scale"}, {"zeroPoint": "zeroPoint"}], "output")],
                    {"output": tensor([0.5, -1.0, 5.0, 63.5], [4], "float32")}))
    return out


def main() -> None:
    write(FAMILY, "quantize_linear", quantize_cases())
    write(FAMILY, "dequantize_linear", dequantize_cases())


if __name__ == "__main__":
    main()
