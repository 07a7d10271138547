"""``webnn-harness probe``: a backend's real opSupportLimits and the evidence behind it (harness/probe/driver.py)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from webnn_harness.commands.common import (
    EXIT_OK, UsageError, add_backend_arguments, add_executor_arguments, add_out_argument, add_overwrite_argument,
    add_quiet_argument, add_workers_argument, backend_options, check_operator_names, executors, folder_mode,
)
from webnn_harness.options import positive_int, positive_seconds

HELP = "measure a backend's real opSupportLimits (and the evidence behind it)"


def add_arguments(pr: argparse.ArgumentParser) -> None:
    add_backend_arguments(pr)
    add_out_argument(pr, "out/probe")
    add_overwrite_argument(pr, "replace this backend's probe already in --out")
    pr.add_argument("--op", action="append", help="only this operator (repeatable; default: all)")
    pr.add_argument("--max-bytes", type=positive_int, default=1 << 30,
                    help="memory budget of the maxTensorByteLength search (default 1 GiB; not run's --max-case-bytes, "
                         "which refuses cases)")
    pr.add_argument("--compare", metavar="FILE",
                    help="diff against a declared opSupportLimits JSON: a file, or a table shipped with the "
                         "package by name (chromium-ort, chromium-tflite)")
    add_workers_argument(pr)
    pr.add_argument("--timeout", type=positive_seconds, default=20.0, help="seconds per combination before it counts as a timeout (default 20)")
    pr.add_argument("--batch-size", type=positive_int, default=64, help="combinations per worker batch (default 64)")
    pr.add_argument("--no-layout", action="store_true", help="skip the preferredInputLayout timing")
    add_executor_arguments(pr)
    pr.add_argument("--no-bytes", action="store_true", help="skip the maxTensorByteLength search")
    add_quiet_argument(pr, "the bar")


def handle(args) -> int:
    """Measure what a backend supports; write <backend>-opSupportLimits.json and <backend>-probe.json."""
    from dataclasses import replace

    from tqdm import tqdm

    from webnn_harness.backends import BackendError, UnknownBackend
    from webnn_harness.probe.driver import ProbeRequest, check_probe_request, probe_requested
    from webnn_harness.probe.summary import compare_summary_text, probe_summary_text
    from webnn_harness.execution.pool import RunOptions
    from webnn_harness.outputs.limits_file import LimitsFileError
    from webnn_harness.files.writes import OutputFolderError

    from webnn_harness.probe.declared import declared_table

    options = backend_options(args.option)
    check_operator_names(args.op or ())
    compare_file = declared_table(args.compare) if args.compare else None
    request = ProbeRequest(args.backend, options, Path(args.out), ops=args.op, max_bytes=args.max_bytes,
                           run=RunOptions(workers=args.workers, timeout=args.timeout, batch_size=args.batch_size),
                           layout=not args.no_layout, byte_search=not args.no_bytes, compare_file=compare_file,
                           mode=folder_mode(args))
    try:
        check_probe_request(request)
    except (LimitsFileError, ValueError, UnknownBackend, BackendError) as exc:
        raise UsageError(str(exc)) from None
    bar = tqdm(total=None, unit="combination", file=sys.stderr, disable=args.quiet or None, dynamic_ncols=True)
    try:
        with executors(args) as executor:
            result = probe_requested(replace(request, executor=executor), progress=bar.update)
    except (UnknownBackend, BackendError, OutputFolderError) as exc:
        raise UsageError(str(exc)) from None
    finally:
        bar.close()
    s = result.evidence["summary"]
    counts = ", ".join(f"{n} {o}" for o, n in s["outcomes"].items() if n)
    print(f"{result.evidence['header']['backend']['name']}: {s['combinations']} combinations ({counts}) in {result.seconds:.1f} s")
    print(probe_summary_text(result.evidence))
    if "compare" in result.evidence:
        print(f"against {args.compare or result.evidence['compare'].get('source')}: {compare_summary_text(result.evidence['compare'])}")
    print(f"opSupportLimits: {result.limits_path}, evidence: {result.evidence_path}")
    return EXIT_OK
