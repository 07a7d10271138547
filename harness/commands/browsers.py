"""``webnn-harness browsers``: install and list the Chromium builds the
chromium backend runs (the library: backends/chromium/install.py).

    webnn-harness browsers install [VERSION...]   # default: the pinned release
    webnn-harness browsers list

The parser names no value of the install module: building it stays as light
as every other command's (the module is imported when the command runs).
"""
from __future__ import annotations

import argparse
import sys

from webnn_harness.commands.common import EXIT_FAILURES, EXIT_OK, UsageError

HELP = "install or list the Chromium builds of the chromium backend (npm package @sparticuz/chromium)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="browsers_action", required=True)
    add = sub.add_parser("install", help="fetch versions with npm into $XDG_CACHE_HOME/webnn-harness/browsers "
                                         "(default ~/.cache)")
    add.add_argument("versions", nargs="*", metavar="VERSION",
                     help="package versions, e.g. 153.0.0, or milestones, e.g. 143 (its newest release, "
                          "as npm view lists them); default: the pinned release")
    sub.add_parser("list", help="the installed versions, their folders and sizes")


def _megabytes(size: int) -> str:
    return f"{size / 1e6:.0f} MB"


def list_lines() -> list[str]:
    """One line per installed version (or one saying there is none)."""
    from webnn_harness.backends.chromium import install

    browsers = install.installed()
    if not browsers:
        return [f"no Chromium installed in {install.browsers_folder()}; run 'webnn-harness browsers install'"]
    total = sum(b.size_bytes for b in browsers)
    return [*(f"{b.version:<10} {_megabytes(b.size_bytes):>8}  {b.folder}" for b in browsers),
            f"{len(browsers)} installed, {_megabytes(total)} in all"]


def handle(args: argparse.Namespace) -> int:
    """0 when everything asked for is done, 1 when an install failed, 2 for a version that is none."""
    from webnn_harness.backends.chromium import install

    if args.browsers_action == "list":
        print("\n".join(list_lines()))
        return EXIT_OK
    for asked in args.versions:  # a misspelt version is a usage mistake, said before anything is fetched
        try:
            install.check_version_name(asked)
        except install.InstallError as exc:
            raise UsageError(str(exc)) from None
    status = EXIT_OK
    for asked in args.versions or [install.DEFAULT_VERSION]:
        try:  # a milestone (143) names its newest release, asked of npm before anything is fetched
            version = install.published_version(asked)
        except install.InstallError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = EXIT_FAILURES
            continue
        present = [b for b in install.installed() if b.version == version]
        if present:  # a version installed whole is not fetched again
            print(f"{version} is installed: {present[0].executable} ({_megabytes(present[0].size_bytes)})")
            continue
        print(f"installing {install.PACKAGE}@{version} (about 70 MB to fetch, 220 MB installed) ...", flush=True)
        try:
            browser = install.install(version)
        except install.InstallError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = EXIT_FAILURES
            continue
        print(f"installed {browser.version}: {browser.executable} ({_megabytes(browser.size_bytes)})")
    return status
