"""Generate cases/pooling/*.json: averagePool2d, l2Pool2d, maxPool2d, resample2d.

Run: /work/venv/bin/python tools/cases/pooling.py

Hand cases carry expected values computed here with plain Python loops
written from the spec (windows over the padded input, padding elements never
taking part; resample2d's coordinate formulas), never numpy or the
reference. Data are small integers or quarters so results are exact, or the
expected value is rounded by Python's float arithmetic only where the case
says so. Generated cases omit expected values.
"""
from __future__ import annotations

import itertools
import math
import sys
from math import ceil, floor, prod
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from convolution import ints, pos, relayout  # noqa: E402
from reduction import INF, NAN, NINF, case, gen, op, tensor, write  # noqa: E402


def pool_plain(kind, x, xs, window=None, padding=(0, 0, 0, 0), strides=(1, 1), dilations=(1, 1),
               rounding="floor", output_sizes=None):
    """nchw pooling by the definition: each window's input elements (padding excluded)."""
    n_, c_, h_, w_ = xs
    window = window or (h_, w_)
    eff = [(window[i] - 1) * dilations[i] + 1 for i in range(2)]
    calc_h = (h_ - eff[0] + padding[0] + padding[1]) / strides[0] + 1
    calc_w = (w_ - eff[1] + padding[2] + padding[3]) / strides[1] + 1
    rnd = floor if rounding == "floor" else ceil
    oh, ow = output_sizes if output_sizes else (rnd(calc_h), rnd(calc_w))
    out = []
    for n, c, y, xo in itertools.product(range(n_), range(c_), range(oh), range(ow)):
        vals = []
        for i, j in itertools.product(range(window[0]), range(window[1])):
            iy = y * strides[0] + i * dilations[0] - padding[0]
            ix = xo * strides[1] + j * dilations[1] - padding[2]
            if 0 <= iy < h_ and 0 <= ix < w_:
                vals.append(x[((n * c_ + c) * h_ + iy) * w_ + ix])
        if kind == "averagePool2d":
            out.append(math.fsum(vals) / len(vals))
        elif kind == "l2Pool2d":
            out.append(math.sqrt(math.fsum(v * v for v in vals)))
        else:
            out.append(max(vals))
    return out, [n_, c_, oh, ow]


def _plain(opts):
    names = {"windowDimensions": "window", "padding": "padding", "strides": "strides", "dilations": "dilations",
             "outputShapeRounding": "rounding", "outputSizes": "output_sizes"}
    return {names[k]: v for k, v in opts.items() if k in names}


def pool_hand(kind, name, data_type, xs, layout="nchw", data=None, **opts):
    x = data if data is not None else ints(prod(xs))
    expected, out_shape = pool_plain(kind, x, xs, **_plain(opts))
    xd, xshape = relayout(x, xs, "nchw", layout)
    ed, eshape = relayout(expected, out_shape, "nchw", layout)
    options = {**opts, **({"layout": layout} if layout != "nchw" else {})}
    args = [{"input": "input"}] + ([{"options": options}] if options else [])
    return case(name, {"input": tensor(xd, xshape, data_type)}, op(kind, args),
                {"output": tensor(ed, eshape, data_type)})


def pool_generated(kind, name, data_type, shape, seed, **options):
    args = [{"input": "input"}] + ([{"options": options}] if options else [])
    mixed_signs_are_exact = kind == "maxPool2d"  # no sum: the sign cannot cost precision
    data = (gen(seed) if mixed_signs_are_exact else pos(seed)) if data_type.startswith("float") else \
        gen(seed, "integers", low=-100, high=100)
    if data_type.startswith("u"):
        data = gen(seed, "integers", low=0, high=200)
    return case(name, {"input": tensor(data, shape, data_type)}, op(kind, args))


GENERATED_POOLS = [  # (nchw shape, options)
    ([1, 16, 14, 14], {"windowDimensions": [3, 3], "strides": [2, 2], "padding": [1, 1, 1, 1]}),
    ([2, 8, 17, 11], {"windowDimensions": [4, 3], "strides": [3, 2], "dilations": [1, 2],
                      "outputShapeRounding": "ceil"}),
    ([1, 32, 7, 7], {}),
    ([1, 5, 12, 13], {"windowDimensions": [2, 5], "padding": [1, 0, 2, 0], "strides": [2, 2],
                      "outputSizes": [7, 6]}),
]


