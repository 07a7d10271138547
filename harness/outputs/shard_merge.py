"""Shard outputs joined into one run folder, as if one run had done it all.

The shards must be the complete set of one sharded run: the same N, every
index once, the same backends (name, version, device, settings), the same
harness version and label, and no case twice. The merged folder keeps the
first shard's header (harness version, date, machine, command without
--shard), rebuilds per-backend counts from the records, and joins the case
files, load errors and expectation outcomes. Only timings differ from a
single run: a backend's seconds (and loading seconds) are the sum over its shards.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Mapping, Sequence

from webnn_harness.verdict.expectations import merge_reports
from webnn_harness.outputs.records import BackendTally, ResultWriter
from webnn_harness.outputs.run_folder import OutputFolder, RunFolder, RunFolderError, read_run_folder
from webnn_harness.files.writes import write_atomic
from webnn_harness.loading.selection import SelectionError, Shard

HEADER_KEYS = ("harness", "harnessVersion", "date", "machine")


def _backend_key(b) -> str:
    return json.dumps(b, sort_keys=True, default=str)


def _check_shards(runs: Sequence[RunFolder]) -> list[Shard]:
    shards = []
    for run in runs:
        text = run.summary.get("shard")
        if not text:
            raise RunFolderError(f"{run.path}: not a shard (its run had no --shard)")
        try:
            shards.append(Shard.parse(text))
        except SelectionError:
            raise RunFolderError(f"{run.path}: summary.json has a malformed shard {text!r}") from None
    counts = {s.count for s in shards}
    if len(counts) != 1:
        raise RunFolderError(f"the folders are shards of different splits: {', '.join(map(str, shards))}")
    (n,) = counts
    seen: dict[int, Path] = {}
    for run, s in zip(runs, shards):
        if s.index in seen:
            raise RunFolderError(f"{seen[s.index]} and {run.path} are both shard {s}")
        seen[s.index] = run.path
    missing = [f"{i}/{n}" for i in range(1, n + 1) if i not in seen]
    if missing:
        raise RunFolderError(f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} missing: "
                             "a merged run must hold every case")
    first = runs[0]
    for run in runs[1:]:
        for key, what in (("harnessVersion", "harness versions"), ("label", "labels")):
            if run.summary.get(key) != first.summary.get(key):
                raise RunFolderError(f"{first.path} and {run.path} have different {what}: "
                                     f"{first.summary.get(key)!r}, {run.summary.get(key)!r}")
        if [_backend_key(b["backend"]) for b in run.summary.get("backends", [])] != \
                [_backend_key(b["backend"]) for b in first.summary.get("backends", [])]:
            raise RunFolderError(f"{first.path} and {run.path} ran different backends or backend settings")
    return shards


def merge_runs(folders: Sequence[str | Path], out: Path, command: str = "",
               on_problem: Callable[[str], object] | None = None) -> Path:
    """Write the merged run into ``out`` (which must not hold a run); returns its summary path.
    ``command``: the merge as the user ran it (recorded); ``on_problem``: told of each line of a
    shard's results.jsonl that was skipped."""
    OutputFolder(Path(out)).precheck()  # a usage mistake in --out, said before reading any shard
    runs = [read_run_folder(f, need_summary=True, on_problem=on_problem) for f in folders]
    if not runs:
        raise RunFolderError("nothing to merge")
    shards = _check_shards(runs)
    with OutputFolder(Path(out)):  # a new run folder, owned (harness/outputs/writing.py)
        return _write_merged(runs, shards, Path(out), command)


def _write_merged(runs: Sequence[RunFolder], shards, out: Path, command: str) -> Path:
    runs = [r for _, r in sorted(zip(shards, runs), key=lambda p: p[0].index)]
    first = runs[0].summary
    order = [_backend_key(b["backend"]) for b in first.get("backends", [])]
    tallies = {k: BackendTally(b["backend"]) for k, b in zip(order, first.get("backends", []))}
    records, seen = [], set()
    for run in runs:
        for r in run.records:
            key = (_backend_key(r.backend), r.id)
            if key in seen:
                raise RunFolderError(f"{run.path}: case {r.id} on {r.backend.get('name')} is in two shards")
            seen.add(key)
            records.append(r)
        for entry in run.summary.get("backends", []):
            tally = tallies[_backend_key(entry["backend"])]
            tally.seconds += entry.get("seconds") or 0
            tally.loading_seconds += entry.get("loadingSeconds") or 0
    records.sort(key=lambda r: (order.index(_backend_key(r.backend)) if _backend_key(r.backend) in order
                                else len(order), r.id))
    writer = ResultWriter(out)
    try:
        for r in records:
            writer.write(r)
            tallies.setdefault(_backend_key(r.backend), BackendTally(r.backend)).add(r)
    finally:
        writer.close()
    backends = sorted({b for run in runs for b in run.summary.get("expectations", {})})
    files = sorted({f for run in runs for f in run.summary.get("caseFileIds", [])})
    summary = {
        **{k: first[k] for k in HEADER_KEYS if k in first},
        "backends": [t.to_json() for t in tallies.values()],
        "label": first.get("label"),
        "shard": None,
        "merged": [str(s) for s in sorted(shards, key=lambda s: s.index)],
        "cases": sum(run.summary.get("cases", 0) for run in runs),
        "caseFiles": len(files),
        "caseFileIds": files,
        "loadErrors": sorted(e for run in runs for e in run.summary.get("loadErrors", [])),
        "expectations": {b: merge_reports([run.summary.get("expectations", {}).get(b, []) for run in runs])
                         for b in backends},
        "seconds": round(sum(run.summary.get("seconds") or 0 for run in runs), 3),
        # The merge as the user ran it, and each shard's run command as recorded (every option, --shard
        # included): printed commands run as printed (outputs/rerun_commands.py).
        "command": command,
        "shardCommands": [str(run.summary.get("command") or "") for run in runs],
        # what the shards ran with (one setup: _check_shards), for run --rerun-failures of the merged run
        **({"request": first["request"]} if "request" in first else {}),
        # Whole only when every shard is (summaries from before "complete" were written only at the end).
        "complete": all(run.summary.get("complete", True) is not False for run in runs),
        "progress": _merged_progress([run.summary.get("progress") or {} for run in runs]),
    }
    return write_atomic(out / "summary.json", json.dumps(summary, indent=2, default=str) + "\n")


def _merged_progress(parts: Sequence[Mapping]) -> dict:
    return {"recorded": sum(p.get("recorded", 0) for p in parts), "planned": sum(p.get("planned", 0) for p in parts),
            "backendsStarted": min((p.get("backendsStarted", 0) for p in parts), default=0),
            "backends": max((p.get("backends", 0) for p in parts), default=0)}
