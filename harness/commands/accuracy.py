"""``webnn-harness accuracy``: TOSA's dot-product compliance check (harness/accuracy/driver.py)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from webnn_harness.commands.common import (
    EXIT_FAILURES, EXIT_OK, UsageError, add_backend_arguments, add_out_argument, add_overwrite_argument,
    add_quiet_argument, add_workers_argument, backend_options, folder_mode,
)
from webnn_harness.options import positive_seconds

HELP = "TOSA's dot-product compliance (error bound from the operands) for sums of products"


def add_arguments(ac: argparse.ArgumentParser) -> None:
    add_backend_arguments(ac)
    ac.add_argument("--op", action="append", help="only this operator (repeatable; default: matmul, gemm, conv2d, "
                                                  "convTranspose2d, reduceSum, reduceMean)")
    ac.add_argument("--data-type", action="append", choices=("float32", "float16"), help="only this data type (repeatable)")
    ac.add_argument("--timeout", type=positive_seconds, default=60.0, help="seconds per case before it counts as a hang")
    add_workers_argument(ac)  # as run's: the cores
    add_out_argument(ac, "out/accuracy", help="output folder (default: out/accuracy); refused when it holds "
                     "an earlier accuracy run, unless --overwrite")
    add_overwrite_argument(ac, "replace an earlier accuracy run in --out (only its files)")
    add_quiet_argument(ac, help="no line per case")
    ac.epilog = ("exit 1 when a case does not comply or crashes, hangs or errs; a case the backend refuses is "
                 "recorded as not checked and is no failure")


def handle(args) -> int:
    """TOSA's dot-product compliance check on generated data sets, beside the WPT verdict;
    DIR/accuracy.jsonl and DIR/summary.json. Exit 1 when a case does not comply, crashes, hangs or errs."""
    from webnn_harness.accuracy.driver import AccuracySettings, accuracy
    from webnn_harness.files.writes import OutputFolderError
    from webnn_harness.accuracy.plans import check_ops
    from webnn_harness.backends import BackendError, UnknownBackend

    options = backend_options(args.option)
    try:
        check_ops(args.op or ())
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    config = AccuracySettings(args.backend, options, tuple(dict.fromkeys(args.op or ())),
                              tuple(dict.fromkeys(args.data_type or ())) or AccuracySettings.data_types,
                              timeout=args.timeout, workers=args.workers)

    def show(line: dict) -> None:
        if not args.quiet:
            verdict = {True: "complies", False: "does not comply"}.get(line["compliant"], "not checked")
            failed = f" ({', '.join(line['failed'])})" if line["failed"] else ""
            print(f"{line['op']} {line['dataType']} {line['dataSet']} k={line['k']}: {verdict}{failed}; "
                  f"WPT {line['wpt']['status']}", file=sys.stderr)

    try:
        result = accuracy(config, Path(args.out), on_record=show, mode=folder_mode(args))
    except (UnknownBackend, BackendError, OutputFolderError) as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    counts = result.counts
    print(f"{len(result.records)} cases in {result.seconds:.1f} s: {counts['compliant']} compliant, "
          f"{counts['non-compliant']} not, {counts['not checked']} not checked; {result.wpt_fails} fail WPT's "
          f"budgets; {result.summary_path.parent / 'accuracy.jsonl'}")
    return EXIT_FAILURES if result.problems else EXIT_OK
