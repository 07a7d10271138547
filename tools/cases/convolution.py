"""Generate cases/convolution/*.json: conv2d, convTranspose2d, and a few
graphs mixing them with pooling / resample2d.

Run: /work/venv/bin/python tools/cases/convolution.py

Hand cases carry expected values computed here with plain Python loops
written straight from the spec's definitions (nested index arithmetic, never
numpy or the reference), on small integer-valued data so every result is
exact in float16 too. Generated cases (seeded inputs) omit expected values:
the reference computes them.
"""
from __future__ import annotations

import itertools
import sys
from math import prod
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reduction import INF, case, gen, op, tensor, write  # noqa: E402

# --- plain-Python tensors: (flat list, shape) in row-major order


def strides_of(shape):
    return [prod(shape[i + 1:]) for i in range(len(shape))]


def permute(data, shape, perm):
    """Transpose a flat row-major tensor: output dim k is input dim perm[k]."""
    src = strides_of(shape)
    out_shape = [shape[p] for p in perm]
    out = []
    for index in itertools.product(*(range(d) for d in out_shape)):
        out.append(data[sum(index[k] * src[perm[k]] for k in range(len(perm)))])
    return out, out_shape


def layout_perm(source, target):
    """Permutation taking a tensor in ``source`` layout to ``target`` ('nhwc' -> 'nchw')."""
    return [source.index(letter) for letter in target]


def relayout(data, shape, source, target):
    return permute(data, shape, layout_perm(source, target))


def pos(seed) -> dict:
    """Generated floats in [0, 1), as WPT's conv/pool data: the ULP budgets
    (kernel elements * 2 and the like) assume sums without cancellation; a
    mixed-sign sum landing near 0 has a huge ULP error at a tiny absolute
    error in any float32 backend."""
    return gen(seed, "uniform", low=0, high=1)


def ints(count, start=-3, span=7):
    """Deterministic small integers: exact in float16 and in every sum here."""
    return [float((start + 5 * i) % span + start) for i in range(count)]


# --- the spec's conv2d / convTranspose2d as plain loops (nchw, oihw / iohw)


