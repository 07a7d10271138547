"""``webnn-harness backends``: the installed backends, with versions and devices."""
from __future__ import annotations

import argparse
import json

from webnn_harness.commands.common import EXIT_OK

HELP = "list installed backends with versions and devices"


def add_arguments(bk: argparse.ArgumentParser) -> None:
    bk.add_argument("--json", action="store_true", help="print the backends as JSON (name, version, device, settings, entry point)")


def handle(args) -> int:
    from webnn_harness import backends

    rows = []
    for name, target in sorted(backends.available().items()):
        try:
            info = backends.create(name, {}).info()
            rows.append({"name": name, "version": info.version, "device": info.device,
                         "settings": dict(info.settings), "entryPoint": target})
        except Exception as exc:  # noqa: BLE001 - list what can't load, with why
            rows.append({"name": name, "error": f"{type(exc).__name__}: {exc}", "entryPoint": target})
    if args.json:
        print(json.dumps(rows, indent=1, default=str))
        return EXIT_OK
    from webnn_harness.backends import DEFAULT_BACKENDS

    # Columns as wide as their longest entry (an OpenVINO build string is 40 characters).
    name_width = max(len(r["name"]) for r in rows) if rows else 0
    version_width = max((len(r["version"]) for r in rows if "error" not in r), default=0)
    for r in rows:
        if "error" in r:
            print(f"{r['name']:{name_width}}  not available: {r['error']}")
        else:
            print(f"{r['name']:{name_width}}  {r['version']:{version_width}}  {r['device']}")
    loaded = {r["name"] for r in rows if "error" not in r}
    used = [n for n in DEFAULT_BACKENDS if n in loaded]  # in the order run takes them
    print(f"run without --backend uses {', '.join(used) or 'none of these (install one)'}; bench the same but the reference and chromium")
    return EXIT_OK
