"""A site from a real run (reference and onnxruntime), probe, bench and fuzz,
opened in headless Chromium at a 1,400 x 1,000 px window, as a newcomer sees
it: every kind of page loads with no console message and no page error, is
no wider than the window, and shows its answer on the first screen; sorting
and filtering work when clicked and typed into.

Chromium is Debian's ``chromium`` package (``.ci/run`` installs it as root);
here it is installed with apt-get when missing and this process is root,
otherwise these tests skip, saying why. It is driven through Playwright's
Python API (the ``test`` extra) with ``executable_path``: no browser download.
Screenshots go to $WEBNN_REPORT_SCREENSHOTS if set, else to pytest's tmp dir
(the path is printed; run with -s to see it).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from webnn_harness.loading.cases import bundled_corpus
from webnn_harness.api import BackendRequest, RunRequest, run
from webnn_harness.loading.selection import CaseFilter
from webnn_harness.execution.pool import RunOptions
from webnn_harness.reports import build_site

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
OPS = ["relu", "clamp", "reduceL1", "batchNormalization", "conv2d", "abs"]
WINDOW = {"width": 1400, "height": 1000}

# What each kind of page answers, and the element that must be on its first
# screen (its top above the window's bottom edge, before any scrolling).
FIRST_SCREEN = {
    "conformance.html": "table.summary tbody tr",
    "index.html": "table.summary tbody tr",  # the capability matrix: one row per probed backend
    "performance.html": "#answer table tbody tr",
    "findings.html": "table.findings tbody tr",
    "ops/clamp.html": "table.operands",
    "backend": "p.lede",
}


def _find_chromium() -> str | None:
    return next((p for p in map(shutil.which, CHROMIUM_NAMES) if p), None)


@pytest.fixture(scope="session")
def chromium() -> str:
    found = _find_chromium()
    if found:
        return found
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("chromium is not installed and this is not root, so it cannot be installed (apt-get install chromium)")
    if not shutil.which("apt-get"):
        pytest.skip("chromium is not installed and there is no apt-get to install it with")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    import fcntl

    try:
        # pytest-xdist workers each reach here: one installs, the others wait and find it.
        with open(Path(tempfile.gettempdir()) / "webnn-harness-chromium-install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not _find_chromium():
                subprocess.run(["apt-get", "update", "-qq"], check=True, capture_output=True, timeout=600, env=env)
                subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, capture_output=True,
                               timeout=900, env=env)
    except (subprocess.SubprocessError, OSError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        pytest.skip(f"chromium could not be installed with apt-get: {exc} {detail.decode(errors='replace')[-300:]}")
    found = _find_chromium()
    if not found:
        pytest.skip("apt-get install chromium succeeded but no chromium executable is on PATH")
    return found


@pytest.fixture(scope="module")
def browser(chromium):
    """Playwright's Chromium API on Debian's chromium (the `test` extra installs playwright; no download)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


class Opened:
    """A page at the 1,400 px window with everything it logged: console
    messages of any level (our pages log nothing) and uncaught errors."""

    def __init__(self, browser, path: Path, query: str = ""):
        self.page = browser.new_page(viewport=WINDOW)
        self.messages: list[str] = []
        self.page.on("console", lambda m: self.messages.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.messages.append(f"uncaught: {e}"))
        self.page.goto(path.resolve().as_uri() + query)
        self.page.wait_for_load_state("load")

    def width(self) -> int:
        return self.page.evaluate("document.documentElement.scrollWidth")

    def visible_rows(self, table: str) -> list:
        return self.page.locator(f"{table} tbody tr:not(.hidden)").all()


@pytest.fixture
def opened(browser):
    pages = []

    def open_page(path: Path, query: str = "") -> Opened:
        pages.append(Opened(browser, path, query))
        return pages[-1]

    yield open_page
    for p in pages:
        if not p.page.is_closed():
            p.page.close()


@pytest.fixture(scope="module")
def real_site(tmp_path_factory) -> Path:
    """Real runs of the bundled cases for a few operators (onnxruntime has real
    failures, unsupported cases and known failures there), a real onnxruntime
    probe, a short real bench (the published seed scenario and a gemm) and a
    short real fuzz of onnxruntime on ops where it has findings. Built once a
    session: pytest-xdist workers share it (the first builds, the others wait)."""
    pytest.importorskip("onnxruntime")
    import fcntl

    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "webnn-report-browser"
    shared.mkdir(exist_ok=True)
    with open(shared / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / "site" / "index.html").is_file():
            _build_real_site(shared)
    return shared / "site"


