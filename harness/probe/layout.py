"""preferredInputLayout, measured: conv2d and the pooling ops timed in nchw
and in nhwc on realistic shapes (a ResNet-like 56x56 stage); the faster
layout overall wins. The timings and ratios stay in the evidence."""
from __future__ import annotations

import statistics
import time
from math import exp, log
from typing import Mapping

import numpy as np

from webnn_harness.probe.isolate import run_isolated

# (label, op, nchw input shape, attributes); nhwc transposes the input and,
# for conv2d, uses the ohwi filter layout that nhwc backends pair with it.
CHANNELS, SIZE = 32, 56
SHAPES = (
    ("conv2d", "conv2d", {"padding": [1, 1, 1, 1]}),
    ("averagePool2d", "averagePool2d", {"windowDimensions": [3, 3], "strides": [2, 2]}),
    ("maxPool2d", "maxPool2d", {"windowDimensions": [3, 3], "strides": [2, 2]}),
)
REPEATS, MIN_SECONDS = 20, 0.3


def _graph(op: str, layout: str, attrs: Mapping):
    from webnn_harness.graph import TensorDesc
    from webnn_harness.probe.synth import single_node_graph

    shape = (1, CHANNELS, SIZE, SIZE) if layout == "nchw" else (1, SIZE, SIZE, CHANNELS)
    operands = {"input": TensorDesc(shape, "float32")}
    attributes = dict(attrs)
    if op == "conv2d":
        filt = (CHANNELS, CHANNELS, 3, 3) if layout == "nchw" else (CHANNELS, 3, 3, CHANNELS)
        operands["filter"] = TensorDesc(filt, "float32")
        attributes.update(inputLayout=layout, filterLayout="oihw" if layout == "nchw" else "ohwi")
    else:
        attributes["layout"] = layout
    return single_node_graph(op, operands, attributes)


def _time_layouts(send, backend_name: str, options: Mapping[str, str]) -> None:
    from webnn_harness import backends

    backend = backends.create(backend_name, options)
    rng = np.random.default_rng(0)
    for label, op, attrs in SHAPES:
        for layout in ("nchw", "nhwc"):
            graph = _graph(op, layout, attrs)
            inputs = {n: rng.uniform(-1, 1, graph.descs[n].shape).astype(np.float32) for n in graph.inputs}
            try:
                compiled = backend.build(graph)
                backend.compute(compiled, inputs)  # warm-up
                times = []
                start = time.perf_counter()
                while len(times) < REPEATS and (time.perf_counter() - start < MIN_SECONDS or len(times) < 3):
                    t0 = time.perf_counter()
                    backend.compute(compiled, inputs)
                    times.append(time.perf_counter() - t0)
                send((label, layout, statistics.median(times), len(times), None))
            except Exception as exc:  # noqa: BLE001 - a layout the backend refuses is evidence
                send((label, layout, None, 0, f"{type(exc).__name__}: {exc}"[:300]))


def measure_layouts(backend: str, options: Mapping[str, str], timeout: float = 60.0) -> dict:
    messages, ending = run_isolated(_time_layouts, (backend, dict(options)), timeout)
    per_op: dict = {}
    for label, layout, seconds, runs, error in messages:
        per_op.setdefault(label, {})[layout] = {"medianSeconds": seconds, "runs": runs, **({"error": error} if error else {})}
    ratios = {}
    for label, r in per_op.items():
        a, b = r.get("nchw", {}).get("medianSeconds"), r.get("nhwc", {}).get("medianSeconds")
        if a and b:
            ratios[label] = b / a
        r["nhwcOverNchw"] = ratios.get(label)
    preferred, basis = None, ""
    if ratios:
        mean = exp(sum(log(x) for x in ratios.values()) / len(ratios))
        preferred = "nhwc" if mean < 1 else "nchw"
        basis = f"geometric mean of nhwc/nchw time ratios = {mean:.3f}"
    else:
        works = {layout for r in per_op.values() for layout, v in r.items() if isinstance(v, dict) and v.get("medianSeconds")}
        if len(works) == 1:
            preferred, basis = works.pop(), "the only layout that ran"
    return {
        "preferred": preferred,
        "basis": basis or "not measured (defaulting to nchw)",
        "shapes": {"channels": CHANNELS, "size": SIZE, "batch": 1, "dataType": "float32"},
        "timings": per_op,
        "ended": ending,
    }
