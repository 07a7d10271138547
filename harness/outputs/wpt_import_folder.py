"""An ``import-wpt`` output folder: a case file per WPT test file converted
(harness/loading/wpt_import.py) and ``INDEX.json``, each file converted or why
not; written through OwnedFolder (kind ``wpt-import``)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from webnn_harness.loading.wpt_import import (Commits, Converted, ImportSetupError, NoCases, NotConverted,
                                              SandboxLimits, convert_folder, index_entry, output_stem,
                                              sandbox_command, test_files)
from webnn_harness.outputs.writing import OwnedFolder
from webnn_harness.files.writes import confined, write_atomic

INDEX = "INDEX.json"


@dataclass(frozen=True)
class ImportResult:
    converted: int
    cases: int
    not_converted: tuple[NotConverted, ...]
    no_cases: tuple[NoCases, ...] = ()


def import_folder(wpt_dir: Path, out: Path, mode: str = "new", source_repo: str = "web-platform-tests/wpt",
                  commits: Commits = Commits(), limits: SandboxLimits = SandboxLimits(),
                  on_file=lambda item: None) -> ImportResult:
    """Every conformance test file of ``wpt_dir`` into ``out``: ``<stem>.json`` per file converted and
    ``INDEX.json`` (each file, its cases or why it was not converted), written through OwnedFolder."""
    files = [p.name for p in test_files(wpt_dir)]
    if unknown := sorted(set(commits.files) - set(files)):  # a typo would record no commit for the file meant
        raise ImportSetupError(f"--commit names {', '.join(unknown)}, which {wpt_dir} does not hold")
    names = [f"{stem}.json" for stem in map(output_stem, files) if stem]
    command = sandbox_command(limits)  # before the folder is made: no node, no folder
    converted, cases, refused, empty, index = 0, 0, [], [], []
    with OwnedFolder(Path(out), mode, kind="wpt-import", files=(INDEX, *names)) as folder:
        for item in convert_folder(wpt_dir, command, source_repo, commits, limits):
            if isinstance(item, Converted):
                write_atomic(confined(folder.path, f"{item.stem}.json"), json.dumps(item.doc, indent=1) + "\n")
                converted, cases = converted + 1, cases + len(item.doc["tests"])
            elif isinstance(item, NoCases):
                empty.append(item)
            else:
                refused.append(item)
            index.append(index_entry(item))
            on_file(item)
        write_atomic(confined(folder.path, INDEX), json.dumps({"source": source_repo, "commit": commits.folder,
                                                               "files": index}, indent=1) + "\n")
    return ImportResult(converted, cases, tuple(refused), tuple(empty))