def _build_real_site(root: Path) -> None:
    from webnn_harness.bench.driver import BenchOptions, run_bench
    from webnn_harness.bench.measure import TimingPolicy
    from webnn_harness.bench.suite import load_suite
    from webnn_harness.fuzz.driver import FuzzSettings, fuzz
    from webnn_harness.probe.driver import probe

    opts = RunOptions(workers=2, timeout=60.0, batch_size=16)
    for name in ("reference", "onnxruntime"):
        run(RunRequest((bundled_corpus(),), (BackendRequest(name),), root / f"run-{name}",
                       selection=CaseFilter(ops=tuple(OPS)), options=opts, mode="overwrite"))  # after a failed build
    probe("onnxruntime", {}, root / "probe", ops=OPS, layout=False, byte_search=False,
          run=RunOptions(workers=2, timeout=20.0, batch_size=64))
    quick = TimingPolicy(min_time=0.01, min_samples=3, warmup_time=0.0, max_time=1.0)
    tiny_peaks = {"copy_bytes": 1 << 16, "matmul_size": 32, "repeats": 1, "noise_size": 32, "noise_seconds": 0.01}
    # three backends: the performance page's "beside the published figures" table at its widest (issue #42)
    run_bench(load_suite("seed"), [("onnxruntime", {}), ("openvino", {}), ("litert", {})], root / "bench",
              BenchOptions(policy=quick, threads=1, peaks=tiny_peaks, save_artifacts=False,
                           name_filter="^(seed-conv2d-add-relu|offload-gemm)$"), overwrite=True)
    fuzz(FuzzSettings("onnxruntime", ops=("sign", "div"), seconds=4, seed=1, shrink_cap=2), root / "fuzz")
    build_site([root / "run-reference", root / "run-onnxruntime", root / "probe", root / "bench", root / "fuzz"],
               root / "site")


@pytest.fixture(scope="module")
def screenshot_dir(tmp_path_factory) -> Path:
    target = os.environ.get("WEBNN_REPORT_SCREENSHOTS")
    path = Path(target) if target else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _page_path(site: Path, kind: str) -> Path:
    return next((site / "backends").glob("*.html")) if kind == "backend" else site / kind


def test_real_site_has_real_problems(real_site):
    html = (real_site / "conformance.html").read_text()
    assert "onnxruntime" in html and "reference" in html
    assert 'data-status="unsupported"' in html  # onnxruntime refuses some bundled cases
    assert len(list((real_site / "backends").glob("onnxruntime-*.html"))) == 1
    assert (real_site / "performance.html").is_file() and (real_site / "findings.html").is_file()
    assert "<table class=\"problems findings\">" in (real_site / "findings.html").read_text()  # it found something


@pytest.mark.parametrize("kind", list(FIRST_SCREEN))
def test_every_page_kind_is_clean_fits_the_window_and_answers_on_its_first_screen(
        opened, real_site, screenshot_dir, kind):
    page = opened(_page_path(real_site, kind))
    assert page.messages == [], f"{kind}: console messages or page errors"
    assert page.width() <= WINDOW["width"], f"{kind} is {page.width()} px wide in a {WINDOW['width']} px window"
    # a table wider than its box would be cut off at the window's edge (the operator matrix alone scrolls, by design)
    clipped = page.page.evaluate("""Array.from(document.querySelectorAll('.scroll:not(.matrix-wrap)'))
        .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.firstElementChild.className)""")
    assert clipped == [], f"{kind}: tables clipped at 1,400 px: {clipped}"
    answer = page.page.locator(FIRST_SCREEN[kind]).first
    box = answer.bounding_box()
    assert box is not None, f"{kind}: {FIRST_SCREEN[kind]} is not shown"
    assert box["y"] < WINDOW["height"], f"{kind}: its answer ({FIRST_SCREEN[kind]}) starts {box['y']:.0f} px down"
    shot = screenshot_dir / (kind.replace("/", "-").removesuffix(".html") + ".png")
    page.page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000, "blank screenshot"
    print(f"screenshot: {shot}")


def test_no_page_of_the_site_logs_or_overflows(opened, real_site):
    """Every page written, not only one of each kind (op pages differ by what they hold)."""
    pages = sorted(real_site.rglob("*.html"))
    # the operator pages, index, conformance, performance, findings, the backend page, and models (the
    # site's runs hold multi-op graphs: WPT's subgraph cases)
    assert len(pages) == 95 + 6
    page = opened(pages[0])  # one tab, sent to each page in turn
    problems = []
    for path in pages:
        page.messages.clear()
        page.page.goto(path.resolve().as_uri())
        if page.messages or page.width() > WINDOW["width"]:
            problems.append(f"{path.relative_to(real_site)}: {page.width()} px, {page.messages}")
    assert problems == []


