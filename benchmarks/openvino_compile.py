"""Where the OpenVINO backend's build time goes: every case graph of the
corpora lowered once (``backends/openvino/lower``), then compiled as the
backend does, in models of N merged case graphs, for each N in --groups and
each compile-property set in --properties. Prints the CPU seconds (user+sys of
this process, all OpenVINO threads included) and wall seconds of the
``compile_model`` calls alone, and the number of models.

    python benchmarks/openvino_compile.py [--wpt ../shared/wpt] [--groups 16,64,256] [--repeat 2]
        [--properties 'SNIPPETS_MODE=DISABLE' --properties 'PERFORMANCE_HINT=LATENCY' ...]

Every configuration is timed --repeat times, interleaved, and the minimum
is printed (the least disturbed run on a shared machine). The backend's own
properties (the exact-precision hint) are always applied; --properties adds
to them. A property set other than the backend's is measured here only: it
is not what the harness runs (see the OpenVINO backend's module docstring).
"""
from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import time
from pathlib import Path


def cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def lowered_cases(paths: list[str]):
    """(lowered graph, compile config) of every case the backend can lower."""
    from webnn_harness import backends
    from webnn_harness.backends.openvino.lower import lower_graph
    from webnn_harness.loading.cases import Case, load_cases

    backend = backends.create("openvino", {})
    out = []
    for index, case in enumerate(c for c in load_cases(paths) if isinstance(c, Case)):
        try:
            out.append((lower_graph(case.graph, prefix=f"c{index}_"), backend.config_for(case.graph)))
        except Exception:  # noqa: BLE001 - refused graphs cost no compile
            continue
    return backend, out


def compile_all(backend, lowered, group: int, extra: dict[str, str]) -> tuple[float, float, int, int]:
    """(CPU s, wall s, models, refused) for compiling ``lowered`` in models of ``group`` graphs."""
    import openvino as ov

    cpu = wall = 0.0
    models = refused = 0
    by_config: dict[tuple, list] = {}
    for graph, config in lowered:
        by_config.setdefault(tuple(sorted(config.items())), []).append(graph)
    for key, graphs in by_config.items():
        config = {**dict(key), **extra}
        for start in range(0, len(graphs), group):
            parameters, results = [], []
            for graph in graphs[start:start + group]:
                parameters += graph.parameters
                results += graph.results
            model = ov.Model(results, parameters, "webnn_cases")
            c0, t0 = cpu_seconds(), time.perf_counter()
            try:
                backend.core.compile_model(model, backend.device, config)
                models += 1
            except Exception:  # noqa: BLE001 - a property the plugin refuses is reported, not fatal
                refused += 1
            cpu += cpu_seconds() - c0
            wall += time.perf_counter() - t0
    return cpu, wall, models, refused


def main() -> int:
    here = Path(__file__).resolve().parents[1]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--wpt", default=str(here.parent / "shared" / "wpt"), help="WPT corpus (skipped if absent)")
    p.add_argument("--groups", default="16,64,256", help="case graphs per model, comma-separated")
    p.add_argument("--properties", action="append", default=[],
                   help="extra compile properties KEY=VALUE[,KEY=VALUE] (repeatable; the backend's own always run)")
    p.add_argument("--repeat", type=int, default=2, help="timings per configuration; the minimum is printed")
    args = p.parse_args()

    import openvino as ov

    from webnn_harness import __version__
    from webnn_harness.loading.cases import bundled_corpus

    paths = [str(bundled_corpus())] + ([args.wpt] if Path(args.wpt).exists() else [])
    backend, lowered = lowered_cases(paths)
    info = backend.info()
    print(f"webnn-harness {__version__}, {_dt.datetime.now(_dt.timezone.utc).isoformat(timespec='seconds')}")
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min)")
    print(f"openvino {ov.get_version()} on {info.device} ({backend.device}), precision {backend.precision}, "
          f"threads: {info.settings['inference_num_threads']}")
    print(f"{len(lowered)} case graphs from {', '.join(Path(x).name for x in paths)}; "
          f"compile_model only, minimum of {args.repeat}")
    configs = [(int(g), {}) for g in args.groups.split(",")]
    for spec in args.properties:
        extra = dict(item.split("=", 1) for item in spec.split(","))
        configs += [(int(g), extra) for g in args.groups.split(",")]
    best: dict[int, tuple] = {}
    for _ in range(args.repeat):
        for index, (group, extra) in enumerate(configs):
            result = compile_all(backend, lowered, group, extra)
            if index not in best or result[0] < best[index][0]:
                best[index] = result
    print(f"{'graphs/model':>12} {'models':>6} {'cpu s':>7} {'wall s':>7}  properties")
    for index, (group, extra) in enumerate(configs):
        cpu, wall, models, refused = best[index]
        props = ", ".join(f"{k}={v}" for k, v in extra.items()) or "backend's own"
        print(f"{group:12} {models:6} {cpu:7.2f} {wall:7.2f}  {props}" + (f" ({refused} refused)" if refused else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
