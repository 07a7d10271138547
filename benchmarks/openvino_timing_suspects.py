"""Where the OpenVINO bench's time goes (issue #11): each suspect timed on its
own, on the seed `fused` graph (or --benchmark ID:VARIANT of the default
suite), in one process, interleaved round by round (ABAB...) so drift on a
shared machine hits every suspect alike. Prints, per suspect, the median over
rounds of each round's median wall time, its ratio to benchmark_app's loop
(inference alone), the median round CV, and the process CPU time per call
(user+sys, all threads: what a busy machine does not inflate much) with
its CV over every call (the spread of the work itself, apart from waiting
for a core).

    python benchmarks/openvino_timing_suspects.py [--rounds 8] [--calls 10] [--threads N]

Suspects, each a way to call the same compiled graph:
  benchmark_app loop     request.infer(), inputs set once, outputs not read
  harness step           what the bench times now (harness/bench/variants.py):
                         input shared in place, infer, one output copy
  round-1 step           what it timed before: input copied twice per call
                         (np.array, then ov.Tensor), infer, one output copy
  __call__ defaults      CompiledModel.__call__(x): share_inputs=True,
                         share_outputs=False (OpenVINO's sync API as documented)
  infer(x) defaults      InferRequest.infer(x): input copied into the
                         request's tensor, output copied
  new request per call   compiled_model.create_infer_request() every call
  random input data      benchmark_app's input (uniform 0..255) instead of the suite's
and compile settings, each a model of its own timed like benchmark_app:
  THROUGHPUT hint, TBB partitioner AUTO, CPU pinning off.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import datetime, timezone

import numpy as np

from webnn_harness import __version__
from webnn_harness.backends.openvino import OpenVINOBackend
from webnn_harness.backends.openvino.device import OpenVINODeviceSession
from webnn_harness.bench.suite import load_suite
from webnn_harness.bench.machine import machine_info, usable_cores
from webnn_harness.bench.variants import prepare
from webnn_harness.bench.worker import Verified


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--benchmark", default="seed-conv2d-add-relu:fused", metavar="ID:VARIANT")
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--calls", type=int, default=10, help="calls per suspect per round")
    p.add_argument("--threads", type=int, default=usable_cores())
    args = p.parse_args()
    bench_id, _, variant = args.benchmark.partition(":")
    bench = next(b for b in load_suite("default").benchmarks if b.id == bench_id)
    verified = Verified(bench, variant)
    graph, inputs = verified.case.graph, verified.case.inputs
    backend = OpenVINOBackend({"threads": str(args.threads)})
    harness = prepare(variant, bench.kind, graph, inputs, backend, None)
    session = OpenVINODeviceSession(backend, graph)
    compiled, request, ov = session.compiled, session.request, backend._ov
    feeds = {port: np.ascontiguousarray(inputs[name]) for port, name in enumerate(graph.inputs)}
    for port, array in feeds.items():
        request.get_input_tensor(port).data[...] = array
    random_request = compiled.create_infer_request()
    rng = np.random.default_rng(0)
    for port, array in feeds.items():
        random_request.get_input_tensor(port).data[...] = rng.uniform(0, 255, array.shape)

    def round_one_step():
        for port, array in feeds.items():
            request.set_input_tensor(port, ov.Tensor(np.array(array, copy=True), shared_memory=False))
        request.infer()
        return [np.array(request.get_output_tensor(i).data, copy=True) for i in range(len(graph.outputs))]

    def compiled_with(extra: dict):
        from webnn_harness.backends.openvino.lower import lower_graph

        lowered = lower_graph(graph)
        model = ov.Model(lowered.results, lowered.parameters, "suspect")
        config = {**{k: v for k, v in session.build_settings().items() if k in ("INFERENCE_NUM_THREADS", "INFERENCE_PRECISION_HINT")},
                  "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": "1", **extra}
        if extra.get("PERFORMANCE_HINT") == "THROUGHPUT":
            config.pop("NUM_STREAMS")  # let the hint choose, as a user who only sets the hint gets
        other = backend.core.compile_model(model, backend.device, config).create_infer_request()
        for port, array in feeds.items():
            other.get_input_tensor(port).data[...] = array
        return other

    throughput, auto, unpinned = (compiled_with(c) for c in (
        {"PERFORMANCE_HINT": "THROUGHPUT"}, {"TBB_PARTITIONER": "AUTO"}, {"ENABLE_CPU_PINNING": "False"}))
    suspects = {
        "benchmark_app loop": request.infer,
        "harness step": harness.step,
        "round-1 step": round_one_step,
        "__call__ defaults": lambda: compiled(feeds),
        "infer(x) defaults": lambda: request.infer(feeds),
        "new request per call": lambda: compiled.create_infer_request().infer(feeds),
        "random input data": random_request.infer,
        "THROUGHPUT hint": throughput.infer,
        "TBB partitioner AUTO": auto.infer,
        "CPU pinning off": unpinned.infer,
    }
    for call in suspects.values():
        for _ in range(3):
            call()
    medians = {k: [] for k in suspects}
    cvs = {k: [] for k in suspects}
    cpu = {k: [] for k in suspects}
    load = os.getloadavg()[0]
    started = time.perf_counter()
    for _ in range(args.rounds):
        for name, call in suspects.items():
            walls = []
            for _ in range(args.calls):
                c0, t0 = time.process_time(), time.perf_counter()
                call()
                walls.append(time.perf_counter() - t0)
                cpu[name].append(time.process_time() - c0)
            medians[name].append(statistics.median(walls))
            cvs[name].append(statistics.stdev(walls) / statistics.fmean(walls))
    machine = machine_info()
    print(f"webnn-harness {__version__}, openvino {ov.get_version()}, {backend.device} ({machine['cpu']} "
          f"x{machine['cores']}), {datetime.now(timezone.utc).isoformat(timespec='seconds')}, threads {args.threads}, "
          f"build settings {session.build_settings()}")
    print(f"{args.benchmark}: {args.rounds} rounds x {args.calls} calls per suspect, interleaved; load {load:.1f} at "
          f"start, {os.getloadavg()[0]:.1f} at end; {time.perf_counter() - started:.0f} s")
    base = statistics.median(medians["benchmark_app loop"])
    print(f"{'suspect':22s} {'wall ms':>9s} {'vs bapp':>8s} {'round cv':>9s} {'cpu ms/call':>12s} {'cpu cv':>7s}")
    for name in suspects:
        wall = statistics.median(medians[name])
        print(f"{name:22s} {wall * 1e3:9.2f} {wall / base - 1:+8.1%} {statistics.median(cvs[name]):9.1%} "
              f"{statistics.median(cpu[name]) * 1e3:12.2f} {statistics.stdev(cpu[name]) / statistics.fmean(cpu[name]):7.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
