"""Is the harness's median what the backend's own tool measures on the same
model, with the same settings? Runs `bench` (the library path: worker
process, verification, artifact saved), then replays the saved artifact
natively and prints both medians, their ratio, and each side's CV:

  onnxruntime: a tight InferenceSession.run loop on the saved .onnx, with the
               session options the bench recorded (threads, optimisation
               level, spinning, sequential execution);
  openvino:    benchmark_app (shipped with the openvino wheel) on the saved
               .xml, -api sync, with -load_config holding exactly the timing
               properties the plugin applied in the bench (hint, streams,
               threads, pinning, precision, ...; the record's buildSettings),
               and the properties benchmark_app reports checked against them;
               plus a Python InferRequest.infer loop under the same config,
               which gives the native side's own spread (benchmark_app prints
               no CV);
  litert:      an Interpreter.invoke loop on the saved .tflite, with the
               thread count and op resolver (XNNPACK or builtin) the bench
               recorded, its inputs set once before the loop; and the same
               interpreter copying in and out each call (set_tensor, invoke,
               get_tensor), the work any host caller of that API does;
  chromium:    benchmarks/chromium_page_loop.html, a static page of bare
               WebNN calls (no harness code) building the seed's fused graph,
               timing writeTensor + dispatch + await readTensor with
               performance.now() (what the bench's fused variant times in its
               page), in the same browser with the flags the bench recorded,
               served cross-origin isolated as the backend's page is
               (seed-conv2d-add-relu:fused only).

    python benchmarks/bench_fidelity.py [--backend onnxruntime --backend openvino]
        [--benchmark seed-conv2d-add-relu:fused ...] [--rounds 3] [--seconds 5] [--threads N] [-o KEY=VALUE]

What each side times per call: the harness's whole-graph variant reads its
host input in place and copies its output into a new host array (see
harness/bench/variants.py); ORT's session.run reads the input in place and
hands back its own output buffer; benchmark_app times inference alone; the
LiteRT loop times invoke alone, where the harness's step also copies the
input into the interpreter (set_tensor) and the output out of it (get_tensor):
the Interpreter API has no other way (backends/litert/device.py). So the
harness carries one output copy more than either native loop (the seed's
4 MB output: 0.4 to 0.7 ms on our shared 2-core machine); nothing else
should differ. Rounds
alternate harness and native runs (ABAB) so drift on a shared machine hits
both; a verdict compares the medians over rounds, target within 5%; the last
lines print exactly the figures issue #11 targets.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from webnn_harness import __version__
from webnn_harness.backends.base import parse_options
from webnn_harness.bench.driver import BenchOptions, run_bench
from webnn_harness.bench.measure import TimingPolicy
from webnn_harness.bench.suite import load_suite
from webnn_harness.bench.machine import machine_info, usable_cores

DEFAULT_BENCHMARKS = ["seed-conv2d-add-relu:fused", "conv2d-3x3-56x56x64-float32:graph"]
TARGETED = "seed-conv2d-add-relu:fused"
TARGET_GAP = 0.05
TARGET_CV = 0.03


@dataclass(frozen=True)
class Native:
    tool: str
    median: float  # seconds
    cv: float | None  # None: the tool does not say
    cpu: float | None = None  # process CPU seconds per call (user+sys, every thread), where measured here


def harness_record(backend: str, benchmark: str, variant: str, threads: int, seconds: float, out: Path,
                   options: dict[str, str]) -> dict:
    suite = load_suite("default")
    bench = next((b for b in suite.benchmarks if b.id == benchmark), None)
    if bench is None or variant not in bench.variants:
        raise SystemExit(f"no benchmark {benchmark!r} with variant {variant!r} in the default suite")
    bench = replace(bench, variants=(variant,), graphs={variant: bench.graphs[variant]})
    suite = replace(suite, benchmarks=(bench,))
    policy = TimingPolicy(min_time=seconds, min_samples=10, max_time=seconds * 3)
    # threads as the bench sets them: for a backend with a threads option (not chromium's)
    result = run_bench(suite, [(backend, dict(options))], out,
                       BenchOptions(policy=policy, threads=threads, peaks={"copy_bytes": 1 << 20, "matmul_size": 64,
                                                                           "noise_seconds": seconds}),
                       overwrite=True)
    (record,) = result.records
    if record["status"] != "ok":
        raise SystemExit(f"{backend} {benchmark} {variant}: {record['status']}: {record['message']}")
    return record


def timed_loop(call, seconds: float, sample=None) -> tuple[float, float, float]:
    """(median, cv, median CPU) of ``call`` run for ``seconds`` after 3
    warm-up calls; ``sample()`` reads a call's duration where the tool keeps
    its own. CPU is the process's, as the bench records it (cpuMedian)."""
    for _ in range(3):
        call()
    times, cpu, end = [], [], time.perf_counter() + seconds
    while time.perf_counter() < end or len(times) < 10:
        c0, t0 = time.process_time(), time.perf_counter()
        call()
        times.append(sample() if sample else time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(times), statistics.stdev(times) / statistics.fmean(times), statistics.median(cpu)


def ort_native(record: dict, artifact: Path, seconds: float) -> Native:
    import onnxruntime as ort

    settings = record["backend"]["settings"]
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = settings["intra_op_threads"]
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.add_session_config_entry("session.intra_op.allow_spinning", "1" if settings["intra_op_spinning"] else "0")
    session = ort.InferenceSession(str(artifact), so, providers=[settings["provider"]])
    rng = np.random.default_rng(0)
    types = {"tensor(float)": np.float32, "tensor(float16)": np.float16}
    feed = {i.name: rng.random(i.shape).astype(types[i.type]) for i in session.get_inputs()}
    return Native("InferenceSession.run loop", *timed_loop(lambda: session.run(None, feed), seconds))


def litert_interpreter(record: dict, artifact: Path):
    """The saved .tflite in an Interpreter with the bench's threads and op
    resolver, and its inputs as (index, random values)."""
    from ai_edge_litert import interpreter as litert

    settings = record["backend"]["settings"]
    resolver = getattr(litert.OpResolverType, settings["op_resolver"])
    runner = litert.Interpreter(model_path=str(artifact), num_threads=settings["threads"],
                                experimental_op_resolver_type=resolver)
    runner.allocate_tensors()
    rng = np.random.default_rng(0)
    return runner, [(d["index"], rng.random(d["shape"]).astype(d["dtype"])) for d in runner.get_input_details()]


def litert_native(record: dict, artifact: Path, seconds: float) -> Native:
    runner, feed = litert_interpreter(record, artifact)
    for index, value in feed:
        runner.set_tensor(index, value)
    return Native("Interpreter.invoke loop", *timed_loop(runner.invoke, seconds))


def litert_copying_loop(record: dict, artifact: Path, seconds: float) -> Native:
    """The same interpreter, each call doing what the Interpreter API makes
    every host caller do (set_tensor in, invoke, get_tensor out): the harness's
    own overhead is its median beyond this loop's, the copies are this loop's
    beyond the invoke loop's."""
    runner, feed = litert_interpreter(record, artifact)
    outputs = [d["index"] for d in runner.get_output_details()]

    def step() -> None:
        for index, value in feed:
            runner.set_tensor(index, value)
        runner.invoke()
        for index in outputs:
            runner.get_tensor(index)

    return Native("Interpreter set_tensor+invoke+get_tensor loop", *timed_loop(step, seconds))


PAGE_LOOP = Path(__file__).with_name("chromium_page_loop.html")


def chromium_page_loop(record: dict, seconds: float) -> Native:
    """The bare WebNN page loop (PAGE_LOOP) in the browser the bench ran,
    launched with the flags it recorded, served from loopback with the
    cross-origin isolation the backend's page has (the same 5 us clock)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    import threading

    from playwright.sync_api import sync_playwright

    from webnn_harness.backends.chromium import install

    settings = record["backend"]["settings"]
    executable = settings["executable"] or str(install.resolve(settings["packageVersion"]).executable)
    body = PAGE_LOOP.read_bytes()

    class Page(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(200)
            for header, value in (("Content-Type", "text/html"), ("Content-Length", str(len(body))),
                                  ("Cross-Origin-Opener-Policy", "same-origin"),
                                  ("Cross-Origin-Embedder-Policy", "require-corp")):
                self.send_header(header, value)
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=executable, headless=True, args=settings["flags"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/")
            result = page.evaluate("(seconds) => pageLoop(seconds)", seconds)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    if not result["crossOriginIsolated"]:
        raise SystemExit("the bare page loop was not cross-origin isolated: its clock is not the bench page's")
    times = result["times"]
    return Native("bare WebNN page loop", statistics.median(times), statistics.stdev(times) / statistics.fmean(times))


def openvino_config(record: dict) -> dict:
    """The bench's compile properties for benchmark_app -load_config."""
    device = record["backend"]["settings"]["device"]
    return {device: dict(record["buildSettings"])}


def benchmark_app(record: dict, artifact: Path, seconds: float, config_file: Path) -> Native:
    tool = shutil.which("benchmark_app") or str(Path(sys.executable).parent / "benchmark_app")
    device = record["backend"]["settings"]["device"]
    command = [tool, "-m", str(artifact), "-d", device, "-api", "sync", "-load_config", str(config_file),
               "-t", str(int(max(1, seconds)))]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    match = re.search(r"Median:\s*([0-9.]+)\s*ms", done.stdout)
    if done.returncode != 0 or not match:
        raise SystemExit(f"benchmark_app failed ({done.returncode}): {done.stdout[-1500:]}{done.stderr[-1500:]}")
    # Step 8 lists the compiled model's properties: they must be the bench's.
    reported = dict(re.findall(r"\[ INFO \]\s+([A-Z_]+): (.*)", done.stdout.split("[Step 9/")[0]))
    differ = {k: (v, reported.get(k)) for k, v in record["buildSettings"].items()
              if k in reported and not _same_property(v, reported[k])}
    if differ:
        raise SystemExit(f"benchmark_app compiled with other settings than the bench (bench, benchmark_app): {differ}")
    return Native("benchmark_app", float(match.group(1)) / 1e3, None)


def _same_property(ours: str, theirs: str) -> bool:
    # benchmark_app prints enums as Class.NAME, types as <Type: 'float32'>, booleans as True/False.
    aliases = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}
    theirs = theirs.strip().split(".")[-1].removeprefix("<Type: '").removesuffix("'>")
    return aliases.get(ours, ours) == theirs or ours == theirs


