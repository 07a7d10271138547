"""Write the built-in bench suites (harness/bench/suites/*.json) from the
workload descriptions below. The JSON files are the shipped data; this script
is how they were made (run it again after editing, and commit both):

    python tools/make_bench_suites.py

Data: graphs whose outputs are sums of many products (conv2d, matmul, gemm)
get non-negative inputs and weights scaled by 2/K (K = terms per sum), so
outputs are O(1) and never cancel to near zero; averages and interpolations
(pools, resample2d) get non-negative inputs, layerNormalization a bias that
keeps its outputs away from 0. The harness verifies every
variant with WPT-style ULP budgets, which are relative to the output: a sum of
mixed-sign terms that lands near 0 is thousands of ULP off in any float32
implementation (measured: 655360 ULP on an output of 4e-5 for the seed conv
with uniform(-1, 1) weights on ONNX Runtime), which is not a backend error.
"""
from __future__ import annotations

import json
from pathlib import Path

SUITES = Path(__file__).resolve().parent.parent / "harness" / "bench" / "suites"
SEED_SOURCE = "WebNN WG, custom-ops interop measurements (WebGPU)"


def tensor(shape, data_type="float32", low=-1.0, high=1.0, constant=False):
    out = {"data": {"generate": {"distribution": "uniform", "low": low, "high": high}},
           "descriptor": {"shape": list(shape), "dataType": data_type}}
    if constant:
        out["constant"] = True
    return out


def weights(shape, terms, data_type="float32"):
    """Non-negative constant weights for a sum of ``terms`` products, O(1) sums."""
    return tensor(shape, data_type, 0.0, 2.0 / terms, constant=True)


def node(name, *args, options=None, outputs):
    arguments = [dict([a]) for a in args]
    if options:
        arguments.append({"options": options})
    return {"name": name, "arguments": arguments, "outputs": outputs}


def graph(inputs, operators):
    return {"inputs": inputs, "operators": operators}


def bench(id, kind, title, variants, params, graph=None, graphs=None, op=None, published=None):
    out = {"id": id, "kind": kind, "title": title, "variants": variants, "params": params}
    if op:
        out["op"] = op
    if graph is not None:
        out["graph"] = graph
    if graphs is not None:
        out["graphs"] = graphs
    if published:
        out["published"] = published
    return out


def label(shape):
    return "x".join(map(str, shape))


# --- seed scenarios ---------------------------------------------------------

def seed_conv2d_add_relu():
    shape = [1, 100, 100, 100]
    g = graph(
        {"input": tensor(shape, low=0.0, high=1.0),
         "filter": weights([3, 3, 100, 100], 900),
         "bias": tensor([100], low=-0.1, high=0.0, constant=True)},
        [node("conv2d", ("input", "input"), ("filter", "filter"),
              options={"padding": [1, 1, 1, 1], "inputLayout": "nhwc", "filterLayout": "hwio"}, outputs="conv"),
         node("add", ("a", "conv"), ("b", "bias"), outputs="sum"),
         node("relu", ("input", "sum"), outputs="output")])
    published = {v: {"seconds": s, "source": SEED_SOURCE}
                 for v, s in {"host": 0.0635, "readback": 0.0396, "deviceTensor": 0.0225, "fused": 0.0208}.items()}
    return bench("seed-conv2d-add-relu", "scenario", "conv2d 3x3 100->100 + add + relu, nhwc/hwio, 1x100x100x100",
                 ["host", "readback", "deviceTensor", "fused"],
                 {"workload": label(shape), "shape": shape, "filter": [3, 3, 100, 100], "layout": "nhwc/hwio",
                  "note": "non-negative data (see tools/make_bench_suites.py): relu passes every value but costs the same"},
                 graph=g, published=published)