def test_clicking_a_header_sorts_its_column_both_ways(opened, real_site):
    page = opened(real_site / "conformance.html")
    table = "#problem-table"
    cases = lambda: [c.strip().lower() for c in page.page.locator(f"{table} tbody tr td.case .name").all_inner_texts()]  # noqa: E731
    assert len(cases()) > 2
    header = page.page.locator(f"{table} thead th", has_text="Case")
    header.click()
    assert header.get_attribute("aria-sort") == "ascending" and cases() == sorted(cases())
    header.click()
    assert header.get_attribute("aria-sort") == "descending" and cases() == sorted(cases(), reverse=True)
    # a numeric column sorts by number, not by text
    perf = opened(real_site / "performance.html")
    build = perf.page.locator("#build + p + div table")
    head = build.locator("thead th", has_text="Build ÷ median")
    head.click()
    index = [t.strip() for t in build.locator("thead th").all_inner_texts()].index(head.inner_text().strip())
    values = [float(v) for v in build.locator(f"tbody tr td:nth-child({index + 1})").evaluate_all(
        "cells => cells.map(c => c.getAttribute('data-v')).filter(v => v)")]
    assert len(values) > 2 and values == sorted(values)
    assert page.messages == [] and perf.messages == []


def test_filters_typed_and_chosen_hide_the_other_rows(opened, real_site):
    page = opened(real_site / "conformance.html")
    table = "#problem-table"
    total = len(page.visible_rows(table))
    page.page.select_option("select[data-filter=status]", "unsupported")
    statuses = {r.get_attribute("data-status") for r in page.visible_rows(table)}
    shown = len(page.visible_rows(table))
    assert statuses == {"unsupported"} and 0 < shown < total
    assert page.page.locator(".shown").inner_text() == f"{shown} of {total} shown"
    page.page.fill("input[data-filter=text]", "no such case anywhere")
    assert page.visible_rows(table) == [] and page.page.locator(".shown").inner_text() == f"0 of {total} shown"
    page.page.fill("input[data-filter=text]", "")
    page.page.select_option("select[data-filter=status]", "")
    assert len(page.visible_rows(table)) == total
    # the capability matrix's operator filter
    caps = opened(real_site / "index.html")
    caps.page.fill("input[data-filter=text]", "clamp")
    names = [r.locator("th").first.inner_text().strip() for r in caps.visible_rows("#cap-table")]
    assert names == ["clamp"]
    assert page.messages == [] and caps.messages == []


def test_filters_preset_from_the_address_hide_other_rows(opened, real_site):
    html = (real_site / "conformance.html").read_text()
    total = html.count('data-status="')
    unsupported = html.count('data-status="unsupported"')
    assert 0 < unsupported < total
    page = opened(real_site / "conformance.html", query="?status=unsupported")
    visible = [r.get_attribute("data-status") for r in page.visible_rows("#problem-table")]
    assert visible == ["unsupported"] * unsupported
    assert page.page.locator(".shown").inner_text() == f"{unsupported} of {total} shown"
    assert page.messages == []


def test_folded_metadata_opens(opened, real_site):
    """What was measured (performance) and what was fuzzed (findings) are folded below the answer, and open on a click."""
    for name, inside in (("performance.html", "th:text-is('Measured peaks')"), ("findings.html", "h3:text-is('Fuzz header')")):
        page = opened(real_site / name)
        fold = page.page.locator("details.meta").first
        assert not fold.locator(inside).is_visible()
        fold.locator("summary").click()
        assert fold.locator(inside).is_visible(), name
        assert page.messages == []


