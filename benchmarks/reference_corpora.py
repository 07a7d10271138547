"""Time both corpora (WPT, its extra files, and ours) on the reference backend, end to end
through the library API (load, worker processes, compare, write).

    python benchmarks/reference_corpora.py [--wpt ../shared/wpt --wpt ../shared/wpt-extra] [--workers N]

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
    p.add_argument("--wpt", action="append", metavar="DIR",
                   help="a WPT corpus folder (repeatable; default: ../shared/wpt and ../shared/wpt-extra)")
    p.add_argument("--backend", default="reference")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = p.parse_args()
    corpora = [*[Path(w) for w in args.wpt or (here.parent / "shared" / "wpt", here.parent / "shared" / "wpt-extra")], bundled_corpus()]
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
