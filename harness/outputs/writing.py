"""One way out: every folder a command writes (run, merge, bench, fuzz, probe)
and every file it writes there go through here.

- A folder is owned before anything is written in it: it is new, or it holds
  this kind of output (a manifest, ``MANIFEST``, names the kind and the tool;
  folders from before manifests are recognised by their files: harness/outputs/kinds.py),
  and a lock held for the whole command (``filelock``: flock(2), released by the
  OS if the process dies) stops a second command into the same folder with a
  usage error instead of mixing their records.
- Another kind of output (a run folder given to ``bench --out``) is never
  replaced, not even with ``--overwrite``; nor is a file of the names this kind
  writes that webnn-harness did not write (a user's own ``summary.json``).
- Names never escape the folder (``confined``: no absolute names, no ``..``), and
  nothing is written or deleted through a symbolic link at any depth below the
  folder the user named (``unlinked``: every component checked, not only the
  last; the site and the archive use it too), files are written through a temporary file and
  ``os.replace`` (``write_atomic``), and a file appended to is never a
  symbolic link (``open_append``).
- A write that fails for a reason the user must fix (full disk, read-only
  file system, a name too long) ends in one line (``describe_write_error``);
  the CLI turns it into exit 1 when records were kept, 2 before any were.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

import filelock

from webnn_harness import __version__
from webnn_harness.files.writes import OutputFolderError, describe_write_error, write_atomic
from webnn_harness.outputs.kind_files import KIND_FILES, folder_kind_by_files

MANIFEST = ".webnn-harness-output.json"
REPORT_MANIFEST = ".webnn-harness-report.json"  # reports/sitefolder.py
Mode = Literal["new", "overwrite", "resume"]


def kind_of(folder: Path) -> tuple[str | None, str]:
    """(the kind of output ``folder`` holds, the file that says so); (None, "") for none we know."""
    from webnn_harness.files.reading import ReadError, read_json

    def small_json(path: Path):
        try:
            return read_json(path, max_bytes=1 << 16) if path.is_file() and not path.is_symlink() else None
        except ReadError:
            return None

    doc = small_json(folder / MANIFEST)
    if isinstance(doc, dict) and doc.get("tool") == "webnn-harness" and isinstance(doc.get("kind"), str):
        return doc["kind"], MANIFEST
    if (folder / REPORT_MANIFEST).exists():
        return "report", REPORT_MANIFEST
    found = folder_kind_by_files(folder)
    if found[0] is not None:
        return found
    summary = small_json(folder / "summary.json")  # a fuzz from before manifests, before any finding
    if isinstance(summary, dict) and summary.get("kind") == "fuzz":
        return "fuzz", "summary.json"
    return None, ""


@dataclass
class OwnedFolder:
    """An output folder of one ``kind`` (run, bench, fuzz, probe), owned for one command: checked, locked
    and marked before anything is written. Use as a context manager; ``--overwrite`` removes only the files
    this kind writes (``files``)."""

    path: Path
    mode: Mode = "new"
    kind: str = "run"
    files: tuple[str, ...] = ()  # what this command writes here (default: the kind's files, outputs/kinds.py)
    _lock: filelock.BaseFileLock | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        self.files = tuple(self.files) or (KIND_FILES[self.kind].files if self.kind in KIND_FILES else ())

    @property
    def lock_name(self) -> str:
        return f".webnn-harness-{self.kind}.lock"

    def precheck(self) -> None:
        """The refusals that need no lock, before anything is written (even the lock file)."""
        out = self.path
        try:
            if out.is_symlink() and not out.exists():
                raise OutputFolderError(f"{out}: a symbolic link to nothing; choose another --out")
            if out.exists() and not out.is_dir():
                raise OutputFolderError(f"{out}: exists and is not a folder; choose another --out")
            if out.is_dir():
                self._check_contents()
        except OSError as exc:  # a name too long, a parent that is a file, a loop of links
            raise OutputFolderError(describe_write_error(exc, out)) from None

    def _check_contents(self) -> None:
        out = self.path
        found, evidence = kind_of(out)
        if found is not None and found != self.kind:
            raise OutputFolderError(f"{out}: holds a {found} output ({evidence}), which this command never replaces; "
                                    "choose another --out")
        mine = [n for n in self.files if (out / n).exists() or (out / n).is_symlink()]
        if mine and found is None:
            raise OutputFolderError(f"{out}: holds {mine[0]}, which webnn-harness did not write; choose another --out")
        if mine and self.mode == "new":
            raise OutputFolderError(f"{out}: holds an earlier {self.kind} ({mine[0]}); pass --overwrite to replace it"
                                    f"{', --resume to continue it' if self.kind == 'run' else ''}, "
                                    "or choose another --out")
        for name in mine:
            if (out / name).is_symlink():
                raise OutputFolderError(f"{out / name}: a symbolic link where the {self.kind} writes a file; "
                                        "choose another --out")
            # The kinds' file names have a suffix, their folders (findings, artifacts) none: a folder named
            # summary.json is no file of ours, and --overwrite must not delete what it holds.
            if PurePosixPath(name).suffix and (out / name).is_dir():
                raise OutputFolderError(f"{out / name}: a folder where the {self.kind} writes a file, which "
                                        "webnn-harness did not make; choose another --out")

    def open(self) -> "OwnedFolder":
        out = self.path
        self.precheck()
        try:
            out.mkdir(parents=True, exist_ok=True)
            lock = filelock.FileLock(str(out / self.lock_name), timeout=0)
            lock.acquire()
        except filelock.Timeout:
            raise OutputFolderError(f"{out}: another {self.kind} is writing to this folder (it holds {self.lock_name}); "
                                    "wait for it to finish or choose another --out") from None
        except OSError as exc:
            raise OutputFolderError(describe_write_error(exc, out)) from None
        self._lock = lock
        try:
            self._check_contents_locked()
            write_atomic(out / MANIFEST, json.dumps({"tool": "webnn-harness", "kind": self.kind,
                                                     "harnessVersion": __version__}) + "\n")
        except OSError as exc:
            self.close()
            raise OutputFolderError(describe_write_error(exc, out)) from None
        except BaseException:
            self.close()
            raise
        return self

    def _check_contents_locked(self) -> None:
        """Under the lock: the checks again (another command may have written meanwhile), then make room."""
        self._check_contents()
        if self.mode == "overwrite":
            self.remove_own_files()

    def remove_own_files(self) -> None:
        import shutil

        for name in self.files:
            path = self.path / name
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            elif path.exists() or path.is_symlink():
                path.unlink()

    def close(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> "OwnedFolder":
        return self.open() if self._lock is None else self

    def __exit__(self, *exc) -> None:
        self.close()
