"""``webnn-harness archive``: outputs kept across versions for ``report --archive`` (harness/archive/)."""
from __future__ import annotations

import argparse
import json

from webnn_harness.commands.common import EXIT_OK, UsageError, warn

HELP = "keep run, probe, bench and fuzz outputs across versions (add, list) for report --archive"


def add_arguments(ar: argparse.ArgumentParser) -> None:
    ar_sub = ar.add_subparsers(dest="action", required=True)
    ar_add = ar_sub.add_parser("add", help="store output folders as entries (the same folder again adds nothing)")
    ar_add.add_argument("archive", metavar="ARCHIVE", help="the archive folder (created when new)")
    ar_add.add_argument("folders", nargs="+", metavar="DIR", help="run, probe, bench or fuzz output folders")
    ar_list = ar_sub.add_parser("list", help="list the entries")
    ar_list.add_argument("archive", metavar="ARCHIVE")
    ar_list.add_argument("--json", action="store_true")


def handle(args) -> int:
    """archive add ARCHIVE DIR...: store outputs as immutable entries; archive list ARCHIVE: what is stored."""
    from webnn_harness.archive import Archive, ArchiveError
    from webnn_harness.outputs.text import printable

    archive = Archive(args.archive)
    try:
        if args.action == "add":
            result = archive.add(args.folders)
            for warning in result.warnings:
                warn(warning)
            for entry in result.added:
                print(printable(f"added {entry.id} {entry.kind} {entry.backend_text} {entry.date}"))
            for entry in result.present:
                print(printable(f"already archived {entry.id} {entry.kind} {entry.backend_text} {entry.date}"))
            print(printable(f"archive {args.archive}: {len(result.added)} added, {len(result.present)} already there"))
            return EXIT_OK
        entries, problems = archive.entries()
    except ArchiveError as exc:
        raise UsageError(str(exc)) from None
    for problem in problems:
        warn(problem)
    if args.json:
        print(json.dumps([e.to_json() for e in entries], indent=1))
    else:
        for e in entries:
            print(printable(f"{e.id}  {e.kind:5}  {e.date}  {e.backend_text}  {e.machine}  {e.label}"))
    return EXIT_OK
