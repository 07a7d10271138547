"""The folder a report is written into.

A report writes only into a folder that is new, empty, or holds an earlier
report, and before writing it removes only the files that earlier report
wrote: each report leaves a manifest (``MANIFEST``) listing the files it
wrote. ``report --out .`` in a checkout is refused instead of emptying
``ops/``, ``backends/`` and ``data/`` (issue 12).
"""
from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

from webnn_harness.reports.common import ReportInputError

MANIFEST = ".webnn-harness-report.json"
CACHE = ".archive-cache"  # report --archive: entry digests the next build reuses; not a page, never listed
_KIND = "webnn-harness report"


def _listed_files(out_dir: Path, manifest: Path) -> list[Path]:
    """The files an earlier report wrote, each checked to lie inside ``out_dir``
    (a hand-edited manifest must not make us delete anything outside it)."""
    try:
        doc = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReportInputError(f"{manifest}: cannot read the earlier report's manifest: {exc}") from None
    files = doc.get("files") if isinstance(doc, dict) and doc.get("kind") == _KIND else None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise ReportInputError(f"{manifest}: not a webnn-harness report manifest; choose a new or empty folder")
    root = out_dir.resolve()
    out = []
    for rel in files:
        parts = PurePosixPath(rel).parts
        if not parts or PurePosixPath(rel).is_absolute() or ".." in parts:
            raise ReportInputError(f"{manifest}: lists {rel!r}, which is outside the report folder")
        path = out_dir.joinpath(*parts)
        if path.resolve().parent != root and root not in path.resolve().parents:
            raise ReportInputError(f"{manifest}: lists {rel!r}, which is outside the report folder")
        out.append(path)
    return out


class SiteFolder:
    """Writes a site's files under ``out_dir`` and remembers which it wrote."""

    def __init__(self, out_dir: Path):
        self.out_dir = Path(out_dir)
        self.written: list[str] = []

    def check(self) -> bool:
        """Refuse a file or a foreign non-empty folder; True when an earlier report is there."""
        out = self.out_dir
        if out.exists() and not out.is_dir():
            raise ReportInputError(f"{out}: exists and is not a folder")
        if out.is_dir() and any(p.name != CACHE for p in out.iterdir()):
            if not (out / MANIFEST).is_file():
                raise ReportInputError(
                    f"{out}: folder is not empty and holds no earlier report ({MANIFEST}); "
                    "choose a new or empty folder")
            return True
        return False

    def prepare(self) -> None:
        """Refuse a file or a foreign non-empty folder; remove an earlier report's files."""
        out = self.out_dir
        if self.check():
            manifest = out / MANIFEST
            old = _listed_files(out, manifest)
            for path in old:
                if path.is_file() or path.is_symlink():
                    path.unlink()
            for folder in sorted({p.parent for p in old}, key=lambda p: -len(p.parts)):
                if folder != out and folder.is_dir() and not any(folder.iterdir()):
                    folder.rmdir()
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ReportInputError(f"{out}: cannot create the report folder: {exc.strerror or exc}") from None
        self._write_manifest()  # from here on the folder is recognisably ours

    def write(self, rel: str, content: str | bytes) -> Path:
        path = self.out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        self.written.append(rel)
        return path

    def _write_manifest(self) -> None:
        doc = {"kind": _KIND, "files": sorted(set(self.written))}
        (self.out_dir / MANIFEST).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")

    def close(self) -> None:
        self._write_manifest()
