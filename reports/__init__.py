"""HTML conformance reports and the published capability matrix.

    from webnn_harness.reports import build_site
    index = build_site(["out/run", "out/probe"], "out/site")

Inputs are run directories (results.jsonl, summary.json) and probe outputs
(*-opSupportLimits.json, *-probe.json); ``model`` turns them into plain data,
``render`` writes a static site that opens from file:// with no network.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterable

from webnn_harness.reports.common import ReportInputError
from webnn_harness.reports.model import SiteModel, build_model


def build_site(inputs: Iterable[str | Path], out_dir: str | Path) -> Path:
    """Read the inputs, write the site under ``out_dir``; returns the path of its index.html."""
    from webnn_harness.reports.render import render_site

    return render_site(build_model(list(inputs)), Path(out_dir))


def build_archive_site(archive: str | Path, out_dir: str | Path, now=None, stale_days: int | None = None):
    """The site of an archive (report --archive); returns (index.html, the ArchiveModel), whose ``reuse``
    says how many entries were read and pages drawn. Entry digests, model pieces and page keys are kept
    in ``out_dir``'s cache folder, so the next build reads only new entries and draws only the pages
    they change (reports/archive.py)."""
    from webnn_harness.reports.archive import STALE_DAYS, build_archive_model
    from webnn_harness.reports.render import render_archive_site
    from webnn_harness.reports.sitefolder import CACHE, SiteFolder

    out = Path(out_dir)
    outside_entries(Path(archive), out)
    SiteFolder(out).check()  # refuse a foreign folder before the cache is written into it
    model = build_archive_model(archive, cache=out / CACHE, now=now,
                                stale_days=STALE_DAYS if stale_days is None else stale_days)
    index, drawn, pages = render_archive_site(model, out)
    return index, dataclasses.replace(model, reuse=dataclasses.replace(model.reuse, pages_drawn=drawn, pages=pages))


def outside_entries(archive: Path, out: Path) -> None:
    """Refuse a site folder inside the archive's entries: each entry is an output archived byte for byte,
    which a site written into it would change (and the next build would read as part of the entry)."""
    from webnn_harness.archive.store import ENTRIES

    entries, where = (archive / ENTRIES).resolve(), out.resolve()
    if where == entries or entries in where.parents:
        raise ReportInputError(f"--out {out}: inside the archive's entries ({archive / ENTRIES}), which are never "
                               "written to; choose a site folder outside them")


__all__ = ["ReportInputError", "SiteModel", "build_archive_site", "build_model", "build_site"]
