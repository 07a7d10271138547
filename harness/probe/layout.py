"""preferredInputLayout, measured: a few realistic workloads (ResNet-like
convolution and pooling stages) timed in nchw and in nhwc.

The two layouts of every workload are timed in interleaved rounds (nchw then
nhwc, then nhwc then nchw, ...), so a busy machine's drift hits both alike;
each round gives one nhwc/nchw ratio per workload. A workload's verdict comes
from a distribution-free 95% confidence interval for the median of its
ratios: nhwc when the whole interval is below 1, nchw when above, "no
significant preference" when it contains 1. The overall verdict does the
same with the per-round geometric mean over the workloads. Without a
significant preference the limits report nchw, the spec's default layout,
and the evidence says so. Timing stops after MAX_ROUNDS or TIME_BUDGET
seconds (at least MIN_ROUNDS), so the probe's total time stays bounded.
"""
from __future__ import annotations

import time
from math import exp, floor, log, sqrt
from typing import Mapping, Sequence

import numpy as np

from webnn_harness.probe.isolate import run_isolated

# (label, op, channels, size, attributes); nhwc transposes the input and, for
# conv2d, uses the ohwi filter layout that nhwc backends pair with it.
WORKLOADS = (
    ("conv2d 3x3, 32 ch, 56x56", "conv2d", 32, 56, {"padding": [1, 1, 1, 1], "kernel": 3}),
    ("conv2d 1x1, 64 ch, 28x28", "conv2d", 64, 28, {"kernel": 1}),
    ("maxPool2d 3x3/2, 32 ch, 56x56", "maxPool2d", 32, 56, {"windowDimensions": [3, 3], "strides": [2, 2]}),
    ("averagePool2d 3x3/2, 32 ch, 56x56", "averagePool2d", 32, 56, {"windowDimensions": [3, 3], "strides": [2, 2]}),
)
MIN_ROUNDS, MAX_ROUNDS, TIME_BUDGET = 7, 25, 1.5
Z95 = 1.959964


def _graph(op: str, layout: str, channels: int, size: int, attrs: Mapping):
    from webnn_harness.spec.graph import TensorDesc
    from webnn_harness.probe.synth import single_node_graph

    shape = (1, channels, size, size) if layout == "nchw" else (1, size, size, channels)
    operands = {"input": TensorDesc(shape, "float32")}
    attributes = {k: v for k, v in attrs.items() if k != "kernel"}
    if op == "conv2d":
        k = attrs["kernel"]
        filt = (channels, channels, k, k) if layout == "nchw" else (channels, k, k, channels)
        operands["filter"] = TensorDesc(filt, "float32")
        attributes.update(inputLayout=layout, filterLayout="oihw" if layout == "nchw" else "ohwi")
    else:
        attributes["layout"] = layout
    return single_node_graph(op, operands, attributes)


def prepare_layouts(send, backend) -> dict:
    """Every workload built and run once in both layouts: (label, layout) ->
    (compiled, inputs). A layout the backend refuses is sent as evidence."""
    rng = np.random.default_rng(0)
    ready = {}
    for label, op, channels, size, attrs in WORKLOADS:
        for layout in ("nchw", "nhwc"):
            graph = _graph(op, layout, channels, size, attrs)
            inputs = {n: rng.uniform(-1, 1, graph.descs[n].shape).astype(np.float32) for n in graph.inputs}
            try:
                compiled = backend.build(graph)
                backend.compute(compiled, inputs)  # warm-up
                ready[(label, layout)] = (compiled, inputs)
            except Exception as exc:  # noqa: BLE001 - a layout the backend refuses is evidence
                send(("error", label, layout, f"{type(exc).__name__}: {exc}"[:300]))
    return ready


def time_layouts(send, backend, ready: dict) -> None:
    """The interleaved timing rounds over what ``prepare_layouts`` built."""
    started = time.perf_counter()
    for round_ in range(MAX_ROUNDS):
        if round_ >= MIN_ROUNDS and time.perf_counter() - started > TIME_BUDGET:
            break
        order = ("nchw", "nhwc") if round_ % 2 == 0 else ("nhwc", "nchw")
        for label, *_ in WORKLOADS:
            for layout in order:
                if (label, layout) not in ready:
                    continue
                compiled, inputs = ready[(label, layout)]
                t0 = time.perf_counter()
                backend.compute(compiled, inputs)
                send(("time", label, layout, round_, time.perf_counter() - t0))