def pool_cases(kind) -> list[dict]:
    out = []
    for dt in ("float32", "float16"):
        out.append(pool_hand(kind, f"{kind} {dt} default options: global window (hand)", dt, [1, 2, 3, 4]))
        out.append(pool_hand(kind, f"{kind} {dt} window, strides, asymmetric padding (hand)", dt, [1, 2, 5, 6],
                             windowDimensions=[3, 2], strides=[2, 3], padding=[1, 0, 1, 2]))
        out.append(pool_hand(kind, f"{kind} {dt} nhwc dilations (hand)", dt, [2, 3, 6, 5], layout="nhwc",
                             windowDimensions=[2, 2], dilations=[2, 3]))
    out.append(pool_hand(kind, f"{kind} float32 outputShapeRounding ceil (hand)", "float32", [1, 1, 7, 7],
                         windowDimensions=[3, 3], strides=[2, 2], padding=[0, 0, 0, 0], outputShapeRounding="ceil"))
    out.append(pool_hand(kind, f"{kind} float32 outputShapeRounding floor (hand)", "float32", [1, 1, 7, 7],
                         windowDimensions=[2, 2], strides=[2, 2], outputShapeRounding="floor"))
    out.append(pool_hand(kind, f"{kind} float32 outputSizes ceil with padding kept (hand)", "float32", [1, 1, 7, 7],
                         windowDimensions=[4, 4], padding=[1, 1, 1, 1], strides=[2, 2], outputSizes=[4, 4]))
    out.append(pool_hand(kind, f"{kind} float16 outputSizes floor, rounding ignored (hand)", "float16",
                         [1, 2, 7, 7], windowDimensions=[4, 4], padding=[1, 1, 1, 1], strides=[2, 2],
                         outputShapeRounding="ceil", outputSizes=[3, 3]))
    out.append(pool_hand(kind, f"{kind} float32 nhwc window covers the padded input (hand)", "float32",
                         [1, 2, 3, 3], layout="nhwc", windowDimensions=[5, 5], padding=[2, 2, 2, 2]))
    seed = {"averagePool2d": 5000, "l2Pool2d": 5100, "maxPool2d": 5200}[kind]
    for (shape, opts), (layout, dt) in itertools.product(GENERATED_POOLS, [("nchw", "float32"), ("nhwc", "float16")]):
        seed += 1
        _, xshape = relayout(list(range(prod(shape))), shape, "nchw", layout)
        options = {**opts, **({"layout": layout} if layout != "nchw" else {})}
        out.append(pool_generated(kind, f"{kind} {dt} {layout} {xshape} "
                                        f"{' '.join(f'{k}={v}' for k, v in opts.items()).replace(' ', '') or 'global'}"
                                        f" generated", dt, xshape, seed, **options))
    return out


def average_pool2d_cases() -> list[dict]:
    out = pool_cases("averagePool2d")
    out.append(pool_hand("averagePool2d", "averagePool2d float32 quarters, padding excluded (hand)", "float32",
                         [1, 1, 2, 3], data=[0.25, -0.5, 1.75, 3.0, 0.0, -2.25], windowDimensions=[2, 2],
                         padding=[1, 0, 0, 1]))
    out.append(pool_hand("averagePool2d", "averagePool2d float32 Infinity propagates (hand)", "float32",
                         [1, 1, 2, 2], data=[INF_F, 1.0, 2.0, 3.0], windowDimensions=[2, 1]))
    return _encode(out)


def l2_pool2d_cases() -> list[dict]:
    out = pool_cases("l2Pool2d")
    out.append(pool_hand("l2Pool2d", "l2Pool2d float32 3-4-5 (hand)", "float32", [1, 1, 2, 2],
                         data=[3.0, -4.0, 0.0, 12.0], windowDimensions=[1, 2]))
    out.append(pool_hand("l2Pool2d", "l2Pool2d float16 result above float16 max is Infinity (hand)", "float16",
                         [1, 1, 1, 2], data=[65504.0, 65504.0]))
    return _encode(out)


