"""The report model -> a static site (Jinja2, autoescaped; CSS/JS copied beside the pages).

Layout of the site (every link relative, so it opens from file:// with no server):

    index.html              capability matrix (the conformance report when no probe was given)
    conformance.html        summary, operator x data type matrices, every non-pass
    ops/<op>.html           one operator: operand-level limits per backend, evidence, results
    backends/<slug>.html    one probe: header, layout timings, limits, gaps, download
    performance.html        bench results: latencies, ratios, layout cost, roofline, distributions
    findings.html           fuzz findings: graphs tried, each minimal case and its re-run command
    charts/*.svg            the performance page's charts (matplotlib)
    data/<slug>-opSupportLimits.json
    static/site.css, static/site.js
"""
from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup
from webnn_harness.outputs.text import publishable
from webnn_harness.spec.catalog import operators
from webnn_harness.reports.capability import CAPABILITY_TEXT
from webnn_harness.reports.common import SHORT_TYPE, format_bytes, format_seconds
from webnn_harness.reports.accuracy import format_use
from webnn_harness.reports.conformance import OUTCOME_TEXT, TIGHT_SLACK
from webnn_harness.reports.archive import LATENCY_STEP, ArchiveModel, spark
from webnn_harness.reports.model import SiteModel
from webnn_harness.reports.pages import PAGE, PAGES, footer_counts, index_page, navigation
from webnn_harness.reports.performance import FIRST_RUN_FAST, SLOW_TIER_FACTOR, strip_local_paths
from webnn_harness.reports.page_cache import PageCache, everything, fingerprint, footer_span
from webnn_harness.reports.sitefolder import CACHE, SiteFolder

STATUS_ORDER = ("pass", "fail", "unsupported", "error", "crash", "timeout", "skipped")


def _pct(value: float | None) -> str:
    if value is None:
        return "–"
    if 0.9995 <= value < 1:
        return f"{value * 100:.2f}%"
    return f"{value * 100:.1f}%"


def _date(iso: str) -> str:
    """ISO 8601 (as run_header writes it) -> "2026-11-21 09:30 UTC"; anything else unchanged."""
    m = re.fullmatch(r"(\d{4}-\d\d-\d\d)T(\d\d:\d\d)(?::\d\d(?:\.\d+)?)?(\+00:00|Z)?", iso or "")
    if not m:
        return iso or ""
    return f"{m.group(1)} {m.group(2)}" + (" UTC" if m.group(3) else "")


def _short_type(dt: str) -> str:
    return SHORT_TYPE.get(dt, dt)


def _bar_segments(counts: dict[str, int], width: float = 100.0) -> list[dict[str, Any]]:
    """Stacked-bar geometry for an inline SVG: one rect per status that occurs."""
    total = sum(counts.values())
    out, x = [], 0.0
    for status in STATUS_ORDER:
        n = counts.get(status, 0)
        if not n or not total:
            continue
        w = width * n / total
        out.append({"status": status, "x": round(x, 3), "w": round(w, 3), "n": n})
        x += w
    return out


def _times(value: float | None) -> str:
    """A ratio as people read it: 1.93×."""
    return "–" if value is None else f"{value:.2f}×"


def _seconds(value: float | None) -> str:
    """Seconds as format_seconds writes them, and nanoseconds below a microsecond (timer overhead)."""
    if isinstance(value, float) and 0 < value < 1e-6:
        return f"{value * 1e9:.0f} ns"
    return format_seconds(value)


def _per_second(value: float | None, unit: str = "G") -> str:
    """Flops or bytes per second in giga (or the unit given)."""
    return "–" if value is None else f"{value / {'G': 1e9, 'M': 1e6}[unit]:.3g}"


def _published(value: Any) -> Any:
    """What a page shows of a ``{{ value }}``: a text made publishable; markup (a macro's output, whose own
    values went through here) and numbers as they are."""
    return publishable(value) if isinstance(value, str) and not isinstance(value, Markup) else value


def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("webnn_harness.reports", "templates"),  # not "reports": a user's own folder would shadow it
        autoescape=True,  # every page is HTML; case names and backend messages are untrusted
        # Every text a page shows, in every field: no surrogate (UTF-8 cannot write one), no control
        # character, no local path (harness/outputs/text.py).
        finalize=_published,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # A status column appears when some backend has it (pass and fail always do).
    env.tests["shown_status"] = lambda s, backends: s in ("pass", "fail") or any(b.counts[s] for b in backends)
    env.filters.update(bytes=format_bytes, date=_date, pct=_pct, short_type=_short_type, bar=_bar_segments,
                       seconds=_seconds, times=_times, per_second=_per_second,
                       no_local_path=strip_local_paths, spark=spark)  # published pages name no local folders
    env.globals.update(OUTCOME_TEXT=OUTCOME_TEXT, CAPABILITY_TEXT=CAPABILITY_TEXT, STATUS_ORDER=STATUS_ORDER, spec_of=operators().get,
                       SLOW_TIER_FACTOR=SLOW_TIER_FACTOR, FIRST_RUN_FAST=FIRST_RUN_FAST)
    env.filters["slack"] = _slack
    env.filters["use"] = format_use
    env.globals["TIGHT_SLACK"] = TIGHT_SLACK
    return env


