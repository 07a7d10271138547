"""An archive's site draws again only the pages whose inputs changed since the build before.

Every page of an archive's site ends in the same footer (the archive's entries and inputs
counted, when the site was built), which changes with every build; the rest of a page is drawn
from the templates (and the code they call: ``sources_hash``), the harness version, the
navigation and what the page shows:

- a probe's page (``backends/<slug>.html``): that probe's column (``ProbeBackend``) alone;
- every other page (the index, conformance, ``ops/*``, ``changes``, ``history/*``, ...) shows
  every column, or might: the whole archive model but its build time (``everything``).

A page's key is a hash of those inputs (their ``repr``: exact for the frozen data the model is
made of; a part whose ``repr`` is not the same from one process to the next only makes the
page drawn again). A page whose key is the one kept in the cache (``.archive-cache``), and
whose file still holds the bytes written then, is not drawn: its footer is replaced by this
build's, which is the same in every page. A fresh build writes the same bytes.
"""
from __future__ import annotations

import dataclasses
import hashlib
from importlib import resources
from pathlib import Path
from typing import Any

from webnn_harness.archive.digest import content_key, read_cached, write_cached

PAGES_FORMAT = 1
PAGES_FILE = f"pages-{PAGES_FORMAT}.json"
FOOTER_START, FOOTER_END = "<footer>", "</footer>"


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def sources_hash() -> str:
    """What draws every page beside its model: the reports package's templates and Python (the
    templates' filters), the texts every page's words pass through (outputs/text.py,
    rerun_commands.py), the spec's operators (``spec_of``) and the template engine's version. A change
    to any draws every page again, even where the harness version, which every key holds, stays the
    same (an editable install)."""
    from importlib.metadata import version

    from webnn_harness.outputs import rerun_commands, text
    from webnn_harness.spec.catalog import operators

    package = resources.files("webnn_harness.reports")
    templates = package.joinpath("templates")
    files = [package.joinpath(n) for n in sorted(p.name for p in package.iterdir() if p.name.endswith(".py"))]
    files += [templates.joinpath(n) for n in sorted(p.name for p in templates.iterdir() if p.name.endswith(".html"))]
    files += [Path(m.__file__) for m in (text, rerun_commands)]
    return _hash("".join(f"{f.name}\0{f.read_text(encoding='utf-8')}\0" for f in files)
                 + repr([list(operators().values()), version("jinja2"), version("markupsafe")]))


def everything(model: Any) -> str:
    """What an archive site's pages may show: its model, but the time it was built (the footer's) and what
    the build reused. Sets in order, so that their ``repr`` is the same in the next process."""
    site = model.site
    info = dataclasses.replace(site.archive, built="", history_ops=tuple(sorted(site.archive.history_ops)))
    shown = dataclasses.replace(model, reuse=None,
                                site=dataclasses.replace(site, archive=info, changed=tuple(sorted(site.changed))))
    return fingerprint(shown)


def fingerprint(*shown: Any) -> str:
    """A hash of what a page shows (a probe's page: its ProbeBackend)."""
    return _hash(repr(shown))


def footer_span(html: bytes) -> tuple[int, int] | None:
    """Where a page's footer lies (the last one: base.html's), or None."""
    start = html.rfind(FOOTER_START.encode())
    end = html.find(FOOTER_END.encode(), start)
    return (start, end + len(FOOTER_END)) if start >= 0 and end >= 0 else None


class PageCache:
    """The key and the bytes' hash of every page the earlier build wrote; ``kept`` those of this build."""

    def __init__(self, cache: Path | None, out_dir: Path, previous: set[str]):
        self.cache, self.out_dir, self.previous = cache, out_dir, previous
        doc = read_cached(cache, PAGES_FILE)
        self.before = {k: v for k, v in doc.items() if _is_entry(v)} if isinstance(doc, dict) else {}
        self.kept: dict[str, list[str]] = {}
        self.common = sources_hash()

    def key(self, path: str, template: str, nav: str, shows: str) -> str:
        return content_key(PAGES_FORMAT, self.common, path, template, nav, shows)

    def reused(self, path: str, key: str, footer: bytes) -> bytes | None:
        """The page the earlier build wrote at ``path`` with this build's footer, when its key is ``key`` and
        its file holds what was written; else None (draw it)."""
        before = self.before.get(path)
        file = self.out_dir / path
        if before is None or before[0] != key or path not in self.previous or file.is_symlink() or not file.is_file():
            return None
        old = file.read_bytes()
        span = footer_span(old)
        if span is None or hashlib.sha256(old).hexdigest() != before[1]:
            return None  # edited since: drawn again
        return old[:span[0]] + footer + old[span[1]:]

    def keep(self, path: str, key: str, data: bytes) -> None:
        self.kept[path] = [key, hashlib.sha256(data).hexdigest()]

    def save(self) -> None:
        if self.kept != self.before:
            write_cached(self.cache, PAGES_FILE, self.kept)


def _is_entry(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)
