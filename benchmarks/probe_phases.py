"""The full capability probe's cost, taken apart (issue 14): from command to
exit, as ``harness_speed.py --only probe`` measures it, and then without the
cold-cache costs that belong to the backend rather than to the probe.

    python benchmarks/probe_phases.py [--backend NAME ...] [--repeat N]

Per backend, each in a fresh process, wall (median of --repeat) and CPU
seconds of the command and all its processes:

    cold                 empty $XDG_CACHE_HOME: the figure issue 14 targets
    kernels cached       ONNX Runtime only: the kernel table of
                         backends/onnxruntime/opsets.py already on disk (what
                         the cold run wrote), i.e. the probe without the ~600
                         one-node sessions of a first run on an ORT version
    combinations only    the same, --no-layout --no-bytes: the passes alone,
                         so the layout timing and byte search's share shows

CPU seconds say more than wall time on a shared machine; the header says how
busy it was.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_speed import TARGETS, header, timed  # noqa: E402

KERNELS = Path("webnn-harness") / "onnxruntime-kernels.json"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", action="append", help="default: onnxruntime, openvino")
    p.add_argument("--repeat", type=int, default=1, help="runs per figure; the median is printed")
    args = p.parse_args()
    print(header())
    print(f"{'probe':12} {'cache':34} {'wall s':>7} {'cpu s':>7} {'target':>7}")
    missed = 0
    for backend in args.backend or ("onnxruntime", "openvino"):
        target = TARGETS[("probe", backend)]
        with tempfile.TemporaryDirectory(prefix="probe-phases-") as tmp:
            cache, kept = Path(tmp) / "cache", Path(tmp) / "kernels.json"
            out = Path(tmp) / "out"
            command = [sys.executable, "-m", "webnn_harness", "probe", "-b", backend, "--out", str(out), "--overwrite", "-q"]
            rows = [("cold", [], False)]
            if backend == "onnxruntime":
                rows += [("kernels cached", [], True), ("kernels cached, combinations only", ["--no-layout", "--no-bytes"], True)]
            else:
                rows += [("cold, combinations only", ["--no-layout", "--no-bytes"], False)]
            for label, extra, kernels in rows:
                walls, cpus = [], []
                for _ in range(args.repeat):
                    shutil.rmtree(cache, ignore_errors=True)
                    if kernels and kept.exists():
                        (cache / KERNELS).parent.mkdir(parents=True)
                        shutil.copy(kept, cache / KERNELS)
                    wall, cpu, _ = timed(command + extra, cache)
                    if (cache / KERNELS).exists() and not kept.exists():
                        shutil.copy(cache / KERNELS, kept)  # what a cold run leaves
                    walls.append(wall)
                    cpus.append(cpu)
                wall = statistics.median(walls)
                ok = ("ok" if wall <= target else "MISSED") if label == "cold" else ""
                missed += ok == "MISSED"
                print(f"{backend:12} {label:34} {wall:7.2f} {statistics.median(cpus):7.2f} {target:7.1f} {ok}", flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
