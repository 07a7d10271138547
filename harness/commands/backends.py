"""``webnn-harness backends``: the installed backends, with versions and devices."""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping

from webnn_harness.commands.common import EXIT_OK

HELP = "list installed backends with versions and devices"
LOAD_SECONDS = 120  # a third-party backend's import, factory and info(), in its own process


def add_arguments(bk: argparse.ArgumentParser) -> None:
    bk.add_argument("--json", action="store_true", help="print the backends as JSON (name, version, device, options, settings, "
                                                      "entry point), a row per installed build")


def _variants(name: str) -> tuple[dict[str, str], ...]:
    """The option sets of each installed build of ``name`` (its facts' installed_variants), or one without options."""
    from webnn_harness import backends

    list_variants = backends.facts_or_defaults(name).installed_variants
    if list_variants is None:
        return ({},)
    try:
        return tuple(dict(v) for v in list_variants()) or ({},)
    except Exception:  # noqa: BLE001 - making it without options then says what is wrong
        return ({},)


def backend_row(name: str, target: str, by_target: bool = False, options: dict[str, str] | None = None) -> dict:
    """What ``backends`` lists of one backend (made with ``options``: one of its installed builds): its
    version, device and settings, or why it cannot load (``by_target``: loaded as ``module:factory``, as a
    child process that may not see the same entry points)."""
    from webnn_harness import backends

    options = dict(options or {})
    try:
        info = backends.create(target if by_target else name, options).info()
        row = {"name": name, "version": info.version, "device": info.device, "options": options,
               "settings": info.settings, "entryPoint": target}
    except Exception as exc:  # noqa: BLE001 - list what can't load, with why
        return {"name": name, "error": f"{type(exc).__name__}: {exc}", "options": options, "entryPoint": target}
    return checked_row(row, name, target)


def checked_row(row: object, name: str, target: str) -> dict:
    """``row`` when it has the shape ``backends`` prints (a plugin's info() may give a number for its
    version, or a child process may print a forged line last), else a failed row saying which field."""
    if not isinstance(row, dict) or row.get("name") != name:
        return _failed(name, target, "loading it printed no description")
    if "error" in row:
        return row if isinstance(row["error"], str) else _failed(name, target, "its error is not text")
    for field in ("version", "device"):
        if not isinstance(row.get(field), str):
            return _failed(name, target, f"its info() gave {field} {str(row.get(field))[:60]!r} "
                                         f"({type(row.get(field)).__name__}), not a string")
    options, settings = row.get("options"), row.get("settings")
    if not isinstance(options, dict) or not all(isinstance(v, str) for v in [*options, *options.values()]):
        return _failed(name, target, "its options are not names and values")
    if not isinstance(settings, Mapping):
        return _failed(name, target, f"its info() gave settings of type {type(settings).__name__}, not a mapping")
    return {**row, "settings": dict(settings)}


def _failed(name: str, target: str, why: str) -> dict:
    return {"name": name, "error": why, "options": {}, "entryPoint": target}


def isolated_row(name: str, target: str, timeout: float | None = None) -> dict:
    """``backend_row`` made in a child process: a third-party backend that crashes while it loads (a
    SIGSEGV in its native library, an exit, a hang) is listed as failed, and the others still are."""
    timeout = timeout or LOAD_SECONDS
    code = ("import json, sys; from webnn_harness.commands.backends import backend_row; "
            "print(); print(json.dumps(backend_row(sys.argv[1], sys.argv[2], by_target=True), default=str))")
    proc = subprocess.Popen([sys.executable, "-c", code, name, target], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # and whatever it started: no process left behind
        proc.communicate()
        return _failed(name, target, f"still loading after {timeout:g} s; stopped")
    if proc.returncode != 0:
        how = (f"killed by {signal.Signals(-proc.returncode).name}" if -proc.returncode in signal.valid_signals()
               else f"exit code {proc.returncode}")
        last = (err.strip().splitlines() or [""])[-1][:200]
        return _failed(name, target, f"crashed while loading ({how})" + (f": {last}" if last else ""))
    try:
        row = json.loads(out.strip().splitlines()[-1])  # the last line: a plugin may print as it loads
    except (ValueError, IndexError, RecursionError):
        return _failed(name, target, "loading it printed no description")
    return checked_row(row, name, target)


def _is_ours(target: str) -> bool:
    return target.startswith("webnn_harness.")


def handle(args) -> int:
    from webnn_harness import backends

    # The harness's own backends load here, a row per build installed side by side (chromium's
    # browsers: their facts' installed_variants); a third party's, in a child process each (at once).
    found = sorted(backends.available().items())
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        theirs = {name: pool.submit(isolated_row, name, target) for name, target in found if not _is_ours(target)}
        rows = [row for name, target in found
                for row in ([backend_row(name, target, options=o) for o in _variants(name)] if _is_ours(target)
                            else [theirs[name].result()])]
    if args.json:
        print(json.dumps(rows, indent=1, default=str))
        return EXIT_OK
    from webnn_harness.backends import DEFAULT_BACKENDS
    from webnn_harness.outputs.text import printable

    # Columns as wide as their longest entry (an OpenVINO build string is 40 characters).
    name_width = max(len(r["name"]) for r in rows) if rows else 0
    version_width = max((len(r["version"]) for r in rows if "error" not in r), default=0)
    for r in rows:
        if "error" in r:
            print(printable(f"{r['name']:{name_width}}  not available: {r['error']}"))
        else:
            chosen = " ".join(f"-o {k}={v}" for k, v in (r.get("options") or {}).items())
            print(printable(f"{r['name']:{name_width}}  {r['version']:{version_width}}  {r['device']}"
                            + (f"  ({chosen})" if chosen else "")))
    loaded = {r["name"] for r in rows if "error" not in r}
    used = [n for n in DEFAULT_BACKENDS if n in loaded]  # in the order run takes them
    print(f"run without --backend uses {', '.join(used) or 'none of these (install one)'}; bench the same but the reference")
    return EXIT_OK