def chain_conv2d_x3():
    shape, c = [1, 56, 56, 64], 64
    inputs = {"x": tensor(shape, low=0.0, high=1.0)}
    ops, prev = [], "x"
    for i in range(3):
        inputs[f"w{i}"] = weights([3, 3, c, c], 9 * c)
        ops.append(node("conv2d", ("input", prev), ("filter", f"w{i}"),
                        options={"padding": [1, 1, 1, 1], "inputLayout": "nhwc", "filterLayout": "hwio"},
                        outputs=f"y{i}"))
        prev = f"y{i}"
    return bench("chain-conv2d-x3", "scenario", "three conv2d 3x3 64->64 in a chain, only the last output read, 1x56x56x64 nhwc",
                 ["host", "opByOpReadback", "opByOp", "fused"], {"workload": label(shape), "shape": shape, "convs": 3},
                 graph=graph(inputs, ops))


def mobilenet_v2_block():
    shape, c, e = [1, 56, 56, 24], 24, 144
    conv = lambda x, w, b, out, groups=1, pad=0: node(  # noqa: E731
        "conv2d", ("input", x), ("filter", w),
        options={"padding": [pad] * 4, "groups": groups, "inputLayout": "nhwc", "filterLayout": "ohwi", "bias": b},
        outputs=out)
    relu6 = lambda x, out: node("clamp", ("input", x), options={"minValue": 0, "maxValue": 6}, outputs=out)  # noqa: E731
    g = graph(
        {"x": tensor(shape, low=0.0, high=1.0),
         "w_expand": weights([e, 1, 1, c], c), "b_expand": tensor([e], low=0.0, high=0.1, constant=True),
         "w_depthwise": weights([e, 3, 3, 1], 9), "b_depthwise": tensor([e], low=0.0, high=0.1, constant=True),
         "w_project": weights([c, 1, 1, e], e), "b_project": tensor([c], low=0.0, high=0.1, constant=True)},
        [conv("x", "w_expand", "b_expand", "expanded"), relu6("expanded", "expanded6"),
         conv("expanded6", "w_depthwise", "b_depthwise", "filtered", groups=e, pad=1), relu6("filtered", "filtered6"),
         conv("filtered6", "w_project", "b_project", "projected"),
         node("add", ("a", "projected"), ("b", "x"), outputs="output")])
    return bench("chain-mobilenetv2-block", "scenario",
                 "MobileNet-v2 inverted residual block 24->144->24 (1x1, depthwise 3x3, 1x1, residual add), 1x56x56x24 nhwc",
                 ["host", "opByOpReadback", "opByOp", "fused"], {"workload": label(shape), "shape": shape, "expansion": 6},
                 graph=g)


def chain_attention():
    heads, seq, dim = 8, 128, 64
    g = graph(
        {"q": tensor([heads, seq, dim], low=0.0, high=1.0),
         "kT": weights([heads, dim, seq], dim),
         "v": tensor([heads, seq, dim], low=0.0, high=1.0, constant=True)},
        [node("matmul", ("a", "q"), ("b", "kT"), outputs="scores"),
         node("softmax", ("input", "scores"), ("axis", 2), outputs="weights"),
         node("matmul", ("a", "weights"), ("b", "v"), outputs="output")])
    return bench("chain-attention", "scenario", f"attention matmul-softmax-matmul, {heads} heads x {seq} tokens x {dim}",
                 ["host", "opByOpReadback", "opByOp", "fused"],
                 {"workload": f"{heads}x{seq}x{dim}", "heads": heads, "tokens": seq, "dim": dim}, graph=g)