def max_pool2d_cases() -> list[dict]:
    out = pool_cases("maxPool2d")
    x = [1.0, NINF_F, INF_F, -2.0, NINF_F, NINF_F, 65504.0, -65504.0, 0.5]
    for dt in ("float32", "float16"):
        out.append(pool_hand("maxPool2d", f"maxPool2d {dt} Infinity and -Infinity, padding ignored (hand)", dt,
                             [1, 1, 3, 3], data=x, windowDimensions=[2, 2], padding=[1, 1, 1, 1], strides=[2, 2]))
    out.append(pool_hand("maxPool2d", "maxPool2d float16 max value (hand)", "float16", [1, 1, 2, 2],
                         data=[65504.0, -65504.0, 65504.0, 0.0], windowDimensions=[1, 2]))
    out.append(pool_hand("maxPool2d", "maxPool2d float32 1x1 window copies NaN (hand)", "float32", [1, 1, 1, 3],
                         data=[NAN_F, 1.0, -0.5], windowDimensions=[1, 1]))
    # A NaN beside other elements: the spec does not define max with NaN, so
    # the reference marks those windows implementation-defined; no literal.
    out.append(case("maxPool2d float32 NaN in a window is implementation-defined",
                    {"input": tensor([NAN, 1.0, 2.0, 3.0], [1, 1, 2, 2], "float32")},
                    op("maxPool2d", [{"input": "input"}, {"options": {"windowDimensions": [1, 2]}}])))
    for dt, low, high in (("int8", -128, 127), ("uint8", 0, 255), ("int32", -2**31, 2**31 - 1),
                          ("uint32", 0, 2**32 - 1)):
        data = [low, high, 0, low + 1, high - 1, 5, 7, low]
        out.append(pool_hand("maxPool2d", f"maxPool2d {dt} range extremes with padding (hand)", dt, [1, 2, 2, 2],
                             data=data, windowDimensions=[2, 2], padding=[1, 0, 0, 1]))
    big = [2**62 + 1, 2**62, -(2**62) - 3, 2**62 + 3]
    case_i64 = pool_hand("maxPool2d", "maxPool2d int64 beyond 2^53 stays exact (hand)", "int64", [1, 1, 2, 2],
                         data=big, windowDimensions=[2, 1])
    out.append(case_i64)
    big_u = [2**64 - 1, 2**63 + 5, 0, 2**63]
    out.append(pool_hand("maxPool2d", "maxPool2d uint64 beyond 2^53 stays exact (hand)", "uint64", [1, 1, 2, 2],
                         data=big_u, windowDimensions=[1, 2]))
    for dt in ("int32", "uint8"):
        out.append(pool_generated("maxPool2d", f"maxPool2d {dt} nhwc generated", dt, [1, 9, 9, 4], 5300 + len(dt),
                                  windowDimensions=[3, 3], strides=[2, 2], layout="nhwc", padding=[1, 1, 1, 1]))
    return _encode(out)


# --- resample2d, the spec's formulas in plain Python


def resample_plain(mode, x, xs, axes=(2, 3), scales=(1.0, 1.0), sizes=None):
    out_sizes = list(sizes) if sizes else [floor(xs[a] * s) for a, s in zip(axes, scales)]
    out_shape = list(xs)
    for a, s in zip(axes, out_sizes):
        out_shape[a] = s
    src = [prod(xs[i + 1:]) for i in range(4)]

    def coord(k, o):  # spec: scale = outputSize / inputSize, half-pixel, clamped
        size_in, size_out = xs[axes[k]], out_sizes[k]
        c = (o + 0.5) / (size_out / size_in) - 0.5
        return min(max(c, 0.0), size_in - 1)

    def at(index, k0, k1):
        index = list(index)
        index[axes[0]], index[axes[1]] = k0, k1
        return x[sum(i * s for i, s in zip(index, src))]

    out = []
    for index in itertools.product(*(range(d) for d in out_shape)):
        c0, c1 = coord(0, index[axes[0]]), coord(1, index[axes[1]])
        if mode == "nearest-neighbor":
            out.append(at(index, ceil(c0 - 0.5), ceil(c1 - 0.5)))
        else:  # y = first axis, x = second axis, as the spec's formula
            y0, y1, x0, x1 = floor(c0), ceil(c0), floor(c1), ceil(c1)
            tx, ty = c1 - x0, c0 - y0
            vy0 = at(index, y0, x0) * (1 - tx) + at(index, y0, x1) * tx
            vy1 = at(index, y1, x0) * (1 - tx) + at(index, y1, x1) * tx
            out.append(vy0 * (1 - ty) + vy1 * ty)
    return out, out_shape


def resample_hand(name, data_type, xs, data=None, **opts):
    x = data if data is not None else ints(prod(xs))
    plain = {k: v for k, v in opts.items() if k in ("axes", "scales", "sizes")}
    expected, out_shape = resample_plain(opts.get("mode", "nearest-neighbor"), x, xs, **plain)
    return case(name, {"input": tensor(x, xs, data_type)},
                op("resample2d", [{"input": "input"}] + ([{"options": opts}] if opts else [])),
                {"output": tensor(expected, out_shape, data_type)})


