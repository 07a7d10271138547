"""The site's pages, listed once (``PAGES``): each page's file, its title in the
navigation, its template, whether the site has it and what the footer counts
of it. The navigation (reports/templates/base.html), the choice of index.html
and the footer are derived from this list (reports/render.py), so a new page
is one entry here, its template, and what its model holds.

Per-operator and per-backend pages (ops/, backends/, history/) hang off these
and are written by reports/render.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from webnn_harness.reports.model import SiteModel
from webnn_harness.reports.performance import INTERVAL


@dataclass(frozen=True)
class Counted:
    """What the footer says the site was built from: ``number`` ``noun``\\ s."""

    noun: str
    number: Callable[[SiteModel], int]
    always: bool  # counted even when the page is absent ("0 probes")
    position: int  # the footer names the inputs in the data flow's order (runs, probes, benches, fuzz runs)


@dataclass(frozen=True)
class Page:
    name: str  # its file in the site
    title: str  # its link in the navigation
    template: str
    present: Callable[[SiteModel], bool]  # the site has it: linked, and a candidate for index.html
    context: Callable[[SiteModel], dict[str, Any]] = field(default=lambda model: {})  # its template's own names
    counted: Counted | None = None
    written_always: bool = False  # written even where absent (conformance.html: an empty report)
    own_file: bool = True  # False: written only as index.html (the capability matrix)
    from_archive: bool = False  # written from the archive's model (reports/render.py render_archive_site)
    below: str = ""  # pages under this folder are this page's too: its link is marked on them
    may_be_index: bool = True  # False: linked, never index.html (the models page beside the capability matrix)

    def is_here(self, page: str, index: "Page") -> bool:
        """Whether the navigation marks this page's link on ``page``."""
        return page == self.name or (page == "index.html" and self is index) or bool(self.below) \
            and page.startswith(self.below)


def performance_charts(model: SiteModel) -> dict[str, Any] | None:
    """The performance page's charts, or None where matplotlib is not installed (the page says so)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return None
    from webnn_harness.reports.charts import performance_charts as charts

    return charts(model.performance)


PAGES: tuple[Page, ...] = (
    Page("index.html", "Capability matrix", "capabilities.html", lambda m: m.has_probes,
         counted=Counted("probe", lambda m: len(m.probes), always=True, position=1), own_file=False),
    Page("models.html", "Models", "models.html", lambda m: m.has_models, context=lambda m: {"mm": m.models},
         may_be_index=False),
    Page("conformance.html", "Conformance", "conformance.html", lambda m: m.has_runs,
         counted=Counted("backend run", lambda m: len(m.conformance.backends), always=True, position=0),
         written_always=True),
    Page("performance.html", "Performance", "performance.html", lambda m: m.has_bench,
         context=lambda m: {"perf": m.performance, "charts": performance_charts(m), "interval": INTERVAL},  # charts: files written beside
         counted=Counted("bench run", lambda m: len(m.performance.runs), always=False, position=2)),
    Page("findings.html", "Fuzz findings", "findings.html", lambda m: m.has_findings,
         context=lambda m: {"fz": m.findings},
         counted=Counted("fuzz run", lambda m: len(m.findings.runs), always=False, position=3)),
    Page("accuracy.html", "Accuracy", "accuracy.html", lambda m: m.has_accuracy, context=lambda m: {"acc": m.accuracy}),
    Page("changes.html", "Changes", "changes.html", lambda m: bool(m.archive), from_archive=True),
    Page("history.html", "History", "history.html", lambda m: bool(m.archive), from_archive=True, below="history/"),
)

PAGE = {p.name: p for p in PAGES}


def index_page(model: SiteModel) -> Page:
    """The page index.html is: the first the site has, else the (empty) conformance report."""
    return next((p for p in PAGES if not p.from_archive and p.may_be_index and p.present(model)), PAGE["conformance.html"])


def navigation(model: SiteModel) -> tuple[Page, ...]:
    return tuple(p for p in PAGES if p.present(model))


def footer_counts(model: SiteModel) -> tuple[tuple[int, str], ...]:
    """(number, noun) of each input the site was built from, in the footer's order."""
    counted = sorted((p.counted for p in PAGES if p.counted and (p.counted.always or p.present(model))),
                     key=lambda c: c.position)
    return tuple((c.number(model), c.noun) for c in counted)
