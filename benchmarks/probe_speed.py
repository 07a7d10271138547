"""Time a full capability probe (every operator, every operand, data types,
ranks 0..8, options and layouts, graph-level limits, preferredInputLayout
timing and the maxTensorByteLength search up to the budget) per backend.

    python benchmarks/probe_speed.py [--backend onnxruntime --backend openvino] [--workers N] [--max-bytes B]

Prints, per backend, the time of each phase and the total; the target is
under 120 s per backend on a 2-core machine.
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from webnn_harness.probe.driver import DEFAULT_MAX_BYTES, probe
from webnn_harness.execution.pool import RunOptions

TARGET_SECONDS = 120.0


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--backend", action="append", help="default: onnxruntime and openvino")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES)
    p.add_argument("--out", help="keep the probe files here (default: a temporary folder)")
    args = p.parse_args()
    slow = 0
    print(f"cores: {os.cpu_count()}, workers: {args.workers}, byte budget: {args.max_bytes}")
    for name in args.backend or ["onnxruntime", "openvino"]:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(args.out or tmp) / name
            result = probe(name, {}, out, max_bytes=args.max_bytes, mode="overwrite",
                           run=RunOptions(workers=args.workers, timeout=20.0, batch_size=64))
        s = result.evidence["summary"]
        counts = ", ".join(f"{n} {o}" for o, n in s["outcomes"].items() if n)
        backend = result.evidence["header"]["backend"]
        print(f"{name} {backend['version']} on {backend['device']}")
        print(f"  combinations: {s['combinations']} ({s['uniqueCalls']} distinct calls): {counts}")
        print(f"  operator members {s['operatorMembers']}, conformance gaps {s['conformanceGaps']}, "
              f"accepted but wrong {s['acceptedButWrong']}")
        print(f"  combinations {s['combinationSeconds']:.1f} s, total {result.seconds:.1f} s "
              f"(target < {TARGET_SECONDS:.0f} s: {'ok' if result.seconds < TARGET_SECONDS else 'TOO SLOW'})")
        slow += result.seconds >= TARGET_SECONDS
    return 1 if slow else 0


if __name__ == "__main__":
    raise SystemExit(main())
