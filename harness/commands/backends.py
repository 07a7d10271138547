"""``webnn-harness backends``: the installed backends, with versions and devices."""
from __future__ import annotations

import argparse
import json

from webnn_harness.commands.common import EXIT_OK

HELP = "list installed backends with versions and devices"


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


def _row(name: str, target: str, options: dict[str, str]) -> dict:
    from webnn_harness import backends

    try:
        info = backends.create(name, options).info()
        return {"name": name, "version": info.version, "device": info.device, "options": options,
                "settings": dict(info.settings), "entryPoint": target}
    except Exception as exc:  # noqa: BLE001 - list what can't load, with why
        return {"name": name, "error": f"{type(exc).__name__}: {exc}", "options": options, "entryPoint": target}


def handle(args) -> int:
    from webnn_harness import backends

    # A backend with several builds installed side by side (chromium's browsers) is a row per build.
    rows = [_row(name, target, options) for name, target in sorted(backends.available().items())
            for options in _variants(name)]
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
            chosen = " ".join(f"-o {k}={v}" for k, v in r["options"].items())
            print(f"{r['name']:{name_width}}  {r['version']:{version_width}}  {r['device']}"
                  + (f"  ({chosen})" if chosen else ""))
    loaded = {r["name"] for r in rows if "error" not in r}
    used = [n for n in DEFAULT_BACKENDS if n in loaded]  # in the order run takes them
    print(f"run without --backend uses {', '.join(used) or 'none of these (install one)'}; bench the same but the reference and chromium")
    return EXIT_OK
