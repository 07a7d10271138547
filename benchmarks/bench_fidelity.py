"""Is the harness's median what the backend's own tool measures on the same
model? Runs `bench` (the library path: worker process, verification,
artifact saved), then replays the saved artifact with the native tool and
prints both medians:

  onnxruntime: a tight InferenceSession.run loop on the saved .onnx, with the
               session options the bench recorded (threads, optimisation
               level, spinning, sequential execution);
  openvino:    benchmark_app (shipped with the openvino wheel) on the saved
               .xml, synchronous API, one stream (hint none: benchmark_app requires it with -nthreads), the bench's
               thread count and f32 inference precision.

    python benchmarks/bench_fidelity.py [--backend onnxruntime --backend openvino]
        [--benchmark seed-conv2d-add-relu:fused ...] [--rounds 3] [--seconds 5] [--threads N]

The harness's variant also uploads its input and reads its output back each
call (what a caller pays); the native loops feed host arrays too (ORT) or
time inference alone (benchmark_app), so a few percent of copy time is the
expected gap on memory-heavy graphs. Rounds alternate harness and native
runs so slow drift on a shared machine hits both; the verdict compares the
median over rounds, target within 5%.
"""
from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from webnn_harness.bench import BenchOptions, TimingPolicy, load_suite, run_bench
from webnn_harness.bench.machine import usable_cores

DEFAULT_BENCHMARKS = ["seed-conv2d-add-relu:fused", "conv2d-3x3-56x56x64-float32:graph"]
TARGET = 0.05


def harness_median(backend: str, benchmark: str, variant: str, threads: int, seconds: float, out: Path):
    suite = load_suite("default")
    bench = next((b for b in suite.benchmarks if b.id == benchmark), None)
    if bench is None or variant not in bench.variants:
        raise SystemExit(f"no benchmark {benchmark!r} with variant {variant!r} in the default suite")
    bench = replace(bench, variants=(variant,), graphs={variant: bench.graphs[variant]})
    suite = replace(suite, benchmarks=(bench,))
    policy = TimingPolicy(min_time=seconds, min_samples=10, max_time=seconds * 3)
    result = run_bench(suite, [(backend, {"threads": str(threads)})], out,
                       BenchOptions(policy=policy, threads=threads, peaks={"copy_bytes": 1 << 20, "matmul_size": 64}),
                       overwrite=True)
    (record,) = result.records
    if record["status"] != "ok":
        raise SystemExit(f"{backend} {benchmark} {variant}: {record['status']}: {record['message']}")
    return record


def ort_native_median(record: dict, artifact: Path, seconds: float) -> float:
    import onnxruntime as ort

    settings = record["backend"]["settings"]
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = settings["intra_op_threads"]
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.add_session_config_entry("session.intra_op.allow_spinning", "1" if settings.get("intra_op_spinning", True) else "0")
    session = ort.InferenceSession(str(artifact), so, providers=[settings["provider"]])
    rng = np.random.default_rng(0)
    types = {"tensor(float)": np.float32, "tensor(float16)": np.float16}
    feed = {i.name: rng.random(i.shape).astype(types[i.type]) for i in session.get_inputs()}
    for _ in range(3):
        session.run(None, feed)
    times, end = [], time.perf_counter() + seconds
    while time.perf_counter() < end or len(times) < 10:
        t0 = time.perf_counter()
        session.run(None, feed)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def openvino_native_median(record: dict, artifact: Path, seconds: float, threads: int) -> float:
    tool = shutil.which("benchmark_app") or str(Path(sys.executable).parent / "benchmark_app")
    command = [tool, "-m", str(artifact), "-d", record["backend"]["settings"]["device"], "-api", "sync",
               "-hint", "none", "-nstreams", "1", "-nthreads", str(threads), "-infer_precision", "f32",
               "-t", str(int(max(1, seconds)))]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    match = re.search(r"Median:\s*([0-9.]+)\s*ms", done.stdout)
    if done.returncode != 0 or not match:
        raise SystemExit(f"benchmark_app failed ({done.returncode}): {done.stdout[-1500:]}{done.stderr[-1500:]}")
    return float(match.group(1)) / 1e3


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", action="append", help="default: onnxruntime and openvino")
    p.add_argument("--benchmark", action="append", metavar="ID:VARIANT", help=f"default: {' '.join(DEFAULT_BENCHMARKS)}")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=5.0, help="timed seconds per run, each side")
    p.add_argument("--threads", type=int, default=usable_cores())
    args = p.parse_args()
    outside = 0
    for backend in args.backend or ["onnxruntime", "openvino"]:
        for item in args.benchmark or DEFAULT_BENCHMARKS:
            benchmark, _, variant = item.partition(":")
            ours, theirs = [], []
            with tempfile.TemporaryDirectory() as tmp:
                for round_ in range(args.rounds):
                    out = Path(tmp) / "bench"
                    record = harness_median(backend, benchmark, variant or "graph", args.threads, args.seconds, out)
                    artifact = out / record["artifact"]
                    if backend == "onnxruntime":
                        native = ort_native_median(record, artifact, args.seconds)
                    else:
                        native = openvino_native_median(record, artifact, args.seconds, args.threads)
                    ours.append(record["latency"]["median"])
                    theirs.append(native)
                    print(f"{backend} {benchmark}:{variant} round {round_ + 1}: harness {ours[-1] * 1e3:.3f} ms "
                          f"(cv {record['latency']['cv']:.1%}), native {native * 1e3:.3f} ms", flush=True)
            a, b = statistics.median(ours), statistics.median(theirs)
            gap = a / b - 1
            tool = "InferenceSession.run loop" if backend == "onnxruntime" else "benchmark_app"
            verdict = "within" if abs(gap) <= TARGET else "OUTSIDE"
            outside += verdict == "OUTSIDE"
            print(f"{backend} {benchmark}:{variant}: harness median {a * 1e3:.3f} ms, {tool} median {b * 1e3:.3f} ms, "
                  f"harness/native {a / b:.3f} ({gap:+.1%}: {verdict} {TARGET:.0%}); threads {args.threads}")
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
