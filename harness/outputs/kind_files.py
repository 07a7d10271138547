"""The files each kind of output folder writes, and the file that tells a
folder's kind: plain names, at the bottom of outputs/.

The writer (harness/outputs/writing.py: ``OwnedFolder``, ``kind_of``) asks
these without importing the readers, and the registry of kinds with their
readers and headers (harness/outputs/kinds.py) is built on top of them, so
the flow runs one way: names -> writing -> records and folders -> kinds.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

RESULTS, SUMMARY = "results.jsonl", "summary.json"  # a run's records and its counts (outputs/records.py)
BENCH_FILE = "bench.jsonl"  # one line per bench record (outputs/bench_records.py)
ACCURACY_FILE = "accuracy.jsonl"  # one line per case (harness/accuracy writes it)
FUZZ_CASES, FUZZ_DETAILS = "findings", "findings-details"  # a fuzz run's minimal cases and each finding's details
PROBE_SUFFIX = "-probe.json"
ARCHIVE_MARKER = ".webnn-harness-archive.json"


@dataclass(frozen=True)
class KindFiles:
    name: str
    # What the kind writes in its folder (``--overwrite`` removes exactly these).
    files: tuple[str, ...]
    # The file whose presence says a folder holds this kind, for folders written before manifests ("" where no
    # one file does: summary.json is written by several kinds, a probe's files are named by its backend).
    marker: str = ""


KIND_FILES: dict[str, KindFiles] = {kind.name: kind for kind in (
    KindFiles("run", files=(RESULTS, SUMMARY), marker=RESULTS),
    KindFiles("bench", files=(BENCH_FILE, SUMMARY, "artifacts"), marker=BENCH_FILE),
    KindFiles("fuzz", files=("hypothesis", FUZZ_CASES, FUZZ_DETAILS, SUMMARY), marker="hypothesis"),
    # <backend>-opSupportLimits.json, -probe.json and -opSupportLimits.header.json: a folder may hold several
    # backends' probes, so a probe is told by its files (folder_kind_by_files), not by one marker.
    KindFiles("probe", files=()),
    KindFiles("accuracy", files=(ACCURACY_FILE, SUMMARY), marker=ACCURACY_FILE),
    # import-wpt's case files, one per WPT test file (harness/outputs/wpt_import_folder.py).
    KindFiles("wpt-import", files=("INDEX.json",)),
    # The archive's own folder (harness/archive/store.py checks its marker itself).
    KindFiles("archive", files=(ARCHIVE_MARKER, "entries")),
)}


def folder_kind_by_files(folder: Path) -> tuple[str | None, str]:
    """(the kind whose marker file ``folder`` holds, that file), or a probe's file; (None, "") for none."""
    for kind in KIND_FILES.values():
        if kind.marker and (folder / kind.marker).exists():
            return kind.name, kind.marker
    try:
        probe_files = sorted(p.name for p in folder.glob(f"*{PROBE_SUFFIX}"))
    except OSError:
        probe_files = []
    if probe_files:
        return "probe", probe_files[0]
    return None, ""