def _time_layouts(send, backend_name: str, options: Mapping[str, str]) -> None:
    from webnn_harness import backends

    backend = backends.create(backend_name, options)
    time_layouts(send, backend, prepare_layouts(send, backend))


def median_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """(median, low, high): a distribution-free 95% interval for the median
    (order statistics of the binomial(n, 1/2), normal approximation)."""
    x = sorted(values)
    n = len(x)
    median = float(np.median(x))
    k = max(0, floor(n / 2 - Z95 * sqrt(n) / 2))
    return median, x[k], x[min(n - 1, n - 1 - k)]


def verdict(low: float, high: float) -> str:
    if high < 1:
        return "nhwc"
    if low > 1:
        return "nchw"
    return "no significant preference"


def measure_layouts(backend: str, options: Mapping[str, str], timeout: float = 60.0) -> dict:
    return layout_evidence(*run_isolated(_time_layouts, (backend, dict(options)), timeout))


def layout_evidence(messages: Sequence, ending: str) -> dict:
    """The evidence from the messages of ``prepare_layouts`` and ``time_layouts``."""
    times: dict = {}
    errors: dict = {}
    for msg in messages:
        if msg[0] == "error":
            errors[(msg[1], msg[2])] = msg[3]
        else:
            _, label, layout, round_, seconds = msg
            times.setdefault(label, {}).setdefault(round_, {})[layout] = seconds
    per_workload: dict = {}
    round_logs: dict = {}  # round -> [log ratio per workload]
    for label, *_ in WORKLOADS:
        rounds = times.get(label, {})
        entry: dict = {}
        for layout in ("nchw", "nhwc"):
            samples = [r[layout] for r in rounds.values() if layout in r]
            entry[layout] = ({"error": errors[(label, layout)], "runs": 0} if (label, layout) in errors else
                             {"medianSeconds": float(np.median(samples)) if samples else None, "runs": len(samples)})
        ratios = {i: r["nhwc"] / r["nchw"] for i, r in rounds.items() if "nchw" in r and "nhwc" in r and r["nchw"] > 0}
        if len(ratios) >= 3:
            med, lo, hi = median_interval(list(ratios.values()))
            entry.update(nhwcOverNchw=med, ci95=[lo, hi], verdict=verdict(lo, hi),
                         ratios=[round(ratios[i], 4) for i in sorted(ratios)])
            for i, q in ratios.items():
                round_logs.setdefault(i, []).append(log(q))
        else:
            entry["nhwcOverNchw"] = None
        per_workload[label] = entry
    measured = [w for w in per_workload.values() if w.get("nhwcOverNchw")]
    overall = [exp(sum(v) / len(v)) for v in round_logs.values() if len(v) == len(measured) and measured]
    if len(overall) >= 3:
        med, lo, hi = median_interval(overall)
        decision = verdict(lo, hi)
        preferred = decision if decision != "no significant preference" else "nchw"
        basis = (f"geometric mean over {len(measured)} workloads of the nhwc/nchw time ratio: median {med:.3f}, "
                 f"95% interval {lo:.3f}–{hi:.3f} over {len(overall)} interleaved rounds: {decision}"
                 + ("; nchw is the spec's default" if decision == "no significant preference" else ""))
        significant = decision != "no significant preference"
    else:
        works = {layout for w in per_workload.values() for layout in ("nchw", "nhwc")
                 if isinstance(w.get(layout), dict) and w[layout].get("medianSeconds")}
        preferred, significant = (works.pop(), True) if len(works) == 1 else (None, False)
        basis = "the only layout that ran" if preferred else "not measured (defaulting to nchw)"
        decision, med, lo, hi = (preferred or "not measured"), None, None, None
    return {
        "preferred": preferred,
        "verdict": decision,
        "significant": significant,
        "basis": basis,
        "ratio": {"median": med, "ci95": [lo, hi]} if med is not None else None,
        "method": {"rounds": {"min": MIN_ROUNDS, "max": MAX_ROUNDS, "budgetSeconds": TIME_BUDGET},
                   "interleaved": True, "interval": "order-statistic 95% interval for the median"},
        "shapes": {label: {"op": op, "channels": c, "size": s, "batch": 1, "dataType": "float32"}
                   for label, op, c, s, _ in WORKLOADS},
        "timings": per_workload,
        "ended": ending,
    }
