"""``webnn-harness browsers``: install and list the Chromium builds the
chromium backend runs (backends/chromium/install.py).

    webnn-harness browsers install [VERSION...]   # default: the pinned release
    webnn-harness browsers list

The CLI wires ``add_arguments`` and ``main`` in as a command; until then,
``python -m webnn_harness.backends.chromium.command install`` runs it.
"""
from __future__ import annotations

import argparse
import sys

from webnn_harness.backends.chromium import install

HELP = "install or list the Chromium builds of the chromium backend (npm package @sparticuz/chromium)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="browsers_action", required=True)
    add = sub.add_parser("install", help=f"fetch versions with npm into {install.browsers_folder()}")
    add.add_argument("versions", nargs="*", metavar="VERSION",
                     help=f"package versions, e.g. 153.0.0 or 153 (default: {install.DEFAULT_VERSION})")
    sub.add_parser("list", help="the installed versions, their folders and sizes")


def _megabytes(size: int) -> str:
    return f"{size / 1e6:.0f} MB"


def list_lines() -> list[str]:
    """One line per installed version (or one saying there is none)."""
    browsers = install.installed()
    if not browsers:
        return [f"no Chromium installed in {install.browsers_folder()}; run 'webnn-harness browsers install'"]
    return [f"{b.version:<10} {_megabytes(b.size_bytes):>8}  {b.folder}" for b in browsers]


def main(args: argparse.Namespace) -> int:
    """0 when everything asked for is done, 1 when an install failed."""
    if args.browsers_action == "list":
        print("\n".join(list_lines()))
        return 0
    status = 0
    for version in args.versions or [install.DEFAULT_VERSION]:
        print(f"installing {install.PACKAGE}@{version} (about 70 MB to fetch, 220 MB installed) ...", flush=True)
        try:
            browser = install.install(version)
        except install.InstallError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 1
            continue
        print(f"installed {browser.version}: {browser.executable} ({_megabytes(browser.size_bytes)})")
    return status


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="webnn-harness browsers", description=HELP)
    add_arguments(parser)
    sys.exit(main(parser.parse_args()))
