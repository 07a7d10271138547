"""HTML conformance reports and the published capability matrix.

    from webnn_harness.reports import build_site
    index = build_site(["out/run", "out/probe"], "out/site")

Inputs are run directories (results.jsonl, summary.json) and probe outputs
(*-opSupportLimits.json, *-probe.json); ``model`` turns them into plain data,
``render`` writes a static site that opens from file:// with no network.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from webnn_harness.reports.model import ReportInputError, SiteModel, build_model


def build_site(inputs: Iterable[str | Path], out_dir: str | Path) -> Path:
    """Read the inputs, write the site under ``out_dir``; returns the path of its index.html."""
    from webnn_harness.reports.render import render_site

    return render_site(build_model(list(inputs)), Path(out_dir))


__all__ = ["ReportInputError", "SiteModel", "build_model", "build_site"]
