"""The command that re-runs one case: printed at the end of a run, on report
pages and in JUnit. It names the case's corpus (a local folder where one is
known, else the corpus name), the case by its stable id (--id), and a fresh
--out folder, so it never writes over the run it came from."""
from __future__ import annotations

import hashlib
import re
import shlex
from typing import Any, Mapping, Sequence

from webnn_harness.loading.caseid import BUNDLED_CORPUS, case_id

# When a run's command line is not recorded, the options a backend was made
# with are recovered from the settings its info() reports: settings key ->
# (option name, the backend's default, which need not be repeated).
OPTIONS_FROM_SETTINGS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "onnxruntime": (("provider", "ep", "CPUExecutionProvider"),
                    ("graph_optimization_level", "opt_level", "all"),
                    ("intra_op_threads", "threads", "1")),
    "openvino": (("device", "device", "CPU"), ("precision", "precision", "exact")),
}


def options_from_command(command: str | None) -> list[str] | None:
    """The ``-o key=value`` pairs of a recorded ``webnn-harness run`` command line."""
    if not command:
        return None
    try:
        argv = shlex.split(command)
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


def options_from_settings(backend: Mapping[str, Any]) -> list[str]:
    settings = backend.get("settings") or {}
    out = []
    for key, option, default in OPTIONS_FROM_SETTINGS.get(backend.get("name", ""), ()):
        if key in settings and str(settings[key]) != default:
            out.append(f"{option}={settings[key]}")
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
