"""The command that re-runs one case: printed at the end of a run, on report
pages and in JUnit. It names the case's corpus (a local folder where one is
known, else the corpus name), the case by its stable id (--id), and a fresh
--out folder, so it never writes over the run it came from.

Every command we print runs as printed from the folder the user ran us in
(``shown_path``): a relative path stays as given, an absolute one inside that
folder becomes relative to it, and only one outside it is shortened to its
last component (a published page names no folder of this machine), which the
command then says in a trailing shell comment (``SHORTENED``), so it still
runs as pasted."""
from __future__ import annotations

import hashlib
import os
import re
import shlex
from pathlib import Path
from typing import Any, Mapping, Sequence

from webnn_harness.loading.caseid import BUNDLED_CORPUS, case_id


SHORTENED = "# a path outside the folder this ran in is shortened to its last component"


def shown_path(value: str | Path, cwd: str | Path | None = None) -> tuple[str, bool]:
    """(the path as a printed command names it, whether it was shortened): see the module's docstring."""
    text = str(value)
    path = Path(text)
    if not path.is_absolute():
        return text, False
    base = Path(cwd) if cwd is not None else Path(os.getcwd())
    try:
        return str(path.relative_to(base)) or ".", False
    except ValueError:
        return path.name or text, True


def with_shortened_note(command: str, shortened: bool) -> str:
    return f"{command}  {SHORTENED}" if shortened and SHORTENED not in command else command


def recorded_run_command(summary: Mapping[str, Any]) -> str:
    """The ``run`` command whose options made a run folder's records: its own,
    or for shards merged into one, the first shard's (they share the options)."""
    shards = summary.get("shardCommands")
    if isinstance(shards, list) and shards and isinstance(shards[0], str):
        return shards[0]
    return str(summary.get("command") or "")


def published_rerun_command(backend: Mapping[str, Any], options: Sequence[str], file_id: str, case: str,
                            corpora: Mapping[str, str]) -> str:
    """``rerun_command`` for a page or a JUnit file, its corpus named as the
    run's recorded command named it (``corpora``, ``corpus_paths_from_command``)
    and shown by ``shown_path``: a path recorded absolute (runs from before
    the harness recorded relative paths) is cut to its last component, and the
    command says so."""
    given = corpora.get(file_id.split("/", 1)[0])
    shown, shortened = shown_path(given) if given else (None, False)
    return with_shortened_note(rerun_command(backend, options, file_id, case, shown), shortened)


def corpus_paths_from_command(command: str | None) -> dict[str, str]:
    """Corpus name -> the folder a recorded command's ``--cases`` names it by
    (a folder is its own corpus; a file's corpus is the folder that holds it)."""
    out: dict[str, str] = {}
    try:
        argv = shlex.split(command or "", comments=True)
    except ValueError:
        return out
    for i, a in enumerate(argv):
        value = a.split("=", 1)[1] if a.startswith("--cases=") else argv[i + 1] if a == "--cases" and i + 1 < len(argv) else None
        if value:
            path = Path(value)
            folder = path.parent if path.suffix == ".json" else path
            if folder.name:
                out.setdefault(folder.name, str(folder))
    return out


def options_from_command(command: str | None) -> list[str] | None:
    """The ``-o key=value`` pairs of a recorded ``webnn-harness run`` command line."""
    if not command:
        return None
    try:
        argv = shlex.split(command, comments=True)
    except ValueError:
        return None
    out, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a in ("-o", "--option") and i + 1 < len(argv):
            out.append(argv[i + 1])
            i += 2
            continue
        if a.startswith("--option="):
            out.append(a.split("=", 1)[1])
        elif a.startswith("-o") and len(a) > 2:
            out.append(a[2:])
        i += 1
    return out


def option_values(command: str | None, names: Sequence[str]) -> list[str]:
    """Every value a recorded command line gives one option (``names``: its spellings, e.g. ``--backend``
    and ``-b``), in order: ``--cases a --cases=b`` -> ["a", "b"]."""
    try:
        argv = shlex.split(command or "", comments=True)
    except ValueError:
        return []
    out = []
    for i, a in enumerate(argv):
        key, eq, value = a.partition("=")
        if key in names and eq and key.startswith("--"):
            out.append(value)
        elif a in names and i + 1 < len(argv):
            out.append(argv[i + 1])
    return out


def rerun_folder(backend: str, file_id: str, case: str) -> str:
    """out/rerun-<backend>-<8 hex digits of the case id>: one folder per case, never a run's own."""
    digest = hashlib.sha1(case_id(file_id, case).encode()).hexdigest()[:8]
    return f"out/rerun-{re.sub(r'[^A-Za-z0-9_.-]+', '-', backend)}-{digest}"


def rerun_command(backend: Mapping[str, Any], options: Sequence[str], file_id: str, case: str,
                  corpus_path: str | None = None, backend_arg: str | None = None) -> str:
    """A POSIX shell line re-running just this case on this backend: the
    case's corpus (``corpus_path`` where it is known on this machine, else its
    corpus name, which is the folder to run from beside; nothing for the
    bundled corpus, the default), the case id, and a fresh --out folder.
    ``backend_arg`` is the --backend value where it is not the backend's name
    (a module:factory path)."""
    name = str(backend.get("name", "?"))
    parts = ["webnn-harness", "run", "--backend", backend_arg or name]
    for opt in options:
        parts += ["-o", opt]
    corpus = file_id.split("/", 1)[0]
    if corpus_path or corpus != BUNDLED_CORPUS:
        parts += ["--cases", corpus_path or corpus]
    parts += ["--id", case_id(file_id, case), "--out", rerun_folder(name, file_id, case)]
    return " ".join(shlex.quote(p) for p in parts)


# A path starts at a slash not preceded by a word, a dot, a colon, a slash or "<" (so "</b>"
# in a backend's message is not a path) and ends before whitespace, quotes, brackets or markup.
_ABSOLUTE_PATH = re.compile(r"(?<![\w.:/<])(/[^\s'\":,;()\[\]{}<>]+)")


def strip_local_paths(text: str) -> str:
    """``text`` with every absolute path cut to its last component: the pages
    are published, the folders they were made in are nobody's business."""
    return _ABSOLUTE_PATH.sub(lambda m: m.group(1).rstrip("/").rsplit("/", 1)[-1] or "/", text)


# Options whose values are local paths: the recorded command names them as
# outputs/rerun_commands.shown_path does (relative as given; an absolute path
# outside the working folder by its last component only, and says so), so a
# published header names no folder of this machine and runs as printed.
PATH_OPTIONS = ("--cases", "--out", "--expectations", "--update-expectations", "--junit")


def public_command(argv: Sequence[str], cwd: str | Path | None = None) -> str:
    """A command line (``sys.argv``) as a summary records it and a page shows it: ``webnn-harness``
    and its arguments, each path option's value as ``shown_path`` names it, quoted for a shell."""
    out = ["webnn-harness"]
    args = list(argv[1:])
    shortened = False
    i = 0
    while i < len(args):
        a = args[i]
        key, eq, value = a.partition("=")
        if key in PATH_OPTIONS and eq:
            shown, cut = shown_path(value, cwd)
            out.append(f"{key}={shown}")
        elif a in PATH_OPTIONS and i + 1 < len(args):
            shown, cut = shown_path(args[i + 1], cwd)
            out += [a, shown]
            i += 1
        else:
            out.append(a)
            cut = False
        shortened |= cut
        i += 1
    return with_shortened_note(shlex.join(out), shortened)
