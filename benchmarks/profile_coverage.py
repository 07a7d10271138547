"""How much of each graph's time the backend's own profiler accounts for, and
what the inserted transposes cost from inside the graph (issue #30's targets):

    python benchmarks/profile_coverage.py [--backend onnxruntime --backend openvino] [--threads N ...]
        [--runs 20] [--filter REGEX] [--keep DIR]
    python benchmarks/profile_coverage.py --read DIR [--read DIR ...]   # bench --profile folders made before

Runs ``webnn-harness bench --profile`` on the seed suite's fused graph and the
layout workloads (each backend, each thread count; into a temporary folder
unless --keep), or reads bench folders, and prints per graph:

- the nodes' summed time over the timed median (target 30% to 120%), over
  the graph's own runs without the profiler taken in blocks between the
  profiled ones (the same moments: what the machine did since the timed runs
  drops out), and over a profiled run (the backend's time between nodes);
- the profiler's cost (a profiled run over those plain runs);
- ``drift``: those plain runs over the timed median, the machine's change
  between the two phases;
- for the transposed layout variants, what became of the transposes (ran,
  with their time and share of the median; or removed or folded), and the
  backend's own layout reorders.

Node times that are launches on the host (ORT on CUDA) are printed as such,
never as a share. Every figure comes from the records; nothing is assumed.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

from webnn_harness.outputs.bench_records import read_bench_folder
from webnn_harness.cli import main as harness
from webnn_harness.reports.common import ReportInputError
from webnn_harness.reports.profiles import ProfileView, read_profile

VARIANTS = ("fused", "nhwcTransposed")
FILTER = "seed-conv2d|layout-"


def run_bench(backend: str, threads: int | None, runs: int, pattern: str, out: Path) -> Path:
    args = ["bench", "-b", backend, "--suite", "seed", "--filter", pattern, "--profile", str(runs),
            "--no-artifacts", "--quiet", "--out", str(out)]
    if threads:
        args += ["--threads", str(threads)]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):  # the bench's own tables: this script prints its lines instead
        code = harness(args)
    if code != 0:
        sys.exit(f"{printed.getvalue()}bench exited {code} for {backend} (threads {threads})")
    return out


def _pct(value: float | None) -> str:
    return f"{value:5.0%}" if value is not None else "    –"


def graph_lines(folder: Path) -> list[str]:
    bench = read_bench_folder(folder, on_problem=lambda p: print(f"warning: {p}", file=sys.stderr))
    header = bench.summary.get("header") or {}
    machine = header.get("machine") or {}
    lines = [f"# {folder.name}: {header.get('harness', 'webnn-harness')} {header.get('harnessVersion', '?')}, "
             f"{header.get('date', 'date not recorded')}, {machine.get('cpu', '?')} x{machine.get('cores', '?')} "
             f"({machine.get('platform', '?')}); "
             + "; ".join(f"{b.get('name')} {b.get('version')} on {b.get('device')}, precision "
                         f"{b.get('settings', {}).get('precision', 'float32 as built')}"
                         for b in bench.summary.get("backends") or ())]
    for number, record in bench.records:
        if record.get("variant") not in VARIANTS or record.get("status") != "ok":
            continue
        # The page's reading and figures (reports/profiles.py), so the two never disagree.
        try:
            profile = read_profile(record.get("profile"), f"{folder.name}/bench.jsonl line {number}")
        except ReportInputError as exc:  # a malformed profile: skipped and said, as every command skips a bad line
            print(f"warning: {exc}", file=sys.stderr)
            continue
        if profile is None or profile.problem:
            continue
        backend = record["backend"]
        view = ProfileView(record["benchmark"], record["variant"], backend["name"], record["latency"]["median"],
                           profile)
        settings = backend.get("settings", {})
        threads = settings.get("intra_op_threads") or settings.get("threads") or "?"
        version = str(backend["version"]).split("-")[0]
        head = f"{backend['name']} {version} {threads}t  {view.benchmark:<26} {view.variant:<15}"
        nodes = f"nodes {profile.node_seconds * 1e3:7.3f} ms"
        if profile.launch_times:
            shares = f"{nodes}: launch times on the host, no share of the graph's time"
        else:
            shares = (f"{nodes} = {_pct(view.share_of_median)} of the median {view.median * 1e3:7.3f} ms, "
                      f"{_pct(view.share_of_plain)} beside, {_pct(view.share_of_run)} of a profiled run")
        cost = (f"profiler {view.profiler_cost:+4.0%}, drift {profile.plain_seconds / view.median - 1:+4.0%}"
                if view.profiler_cost is not None else "")
        lines.append(f"{head} {shares}; {cost}; {profile.runs} runs")
        if view.variant == "nhwcTransposed":
            spent = f"{view.transpose_seconds * 1e3:.3f} ms, " if view.transposes_ran else ""
            lines.append(f"{'':>40}transposes: {spent}{view.transpose_note}; "
                         f"backend's layout reorders {view.layout_seconds * 1e3:.3f} ms")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", action="append", help="default: onnxruntime and openvino")
    parser.add_argument("--threads", action="append", type=int, help="repeatable (default: the bench's default)")
    parser.add_argument("--runs", type=int, default=20, help="profiled runs at least (bench --profile RUNS)")
    parser.add_argument("--filter", default=FILTER, help=f"benchmarks (default {FILTER!r})")
    parser.add_argument("--keep", type=Path, help="write the bench folders under this new folder")
    parser.add_argument("--read", action="append", type=Path, help="print bench --profile folders made before")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        folders = list(args.read or ())
        if not folders:
            root = args.keep or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="webnn-profile-")))
            for backend in args.backend or ("onnxruntime", "openvino"):
                for threads in args.threads or (None,):
                    folders.append(run_bench(backend, threads, args.runs, args.filter,
                                             root / f"{backend}-{threads or 'default'}"))
        for folder in folders:
            for line in graph_lines(folder):
                print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
