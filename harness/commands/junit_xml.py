"""``webnn-harness junit``: JUnit XML from a run folder (harness/outputs/junit.py writes it)."""
from __future__ import annotations

import argparse
from pathlib import Path

from webnn_harness.commands.common import EXIT_FAILURES, EXIT_OK, UsageError, check_out_file, warn

HELP = "write JUnit XML from a run folder"


def add_arguments(ju: argparse.ArgumentParser) -> None:
    ju.add_argument("run", metavar="RUN", help="a run folder")
    ju.add_argument("--out", "--junit", required=True, metavar="FILE",
                    help="the JUnit XML file to write (--junit FILE as with run)")


def handle(args) -> int:
    """Write JUnit XML from a run folder; exit as ``run`` would have on that run (1: a required
    problem no expectation lists), so a CI job gating on this step gates on the results."""
    from webnn_harness.backends import options_from_settings
    from webnn_harness.outputs.junit import write_junit

    check_out_file(args.out)
    try:
        written = write_junit(Path(args.run), Path(args.out), options_from_settings, on_problem=warn)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(f"junit: {args.out} ({written.cases} test cases)")
    if written.counting_against:
        print(f"{written.counting_against} required case{'s' if written.counting_against != 1 else ''} "
              f"failed (not listed in the run's expectations): exit 1, as run's")
        return EXIT_FAILURES
    return EXIT_OK