def resample2d_cases() -> list[dict]:
    out = []
    for dt in ("float32", "float16"):
        out.append(resample_hand(f"resample2d {dt} default options copy (hand)", dt, [1, 2, 2, 3]))
        out.append(resample_hand(f"resample2d {dt} nearest noninteger upscaling with scales (hand)", dt,
                                 [1, 1, 1, 3], data=[10.0, 20.0, 30.0], scales=[1.0, 1.5]))
        out.append(resample_hand(f"resample2d {dt} nearest downscaling with sizes (hand)", dt, [1, 1, 1, 5],
                                 data=[10.0, 20.0, 30.0, 40.0, 50.0], sizes=[1, 2]))
        out.append(resample_hand(f"resample2d {dt} nearest ties select the smaller index (hand)", dt, [1, 1, 1, 2],
                                 data=[10.0, 20.0], sizes=[1, 3]))
        out.append(resample_hand(f"resample2d {dt} linear spec note example (hand)", dt, [1, 1, 4, 4],
                                 data=[0.0, 1, 2, 3, 0, 1, 2, 3, 12, 13, 14, 15, 12, 13, 14, 15],
                                 mode="linear", sizes=[8, 8]))
        out.append(resample_hand(f"resample2d {dt} linear scales 0.5 downsampling (hand)", dt, [1, 2, 4, 4],
                                 mode="linear", scales=[0.5, 0.5]))
    for axes in ([0, 1], [1, 2], [2, 3], [0, 2], [0, 3], [1, 3], [3, 2], [2, 1]):
        for mode in ("nearest-neighbor", "linear"):
            out.append(resample_hand(f"resample2d float32 {mode} axes={axes} sizes=[3,4] (hand)", "float32",
                                     [2, 2, 3, 2], data=[float(v) for v in range(24)], mode=mode, axes=axes,
                                     sizes=[3, 4]))
    out.append(resample_hand("resample2d float32 sizes take precedence over scales (hand)", "float32",
                             [1, 2, 3, 2], data=[float(v) for v in range(1, 13)], axes=[1, 2], sizes=[3, 4],
                             scales=[99.0, 99.0]))
    for dt in ("int8", "uint8"):
        out.append(resample_hand(f"resample2d {dt} nearest (hand)", dt, [1, 1, 2, 2],
                                 data=[-7, 100, 3, 0] if dt == "int8" else [250, 1, 3, 0], scales=[2.0, 1.5]))
        # coordinates 0, 0.25, 0.75, 1 on [0, 4]: 0, 1, 3, 4 -- exact integers.
        out.append(resample_hand(f"resample2d {dt} linear with exact integer results (hand)", dt, [1, 1, 1, 2],
                                 data=[0, 4], mode="linear", sizes=[1, 4]))
    out.append(resample_hand("resample2d float32 nearest Infinity and NaN are copied (hand)", "float32",
                             [1, 1, 1, 2], data=[INF_F, NAN_F], sizes=[1, 4]))
    seed = 5500
    for mode, dt, (shape, opts) in itertools.product(("nearest-neighbor", "linear"), ("float32", "float16"), [
            ([1, 8, 13, 17], {"scales": [2.0, 1.7]}), ([2, 3, 32, 24], {"sizes": [15, 50]}),
            ([1, 20, 20, 3], {"axes": [1, 2], "scales": [0.35, 0.5]})]):
        seed += 1
        options = {"mode": mode, **opts}
        out.append(case(f"resample2d {dt} {mode} {shape} {' '.join(f'{k}={v}' for k, v in opts.items())} generated",
                        # Linear blends of data in [1, 2) stay in [1, 2): a float32 weight
                        # error is then a few ULP, not hundreds on a near-zero output.
                        {"input": tensor(gen(seed) if mode == "nearest-neighbor" else gen(seed, "uniform", low=1, high=2),
                                         shape, dt)},
                        op("resample2d", [{"input": "input"}, {"options": options}])))
    out.append(case("resample2d int8 linear generated (non-integral blends implementation-defined)",
                    {"input": tensor(gen(5599, "integers", low=-128, high=127), [1, 2, 5, 5], "int8")},
                    op("resample2d", [{"input": "input"}, {"options": {"mode": "linear", "scales": [1.6, 2.0]}}])))
    return _encode(out)


# --- special values: computed with Python floats, written as the schema's strings

INF_F, NINF_F, NAN_F = math.inf, -math.inf, math.nan


def _encode_value(v):
    if isinstance(v, float):
        if math.isnan(v):
            return NAN
        if math.isinf(v):
            return INF if v > 0 else NINF
        if v == int(v) and abs(v) <= 2**53:
            return v
    if isinstance(v, int) and abs(v) > 2**53:
        return {"bigint": str(v)}
    return v


def _encode(cases):
    for c in cases:
        for t in list(c["graph"]["inputs"].values()) + list(c["graph"].get("expectedOutputs", {}).values()):
            if isinstance(t["data"], list):
                t["data"] = [_encode_value(v) for v in t["data"]]
    return cases


def main() -> None:
    write("pooling", "average_pool2d", average_pool2d_cases())
    write("pooling", "l2_pool2d", l2_pool2d_cases())
    write("pooling", "max_pool2d", max_pool2d_cases())
    write("pooling", "resample2d", resample2d_cases())


if __name__ == "__main__":
    main()
