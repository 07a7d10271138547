"""A site from real runs (reference and onnxruntime) and a real probe, loaded in
headless Chromium: no console messages, the script ran, screenshots saved.

Chromium is Debian's ``chromium`` package: installed here with apt-get when
missing and this process is root; otherwise the tests skip, saying why.
Screenshots go to $WEBNN_REPORT_SCREENSHOTS if set, else to pytest's tmp dir
(the path is printed; run with -s to see it).
"""
from __future__ import annotations

import os
import re
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
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
)
# Chromium logs every console message (log, warning, error, uncaught exception) as
# `...:INFO:CONSOLE(...)] "text", source: URL (line)`; our pages log nothing, so any is a failure.
CONSOLE_LINE = re.compile(r":CONSOLE[^\]]*\]\s*(.*)")
OPS = ["relu", "clamp", "reduceL1", "batchNormalization", "conv2d", "abs"]


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


def load(chromium: str, page: Path, *mode: str, query: str = "") -> subprocess.CompletedProcess:
    """Open ``page`` from file:// in a fresh profile; ``mode`` is --dump-dom or --screenshot=..."""
    with tempfile.TemporaryDirectory(prefix="webnn-report-chromium-") as profile:
        return subprocess.run(
            [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1400,1000", *mode,
             page.resolve().as_uri() + query],
            capture_output=True, text=True, timeout=120,
        )


def console_messages(result: subprocess.CompletedProcess) -> list[str]:
    return [m.group(1) for line in result.stderr.splitlines() if (m := CONSOLE_LINE.search(line))]


@pytest.fixture(scope="module")
def real_site(tmp_path_factory) -> Path:
    """Real runs of the bundled cases for a few operators (onnxruntime has real failures,
    unsupported cases and known failures there) and a real onnxruntime probe."""
    pytest.importorskip("onnxruntime")
    from webnn_harness.probe.driver import probe

    root = tmp_path_factory.mktemp("report")
    opts = RunOptions(workers=2, timeout=60.0, batch_size=16)
    for name in ("reference", "onnxruntime"):
        run(RunRequest((bundled_corpus(),), (BackendRequest(name),), root / f"run-{name}",
                       selection=CaseFilter(ops=tuple(OPS)), options=opts))
    probe("onnxruntime", {}, root / "probe", ops=OPS, layout=False, byte_search=False,
          run=RunOptions(workers=2, timeout=20.0, batch_size=64))
    return build_site([root / "run-reference", root / "run-onnxruntime", root / "probe"], root / "site").parent


@pytest.fixture(scope="module")
def screenshot_dir(tmp_path_factory) -> Path:
    target = os.environ.get("WEBNN_REPORT_SCREENSHOTS")
    path = Path(target) if target else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_real_site_has_real_problems(real_site):
    html = (real_site / "conformance.html").read_text()
    assert "onnxruntime" in html and "reference" in html
    assert 'data-status="unsupported"' in html  # onnxruntime refuses some bundled cases
    assert len(list((real_site / "backends").glob("onnxruntime-*.html"))) == 1


@pytest.mark.parametrize("page", ["index.html", "conformance.html", "ops/clamp.html", "backends"])
def test_pages_load_without_console_messages(chromium, real_site, screenshot_dir, page):
    path = next((real_site / "backends").glob("*.html")) if page == "backends" else real_site / page
    shot = screenshot_dir / (path.stem + ".png")
    result = load(chromium, path, f"--screenshot={shot}")
    assert result.returncode == 0, result.stderr[-2000:]
    assert console_messages(result) == [], f"{page}: console messages"
    assert shot.is_file() and shot.stat().st_size > 10_000, "no screenshot"
    print(f"screenshot: {shot}")


def test_script_ran_and_filled_the_filter_counts(chromium, real_site):
    result = load(chromium, real_site / "conformance.html", "--dump-dom")
    assert console_messages(result) == []
    shown = re.search(r'<span class="shown"[^>]*>([^<]*)</span>', result.stdout)
    assert shown and re.fullmatch(r"(\d+) of \1 shown", shown.group(1)), "site.js did not run"


def test_console_check_catches_errors(chromium, tmp_path):
    """The detector itself: a page that logs and throws is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!doctype html><p>x</p><script>console.error("boom"); null.x;</script>')
    messages = console_messages(load(chromium, bad, "--dump-dom"))
    assert any("boom" in m for m in messages) and any("Uncaught" in m for m in messages)


def test_filters_preset_from_the_address_hide_other_rows(chromium, real_site):
    html = (real_site / "conformance.html").read_text()
    total = html.count('data-status="')
    unsupported = html.count('data-status="unsupported"')
    assert 0 < unsupported < total
    result = load(chromium, real_site / "conformance.html", "--dump-dom", query="?status=unsupported")
    assert console_messages(result) == []
    rows = [tag for tag in re.findall(r"<tr [^>]*>", result.stdout) if "data-status=" in tag]
    assert len(rows) == total
    visible = [re.search(r'data-status="(\w+)"', tag).group(1) for tag in rows if 'class="hidden"' not in tag]
    assert visible == ["unsupported"] * unsupported
    assert f"{unsupported} of {total} shown" in result.stdout
