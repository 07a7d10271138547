"""Reading a run folder (results.jsonl + summary.json) for the commands that
work on finished runs: diff, merge, junit."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from webnn_harness.results import Record, read_records


class RunFolderError(ValueError):
    """A folder that is not a readable run: one line, exit code 2."""


@dataclass(frozen=True)
class RunFolder:
    path: Path
    summary: Mapping[str, Any]  # {} for an interrupted run that wrote none
    records: tuple[Record, ...]

    @property
    def label(self) -> str:
        return str(self.summary.get("label") or self.path.name)


def read_run_folder(path: str | Path, need_summary: bool = False) -> RunFolder:
    path = Path(path)
    results = path / "results.jsonl"
    if not results.is_file():
        raise RunFolderError(f"{path}: not a run folder (no results.jsonl)")
    try:
        records = tuple(read_records(results))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RunFolderError(f"{results}: cannot read: {exc}") from None
    summary_path = path / "summary.json"
    summary: Mapping[str, Any] = {}
    if summary_path.is_file():
        try:
            summary = json.loads(summary_path.read_text())
        except (OSError, ValueError) as exc:
            raise RunFolderError(f"{summary_path}: cannot read: {exc}") from None
    elif need_summary:
        raise RunFolderError(f"{path}: no summary.json (the run did not finish)")
    return RunFolder(path, summary, records)
