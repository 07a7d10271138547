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

import contextlib
import errno
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Iterator, Literal

import filelock

from webnn_harness import __version__

MANIFEST = ".webnn-harness-output.json"
REPORT_MANIFEST = ".webnn-harness-report.json"  # reports/sitefolder.py
Mode = Literal["new", "overwrite", "resume"]

# What a user may need to fix: the reasons worth one line, not a traceback.
WRITE_ERRNOS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "over the disk quota",
    errno.EROFS: "the file system is read-only",
    errno.ENAMETOOLONG: "a name or path too long for the file system",
    errno.EFBIG: "file too large",
    errno.EACCES: "permission denied",
    errno.EPERM: "not permitted",
    errno.EISDIR: "a folder is where a file should be",
    errno.ENOTDIR: "a file is where a folder should be",
    errno.ELOOP: "too many symbolic links",
    errno.EEXIST: "exists",
    errno.ENOENT: "no such file or folder",
}


class OutputFolderError(ValueError):
    """The output folder cannot be used as asked: one line, exit code 2 (a ValueError, as every other usage
    problem a library function reports)."""


def describe_write_error(exc: OSError, path: str | Path | None = None) -> str:
    """One line naming the file and why it could not be written."""
    where = exc.filename if exc.filename is not None else path
    why = WRITE_ERRNOS.get(exc.errno or 0) or exc.strerror or str(exc)
    text = str(where) if where is not None else "output"
    if len(text) > 300:  # a path longer than PATH_MAX would fill the terminal
        text = text[:140] + "..." + text[-140:]
    return f"{text}: cannot write: {why}"


def input_problem(path: str | Path) -> str | None:
    """Why an input path cannot be looked up, in words (None when it can): a link loop or a link to nothing
    is said as such, not as a bare "no such file", and a name too long is no traceback."""
    try:
        os.stat(path)
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link loop (it leads back to itself); not read"
        if exc.errno == errno.ENOENT and os.path.islink(path):
            return f"a symbolic link to {os.readlink(path)!r}, which does not exist; not read"
        return WRITE_ERRNOS.get(exc.errno or 0) or exc.strerror or str(exc)
    except ValueError:  # a NUL in the name
        return "not a path (it holds a NUL character)"


def shown_path(path: str | Path) -> str:
    """``path`` as one error line shows it: a path longer than PATH_MAX would fill the terminal."""
    text = str(path)
    return text[:140] + "..." + text[-140:] if len(text) > 300 else text


def linked_part(root: Path, path: Path) -> Path | None:
    """The first folder on the way from ``root`` (not itself: the user named it) down to ``path``, or
    ``path`` itself, that is a symbolic link; None when none is. Every component, not only the last: a
    link several folders down leads out as surely as one at the end."""
    at = Path(root)
    for part in Path(path).relative_to(root).parts:
        at = at / part
        if at.is_symlink():
            return at
    return None


def unlinked(root: Path, path: Path) -> Path:
    """``path``, or an OutputFolderError when a folder between ``root`` and it is a symbolic link: the one
    check before anything is written or deleted under a folder the user named (a link at ``path`` itself is
    replaced or removed by the writer, never followed: ``replacing``, ``Path.unlink``)."""
    path = Path(path)
    try:
        link = linked_part(root, path.parent)
    except ValueError:
        raise OutputFolderError(f"{path}: not inside {root}") from None
    except OSError as exc:
        raise OutputFolderError(describe_write_error(exc, path)) from None
    if link is not None:
        raise OutputFolderError(f"{link}: a symbolic link inside {root}; webnn-harness never writes or deletes "
                                "through one (remove it, or choose another folder)")
    return path


def no_links_below(root: Path, folder: Path) -> Path:
    """``folder`` (under ``root``), or an OutputFolderError when it, a folder on the way to it, or anything at
    any depth inside it is a symbolic link: for a folder a library writes into by names of its own (a
    Hypothesis example database), where no single path can be checked before it writes."""
    unlinked(root, folder / "entry")
    for top, folders, files in os.walk(folder):  # never follows a link: each is met as an entry
        for name in [*folders, *files]:
            if os.path.islink(os.path.join(top, name)):
                raise OutputFolderError(f"{os.path.join(top, name)}: a symbolic link inside {root}; webnn-harness "
                                        "never writes or deletes through one (remove it, or choose another folder)")
    return folder


def confined(folder: Path, name: str) -> Path:
    """``folder/name``, or a ValueError when ``name`` (read from a file, or made of one) would leave
    ``folder``: an absolute name, ``..``, a NUL, or a symbolic link on the way (``unlinked``)."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if not name or "\0" in name or PurePosixPath(name).is_absolute() or not parts or ".." in parts \
            or parts[0].endswith(":"):
        raise ValueError(f"{name!r}: not a name inside {folder}")
    path = folder.joinpath(*parts)
    if linked_part(folder, path) is not None:
        raise ValueError(f"{name!r}: leads through a symbolic link inside {folder}")
    return path


def safe_name(text: str, limit: int = 120) -> str:
    """``text`` as one file name: letters, digits, ``.-_=`` kept, the rest ``_``; never ``..``, never empty,
    never longer than ``limit`` (file systems allow 255 bytes)."""
    name = "".join(c if c.isascii() and (c.isalnum() or c in ".-_=") else "_" for c in text)
    name = name.strip(".") or "_"
    return name[:limit]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _umask()


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary file beside ``path`` to write (by name, for libraries that take one), then renamed over
    ``path``: a reader (or a crash) never sees half a file, a symbolic link at ``path`` is replaced, never
    followed, and a failed write (a full disk) leaves no temporary file behind."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)  # as open() would make it: mkstemp's 0600 would hide it from others
    finally:
        os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(path: Path, data: str | bytes) -> Path:
    """Write ``path`` whole or not at all (``replacing``)."""
    with replacing(path) as tmp:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


# XML 1.0 allows tab, newline and carriage return of the C0 controls, and no surrogates or U+FFFE/U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 forbids written as ``\\xNN`` (JUnit, SVG charts): names from
    a file are drawn as they are, never make the document unreadable."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def open_append(path: Path, truncate: bool = False):
    """``path`` opened for appending text, refusing a symbolic link (O_NOFOLLOW) so an attacker's link
    in the folder cannot make us write into another file."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | (os.O_TRUNC if truncate else 0)
    return os.fdopen(os.open(path, flags, 0o644), "a", encoding="utf-8")


def kind_of(folder: Path) -> tuple[str | None, str]:
    """(the kind of output ``folder`` holds, the file that says so); (None, "") for none we know."""
    # Imported here: the registry's readers write through this module.
    from webnn_harness.outputs.kinds import folder_kind_by_files
    from webnn_harness.outputs.reading import ReadError, read_json

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
        from webnn_harness.outputs.kinds import KINDS  # the registry's readers write through this module

        self.files = tuple(self.files) or (KINDS[self.kind].files if self.kind in KINDS else ())

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
