"""Known failures: per-backend data files listing genuine deviations, each
with a reason. A listed non-pass is still reported with its real status, but
marked known and not counted against the exit code. Entries that match
nothing in a run that ran the cases they name (the failure no longer
happens) are reported as stale.

Entry shape: {"file": "conv2d.json" (optional; matches a file whose path
ends with it, so "elementwise/gelu.json" names ours and "gelu.json" both), "case": "exact case name" or "match": "regex", "reason": "why",
"options": {"ep": "..."} (optional: only under these backend options)}.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import PurePath
from typing import Mapping

from webnn_harness.results import Record


@dataclass
class KnownFailures:
    entries: list[dict]
    used: set[int] = field(default_factory=set)  # matched a non-pass record
    seen: set[int] = field(default_factory=set)  # matched any record (the case ran)

    @classmethod
    def for_backend(cls, backend: str, options: Mapping[str, str]) -> "KnownFailures":
        entries = []
        try:
            text = resources.files(f"webnn_harness.backends.{backend}").joinpath("known_failures.json").read_text()
        except (ModuleNotFoundError, FileNotFoundError, TypeError):
            return cls([])
        for entry in json.loads(text):
            wanted = entry.get("options") or {}
            if all(options.get(k) == v for k, v in wanted.items()):
                entries.append(entry)
        return cls(entries)

    @staticmethod
    @lru_cache(maxsize=1 << 14)  # called for every record x entry; a run has few files
    def _file_matches(pattern: str, file: str) -> bool:
        path = PurePath(file).as_posix()
        return path == pattern or path.endswith("/" + pattern)

    def _matches(self, entry: dict, record: Record) -> bool:
        if "file" in entry and not self._file_matches(entry["file"], record.file):
            return False
        if "case" in entry:
            return record.case == entry["case"]
        if "match" in entry:
            return re.search(entry["match"], record.case) is not None
        return False

    def apply(self, record: Record) -> Record:
        for i, entry in enumerate(self.entries):
            if self._matches(entry, record):
                self.seen.add(i)
                if record.status != "pass":
                    self.used.add(i)
                    return record.with_(known_failure=entry["reason"])
        return record

    def stale(self) -> list[dict]:
        """Entries whose cases ran and none of them failed."""
        return [e for i, e in enumerate(self.entries) if i in self.seen and i not in self.used]