def _slack(value: float | None) -> str:
    """A slack (max error / budget) for a table: two decimals, "inf" for an error against a zero budget."""
    if value is None:
        return ""
    return "inf" if value == float("inf") else f"{value:.2f}"


def _copy_static(site: SiteFolder) -> None:
    for item in resources.files("webnn_harness.reports").joinpath("static").iterdir():
        if item.name.endswith((".css", ".js")):
            site.write(f"static/{item.name}", item.read_bytes())


def render_site(model: SiteModel, out_dir: Path) -> Path:
    """Write every page; returns the path of index.html. ``out_dir`` must be new,
    empty or an earlier report, whose files (and only those) are replaced."""
    site = SiteFolder(Path(out_dir))
    site.prepare()
    try:
        _render_pages(model, site, _page_writer(environment(), site, model))
    finally:
        site.close()
    return site.out_dir / "index.html"


def _page_writer(env: Environment, site: SiteFolder, model: SiteModel, pages: PageCache | None = None):
    """page(template, path, shows=None, **context): one page, its links relative to its depth. ``shows``: a
    hash of what the page shows (reports/page_cache.py), with which ``pages`` may reuse the earlier
    build's page; None: the page is drawn."""
    common = {"m": model, "conf": model.conformance, "nav": navigation(model), "index": index_page(model),
              "footer_counts": footer_counts(model)}
    nav = repr(([(p.name, p.title, p.below) for p in common["nav"]], common["index"].name))
    footer: list[bytes] = []  # this build's, the same on every page: base.html's alone

    def this_footer() -> bytes:
        if not footer:
            html = env.get_template("base.html").render(root="", page="", **common).encode("utf-8")
            span = footer_span(html)
            footer.append(html[span[0]:span[1]] if span else b"")
        return footer[0]

    def page(template: str, path: str, shows: str | None = None, **ctx: Any) -> None:
        site.pages += 1
        key = None if pages is None or shows is None else pages.key(path, template, nav, shows)
        if key is not None and (kept := pages.reused(path, key, this_footer())) is not None:
            site.write(path, kept)
            pages.keep(path, key, kept)
            return
        depth = path.count("/")
        html = env.get_template(template).render(root="../" * depth, page=path, **common, **ctx).encode("utf-8")
        site.write(path, html)
        site.drawn += 1
        span = footer_span(html)
        if key is not None and span and html[span[0]:span[1]] == this_footer():  # else never reused
            pages.keep(path, key, html)
    return page


def _render_pages(model: SiteModel, site: SiteFolder, page, shows_all: str | None = None) -> None:
    """``shows_all``: a hash of all the model shows (page_cache.everything), for an archive's site."""
    _copy_static(site)

    index = index_page(model)
    for p in PAGES:
        if p.from_archive or not (p.present(model) or p.written_always):
            continue
        context = p.context(model)
        for name, svg in (context.get("charts") or {}).get("files", {}).items():
            site.write(f"charts/{name}", svg)
        # A page's own names (the performance page's charts: whether matplotlib is there) are its inputs too.
        shows = None if shows_all is None else fingerprint(shows_all, context)
        if p.own_file:
            page(p.template, p.name, shows, **context)
        if p is index:
            page(p.template, "index.html", shows, **context)
    for op in model.ops:
        results = [(b, dict(b.matrix)[op]) for b in model.conformance.backends]
        page("op.html", f"ops/{op}.html", shows_all, op=op,
             caps=[(p, p.ops[op]) for p in model.probes],
             results=results,
             tested=sum(c.total for _, cells in results for c in cells),
             op_problems=[p for p in model.conformance.problems if op in p.ops],
             op_findings=model.findings.for_op(op) if model.findings else [])
    for probe in model.probes:
        # A probe's page shows its column only: a build that adds another column does not draw it.
        page("backend.html", f"backends/{probe.backend.slug}.html", None if shows_all is None else fingerprint(probe),
             probe=probe)
    for name, payload in model.limits_payloads.items():
        site.write(f"data/{name}", json.dumps(payload, indent=1) + "\n")


def render_archive_site(model: ArchiveModel, out_dir: Path) -> tuple[Path, int, int]:
    """The site of an archive: the pages of ``render_site`` over the newest
    column of each backend version, and the changes and history pages; a page whose inputs
    did not change since the build before is not drawn again (reports/page_cache.py). Returns the
    path of index.html, how many pages were drawn from their templates and how many the site has."""
    site = SiteFolder(Path(out_dir))
    site.prepare()
    try:
        pages = PageCache(site.out_dir / CACHE, site.out_dir, set(site.previous))
        all_shown = everything(model)
        page = _page_writer(environment(), site, model.site, pages)
        _render_pages(model.site, site, page, all_shown)
        page(PAGE["changes.html"].template, "changes.html", all_shown, changes=model.changes,
             machines=model.machine_disagreements)
        page(PAGE["history.html"].template, "history.html", all_shown, history=model.history, steps=model.steps,
             latency_step=LATENCY_STEP)
        for op, series in model.history.items():
            page("history_op.html", f"history/{op}.html", all_shown, op=op, series=series)
        pages.save()
    finally:
        site.close()
    return site.out_dir / "index.html", site.drawn, site.pages
