"""What the chain rule (harness/verdict/tolerance.py) costs the judge: every
multi-operator case of both corpora (WPT has none today) judged against the
reference's own outputs, with its carried interval, beside the plain
comparison of the same outputs.

    python benchmarks/chain_budget.py [--wpt ../shared/wpt] [--repeat N]

One line per case: its ops, the carried ops, wall and CPU milliseconds of
``judge`` (median of --repeat) and of ``compare`` alone; then the totals. The
judge's cost is the same whatever backend produced the outputs; the header
names the machine, its load, numpy and the harness version.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from webnn_harness import __version__
from webnn_harness.backends.reference.evaluate import evaluate
from webnn_harness.loading.cases import bundled_corpus, load_cases
from webnn_harness.verdict.comparison import compare
from webnn_harness.verdict.judge import budget_for, carried_nodes, judge


def _timed(fn, repeat: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls) * 1e3, statistics.median(cpus) * 1e3


def main() -> None:
    here = Path(__file__).resolve().parents[1]
    p = argparse.ArgumentParser()
    p.add_argument("--wpt", default=str(here.parent / "shared" / "wpt"))
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    print(f"webnn-harness {__version__}, {_dt.datetime.now(_dt.timezone.utc).isoformat(timespec='seconds')}, "
          f"numpy {np.__version__}, judge on the reference backend's outputs (float64 numpy, 1 thread)")
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min)")
    files = [f for root in (Path(args.wpt), bundled_corpus()) for f in sorted(root.rglob("*.json")) if f.name != "INDEX.json"]
    cases = [c for c in load_cases(files) if hasattr(c, "graph") and len(c.graph.nodes) > 1]
    totals = [0.0, 0.0, 0.0, 0.0]
    print(f"{'case':60} {'carried':22} {'judge ms wall/cpu':>18} {'compare ms wall/cpu':>20}")
    for case in cases:
        ref = evaluate(case.graph, case.inputs)
        expected = {n: ref[n].values for n in case.graph.outputs}
        masks = {n: ref[n].undefined for n in case.graph.outputs}
        actual = {n: v.copy() for n, v in expected.items()}
        status = judge(case, actual, expected, masks)[0]
        judged = _timed(lambda: judge(case, actual, expected, masks), args.repeat)

        def plain():
            for n in case.graph.outputs:
                metric, budget, _ = budget_for(case, n)
                compare(expected[n], actual[n], case.graph.descs[n].data_type, metric, budget, masks[n])

        compared = _timed(plain, args.repeat)
        carried = sorted({n.op for o in case.graph.outputs for n in carried_nodes(case, o)})
        for i, v in enumerate((*judged, *compared)):
            totals[i] += v
        print(f"{case.name[:60]:60} {','.join(carried)[:22] or '-':22} {judged[0]:8.2f}/{judged[1]:<8.2f} "
              f"{compared[0]:9.2f}/{compared[1]:<9.2f} {'' if status == 'pass' else status}")
    print(f"{len(cases)} multi-operator cases: judge {totals[0]:.1f} ms wall / {totals[1]:.1f} ms CPU, "
          f"compare alone {totals[2]:.1f} ms wall / {totals[3]:.1f} ms CPU")


if __name__ == "__main__":
    main()
