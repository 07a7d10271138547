"""The site's pages listed once (reports/pages.py): navigation, index.html and footer derived from the list."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from webnn_harness.reports.pages import PAGE, PAGES, footer_counts, index_page, navigation


def site(probes=0, runs=0, bench=0, fuzz=0, accuracy=False, archive=None, models=False):
    """What the page list reads of a SiteModel."""
    return SimpleNamespace(
        has_probes=bool(probes), has_runs=bool(runs), has_bench=bool(bench), has_findings=bool(fuzz),
        has_accuracy=accuracy, archive=archive, has_models=models, probes=[object()] * probes,
        conformance=SimpleNamespace(backends=[object()] * runs),
        performance=SimpleNamespace(runs=[object()] * bench), findings=SimpleNamespace(runs=[object()] * fuzz))


@pytest.mark.parametrize("model, index", [
    (site(probes=1, runs=1, bench=1), "Capability matrix"),
    (site(runs=1, bench=1, fuzz=1), "Conformance"),
    (site(bench=1, fuzz=1), "Performance"),
    (site(fuzz=1, accuracy=True), "Fuzz findings"),
    (site(accuracy=True), "Accuracy"),
    (site(), "Conformance"),  # nothing given: the empty conformance report
    (site(runs=1, bench=1, models=True), "Conformance"),  # the models page is linked, never the index
])
def test_index_is_the_first_page_the_site_has(model, index):
    assert index_page(model).title == index


def test_navigation_lists_the_pages_present_in_order_and_marks_the_index():
    model = site(runs=2, fuzz=1, archive=object())
    assert [p.title for p in navigation(model)] == ["Conformance", "Fuzz findings", "Changes", "History"]
    index = index_page(model)
    assert PAGE["conformance.html"].is_here("index.html", index) and not PAGE["findings.html"].is_here("index.html", index)
    assert PAGE["history.html"].is_here("history/relu.html", index)
    assert [p.title for p in navigation(site(probes=1, runs=1, models=True))] == ["Capability matrix", "Models", "Conformance"]


def test_footer_counts_runs_and_probes_always_and_the_rest_when_present():
    assert footer_counts(site(runs=2)) == ((2, "backend run"), (0, "probe"))
    assert footer_counts(site(probes=1, runs=1, bench=3, fuzz=1, accuracy=True)) == (
        (1, "backend run"), (1, "probe"), (3, "bench run"), (1, "fuzz run"))


def test_every_page_names_a_template_that_exists():
    from webnn_harness.reports.render import environment

    env = environment()
    for p in PAGES:
        env.get_template(p.template)
