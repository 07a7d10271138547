"""``webnn-harness merge``: the shard folders of one sharded run joined into one run folder (harness/outputs/shard_merge.py)."""
from __future__ import annotations

import argparse
from pathlib import Path

from webnn_harness.commands.common import EXIT_FAILURES, EXIT_OK, UsageError, add_out_argument, public_argv, warn

HELP = "join the output folders of a sharded run into one run folder"


def add_arguments(mg: argparse.ArgumentParser) -> None:
    mg.add_argument("folders", nargs="+", metavar="DIR", help="the shards' --out folders (every shard once)")
    add_out_argument(mg, "out/run", help="the merged run folder (default: out/run, as run's; must not hold a run)")


def handle(args) -> int:
    """Join the shard folders of one sharded run into one run folder; exit as ``run`` would have on
    the whole run (1: a required problem no expectation lists), so a CI job gating on the join gates
    on the results."""
    from webnn_harness.files.reading import read_json
    from webnn_harness.outputs.shard_merge import merge_runs

    out = Path(args.out)
    try:
        summary = merge_runs(args.folders, out, command=public_argv(args), on_problem=warn)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    doc = read_json(summary, kind="run-summary")
    for b in doc["backends"]:
        counts = ", ".join(f"{n} {s}" for s, n in b["counts"].items() if n)
        print(f"{b['backend']['name']} {b['backend']['version']}: {counts}")
    print(f"merged {len(args.folders)} shards: {out / 'results.jsonl'}, {summary}")
    against = sum(b.get("requiredProblems", 0) for b in doc["backends"])
    if against:
        print(f"{against} required case{'s' if against != 1 else ''} failed (not listed in the run's expectations): "
              "exit 1, as run's on the whole run")
        return EXIT_FAILURES
    return EXIT_OK