def test_console_check_catches_errors(opened, tmp_path):
    """The detector itself: a page that logs and throws is caught, and a wide one measured."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!doctype html><div style="width:2000px">x</div><script>console.error("boom"); null.x;</script>')
    page = opened(bad)
    assert any("boom" in m for m in page.messages) and any(m.startswith("uncaught:") for m in page.messages)
    assert page.width() > WINDOW["width"]


@pytest.fixture(scope="module")
def archive_site(real_site, tmp_path_factory) -> Path:
    """The real outputs above added to an archive, one version each, and its site built."""
    from webnn_harness.archive.store import Archive
    from webnn_harness.reports import build_archive_site

    root = real_site.parent
    out = tmp_path_factory.mktemp("archive")
    archive = Archive(out / "archive")
    archive.add([root / "run-reference", root / "run-onnxruntime", root / "probe", root / "bench", root / "fuzz"])
    build_archive_site(archive.path, out / "site")
    return out / "site"


def _archive_site_problems(opened, site: Path, one_version: bool) -> tuple[list[str], Opened]:
    """Every page of an archive site opened at 1,400 px: console messages, overflow, clipped tables and
    links to pages that are not there; with one version, no "changed since" legend and no chart."""
    import re

    pages = sorted(site.rglob("*.html"))
    page = opened(pages[0])
    problems = []
    for path in pages:
        page.messages.clear()
        page.page.goto(path.resolve().as_uri())
        clipped = page.page.evaluate("""Array.from(document.querySelectorAll('.scroll:not(.matrix-wrap)'))
            .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.firstElementChild.className)""")
        if page.messages or page.width() > WINDOW["width"] or clipped:
            problems.append(f"{path.relative_to(site)}: {page.width()} px, clipped {clipped}, {page.messages}")
        html = path.read_text()
        for href in re.findall(r'href="([^"#:?]+)[^"]*"', html):
            if not (path.parent / href).resolve().is_file():
                problems.append(f"{path.relative_to(site)}: a link to {href}, which is not there")
        if one_version and "changed since the previous version" in html:
            problems.append(f"{path.relative_to(site)}: 'changed since the previous version' with one version")
        if one_version and path.parent.name == "history" and "<svg" in html:
            problems.append(f"{path.relative_to(site)}: a chart of one point")
    return problems, page


def test_the_archive_site_is_whole_at_1400_px_with_one_version(opened, archive_site):
    """Issue 42: the Run column names the run, no table is clipped, every link leads to a page, no
    empty chart and no "changed since the previous version" on a site of one version."""
    import re

    problems, page = _archive_site_problems(opened, archive_site, one_version=True)
    assert problems == []
    runs = page.page
    runs.goto((archive_site / "conformance.html").resolve().as_uri())
    labels = runs.locator("table.summary td.run-label").all_inner_texts()
    assert labels and all(not re.fullmatch(r"[0-9a-f]{12,}.*", t) for t in labels), labels


@pytest.fixture(scope="module")
def releases_site(tmp_path_factory) -> Path:
    """An archive site of four browser releases (issue 39): $WEBNN_ARCHIVE_SITE when set (the site of
    real Chromium releases, README "Chromium across releases"), else the README recipe's on four
    stand-in releases (tests/releases_standin.py: a case newly passing and a declared entry gained at 149)."""
    if os.environ.get("WEBNN_ARCHIVE_SITE"):
        return Path(os.environ["WEBNN_ARCHIVE_SITE"])
    from webnn_harness.cli import main

    out = tmp_path_factory.mktemp("releases")
    cases = str(bundled_corpus())
    for v in ("143", "147", "149", "153"):
        for argv in (["run", "-q", "--backend", "releases_standin:create", "-o", f"version={v}", "--cases", cases,
                      "--op", "relu", "--op", "leakyRelu", "--workers", "1", "--out", str(out / v / "run")],
                     ["probe", "--quiet", "--backend", "releases_standin:create", "-o", f"version={v}", "--op", "relu",
                      "--op", "leakyRelu", "--no-layout", "--no-bytes", "--workers", "1", "--out", str(out / v / "probe")]):
            assert main(argv) in (0, 1), argv
    assert main(["archive", "add", str(out / "archive"), *(str(out / v) for v in ("143", "147", "149", "153"))]) == 0
    assert main(["report", "--archive", str(out / "archive"), "--out", str(out / "site")]) == 0
    return out / "site"


def test_an_archive_site_of_four_releases_is_whole_at_1400_px_and_leads_with_the_browser(opened, releases_site):
    problems, page = _archive_site_problems(opened, releases_site, one_version=False)
    assert problems == []
    page.page.goto((releases_site / "index.html").resolve().as_uri())
    lede = page.page.locator("section.lead, #lead").first
    assert lede.bounding_box() is not None and lede.bounding_box()["y"] < WINDOW["height"], "the browser's lead is not on the first screen"
    assert "153" in lede.inner_text()  # the newest release
    page.page.goto((releases_site / "changes.html").resolve().as_uri())
    assert page.page.locator("text=149").count() and page.page.locator("text=153").count()
