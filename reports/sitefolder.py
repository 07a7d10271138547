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

from webnn_harness.files.reading import read_json
from webnn_harness.files.writes import OutputFolderError, describe_write_error, linked_part, unlinked, write_atomic
from webnn_harness.reports.common import ReportInputError

MANIFEST = ".webnn-harness-report.json"
CACHE = ".archive-cache"  # report --archive: entry digests the next build reuses; not a page, never listed
_KIND = "webnn-harness report"


def _listed_files(out_dir: Path, manifest: Path) -> list[Path]:
    """The files an earlier report wrote, each checked to lie inside ``out_dir``
    (a hand-edited manifest must not make us delete anything outside it)."""
    try:
        doc = read_json(manifest, max_bytes=64 << 20)
    except ValueError as exc:
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
        _unlinked(out_dir, path)
        out.append(path)
    return out


def _unlinked(out_dir: Path, path: Path) -> Path:
    """``path`` under the site folder, reached through no symbolic link (``writing.unlinked``)."""
    try:
        return unlinked(out_dir, path)
    except OutputFolderError as exc:
        raise ReportInputError(str(exc)) from None


class SiteFolder:
    """Writes a site's files under ``out_dir`` and remembers which it wrote."""

    def __init__(self, out_dir: Path):
        self.out_dir = Path(out_dir)
        self.written: list[str] = []
        self.previous: dict[str, Path] = {}  # the earlier report's files, until this one has written its own
        self.unchanged = 0  # pages whose bytes were already there (not written again: their mtimes stay)
        self.pages = 0  # pages written (reports/render.py)
        self.drawn = 0  # of which drawn from their templates, not reused (reports/page_cache.py)

    def check(self) -> bool:
        """Refuse a file or a foreign non-empty folder; True when an earlier report is there."""
        try:
            return self._check()
        except OSError as exc:  # a name too long, a parent that is a file: before anything is written
            raise ReportInputError(describe_write_error(exc, self.out_dir)) from None

    def _check(self) -> bool:
        out = self.out_dir
        if out.exists() and not out.is_dir():
            raise ReportInputError(f"{out}: exists and is not a folder")
        _unlinked(out, out / CACHE / "digest.json")  # report --archive writes and prunes there
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
            # The earlier report's files stay until this one is written: a page with the same bytes
            # is not written again (a publisher's rsync or a git commit of the site sees only what
            # changed), and ``close`` removes the rest. They stay listed until then.
            old = _listed_files(out, out / MANIFEST)
            self.previous = {p.relative_to(out).as_posix(): p for p in old}
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ReportInputError(f"{out}: cannot create the report folder: {exc.strerror or exc}") from None
        self._write_manifest()  # from here on the folder is recognisably ours

    def write(self, rel: str, content: str | bytes) -> Path:
        path = _unlinked(self.out_dir, self.out_dir / rel)
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        self.written.append(rel)
        if rel in self.previous and not path.is_symlink() and path.is_file() and path.read_bytes() == data:
            self.unchanged += 1
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        return write_atomic(path, data)  # replaces a link left in the folder, never writes through it

    def _write_manifest(self) -> None:
        doc = {"kind": _KIND, "files": sorted({*self.written, *self.previous})}
        write_atomic(self.out_dir / MANIFEST, json.dumps(doc, indent=1) + "\n")

    def close(self) -> None:
        """Remove the earlier report's files this one did not write, then list only this one's."""
        written = set(self.written)
        stale = [p for rel, p in self.previous.items() if rel not in written]
        for path in stale:  # checked by _listed_files to be reached through no link
            if path.is_file() or path.is_symlink():
                path.unlink()
        for folder in sorted({p.parent for p in stale}, key=lambda p: -len(p.parts)):
            if folder != self.out_dir and linked_part(self.out_dir, folder) is None and folder.is_dir() \
                    and not any(folder.iterdir()):
                folder.rmdir()
        self.previous = {}
        self._write_manifest()
