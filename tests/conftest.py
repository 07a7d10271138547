import os
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
