"""The harness's own cost, from command to exit, as a vendor's CI pays it:
both corpora (WPT with its extra files, and ours) on each backend, and the full capability probe,
each with a cold and a warm reference cache.

    python benchmarks/harness_speed.py [--wpt ../shared/wpt --wpt ../shared/wpt-extra] [--only run|probe] [--backend NAME ...] [--repeat N]
                                       [--profile DIR]

Every figure runs the installed ``webnn-harness`` command in a fresh process
(so imports and worker start-up count) and reports wall time (median of
--repeat), the CPU time of the command and its workers, and the target from
issue 14. "cold" points $XDG_CACHE_HOME at an empty folder; "warm" runs the
same command again on the cache the cold run filled. CPU time says more than
wall time on a machine shared with other work; the header says how busy the
machine was.

``--profile DIR`` runs each figure once more under cProfile (CPU time): the
command's own process and every worker (``WEBNN_HARNESS_PROFILE``, see
harness/execution/worker.py) write ``DIR/<figure>/*.prof``, and the functions with the
most cumulative CPU time over all of them are printed.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {  # seconds, 2 cores, cold cache (issue 14)
    ("run", "reference"): 8.0,
    ("run", "onnxruntime"): 3.0,
    ("run", "openvino"): 8.0,
    ("probe", "onnxruntime"): 4.0,
    ("probe", "openvino"): 10.0,
}


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(command: list[str], cache: Path) -> tuple[float, float, int]:
    """(wall s, CPU s of the command and its children, exit code)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    cpu0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    return wall, cpu, proc.returncode


# The command's own process under cProfile, measuring CPU time; its stats go to argv[1].
PROFILED_MAIN = """\
import cProfile, runpy, sys, time
out = sys.argv.pop(1)
profiler = cProfile.Profile(time.process_time)
sys.argv[0] = "webnn-harness"
profiler.enable()
try:
    runpy.run_module("webnn_harness", run_name="__main__")
finally:
    profiler.disable()
    profiler.dump_stats(out)
"""


def profile(kind: str, backend: str, wpt: list[Path], cache: Path, folder: Path, out: Path) -> None:
    """One more run of the figure under cProfile; prints the top functions over all its processes."""
    import pstats

    folder.mkdir(parents=True, exist_ok=True)
    command = command_for(kind, backend, wpt, out)
    command[1:3] = ["-c", PROFILED_MAIN, str(folder / "main.prof")]  # replaces "-m webnn_harness"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "WEBNN_HARNESS_PROFILE": str(folder)}
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    files = sorted(folder.glob("*.prof"))
    stats = pstats.Stats(*map(str, files), stream=sys.stdout)
    print(f"  profile: {len(files)} processes, {stats.total_tt:.2f} CPU-s under the profiler, in {folder}")
    stats.sort_stats("cumulative").print_stats(25)


def command_for(kind: str, backend: str, wpt: list[Path], out: Path) -> list[str]:
    exe = [sys.executable, "-m", "webnn_harness"]
    if kind == "run":
        from webnn_harness.loading.cases import bundled_corpus

        cases = [arg for folder in (*wpt, bundled_corpus()) for arg in ("--cases", str(folder))]
        return [*exe, "run", "-b", backend, *cases,
                "--out", str(out), "--overwrite", "-q"]  # our own temporary folder, run again
    return [*exe, "probe", "-b", backend, "--out", str(out), "--overwrite", "-q"]  # cold, then warm, into one folder


def header() -> str:
    from webnn_harness import __version__, backends

    lines = [f"webnn-harness {__version__}, {_dt.datetime.now(_dt.timezone.utc).isoformat(timespec='seconds')}",
             f"machine: {platform.platform()}, {os.cpu_count()} cores, load average "
             f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min)"]
    for name in ("reference", "onnxruntime", "openvino"):
        try:
            info = backends.create(name, {}).info()
            settings = ", ".join(f"{k}={v}" for k, v in info.settings.items()
                                 if k in ("opset", "intra_op_threads", "precision", "device", "graph_optimization_level"))
            lines.append(f"{name}: {info.version} on {info.device} ({settings})")
        except Exception as exc:  # noqa: BLE001 - say what is missing, time the rest
            lines.append(f"{name}: not available ({exc})")
    return "\n".join(lines)


def main() -> int:
    here = Path(__file__).resolve().parents[1]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--wpt", action="append", metavar="DIR",
                   help="a WPT corpus folder (repeatable; default: ../shared/wpt and ../shared/wpt-extra)")
    p.add_argument("--only", choices=("run", "probe"))
    p.add_argument("--backend", action="append", help="default: reference, onnxruntime, openvino")
    p.add_argument("--repeat", type=int, default=1, help="runs per figure; the median is printed")
    p.add_argument("--profile", metavar="DIR", help="also profile each figure (cold, then warm) into DIR")
    args = p.parse_args()
    wpt = [Path(w) for w in args.wpt or (here.parent / "shared" / "wpt", here.parent / "shared" / "wpt-extra")]
    print(header())
    print(f"{'what':28} {'cache':5} {'wall s':>7} {'cpu s':>7} {'target':>7}")
    missed = 0
    for (kind, backend), target in TARGETS.items():
        if (args.only and kind != args.only) or (args.backend and backend not in args.backend):
            continue
        with tempfile.TemporaryDirectory(prefix="harness-speed-") as tmp:
            cache = Path(tmp) / "cache"
            for state in ("cold", "warm"):
                walls, cpus = [], []
                for _ in range(args.repeat):
                    if state == "cold":
                        shutil.rmtree(cache, ignore_errors=True)
                    wall, cpu, _ = timed(command_for(kind, backend, wpt, Path(tmp) / "out"), cache)
                    walls.append(wall)
                    cpus.append(cpu)
                wall = statistics.median(walls)
                ok = "" if state == "warm" else ("ok" if wall <= target else "MISSED")
                missed += ok == "MISSED"
                print(f"{kind + ' ' + backend:28} {state:5} {wall:7.2f} {statistics.median(cpus):7.2f} "
                      f"{target:7.1f} {ok}", flush=True)
                if args.profile:
                    profiled_cache = Path(tmp) / f"profiled-{state}"
                    if state == "warm":
                        shutil.copytree(cache, profiled_cache, dirs_exist_ok=True)
                    profile(kind, backend, wpt, profiled_cache,
                            Path(args.profile) / f"{kind}-{backend}-{state}", Path(tmp) / "out")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
