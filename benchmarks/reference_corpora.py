"""Time both corpora (WPT and ours) on the reference backend, end to end
through the library API (load, worker processes, compare, write).

    python benchmarks/reference_corpora.py [--wpt ../shared/wpt] [--workers N]

Prints one line per phase and the total; the target is under 60 s on a
2-core machine.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from webnn_harness.loading.cases import bundled_corpus, load_cases
from webnn_harness.api import BackendRequest, RunRequest, run
from webnn_harness.execution.pool import RunOptions


def main() -> None:
    here = Path(__file__).resolve().parents[1]
    p = argparse.ArgumentParser()
    p.add_argument("--wpt", default=str(here.parent / "shared" / "wpt"))
    p.add_argument("--backend", default="reference")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = p.parse_args()
    corpora = [Path(args.wpt), bundled_corpus()]
    t0 = time.perf_counter()
    loaded = load_cases(corpora)
    t_load = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as out:
        t1 = time.perf_counter()
        result = run(RunRequest(tuple(corpora), (BackendRequest(args.backend),), Path(out),
                                options=RunOptions(workers=args.workers)))
        t_run = time.perf_counter() - t1
    tally = result.tallies[0]
    counts = ", ".join(f"{n} {s}" for s, n in sorted(tally.counts.items()))
    print(f"cases: {len(loaded)} ({', '.join(str(c) for c in corpora)})")
    print(f"load and validate: {t_load:.1f} s")
    print(f"run on {args.backend} with {args.workers} workers (load included): {t_run:.1f} s -> {counts}")


if __name__ == "__main__":
    main()
