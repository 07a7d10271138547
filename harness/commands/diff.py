"""``webnn-harness diff``: two run folders case by case (harness/outputs/run_diff.py), or two bench
folders benchmark by benchmark (harness/bench/regressions.py)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from webnn_harness.commands.common import EXIT_FAILURES, EXIT_OK, UsageError, check_out_file, warn
from webnn_harness.options import fraction

HELP = "compare two runs case by case: regressions, fixes, new and removed cases"


def add_arguments(df: argparse.ArgumentParser) -> None:
    df.add_argument("base", metavar="BASE", help="the baseline run or bench folder (e.g. the last main run)")
    df.add_argument("new", metavar="NEW", help="the run or bench folder to judge")
    df.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                    help="text (default), json, or markdown (a pull-request comment)")
    df.add_argument("--out", metavar="FILE", help="write the output here instead of stdout")
    df.add_argument("--threshold", type=fraction, default=0.05,
                    help="bench folders: relative slowdown that counts as a regression (default 0.05)")


def handle(args) -> int:
    """Compare two run folders by case id; exit 1 when NEW regressed against BASE."""
    from webnn_harness.outputs.kinds import holds
    from webnn_harness.outputs.run_diff import FORMATS, diff_runs

    benches = [holds(d, "bench") for d in (args.base, args.new)]
    if any(benches):
        if not all(benches):
            raise UsageError("diff compares two run folders or two bench folders, not one of each")
        return _diff_benches(args)
    check_out_file(args.out)
    try:
        diff = diff_runs(args.base, args.new, on_problem=warn)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    _write_diff(args, FORMATS[args.format](diff), diff.regressions)
    return EXIT_FAILURES if diff.exit_code else EXIT_OK


def _write_diff(args, text: str, regressions: int) -> None:
    """A diff goes to --out (with one line saying so) or to stdout."""
    if args.out:
        from webnn_harness.files.writes import write_atomic

        write_atomic(Path(args.out), text)
        print(f"{regressions} regressions; {args.format} written to {args.out}")
    else:
        sys.stdout.write(text)


def _diff_benches(args) -> int:
    """Two bench folders: significant slowdowns beyond --threshold are regressions (exit 1)."""
    from webnn_harness.bench.regressions import compare_bench
    from webnn_harness.bench.console import comparison_lines, comparison_markdown

    check_out_file(args.out)
    try:
        comparison = compare_bench(args.base, args.new, threshold=args.threshold, on_problem=warn)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if comparison.nothing_compared():
        raise UsageError(comparison.nothing_compared())
    if args.format == "json":
        text = json.dumps(comparison.to_json(), indent=2) + "\n"
    elif args.format == "markdown":
        text = comparison_markdown(comparison)
    else:
        text = "\n".join(comparison_lines(comparison)) + "\n"
    _write_diff(args, text, len(comparison.regressions))
    return EXIT_FAILURES if comparison.regressions else EXIT_OK
