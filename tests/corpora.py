"""Case corpora loaded once per test process: loading cases/ takes seconds,
and several test modules sample it."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from webnn_harness.cases import Case, load_cases


@lru_cache(maxsize=None)
def corpus_cases(path: Path) -> tuple[Case, ...]:
    """The loadable cases of one corpus folder, in the loader's order."""
    return tuple(c for c in load_cases([path], None, None) if isinstance(c, Case))
