import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Tests probe ONNX Runtime's kernels afresh, never from (or into) the user's
# ~/.cache/webnn-harness; worker processes the tests start inherit this.
os.environ["WEBNN_HARNESS_NO_CACHE"] = "1"


def wpt_dir() -> Path | None:
    """The WPT corpus: $WEBNN_WPT, else shared/wpt beside the checkout (a fresh
    clone in CI) or beside a folder above it (a worktree under work/wt/)."""
    for candidate in (os.environ.get("WEBNN_WPT"), *(p / "shared" / "wpt" for p in REPO.parents)):
        if candidate and Path(candidate, "INDEX.json").exists():
            return Path(candidate)
    return None


@pytest.fixture
def wpt():
    path = wpt_dir()
    if path is None:
        pytest.skip("WPT corpus not found: set WEBNN_WPT or place shared/wpt beside the checkout")
    return path


# ------------------------------------------------- no process outlives the suite
# Every process the suite starts inherits a marker; when the session ends, a
# marked process whose parent is not marked was orphaned (a worker or a
# multiprocessing resource tracker left behind by a killed parent): fail.


def pytest_configure(config):
    import uuid

    from processes import MARKER

    os.environ.setdefault(MARKER, uuid.uuid4().hex)  # xdist workers inherit the controller's


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    import sys

    from processes import MARKER, orphans

    if hasattr(session.config, "workerinput") or not sys.platform.startswith("linux"):
        return  # the controller checks, once every worker has finished
    left = orphans(os.environ[MARKER])
    if left:
        lines = "\n".join(f"  {pid}: {cmd[:200]}" for pid, cmd in sorted(left.items()))
        print(f"\nprocesses started by the test session outlived it:\n{lines}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True, scope="module")
def _chromium_playwright_stopped_after_each_module():
    """A module that drives the chromium backend in this process (its Playwright driver runs in the
    test thread) stops it when done, so a later module of the same worker (tests/test_reports_browser.py)
    can start Playwright's sync API itself: a thread runs one at a time."""
    yield
    browser = sys.modules.get("webnn_harness.backends.chromium.browser")
    if browser is not None:
        browser.stop_playwright()
