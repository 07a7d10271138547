"""The cost of running on Ray: the same corpus on the same backend through
the local worker pool, a local Ray instance, and a simulated two-node Ray
cluster (``ray.cluster_utils.Cluster`` on this machine), with the same
number of workers / actors.

    python benchmarks/ray_overhead.py [--backend reference --backend onnxruntime] [--workers 2] [--repeat 3] [--cases PATH]

Prints, per backend and executor, the median seconds of the case phase (Ray
start-up apart), seconds per case, the overhead per case against the local
pool, and for Ray how many cases each node ran. Every executor's statuses
are checked to equal the local pool's, case by case, before any time is
printed: a run with different verdicts is not a speed.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from webnn_harness import __version__
from webnn_harness.cases import bundled_corpus
from webnn_harness.executor import LocalExecutors
from webnn_harness.results import Record
from webnn_harness.run import BackendRequest, run
from webnn_harness.runner import RunOptions


def timed_run(cases: Path, backend: str, factory, workers: int) -> tuple[float, dict[str, str], dict]:
    statuses: dict[str, str] = {}

    def keep(r: Record) -> None:
        statuses[f"{r.file}::{r.case}"] = r.status

    with tempfile.TemporaryDirectory() as tmp:
        result = run([cases], [BackendRequest(backend)], Path(tmp), options=RunOptions(workers=workers, timeout=60),
                     on_record=keep, executor=factory)
    return result.tallies[0].seconds, statuses, result.tallies[0].backend


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--backend", action="append", help="default: reference and onnxruntime")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--cases", default=str(bundled_corpus()))
    args = p.parse_args()

    import ray
    from ray.cluster_utils import Cluster

    from webnn_harness.ray_executor import RayExecutors

    print(f"webnn-harness {__version__}, ray {ray.__version__}, {platform.node()} ({platform.machine()}, "
          f"{os.cpu_count()} cores), {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"corpus {args.cases}, {args.workers} workers/actors, median of {args.repeat}")

    def local_ray():
        t0 = time.perf_counter()
        factory = RayExecutors(num_cpus=args.workers)
        return factory, time.perf_counter() - t0, factory.close

    def two_nodes():
        t0 = time.perf_counter()
        node = {"num_cpus": max(1, args.workers // 2), "object_store_memory": 100 * 1024 * 1024}
        cluster = Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False})
        cluster.add_node(**node)
        cluster.wait_for_nodes()
        factory = RayExecutors(cluster.address)
        started = time.perf_counter() - t0

        def close():
            factory.close()
            ray.shutdown()
            cluster.shutdown()
        return factory, started, close

    failed = 0
    for backend in args.backend or ["reference", "onnxruntime"]:
        baseline: dict[str, str] = {}
        local_seconds = 0.0
        for label, make in (("local pool", None), ("ray, local instance", local_ray), ("ray, 2 simulated nodes", two_nodes)):
            factory, started, close = (LocalExecutors(), 0.0, lambda: None) if make is None else make()
            try:
                runs = [timed_run(Path(args.cases), backend, factory, args.workers) for _ in range(args.repeat)]
            finally:
                close()
            seconds = statistics.median(r[0] for r in runs)
            statuses, info = runs[0][1], runs[0][2]
            if make is None:
                baseline, local_seconds = statuses, seconds
                print(f"\n{backend} {info['version']} on {info['device']}, settings {info.get('settings', {})}")
            differ = [k for k in baseline if statuses.get(k) != baseline[k]] + [k for k in statuses if k not in baseline]
            if differ or any(r[1] != statuses for r in runs):
                print(f"  {label}: statuses differ from the local pool on {len(differ)} case(s), e.g. {differ[:3]}")
                failed += 1
                continue
            n = len(statuses)
            line = (f"  {label:24} {seconds:7.2f} s for {n} cases, {1000 * seconds / n:6.2f} ms/case, "
                    f"overhead {1000 * (seconds - local_seconds) / n:+6.2f} ms/case")
            if make is not None:
                spread = ", ".join(f"{c // args.repeat} on {node}" for node, c in sorted(factory.cases_per_node.items()))
                line += f"; start-up {started:.1f} s; per run: {spread}"
            print(line)
    print("\n(shared machine: other processes ran beside these timings)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
