"""The cost of running on Ray: the same corpus (``run``) or bench suite
(``bench``) on the same backend locally, on a local Ray instance, and on a
simulated two-node Ray cluster (``ray.cluster_utils.Cluster`` on this
machine), with the same number of workers / actors.

    python benchmarks/ray_overhead.py [--what run] [--what bench] [--backend reference --backend onnxruntime]
        [--workers 2] [--repeat 3] [--cases PATH] [--suite ops --filter REGEX --min-time 0.2]

``run``: per backend and executor, the median seconds of the case phase (Ray
start-up apart), seconds per case, the overhead per case against the local
pool, and for Ray how many cases each node ran.

``bench`` (issue 15's figure for bench): per executor, the median wall
seconds of the bench (Ray start-up apart), the overhead per benchmark
variant against the local bench, the CPU seconds of the whole measurement
(this process and every process it started and reaped: Ray's own included,
start-up and shut-down too), how the variants spread over the nodes, and
each variant's median latency on Ray over its local median (timing on an
actor must not change what is timed). The simulated nodes share this
machine's cores, so two nodes timing at once disturb each other there; on a
real cluster they do not.

Every executor's statuses are checked to equal the local ones, case by case
or variant by variant, before any time is printed: a run with different
verdicts is not a speed.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import statistics
import tempfile
import threading
import time
from pathlib import Path

from webnn_harness import __version__
from webnn_harness.loading.cases import bundled_corpus
from webnn_harness.execution.executors import LocalExecutors
from webnn_harness.verdict.record import Record
from webnn_harness.api import BackendRequest, RunEvents, RunRequest, run
from webnn_harness.execution.pool import RunOptions


def timed_run(cases: Path, backend: str, factory, workers: int) -> tuple[float, dict[str, str], dict]:
    statuses: dict[str, str] = {}

    def keep(r: Record) -> None:
        statuses[f"{r.file}::{r.case}"] = r.status

    with tempfile.TemporaryDirectory() as tmp:
        result = run(RunRequest((cases,), (BackendRequest(backend),), Path(tmp),
                                options=RunOptions(workers=workers, timeout=60), executor=factory),
                     RunEvents(on_record=keep))
    return result.tallies[0].seconds, statuses, result.tallies[0].backend


class TreeCPU:
    """User + system seconds of this process and all its descendants, Ray's
    raylet, GCS and worker processes included: rusage counts a descendant only
    once it is reaped, and Ray's workers are not reaped by this process, so a
    thread reads /proc every 0.2 s and keeps each descendant's last total
    (its own and its reaped children's). A descendant that lives less than
    0.2 s is missed (a lower bound, then). Linux only."""

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self):
        self.seen: dict[int, float] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _sample(self) -> None:
        parents, totals = {}, {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry)] = int(fields[1])
            totals[int(entry)] = sum(int(x) for x in fields[11:15]) / self.TICK  # utime stime cutime cstime
        me = os.getpid()
        for pid, total in totals.items():
            ancestor = parents.get(pid)
            while ancestor not in (None, 0, 1, me):
                ancestor = parents.get(ancestor)
            if ancestor == me:
                self.seen[pid] = total

    def _watch(self) -> None:
        while not self.stop.wait(0.2):
            self._sample()

    def __enter__(self) -> "TreeCPU":
        self._sample()
        self.start = dict(self.seen)
        self.own0 = resource.getrusage(resource.RUSAGE_SELF)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()
        own = resource.getrusage(resource.RUSAGE_SELF)
        self.seconds = (own.ru_utime + own.ru_stime - self.own0.ru_utime - self.own0.ru_stime
                        + sum(t - self.start.get(pid, 0.0) for pid, t in self.seen.items()))


def timed_bench(suite, backend: str, bench_executor, options) -> tuple[float, list[dict], float]:
    """(wall seconds, records, seconds to the first record)."""
    from webnn_harness.bench.driver import run_bench

    arrivals = []
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        result = run_bench(suite, [(backend, {})], Path(tmp) / "bench", options, executor=bench_executor,
                           on_record=lambda r: arrivals.append(time.perf_counter()))
        return time.perf_counter() - t0, list(result.records), arrivals[0] - t0


def each_executor(executors, repeat: int, once):
    """Per executor: (label, is the local one, the ``repeat`` results of ``once(factory)``, their median
    seconds (each result's first item), CPU seconds of it all, Ray start-up seconds, items per node)."""
    for label, make in executors:
        with TreeCPU() as cpu:
            factory, started, close = (LocalExecutors(), 0.0, lambda: None) if make is None else make()
            try:
                runs = [once(factory) for _ in range(repeat)]
            finally:
                spread = dict(getattr(factory, "cases_per_node", {}))
                close()
        yield (label, make is None, runs, statistics.median(r[0] for r in runs), cpu.seconds, started,
               ", ".join(f"{n / repeat:g} on {node}" for node, n in sorted(spread.items())))


def bench_overhead(args, executors) -> int:
    """The bench's part: see the module's docstring."""
    from webnn_harness.bench.driver import BenchOptions
    from webnn_harness.bench.measure import TimingPolicy
    from webnn_harness.bench.ray_cluster import bench_executor
    from webnn_harness.bench.suite import load_suite

    suite = load_suite(args.suite)
    options = BenchOptions(policy=TimingPolicy(min_time=args.min_time, min_samples=10, max_time=5.0),
                           name_filter=args.filter, threads=args.threads)
    failed = 0
    for backend in args.backend or ["onnxruntime"]:
        baseline: dict[tuple, dict] = {}
        local_seconds = local_first = 0.0
        once = lambda factory: timed_bench(suite, backend, bench_executor(factory), options)  # noqa: E731
        for label, local, runs, seconds, cpu, started, per_node in each_executor(executors, args.repeat, once):
            records = {(r["benchmark"], r["variant"]): r for r in runs[0][1]}
            if local:
                baseline, local_seconds = records, seconds
                info = runs[0][1][0]["backend"]
                print(f"\nbench: suite {suite.name} --filter {args.filter!r}, {backend} {info['version']} on "
                      f"{info['device']}, settings {info.get('settings', {})}, --min-time {args.min_time}")
            statuses = [{(r["benchmark"], r["variant"]): r["status"] for r in run[1]} for run in runs]
            if any(s != {k: r["status"] for k, r in baseline.items()} for s in statuses):
                print(f"  {label}: statuses differ from the local bench: {statuses[0]}")
                failed += 1
                continue
            n = len(records)
            first = statistics.median(r[2] for r in runs)
            if local:
                local_first = first
            print(f"  {label:24} {seconds:7.2f} s for {n} variants, {seconds / n:6.3f} s/variant, overhead "
                  f"{(seconds - local_seconds) / n:+6.3f} s/variant; first record after {first:5.2f} s "
                  f"({first - local_first:+5.2f} s), then {(seconds - first) / max(1, n - 1):6.3f} s/variant "
                  f"({(seconds - first - local_seconds + local_first) / max(1, n - 1):+6.3f} s); "
                  f"CPU {cpu:6.1f} s for {args.repeat} bench(es)" + ("" if local else " incl. Ray start/stop"))
            if not local:
                ratios = {k[0]: records[k]["latency"]["median"] / baseline[k]["latency"]["median"]
                          for k in records if records[k]["status"] == "ok"}
                print(f"  {'':24} Ray start-up {started:.1f} s; variants per node, per bench: {per_node}; "
                      f"median latency Ray/local, first repeat: " + ", ".join(f"{b} {r:.2f}" for b, r in ratios.items()))
    return failed


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--what", action="append", choices=("run", "bench"), help="default: both")
    p.add_argument("--backend", action="append", help="default: reference and onnxruntime (bench: onnxruntime)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--cases", default=str(bundled_corpus()))
    p.add_argument("--suite", default="ops", help="bench suite (default: ops)")
    p.add_argument("--filter", default="^(matmul-512|softmax|add|relu|sigmoid|layerNormalization).*float32$",
                   help="bench: benchmarks whose id matches (default: 7 small float32 ops)")
    p.add_argument("--min-time", type=float, default=0.2, help="bench: seconds of samples per variant")
    p.add_argument("--threads", type=int, default=1,
                   help="bench threads (default 1: the simulated nodes lend one CPU each, as local the same)")
    args = p.parse_args()

    import ray
    from ray.cluster_utils import Cluster

    from webnn_harness.execution.ray_cluster import RayExecutors

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

    executors = (("local", None), ("ray, local instance", local_ray), ("ray, 2 simulated nodes", two_nodes))
    failed = bench_overhead(args, executors) if "bench" in (args.what or ("run", "bench")) else 0
    for backend in (args.backend or ["reference", "onnxruntime"]) if "run" in (args.what or ("run", "bench")) else ():
        baseline: dict[str, str] = {}
        local_seconds = 0.0
        once = lambda factory: timed_run(Path(args.cases), backend, factory, args.workers)  # noqa: E731
        for label, local, runs, seconds, cpu, started, per_node in each_executor(executors, args.repeat, once):
            statuses, info = runs[0][1], runs[0][2]
            if local:
                baseline, local_seconds = statuses, seconds
                print(f"\n{backend} {info['version']} on {info['device']}, settings {info.get('settings', {})}")
            differ = [k for k in baseline if statuses.get(k) != baseline[k]] + [k for k in statuses if k not in baseline]
            if differ or any(r[1] != statuses for r in runs):
                print(f"  {label}: statuses differ from the local pool on {len(differ)} case(s), e.g. {differ[:3]}")
                failed += 1
                continue
            n = len(statuses)
            line = (f"  {label:24} {seconds:7.2f} s for {n} cases, {1000 * seconds / n:6.2f} ms/case, "
                    f"overhead {1000 * (seconds - local_seconds) / n:+6.2f} ms/case; CPU {cpu:6.1f} s")
            if not local:
                line += f" incl. Ray start/stop; start-up {started:.1f} s; per run: {per_node}"
            print(line)
    print("\n(shared machine: other processes ran beside these timings)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
