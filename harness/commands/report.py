"""``webnn-harness report``: the static HTML site from run, probe, bench and fuzz outputs, or from an archive (reports/)."""
from __future__ import annotations

import argparse
from pathlib import Path

from webnn_harness.commands.common import EXIT_OK, UsageError, add_out_argument, warn
from webnn_harness.options import positive_days

HELP = "write the HTML conformance and performance reports and capability matrix"


def add_arguments(rp: argparse.ArgumentParser) -> None:
    rp.add_argument("inputs", nargs="*", metavar="INPUT",
                    help="run folder (results.jsonl, summary.json), probe output (*-opSupportLimits.json, *-probe.json), "
                         "bench folder (bench.jsonl), fuzz folder, or a folder of them")
    add_out_argument(rp, "out/site", help="site folder (default: out/site)")
    rp.add_argument("--archive", metavar="ARCHIVE", help="build the site from an archive (archive add): every "
                    "backend version a column, a changes page and per-op history")
    rp.add_argument("--stale-days", type=positive_days, default=30,
                    help="with --archive: mark a column stale when last run this many days before (default 30)")


def handle(args) -> int:
    """Write the static HTML site (capability matrix, conformance report) from run and probe outputs."""
    from webnn_harness.reports import ReportInputError, build_model
    from webnn_harness.reports.render import render_site

    if bool(args.inputs) == bool(args.archive):
        raise UsageError("give the folders to report on or --archive ARCHIVE (one of the two)")
    if args.archive:
        return _report_archive(args)
    try:
        model = build_model(args.inputs)
        for warning in model.warnings:
            warn(warning)
        index = render_site(model, Path(args.out))
    except ReportInputError as exc:
        raise UsageError(str(exc)) from None
    print(f"report: {index} (open {index.resolve().as_uri()} in a browser)")
    return EXIT_OK


def _report_archive(args) -> int:
    from webnn_harness.reports import ReportInputError, build_archive_site

    try:
        index, model = build_archive_site(args.archive, args.out, stale_days=args.stale_days)
    except ReportInputError as exc:
        raise UsageError(str(exc)) from None
    for warning in model.site.warnings:
        warn(warning)
    failing = sum(len(c.newly_failing) for c in model.changes)
    print(f"report: {index} from {model.site.archive.entries} archived outputs: {len(model.changes)} version "
          f"change(s) ({failing} case(s) newly failing), {len(model.steps)} step(s) in the history "
          f"(open {index.resolve().as_uri()} in a browser)")
    print(model.reuse.line)  # what this build took from the site's cache: the increment
    return EXIT_OK
