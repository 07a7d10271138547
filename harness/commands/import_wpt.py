"""``webnn-harness import-wpt``: WPT's own WebNN test files as case files (harness/loading/wpt_import.py)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from webnn_harness.commands.common import (
    EXIT_FAILURES, EXIT_OK, UsageError, add_out_argument, add_overwrite_argument, add_quiet_argument, folder_mode,
)
from webnn_harness.options import positive_seconds

HELP = "convert WPT's webnn/conformance_tests/*.https.any.js into case files, running each in a sandbox"


def add_arguments(im: argparse.ArgumentParser) -> None:
    im.add_argument("wpt_dir", metavar="WPT_DIR",
                    help="a WPT checkout's root (or Chromium's or servo's vendored copy): holds webnn/")
    add_out_argument(im, "out/wpt-import", help="output folder (default: out/wpt-import): <stem>.json per file and "
                     "INDEX.json; refused when it holds an earlier import, unless --overwrite")
    add_overwrite_argument(im, "replace an earlier import in --out (only the files this import writes)")
    im.add_argument("--source", default="web-platform-tests/wpt", metavar="REPO",
                    help="the repository, and the path in it to WPT_DIR, recorded as each file's source "
                         "(default: web-platform-tests/wpt; servo's: servo/servo/tests/wpt/tests)")
    im.add_argument("--commit", metavar="SHA", action="append", default=[],
                    help="the commit of WPT_DIR, recorded in each file; or FILE=SHA (repeatable): the commit one "
                         "test file came from, for a folder gathering files of several commits")
    im.add_argument("--timeout", type=positive_seconds, default=60.0, help="seconds per test file (default 60)")
    add_quiet_argument(im, help="no line per file converted (a file not converted is always said)")
    im.epilog = ("needs Node.js 20 or newer on PATH (its permission model: the file runs with no file, "
                 "child-process or worker access); exit 1 when a file could not be converted, or none made a case "
                 "(a file that ran and made no case, such as WPT's tensor tests, is said as 'no cases')")


def handle(args) -> int:
    """Each test file run in the sandbox, its cases written as <op>.json; one line per file not converted."""
    from webnn_harness.loading.wpt_import import ImportSetupError, NoCases, NotConverted, SandboxLimits, parse_commits
    from webnn_harness.outputs.wpt_import_folder import import_folder
    from webnn_harness.files.writes import OutputFolderError

    def show(item) -> None:
        if isinstance(item, NotConverted):
            print(f"not converted: {item}", file=sys.stderr)
        elif isinstance(item, NoCases):
            print(f"no cases: {item}", file=sys.stderr)
        elif not args.quiet:
            print(f"{item.stem}.json: {len(item.doc['tests'])} cases", file=sys.stderr)

    try:
        commits = parse_commits(args.commit)
        result = import_folder(Path(args.wpt_dir), Path(args.out), folder_mode(args), args.source, commits,
                               SandboxLimits(seconds=args.timeout), on_file=show)
    except (ValueError, OutputFolderError) as exc:  # ImportSetupError, a bad --commit
        raise UsageError(str(exc)) from None
    print(f"{result.converted} files converted ({result.cases} cases), {len(result.no_cases)} with no cases, "
          f"{len(result.not_converted)} not; written to {args.out}")
    # A folder that gave no case at all is no success, whatever its files said.
    return EXIT_FAILURES if result.not_converted or not result.converted else EXIT_OK