def conv2d_plain(x, xs, w, ws, padding=(0, 0, 0, 0), strides=(1, 1), dilations=(1, 1), groups=1, bias=None):
    n_, c_, h_, w_ = xs
    o_, cg, kh, kw = ws
    oh = (h_ + padding[0] + padding[1] - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (w_ + padding[2] + padding[3] - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    out = []
    for n, o, y, xo in itertools.product(range(n_), range(o_), range(oh), range(ow)):
        g = o // (o_ // groups)
        total = bias[o] if bias else 0.0
        for c, i, j in itertools.product(range(cg), range(kh), range(kw)):
            iy = y * strides[0] + i * dilations[0] - padding[0]
            ix = xo * strides[1] + j * dilations[1] - padding[2]
            if 0 <= iy < h_ and 0 <= ix < w_:
                total += x[((n * c_ + g * cg + c) * h_ + iy) * w_ + ix] * w[((o * cg + c) * kh + i) * kw + j]
        out.append(total)
    return out, [n_, o_, oh, ow]


def conv_transpose2d_plain(x, xs, w, ws, padding=(0, 0, 0, 0), strides=(1, 1), dilations=(1, 1), groups=1,
                           output_padding=(0, 0), output_sizes=None, bias=None):
    n_, c_, h_, w_ = xs
    _, og, kh, kw = ws
    o_ = og * groups
    calc_h = (h_ - 1) * strides[0] + (kh - 1) * dilations[0] + 1 - padding[0] - padding[1]
    calc_w = (w_ - 1) * strides[1] + (kw - 1) * dilations[1] + 1 - padding[2] - padding[3]
    oh, ow = output_sizes if output_sizes else (calc_h + output_padding[0], calc_w + output_padding[1])
    out = [0.0] * (n_ * o_ * oh * ow)
    cg = c_ // groups
    for n, c, iy, ix, k, i, j in itertools.product(range(n_), range(c_), range(h_), range(w_), range(og),
                                                   range(kh), range(kw)):
        o = (c // cg) * og + k
        y = iy * strides[0] + i * dilations[0] - padding[0]
        xo = ix * strides[1] + j * dilations[1] - padding[2]
        if 0 <= y < oh and 0 <= xo < ow:
            out[((n * o_ + o) * oh + y) * ow + xo] += x[((n * c_ + c) * h_ + iy) * w_ + ix] * w[((c * og + k) * kh + i) * kw + j]
    if bias:
        out = [v + bias[(idx // (oh * ow)) % o_] for idx, v in enumerate(out)]
    return out, [n_, o_, oh, ow]


# --- case builders


def conv_case(op_name, name, data_type, x, xs, w, ws, options, expected=None, bias=None, constant_filter=False):
    inputs = {"input": tensor(x, xs, data_type), "filter": tensor(w, ws, data_type, constant=constant_filter)}
    if bias is not None:
        inputs["bias"] = tensor(bias, [len(bias)], data_type, constant=True)
        options = {**options, "bias": "bias"}
    args = [{"input": "input"}, {"filter": "filter"}] + ([{"options": options}] if options else [])
    exp = None
    if expected is not None:
        exp = {"output": tensor(expected[0], expected[1], data_type)}
    return case(name, inputs, op(op_name, args), exp)


def conv2d_hand(name, data_type, xs, ws, input_layout="nchw", filter_layout="oihw", bias=None, **opts):
    """A hand case: data in nchw/oihw, computed by the plain loops, then
    laid out as the case's layouts ask."""
    x, w = ints(prod(xs)), ints(prod(ws), start=-2, span=5)
    expected, out_shape = conv2d_plain(x, xs, w, ws, bias=bias, **_plain_opts(opts))
    xd, xshape = relayout(x, xs, "nchw", input_layout)
    wd, wshape = relayout(w, ws, "oihw", filter_layout)
    ed, eshape = relayout(expected, out_shape, "nchw", input_layout)
    options = {**opts}
    if input_layout != "nchw":
        options["inputLayout"] = input_layout
    if filter_layout != "oihw":
        options["filterLayout"] = filter_layout
    return conv_case("conv2d", name, data_type, xd, xshape, wd, wshape, options, (ed, eshape), bias)


def _plain_opts(opts):
    keys = {"padding": "padding", "strides": "strides", "dilations": "dilations", "groups": "groups",
            "outputPadding": "output_padding", "outputSizes": "output_sizes"}
    return {keys[k]: v for k, v in opts.items() if k in keys}


def conv2d_cases() -> list[dict]:
    out = []
    for dt in ("float32", "float16"):
        out.append(conv2d_hand(f"conv2d {dt} default options (hand)", dt, [1, 1, 4, 4], [1, 1, 3, 3]))
        out.append(conv2d_hand(f"conv2d {dt} asymmetric padding, strides, bias (hand)", dt, [1, 2, 5, 4],
                               [3, 2, 2, 3], bias=[1.0, -2.0, 0.5], padding=[1, 0, 2, 1], strides=[2, 3]))
        out.append(conv2d_hand(f"conv2d {dt} dilations (hand)", dt, [1, 1, 6, 5], [2, 1, 2, 2], dilations=[2, 3]))
    out.append(conv2d_hand("conv2d float32 groups=2 (hand)", "float32", [1, 4, 4, 4], [4, 2, 2, 2], groups=2))
    out.append(conv2d_hand("conv2d float32 depthwise groups=3 nhwc ihwo (hand)", "float32", [1, 3, 4, 4],
                           [3, 1, 3, 3], input_layout="nhwc", filter_layout="ihwo", groups=3, padding=[1, 1, 1, 1]))
    for il, fl in itertools.product(("nchw", "nhwc"), ("oihw", "hwio", "ohwi", "ihwo")):
        dt = "float16" if fl in ("hwio", "ihwo") else "float32"
        out.append(conv2d_hand(f"conv2d {dt} inputLayout={il} filterLayout={fl} (hand)", dt, [2, 3, 4, 3],
                               [2, 3, 2, 2], input_layout=il, filter_layout=fl, padding=[0, 1, 1, 0]))
    # Hand edges, worked in the head: 1x1 filter of weight 1 copies the input.
    out.append(conv_case("conv2d", "conv2d float32 Infinity propagates (hand)", "float32",
                         [INF, 1.0, 2.0, -3.0], [1, 1, 2, 2], [1.0], [1, 1, 1, 1], {},
                         ([INF, 1.0, 2.0, -3.0], [1, 1, 2, 2])))
    out.append(conv_case("conv2d", "conv2d float16 sum overflows to Infinity (hand)", "float16",
                         [60000.0, 60000.0], [1, 1, 1, 2], [1.0, 1.0], [1, 1, 1, 2], {}, ([INF], [1, 1, 1, 1])))
    out.append(conv_case("conv2d", "conv2d float16 max value times 1 (hand)", "float16",
                         [65504.0, -65504.0], [1, 1, 1, 2], [1.0], [1, 1, 1, 1], {},
                         ([65504.0, -65504.0], [1, 1, 1, 2])))
    # Generated: larger shapes, every layout, strides/dilations/padding/groups, expected from the reference.
    seed = 2000
    shapes = [  # (input nchw, filter oihw, options)
        ([1, 8, 16, 16], [16, 8, 3, 3], {"padding": [1, 1, 1, 1]}),
        ([2, 6, 15, 13], [12, 3, 3, 2], {"groups": 2, "strides": [2, 1], "padding": [1, 0, 0, 1]}),
        ([1, 16, 12, 12], [16, 1, 3, 3], {"groups": 16, "dilations": [2, 2], "padding": [2, 2, 2, 2]}),
        ([1, 32, 7, 7], [64, 32, 1, 1], {}),
        ([1, 4, 20, 9], [6, 4, 5, 3], {"strides": [3, 2], "dilations": [1, 2], "padding": [2, 1, 0, 3]}),
    ]
    combos = [("nchw", "oihw", "float32"), ("nhwc", "ohwi", "float32"), ("nhwc", "hwio", "float16"),
              ("nchw", "ihwo", "float16")]
    for (xs, ws, opts), (il, fl, dt) in itertools.product(shapes, combos):
        seed += 1
        _, wshape = permute(list(range(prod(ws))), ws, layout_perm("oihw", fl))
        _, xshape = permute(list(range(prod(xs))), xs, layout_perm("nchw", il))
        options = {**opts, **({"inputLayout": il} if il != "nchw" else {}),
                   **({"filterLayout": fl} if fl != "oihw" else {})}
        bias = pos(seed + 500) if seed % 2 else None
        inputs = {"input": tensor(pos(seed), xshape, dt), "filter": tensor(pos(seed + 100), wshape, dt, constant=True)}
        if bias:
            inputs["bias"] = tensor(bias, [ws[0]], dt, constant=True)
            options["bias"] = "bias"
        args = [{"input": "input"}, {"filter": "filter"}] + ([{"options": options}] if options else [])
        out.append(case(f"conv2d {dt} {il} {fl} input {xshape} filter {wshape} {_describe(opts)} generated",
                        inputs, op("conv2d", args)))
    return out


def _describe(opts):
    return " ".join(f"{k}={v}" for k, v in opts.items()).replace(" ", "") or "defaults"


def conv_transpose2d_hand(name, data_type, xs, ws, input_layout="nchw", filter_layout="iohw", bias=None, **opts):
    x, w = ints(prod(xs)), ints(prod(ws), start=-2, span=5)
    expected, out_shape = conv_transpose2d_plain(x, xs, w, ws, bias=bias, **_plain_opts(opts))
    xd, xshape = relayout(x, xs, "nchw", input_layout)
    wd, wshape = relayout(w, ws, "iohw", filter_layout)
    ed, eshape = relayout(expected, out_shape, "nchw", input_layout)
    options = {**opts}
    if input_layout != "nchw":
        options["inputLayout"] = input_layout
    if filter_layout != "iohw":
        options["filterLayout"] = filter_layout
    return conv_case("convTranspose2d", name, data_type, xd, xshape, wd, wshape, options, (ed, eshape), bias)


def conv_transpose2d_cases() -> list[dict]:
    out = []
    for dt in ("float32", "float16"):
        out.append(conv_transpose2d_hand(f"convTranspose2d {dt} default options (hand)", dt, [1, 1, 3, 3],
                                         [1, 1, 2, 2]))
        out.append(conv_transpose2d_hand(f"convTranspose2d {dt} strides and outputPadding (hand)", dt,
                                         [1, 2, 2, 3], [2, 1, 3, 2], strides=[2, 3], outputPadding=[1, 2]))
        out.append(conv_transpose2d_hand(f"convTranspose2d {dt} asymmetric padding, dilations, bias (hand)", dt,
                                         [1, 1, 3, 3], [1, 2, 3, 3], bias=[0.5, -1.0], padding=[1, 0, 0, 2],
                                         dilations=[2, 1]))
    out.append(conv_transpose2d_hand("convTranspose2d float32 outputSizes (hand)", "float32", [1, 1, 2, 2],
                                     [1, 1, 3, 3], strides=[3, 2], outputSizes=[8, 5]))
    out.append(conv_transpose2d_hand("convTranspose2d float32 outputSizes ignores outputPadding (hand)", "float32",
                                     [1, 1, 2, 2], [1, 1, 2, 2], strides=[2, 2], outputPadding=[1, 1],
                                     outputSizes=[4, 5]))
    out.append(conv_transpose2d_hand("convTranspose2d float32 groups=2 (hand)", "float32", [1, 4, 2, 2],
                                     [4, 3, 2, 2], groups=2, strides=[2, 2]))
    out.append(conv_transpose2d_hand("convTranspose2d float16 depthwise groups=3 nhwc ohwi (hand)", "float16",
                                     [1, 3, 3, 3], [3, 1, 2, 2], groups=3, input_layout="nhwc", filter_layout="ohwi"))
    for il, fl in itertools.product(("nchw", "nhwc"), ("iohw", "hwoi", "ohwi")):
        dt = "float16" if fl == "hwoi" else "float32"
        out.append(conv_transpose2d_hand(f"convTranspose2d {dt} inputLayout={il} filterLayout={fl} (hand)", dt,
                                         [2, 2, 3, 2], [2, 3, 2, 2], input_layout=il, filter_layout=fl,
                                         padding=[0, 1, 1, 0], strides=[2, 1]))
    out.append(conv_case("convTranspose2d", "convTranspose2d float32 Infinity propagates (hand)", "float32",
                         [INF, 1.0], [1, 1, 1, 2], [1.0], [1, 1, 1, 1], {}, ([INF, 1.0], [1, 1, 1, 2])))
    out.append(conv_case("convTranspose2d", "convTranspose2d float16 overlap overflows to Infinity (hand)",
                         "float16", [40000.0, 40000.0], [1, 1, 1, 2], [1.0, 1.0], [1, 1, 1, 2], {},
                         ([40000.0, INF, 40000.0], [1, 1, 1, 3])))
    seed = 3000
    shapes = [  # (input nchw, filter iohw, options)
        ([1, 8, 8, 8], [8, 4, 3, 3], {"strides": [2, 2], "padding": [1, 1, 1, 1], "outputPadding": [1, 1]}),
        ([2, 6, 5, 7], [6, 2, 3, 2], {"groups": 3, "dilations": [2, 1]}),
        ([1, 16, 6, 6], [16, 1, 4, 4], {"groups": 16, "strides": [2, 2], "padding": [1, 1, 1, 1]}),
        ([1, 4, 9, 5], [4, 5, 3, 5], {"strides": [3, 2], "padding": [0, 2, 1, 0], "outputSizes": [27, 12]}),
        ([1, 32, 4, 4], [32, 8, 1, 1], {}),
    ]
    combos = [("nchw", "iohw", "float32"), ("nhwc", "ohwi", "float16"), ("nhwc", "hwoi", "float32")]
    for (xs, ws, opts), (il, fl, dt) in itertools.product(shapes, combos):
        seed += 1
        _, wshape = permute(list(range(prod(ws))), ws, layout_perm("iohw", fl))
        _, xshape = permute(list(range(prod(xs))), xs, layout_perm("nchw", il))
        options = {**opts, **({"inputLayout": il} if il != "nchw" else {}),
                   **({"filterLayout": fl} if fl != "iohw" else {})}
        inputs = {"input": tensor(pos(seed), xshape, dt), "filter": tensor(pos(seed + 100), wshape, dt)}
        if seed % 2:
            inputs["bias"] = tensor(pos(seed + 500), [ws[1] * opts.get("groups", 1)], dt, constant=True)
            options["bias"] = "bias"
        args = [{"input": "input"}, {"filter": "filter"}] + ([{"options": options}] if options else [])
        out.append(case(f"convTranspose2d {dt} {il} {fl} input {xshape} filter {wshape} {_describe(opts)} generated",
                        inputs, op("convTranspose2d", args)))
    return out


def graph_cases() -> list[dict]:
    """Multi-operator graphs of this family's ops (expected from the reference)."""
    out = []
    for dt in ("float32", "float16"):
        out.append(case(f"conv2d then maxPool2d {dt} nhwc generated",
                        {"input": tensor(pos(4001), [1, 12, 12, 3], dt),
                         "filter": tensor(pos(4002), [8, 3, 3, 3], dt, constant=True),
                         "bias": tensor(pos(4003), [8], dt, constant=True)},
                        [op("conv2d", [{"input": "input"}, {"filter": "filter"},
                                       {"options": {"inputLayout": "nhwc", "filterLayout": "ohwi",
                                                    "padding": [1, 1, 1, 1], "bias": "bias"}}], "conv"),
                         op("maxPool2d", [{"input": "conv"}, {"options": {"windowDimensions": [2, 2],
                                                                          "strides": [2, 2], "layout": "nhwc"}}])]))
    out.append(case("conv2d then resample2d linear float32 generated",
                    {"input": tensor(pos(4011), [1, 4, 6, 6], "float32"),
                     "filter": tensor(pos(4012), [4, 1, 3, 3], "float32", constant=True)},
                    [op("conv2d", [{"input": "input"}, {"filter": "filter"},
                                   {"options": {"groups": 4, "padding": [1, 1, 1, 1]}}], "conv"),
                     op("resample2d", [{"input": "conv"}, {"options": {"mode": "linear", "scales": [2.0, 1.5]}}])]))
    out.append(case("convTranspose2d then averagePool2d float32 generated",
                    {"input": tensor(pos(4021), [1, 3, 4, 4], "float32"),
                     "filter": tensor(pos(4022), [3, 2, 3, 3], "float32", constant=True)},
                    [op("convTranspose2d", [{"input": "input"}, {"filter": "filter"},
                                            {"options": {"strides": [2, 2]}}], "up"),
                     op("averagePool2d", [{"input": "up"}, {"options": {"windowDimensions": [3, 3],
                                                                        "padding": [1, 1, 1, 1]}}])]))
    return out


def main() -> None:
    write("convolution", "conv2d", conv2d_cases())
    write("convolution", "conv_transpose2d", conv_transpose2d_cases())
    write("convolution", "graphs", graph_cases())


if __name__ == "__main__":
    main()