def openvino_loop(record: dict, artifact: Path, seconds: float) -> Native:
    import openvino as ov

    core = ov.Core()
    settings = record["backend"]["settings"]
    compiled = core.compile_model(core.read_model(str(artifact)), settings["device"], dict(record["buildSettings"]))
    request = compiled.create_infer_request()
    rng = np.random.default_rng(0)
    for port in compiled.inputs:
        tensor = request.get_tensor(port)
        tensor.data[...] = rng.random(tensor.shape)
    return Native("InferRequest.infer loop", *timed_loop(request.infer, seconds, sample=lambda: request.latency / 1e3))


def _spread(native: Native) -> str:
    """ " (cv, cpu)" of a native figure, each where measured (a page has no process CPU clock)."""
    parts = ([f"cv {native.cv:.1%}"] if native.cv is not None else []) + \
        ([f"cpu {native.cpu * 1e3:.1f} ms/call"] if native.cpu is not None else [])
    return f" ({', '.join(parts)})" if parts else ""


def _load(record: dict) -> str:
    load = record.get("loadAverage")
    return f"{load[0]:.1f}..{load[1]:.1f}" if load else "-"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", action="append", help="default: onnxruntime and openvino (or litert)")
    p.add_argument("--benchmark", action="append", metavar="ID:VARIANT", help=f"default: {' '.join(DEFAULT_BENCHMARKS)}")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=5.0, help="timed seconds per run, each side")
    p.add_argument("--threads", type=int, default=usable_cores())
    p.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="backend option for the bench (e.g. spinning=1); the native side copies the recorded settings")
    args = p.parse_args()
    options = parse_options(args.option)
    machine = machine_info()
    print(f"webnn-harness {__version__}, {datetime.now(timezone.utc).isoformat(timespec='seconds')}, "
          f"{machine['cpu']} x{machine['cores']} ({machine['platform']}), load {os.getloadavg()[0]:.1f}, "
          f"threads {args.threads}, options {options or 'none'}", flush=True)
    outside = 0
    targets: list[str] = []
    for backend in args.backend or ["onnxruntime", "openvino"]:
        for item in args.benchmark or ([TARGETED] if backend == "chromium" else DEFAULT_BENCHMARKS):
            benchmark, _, variant = item.partition(":")
            variant = variant or "graph"
            ours, cvs, cpus, natives, noises = [], [], [], {}, []
            with tempfile.TemporaryDirectory() as tmp:
                for round_ in range(args.rounds):
                    out = Path(tmp) / "bench"
                    record = harness_record(backend, benchmark, variant, args.threads, args.seconds, out, options)
                    artifact = out / record["artifact"] if record["artifact"] else None  # chromium saves none
                    if round_ == 0:
                        info = record["backend"]
                        print(f"{backend} {info['version']} on {info['device']}: settings {json.dumps(info['settings'])}; "
                              f"build settings {json.dumps(record['buildSettings'])}", flush=True)
                    if backend == "onnxruntime":
                        measured = [ort_native(record, artifact, args.seconds)]
                    elif backend == "chromium":
                        if f"{benchmark}:{variant}" != TARGETED:
                            raise SystemExit(f"chromium: the bare page loop runs {TARGETED} only")
                        measured = [chromium_page_loop(record, args.seconds)]
                    elif backend == "litert":
                        measured = [litert_native(record, artifact, args.seconds),
                                    litert_copying_loop(record, artifact, args.seconds)]
                    else:
                        config_file = Path(tmp) / "config.json"
                        config_file.write_text(json.dumps(openvino_config(record)))
                        measured = [benchmark_app(record, artifact, args.seconds, config_file),
                                    openvino_loop(record, artifact, args.seconds)]
                    ours.append(record["latency"]["median"])
                    cvs.append(record["latency"]["cv"])
                    cpus.append(record["latency"].get("cpuMedian"))  # none where timed in a page
                    noises.append(json.loads((out / "summary.json").read_text())["header"]["peaks"]["noise"]["cv"])
                    for native in measured:
                        natives.setdefault(native.tool, []).append(native)
                    theirs = ", ".join(f"{n.tool} {n.median * 1e3:.3f} ms" + _spread(n) for n in measured)
                    cpu = f"cpu {cpus[-1] * 1e3:.1f} ms/call, " if cpus[-1] is not None else ""
                    print(f"{backend} {benchmark}:{variant} round {round_ + 1}: harness {ours[-1] * 1e3:.3f} ms "
                          f"(cv {cvs[-1]:.1%}, {cpu}load {_load(record)}), "
                          f"{theirs}; machine noise cv {noises[-1]:.1%}", flush=True)
            a, cv = statistics.median(ours), statistics.median(cvs)
            for tool, runs in natives.items():
                b = statistics.median(n.median for n in runs)
                native_cvs = [n.cv for n in runs if n.cv is not None]
                native_cpu = [n.cpu for n in runs if n.cpu is not None]
                gap = a / b - 1
                verdict = "within" if abs(gap) <= TARGET_GAP else "OUTSIDE"
                spread = f", native cv {statistics.median(native_cvs):.1%}" if native_cvs else ""
                line = (f"{backend} {benchmark}:{variant}: harness median {a * 1e3:.3f} ms (cv {cv:.1%}), {tool} median "
                        f"{b * 1e3:.3f} ms{spread}, harness/native {a / b:.3f} ({gap:+.1%}: {verdict} {TARGET_GAP:.0%})")
                if native_cpu and None not in cpus:  # what a busy machine does not inflate much: the work per call
                    c, d = statistics.median(cpus), statistics.median(native_cpu)
                    line += f"; CPU per call {c * 1e3:.3f} vs {d * 1e3:.3f} ms ({c / d - 1:+.1%})"
                print(line, flush=True)
                if tool in ("InferenceSession.run loop", "benchmark_app", "Interpreter.invoke loop", "bare WebNN page loop"):
                    outside += verdict == "OUTSIDE"
                    if f"{benchmark}:{variant}" == TARGETED:
                        targets.append(f"fidelity {backend}: harness/{tool} {a / b:.3f} ({gap:+.1%}, target within "
                                       f"{TARGET_GAP:.0%}: {'met' if verdict == 'within' else 'NOT met'})")
            if f"{benchmark}:{variant}" == TARGETED:
                noise = statistics.median(noises)
                quiet = "a quiet machine" if noise <= TARGET_CV else f"NOT a quiet machine: its own noise cv {noise:.1%}"
                targets.append(f"fused cv {backend}: {cv:.2%} (median of {len(cvs)} runs; target <= {TARGET_CV:.0%} on a "
                               f"quiet machine: {'met' if cv <= TARGET_CV else 'NOT met'}; this was {quiet})")
    if targets:
        print(f"issue #11 targets, {TARGETED}, {args.rounds} rounds, load {os.getloadavg()[0]:.1f} now:")
        for line in targets:
            print("  " + line)
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
