"""``webnn-harness bench``: verified benchmarks timed on backends (harness/bench/driver.py)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from webnn_harness.commands.common import (
    EXIT_FAILURES, EXIT_OK, EXIT_USAGE, UsageError, add_backend_arguments, add_executor_arguments,
    add_out_argument, add_overwrite_argument, add_quiet_argument, backend_requests, default_backend_names, executors, public_argv,
)
from webnn_harness.options import fraction, parallelism, positive_int, positive_seconds, regex

HELP = "time verified benchmarks (suites of ops and interop scenarios) on a backend"


def add_arguments(be: argparse.ArgumentParser) -> None:
    add_backend_arguments(be, repeatable="backend name (repeatable; default: the installed default backends but the reference)",
                          option_example="threads=2")
    be.add_argument("--suite", help="built-in suite name (default, seed, ops, peaks) or a suite JSON file (default: default)")
    be.add_argument("--cases", action="append", metavar="DIR",
                    help="case file or folder (repeatable): time each case as one graph, named by its case id, "
                         "instead of a suite (README, Benchmarks)")
    add_out_argument(be, "out/bench")
    add_overwrite_argument(be, "replace a bench already in --out")
    be.add_argument("--filter", type=regex, help="only benchmarks whose id matches this regular expression")
    be.add_argument("--threads", type=parallelism, help="backend threads (same as -o threads=N; default: every usable core)")
    be.add_argument("--min-time", type=positive_seconds, default=0.5, help="seconds of timed samples per variant at least (default 0.5)")
    be.add_argument("--min-samples", type=positive_int, default=10, help="timed samples per variant at least (default 10)")
    be.add_argument("--max-time", type=positive_seconds, default=10.0, help="stop sampling a variant after this many seconds (default 10)")
    be.add_argument("--timeout", type=positive_seconds, default=300.0, help="seconds per variant before it counts as a timeout (default 300)")
    be.add_argument("--no-artifacts", action="store_true", help="do not save the timed models under DIR/artifacts")
    be.add_argument("--baseline", metavar="DIR", help="bench folder to compare with; exit 1 on a regression")
    be.add_argument("--threshold", type=fraction, default=0.05, help="relative slowdown that counts with --baseline (default 0.05)")
    add_quiet_argument(be, "a line per record")
    be.add_argument("--profile", type=positive_int, nargs="?", const=10, metavar="RUNS",
                    help="after the timed runs, run each variant with the backend's profiler on at least RUNS "
                         "times (default 10) and for --min-time, in blocks between runs of the timed graph, and "
                         "record per-node times and the profiler's cost (from the backend's device_session profile(): README, Benchmarks)")
    add_executor_arguments(be)


def _selected_suite(args):
    """The suite --suite names, or --cases' cases as one (harness/bench/case_benchmarks.py); UsageError for both or a bad one."""
    from webnn_harness.bench.case_benchmarks import case_suite
    from webnn_harness.bench.suite import load_suite

    if args.cases and args.suite:
        raise UsageError("give --suite or --cases, not both")
    if args.cases and getattr(args, "executor", "local") != "local":
        raise UsageError("--cases runs on local workers only (a Ray node would need the case files at the same paths)")
    missing = [p for p in args.cases or () if not Path(p).exists()]
    if missing:
        raise UsageError(f"--cases {missing[0]}: no such file or folder")
    try:
        return case_suite(args.cases) if args.cases else load_suite(args.suite or "default")
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def handle(args) -> int:
    """Time verified benchmarks on backends; write DIR/bench.jsonl and DIR/summary.json. Exit 1 when a
    variant is wrong, errs, crashes or hangs, or with --baseline when one regressed; 2 on bad usage."""
    from webnn_harness.backends import BackendError, UnknownBackend
    from webnn_harness.bench.driver import (
        BenchFolderExists, BenchOptions, BenchRequest, bench_requested, bench_threads,
    )
    from webnn_harness.bench.measure import TimingPolicy
    from webnn_harness.bench.regressions import compare_bench, read_baseline
    from webnn_harness.bench.console import comparison_lines, noise_line, published_tables, record_line
    from webnn_harness.bench.ray_cluster import bench_executor
    from webnn_harness.outputs.kinds import holds
    from webnn_harness.outputs.text import printable
    from webnn_harness.files.reading import read_json

    # The reference is the yardstick, not a contender: benched only when named.
    requests = backend_requests(args.backend or default_backend_names(exclude=("reference",)) or ["reference"],
                                args.option)
    if args.baseline and not holds(args.baseline, "bench"):
        raise UsageError(f"--baseline {args.baseline}: not a bench folder (no bench.jsonl)")
    if args.baseline:
        try:  # read before the bench runs: a corrupt baseline is refused, never "0 regressions" after it
            read_baseline(args.baseline)
        except ValueError as exc:
            raise UsageError(f"--baseline: {exc}") from None
    if args.threads is not None and args.threads < 1:
        raise UsageError("--threads must be at least 1")
    suite = _selected_suite(args)
    for err in suite.errors:
        print(f"error: {printable(err)}", file=sys.stderr)
    threads = bench_threads(args.threads, [r.options for r in requests])
    policy = TimingPolicy(min_time=args.min_time, min_samples=args.min_samples, max_time=args.max_time)
    options = BenchOptions(policy=policy, timeout=args.timeout, threads=threads, name_filter=args.filter,
                           save_artifacts=not args.no_artifacts, profile_runs=args.profile or 0)
    # A benchmark's name and a backend's message come from files: one line each, whatever they hold.
    show = (lambda record: None) if args.quiet else (lambda record: print(printable(record_line(record)), flush=True))
    try:
        with executors(args) as executor:
            for r in requests:  # a backend refusing its options is refused before the folder is written, as in run
                try:
                    executor.describe(r.name, r.options)
                except (ValueError, TypeError) as exc:
                    raise BackendError(f"{r.name}: {exc}") from exc
            request = BenchRequest(suite, tuple((r.name, r.options) for r in requests), Path(args.out), options,
                                   command=public_argv(args), overwrite=args.overwrite,
                                   executor=bench_executor(executor))
            result = bench_requested(request, on_record=show)
    except (UnknownBackend, BackendError, BenchFolderExists, ValueError) as exc:
        raise UsageError(str(exc)) from None
    for line in published_tables(result.records):
        print(line)
    counts = ", ".join(f"{n} {s}" for s, n in result.counts.items() if n)
    print(f"{suite.name}: {counts}; bench: {result.out / 'bench.jsonl'}, summary: {result.out / 'summary.json'}")
    noise = noise_line(read_json(result.out / "summary.json", kind="bench-summary"))
    if noise:
        print(noise)
    if args.baseline:
        comparison = compare_bench(args.baseline, result.out, threshold=args.threshold)
        for line in comparison_lines(comparison):
            print(printable(line))
        if comparison.nothing_compared():  # "0 regressions" of nothing is no pass
            raise UsageError(f"--baseline: {comparison.nothing_compared()}")
        if comparison.regressions:
            return EXIT_FAILURES
    if suite.errors:
        return EXIT_USAGE
    return EXIT_FAILURES if result.failures else EXIT_OK
