"""``webnn-harness fuzz``: generated graphs on a backend against the reference (harness/fuzz/driver.py)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from webnn_harness.commands.common import (
    EXIT_FAILURES, EXIT_OK, UsageError, add_backend_arguments, add_out_argument, add_overwrite_argument,
    add_quiet_argument, backend_options, folder_mode,
)
from webnn_harness.options import positive_int, positive_seconds

HELP = "fuzz a backend with generated graphs; shrink each failure to a minimal case file"
# What the interrupt line says of continuing.
CONTINUING = " (fuzz --overwrite into the same --out replays its example database)"


def add_arguments(fz: argparse.ArgumentParser) -> None:
    add_backend_arguments(fz)
    fz.add_argument("--op", action="append", help="only this operator (repeatable; default: all)")
    fz.add_argument("--time", type=positive_seconds, default=60.0, help="seconds of searching (default 60; shrinking a late finding may add half, at least 30 s)")
    fz.add_argument("--seed", type=int, default=None,
                    help="seed of the search: the same seed draws the same graphs, and no example database is used "
                         "(default: new graphs each run, failing ones kept in OUT/hypothesis)")
    fz.add_argument("--max-ops", type=positive_int, default=2, help="longest chain of operators in a graph (default 2)")
    fz.add_argument("--timeout", type=positive_seconds, default=30.0, help="seconds per graph before it counts as a hang (default 30)")
    fz.add_argument("--shrink-cap", type=positive_seconds, help="seconds of shrinking per finding (default: 5%% of --time, at least 10)")
    fz.add_argument("--probe", help="probe folder (or BACKEND-probe.json) to check findings against: the probe's verdict per op "
                                    "and data type; what it already found wrong is known")
    add_out_argument(fz, "out/fuzz")
    add_overwrite_argument(fz, "reuse an --out that holds a fuzz run (its example database is replayed)")
    add_quiet_argument(fz, "a line per finding")
    fz.epilog = ("exit 1 when a finding is new and caused by the backend; precision effects (the spec's formula "
                 "in the operand's type gives the same) and known failures are reported but exit 0")


def handle(args) -> int:
    """Fuzz one backend against the reference; minimal failing graphs go to DIR/findings."""
    from webnn_harness.backends import BackendError, UnknownBackend
    from webnn_harness.fuzz.driver import FuzzSettings, fuzz
    from webnn_harness.files.writes import OutputFolderError

    options = backend_options(args.option)
    out = Path(args.out)
    config = FuzzSettings(args.backend, options, tuple(args.op or ()), args.time, args.seed, args.max_ops, args.timeout,
                          shrink_cap=args.shrink_cap, probe=args.probe)
    from webnn_harness.fuzz.findings import finding_line, findings_tally

    from webnn_harness.outputs.text import printable

    show = (lambda f: None) if args.quiet else (lambda f: print(printable(finding_line(f)), file=sys.stderr))
    try:
        result = fuzz(config, out, on_finding=show, mode=folder_mode(args))
    except (UnknownBackend, BackendError, KeyError, ValueError, OutputFolderError) as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    print(f"{result.tally.graphs} graphs ({result.tally.shrinking} while shrinking) in {result.seconds:.1f} s: "
          f"{findings_tally(result.findings)}; {result.summary_path}")
    return EXIT_FAILURES if result.new_deviations else EXIT_OK
