"""Do a backend's idle sessions cost the running one? (issue #11) The seed
scenario's `fused` graph and its `deviceTensor` parts (one session per op)
are built in one process, so four sessions are alive, as in a bench worker
running deviceTensor; each is then timed in turn. Prints per variant the
wall and process CPU time per call (user+sys, every thread) and how many of
the process's threads used CPU while it ran: an idle session whose threads
spin shows up as extra busy threads and CPU per call well above the wall
time times the thread count the backend was given.

    python benchmarks/idle_sessions.py [--backend onnxruntime -o spinning=1] [--threads N] [--rounds 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import datetime, timezone

from webnn_harness import __version__, backends
from webnn_harness.backends.base import parse_options
from webnn_harness.bench.suite import load_suite
from webnn_harness.bench.machine import machine_info, usable_cores
from webnn_harness.bench.variants import prepare
from webnn_harness.bench.worker import Verified


THREAD_SETTINGS = ("intra_op_threads", "intra_op_spinning", "inference_num_threads")


def cpu_ticks_by_thread() -> dict[str, int]:
    """utime + stime of each of this process's threads (Linux /proc)."""
    ticks = {}
    for tid in os.listdir("/proc/self/task"):
        fields = open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)[1].split()
        ticks[tid] = int(fields[11]) + int(fields[12])
    return ticks


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", default="onnxruntime")
    p.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--threads", type=int, default=usable_cores())
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--calls", type=int, default=10)
    args = p.parse_args()
    backend = backends.create(args.backend, {"threads": str(args.threads), **parse_options(args.option)})
    info = backend.info()
    bench = next(b for b in load_suite("seed").benchmarks if b.id == "seed-conv2d-add-relu")
    steps = {}
    for variant in ("fused", "deviceTensor"):
        verified = Verified(bench, variant)
        steps[variant] = prepare(variant, bench.kind, verified.case.graph, verified.case.inputs, backend, None).step
    for step in steps.values():
        step()
    rows: dict[str, list[tuple[float, float, int]]] = {v: [] for v in steps}
    load = os.getloadavg()[0]
    for _ in range(args.rounds):
        for variant, step in steps.items():
            before, c0, t0 = cpu_ticks_by_thread(), time.process_time(), time.perf_counter()
            for _ in range(args.calls):
                step()
            wall, cpu = (time.perf_counter() - t0) / args.calls, (time.process_time() - c0) / args.calls
            after = cpu_ticks_by_thread()
            rows[variant].append((wall, cpu, sum(after[t] > before.get(t, 0) for t in after)))
    machine = machine_info()
    print(f"webnn-harness {__version__}, {info.name} {info.version} on {info.device}, "
          f"{machine['cpu']} x{machine['cores']}, {datetime.now(timezone.utc).isoformat(timespec='seconds')}, "
          f"threads {args.threads}, options {parse_options(args.option) or 'none'} "
          f"({ {k: v for k, v in info.settings.items() if k in THREAD_SETTINGS} }), "
          f"load {load:.1f}..{os.getloadavg()[0]:.1f}")
    for variant, xs in rows.items():
        print(f"{variant:14s} wall {statistics.median(x[0] for x in xs) * 1e3:8.2f} ms/call  "
              f"cpu {statistics.median(x[1] for x in xs) * 1e3:8.2f} ms/call  "
              f"busy threads {max(x[2] for x in xs)} of {len(cpu_ticks_by_thread())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