def chain_lstm():
    steps, batch, size, hidden = 16, 1, 128, 128
    w = lambda shape: tensor(shape, low=-0.1, high=0.1, constant=True)  # noqa: E731
    fused = graph(
        {"x": tensor([steps, batch, size]), "w": w([1, 4 * hidden, size]), "r": w([1, 4 * hidden, hidden]),
         "b": w([1, 4 * hidden])},
        [node("lstm", ("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("steps", steps),
              ("hiddenSize", hidden), options={"bias": "b"}, outputs=["h", "c"])])
    inputs = {f"x{t}": tensor([batch, size]) for t in range(steps)}
    inputs.update({"w": w([4 * hidden, size]), "r": w([4 * hidden, hidden]), "b": w([4 * hidden]),
                   "h0": tensor([batch, hidden], low=0.0, high=0.0, constant=True),
                   "c0": tensor([batch, hidden], low=0.0, high=0.0, constant=True)})
    cells = []
    for t in range(steps):
        h, c = ("h0", "c0") if t == 0 else (f"h{t}", f"c{t}")
        cells.append(node("lstmCell", ("input", f"x{t}"), ("weight", "w"), ("recurrentWeight", "r"),
                          ("hiddenState", h), ("cellState", c), ("hiddenSize", hidden), options={"bias": "b"},
                          outputs=[f"h{t + 1}", f"c{t + 1}"]))
    cell_graph = graph(inputs, cells)
    return bench("chain-lstm", "scenario",
                 f"lstm {steps} steps, input {size}, hidden {hidden}: one lstmCell graph per step vs cells in one graph vs the lstm op",
                 ["opByOp", "cells", "fused"], {"workload": f"{steps}x{batch}x{size}", "steps": steps, "hidden": hidden},
                 graphs={"opByOp": cell_graph, "cells": cell_graph, "fused": fused})


def layout_conv(name, nhwc, out_channels, kernel):
    n, h, w, c = nhwc
    pad = kernel // 2
    conv = lambda x, f, layout, filt, out: node(  # noqa: E731
        "conv2d", ("input", x), ("filter", f),
        options={"padding": [pad] * 4, "inputLayout": layout, "filterLayout": filt}, outputs=out)
    terms = kernel * kernel * c
    nchw = graph({"x": tensor([n, c, h, w], low=0.0, high=1.0), "f": weights([out_channels, c, kernel, kernel], terms),
                  "b": tensor([out_channels, 1, 1], low=0.0, high=0.1, constant=True)},
                 [conv("x", "f", "nchw", "oihw", "y"), node("add", ("a", "y"), ("b", "b"), outputs="z"),
                  node("relu", ("input", "z"), outputs="out")])
    channels_last = graph({"x": tensor(nhwc, low=0.0, high=1.0), "f": weights([out_channels, kernel, kernel, c], terms),
                           "b": tensor([out_channels], low=0.0, high=0.1, constant=True)},
                          [conv("x", "f", "nhwc", "ohwi", "y"), node("add", ("a", "y"), ("b", "b"), outputs="z"),
                           node("relu", ("input", "z"), outputs="out")])
    transposed = graph({"x": tensor(nhwc, low=0.0, high=1.0), "f": weights([out_channels, c, kernel, kernel], terms),
                        "b": tensor([out_channels], low=0.0, high=0.1, constant=True)},
                       [node("transpose", ("input", "x"), options={"permutation": [0, 3, 1, 2]}, outputs="xt"),
                        conv("xt", "f", "nchw", "oihw", "yt"),
                        node("transpose", ("input", "yt"), options={"permutation": [0, 2, 3, 1]}, outputs="y"),
                        node("add", ("a", "y"), ("b", "b"), outputs="z"),
                        node("relu", ("input", "z"), outputs="out")])
    workload = f"{label(nhwc)} conv{kernel}x{kernel}->{out_channels}"
    return bench(f"layout-{name}", "scenario",
                 f"conv2d {kernel}x{kernel} {c}->{out_channels} + bias + relu on {label(nhwc)} (nhwc), authored nchw / nhwc / nhwc with transposes around the conv",
                 ["nchw", "nhwc", "nhwcTransposed"], {"workload": workload, "shape": nhwc, "kernel": kernel},
                 graphs={"nchw": nchw, "nhwc": channels_last, "nhwcTransposed": transposed})


def layout_pool():
    nhwc = [1, 112, 112, 64]
    n, h, w, c = nhwc
    opts = lambda layout: {"windowDimensions": [3, 3], "strides": [2, 2], "padding": [1, 1, 1, 1], "layout": layout}  # noqa: E731
    graphs = {
        "nchw": graph({"x": tensor([n, c, h, w])}, [node("maxPool2d", ("input", "x"), options=opts("nchw"), outputs="out")]),
        "nhwc": graph({"x": tensor(nhwc)}, [node("maxPool2d", ("input", "x"), options=opts("nhwc"), outputs="out")]),
        "nhwcTransposed": graph({"x": tensor(nhwc)}, [
            node("transpose", ("input", "x"), options={"permutation": [0, 3, 1, 2]}, outputs="xt"),
            node("maxPool2d", ("input", "xt"), options=opts("nchw"), outputs="yt"),
            node("transpose", ("input", "yt"), options={"permutation": [0, 2, 3, 1]}, outputs="out")]),
    }
    return bench("layout-maxpool-112x112x64", "scenario",
                 "maxPool2d 3x3 stride 2 on 1x112x112x64 (nhwc), authored nchw / nhwc / nhwc with transposes around the pool",
                 ["nchw", "nhwc", "nhwcTransposed"], {"workload": f"{label(nhwc)} maxPool3x3s2", "shape": nhwc},
                 graphs=graphs)


def transfer(size_bytes):
    elements = size_bytes // 4
    g = graph({"x": tensor([elements])}, [node("identity", ("input", "x"), outputs="y")])
    human = f"{size_bytes >> 20} MiB" if size_bytes >= 1 << 20 else f"{size_bytes >> 10} KiB"
    return bench(f"transfer-{human.replace(' ', '')}", "transfer", f"upload / readback of a {human} float32 tensor",
                 ["upload", "download"], {"workload": human, "shape": [elements], "bytes": size_bytes}, graph=g)


def offload():
    conv_shape = [1, 56, 56, 64]
    conv = graph({"x": tensor(conv_shape, low=0.0, high=1.0), "f": weights([3, 3, 64, 64], 576)},
                 [node("conv2d", ("input", "x"), ("filter", "f"),
                       options={"padding": [1, 1, 1, 1], "inputLayout": "nhwc", "filterLayout": "hwio"}, outputs="y")])
    matmul = graph({"a": tensor([512, 512], low=0.0, high=1.0), "b": weights([512, 512], 512)},
                   [node("matmul", ("a", "a"), ("b", "b"), outputs="y")])
    gemm = graph({"a": tensor([64, 1024], low=0.0, high=1.0), "b": weights([1024, 1000], 1024),
                  "c": tensor([1000], low=0.0, high=0.1, constant=True)},
                 [node("gemm", ("a", "a"), ("b", "b"), options={"c": "c"}, outputs="y")])
    return [
        bench("offload-conv2d", "scenario", "conv2d 3x3 64->64 on 1x56x56x64 nhwc: backend vs host numpy",
              ["backend", "host"], {"workload": label(conv_shape), "shape": conv_shape}, graph=conv, op="conv2d"),
        bench("offload-matmul", "scenario", "matmul 512x512 @ 512x512: backend vs host numpy",
              ["backend", "host"], {"workload": "512x512x512"}, graph=matmul, op="matmul"),
        bench("offload-gemm", "scenario", "gemm 64x1024 @ 1024x1000 + c: backend vs host numpy",
              ["backend", "host"], {"workload": "64x1024x1000"}, graph=gemm, op="gemm"),
    ]


def seed_suite():
    return [seed_conv2d_add_relu(), chain_conv2d_x3(), mobilenet_v2_block(), chain_attention(), chain_lstm(),
            layout_conv("56x56x64-3x3", [1, 56, 56, 64], 64, 3),
            layout_conv("14x14x256-3x3", [1, 14, 14, 256], 256, 3),
            layout_conv("112x112x32-1x1", [1, 112, 112, 32], 64, 1),
            layout_pool(),
            transfer(64 << 10), transfer(1 << 20), transfer(16 << 20),
            *offload()]


# --- the backend's own peaks ---------------------------------------------------

def peaks_suite():
    """What a backend attains on its device: a large float32 matmul (compute
    roof) and a large elementwise add (memory roof), inputs uploaded once and
    outputs left in the backend's memory, so neither host copies nor
    transfers are timed. The performance page draws an accelerator's
    roofline under these (the bench's own peaks are the host CPU's)."""
    n = 2048  # 4096 would suit a GPU better, but verifying it took minutes on 2 cores
    matmul = graph({"a": tensor([n, n], low=0.0, high=1.0), "b": weights([n, n], n)},
                   [node("matmul", ("a", "a"), ("b", "b"), outputs="y")])
    elements = 32 << 20
    add = graph({"x": tensor([elements]), "y": tensor([elements])}, [node("add", ("a", "x"), ("b", "y"), outputs="z")])
    return [
        bench(f"peak-matmul-{n}", "peak", f"float32 matmul {n}x{n} @ {n}x{n}, resident on the device", ["resident"],
              {"workload": f"{n}x{n}x{n}", "peak": "flops"}, graph=matmul, op="matmul"),
        bench("peak-add-128MiB", "peak", "float32 add of two 128 MiB tensors, resident on the device", ["resident"],
              {"workload": "32M elements", "peak": "bandwidth"}, graph=add, op="add"),
    ]


# --- per-op latency -----------------------------------------------------------

def op_benchmarks(dt):
    """(id stem, title, graph) per op at a realistic shape."""
    t = lambda shape, **kw: tensor(shape, dt, **kw)  # noqa: E731
    wt = lambda shape, terms: weights(shape, terms, dt)  # noqa: E731
    pos = dict(low=0.0, high=1.0)
    one = lambda op, inputs, *args, options=None: graph(  # noqa: E731
        inputs, [node(op, *args, options=options, outputs="out")])
    rnn_w = lambda shape: t(shape, low=-0.1, high=0.1, constant=True)  # noqa: E731
    return [
        ("conv2d", "conv2d-3x3-56x56x64", "conv2d 3x3 64->64, 1x56x56x64 nhwc/ohwi (ResNet stage 1)",
         one("conv2d", {"x": t([1, 56, 56, 64], **pos), "f": wt([64, 3, 3, 64], 576)}, ("input", "x"), ("filter", "f"),
             options={"padding": [1, 1, 1, 1], "inputLayout": "nhwc", "filterLayout": "ohwi"})),
        ("conv2d", "conv2d-stem-224x224x3", "conv2d 3x3 stride 2 3->32, 1x3x224x224 nchw (MobileNet stem)",
         one("conv2d", {"x": t([1, 3, 224, 224], **pos), "f": wt([32, 3, 3, 3], 27)}, ("input", "x"), ("filter", "f"),
             options={"padding": [0, 1, 0, 1], "strides": [2, 2]})),
        ("conv2d", "conv2d-depthwise-112x112x32", "depthwise conv2d 3x3, 1x32x112x112 nchw",
         one("conv2d", {"x": t([1, 32, 112, 112], **pos), "f": wt([32, 1, 3, 3], 9)}, ("input", "x"), ("filter", "f"),
             options={"padding": [1, 1, 1, 1], "groups": 32})),
        ("convTranspose2d", "convTranspose2d-4x4s2-32x32x128", "convTranspose2d 4x4 stride 2 128->64, 1x128x32x32 nchw (decoder upsampling)",
         one("convTranspose2d", {"x": t([1, 128, 32, 32], **pos), "f": wt([128, 64, 4, 4], 512)}, ("input", "x"),
             ("filter", "f"), options={"padding": [1, 1, 1, 1], "strides": [2, 2]})),
        ("matmul", "matmul-512", "matmul 512x512 @ 512x512",
         one("matmul", {"a": t([512, 512], **pos), "b": wt([512, 512], 512)}, ("a", "a"), ("b", "b"))),
        ("matmul", "matmul-batched-8x128x64", "batched matmul [8,128,64] @ [8,64,128] (attention scores)",
         one("matmul", {"a": t([8, 128, 64], **pos), "b": wt([8, 64, 128], 64)}, ("a", "a"), ("b", "b"))),
        ("gemm", "gemm-64x1024x1000", "gemm 64x1024 @ 1024x1000 + c (classifier)",
         one("gemm", {"a": t([64, 1024], **pos), "b": wt([1024, 1000], 1024), "c": t([1000], low=0.0, high=0.1, constant=True)},
             ("a", "a"), ("b", "b"), options={"c": "c"})),
        ("maxPool2d", "maxPool2d-3x3s2-112x112x64", "maxPool2d 3x3 stride 2, 1x64x112x112 nchw",
         one("maxPool2d", {"x": t([1, 64, 112, 112])}, ("input", "x"),
             options={"windowDimensions": [3, 3], "strides": [2, 2], "padding": [1, 1, 1, 1]})),
        ("averagePool2d", "averagePool2d-global-7x7x1024", "global averagePool2d, 1x1024x7x7 nchw",
         one("averagePool2d", {"x": t([1, 1024, 7, 7], **pos)}, ("input", "x"))),
        ("softmax", "softmax-8x128x128", "softmax over the last axis of [8,128,128] (attention weights)",
         one("softmax", {"x": t([8, 128, 128])}, ("input", "x"), ("axis", 2))),
        ("softmax", "softmax-1x1000", "softmax of [1,1000] (classifier)",
         one("softmax", {"x": t([1, 1000])}, ("input", "x"), ("axis", 1))),
        ("layerNormalization", "layerNormalization-128x768", "layerNormalization over the last axis of [1,128,768] (BERT-base)",
         # scale and bias keep outputs away from 0, where a ULP budget is no budget
         one("layerNormalization", {"x": t([1, 128, 768]), "s": t([768], low=0.0, high=0.5, constant=True),
                                    "b": t([768], low=1.0, high=2.0, constant=True)},
             ("input", "x"), options={"axes": [2], "scale": "s", "bias": "b"})),
        ("gru", "gru-32x256", "gru 32 steps, batch 1, input 256, hidden 256",
         one("gru", {"x": t([32, 1, 256]), "w": rnn_w([1, 768, 256]), "r": rnn_w([1, 768, 256]), "b": rnn_w([1, 768])},
             ("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("steps", 32), ("hiddenSize", 256),
             options={"bias": "b"})),
        ("lstm", "lstm-32x256", "lstm 32 steps, batch 1, input 256, hidden 256",
         graph({"x": t([32, 1, 256]), "w": rnn_w([1, 1024, 256]), "r": rnn_w([1, 1024, 256]), "b": rnn_w([1, 1024])},
               [node("lstm", ("input", "x"), ("weight", "w"), ("recurrentWeight", "r"), ("steps", 32),
                     ("hiddenSize", 256), options={"bias": "b"}, outputs=["h", "c"])])),
        ("resample2d", "resample2d-linear-56x56x64", "resample2d linear x2, 1x64x56x56 nchw -> 112x112",
         one("resample2d", {"x": t([1, 64, 56, 56], **pos)}, ("input", "x"),
             options={"mode": "linear", "sizes": [112, 112], "axes": [2, 3]})),
        ("add", "add-64x112x112", "add of two [1,64,112,112] tensors",
         one("add", {"a": t([1, 64, 112, 112]), "b": t([1, 64, 112, 112])}, ("a", "a"), ("b", "b"))),
        ("relu", "relu-64x112x112", "relu of [1,64,112,112]",
         one("relu", {"x": t([1, 64, 112, 112])}, ("input", "x"))),
        ("sigmoid", "sigmoid-64x112x112", "sigmoid of [1,64,112,112]",
         one("sigmoid", {"x": t([1, 64, 112, 112])}, ("input", "x"))),
    ]


def ops_suite():
    out = []
    for dt in ("float32", "float16"):
        for op, stem, title, g in op_benchmarks(dt):
            first = next(iter(g["inputs"].values()))["descriptor"]["shape"]
            out.append(bench(f"{stem}-{dt}", "op", f"{title}, {dt}", ["graph"],
                             {"workload": stem, "shape": first, "dataType": dt}, graph=g, op=op))
    return out


def write(name, description, benchmarks):
    doc = {"suite": name, "description": description, "benchmarks": benchmarks}
    (SUITES / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{name}: {len(benchmarks)} benchmarks")


def main():
    SUITES.mkdir(parents=True, exist_ok=True)
    seed = seed_suite()
    ops = ops_suite()
    write("seed", "The interop scenarios: the seed conv2d+add+relu, op-by-op vs fused chains, layouts, transfers, offload.",
          seed)
    write("ops", "Single-op latency at realistic shapes, float32 and float16.", ops)
    write("peaks", "The backend's own compute and memory roofs on its device (a large matmul, a large add), "
          "for the roofline of a backend that runs off the host CPU.", peaks_suite())
    write("default", "What `bench` runs with no --suite: the seed scenarios and the float32 single-op latencies.",
          seed + [b for b in ops if b["id"].endswith("-float32")])


if __name__ == "__main__":
    main()
