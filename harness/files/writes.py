"""Writing a file safely, for every stage: through a temporary file and
``os.replace`` (``write_atomic``: a crash never leaves half a file), never
through a symbolic link at any depth below the folder the user named
(``unlinked``, ``open_append``), names confined to their folder
(``confined``), and a write error a user must fix said in one line
(``describe_write_error``).

Below every stage, as harness/files/reading.py is for reading: the verdict's
reference cache, the outputs' folders (harness/outputs/writing.py: owned,
locked, marked) and the site all write through here.
"""
from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from pathlib import Path, PurePosixPath
from typing import Iterator

class OutputFolderError(ValueError):
    """The output folder cannot be used as asked: one line, exit code 2 (a ValueError, as every other usage
    problem a library function reports)."""


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


def describe_write_error(exc: OSError, path: str | Path | None = None) -> str:
    """One line naming the file and why it could not be written."""
    where = exc.filename if exc.filename is not None else path
    why = WRITE_ERRNOS.get(exc.errno or 0) or exc.strerror or str(exc)
    return f"{line_path(where) if where is not None else 'output'}: cannot write: {why}"


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


def line_path(path: str | Path) -> str:
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
