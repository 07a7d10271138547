"""Case corpora loaded once per test process: loading cases/ takes seconds,
and several test modules sample it."""
from __future__ import annotations

import time
from functools import lru_cache
from pathlib import Path

from webnn_harness.loading.cases import Case, load_cases


@lru_cache(maxsize=None)
def corpus_cases(path: Path) -> tuple[Case, ...]:
    """The loadable cases of one corpus folder, in the loader's order."""
    return tuple(c for c in load_cases([path], None, None) if isinstance(c, Case))


def judged_record(backend, case: Case, known):
    """``case`` built, computed and judged on ``backend`` exactly as
    ``webnn-harness run`` does, with ``known`` (an ExpectationSet) applied."""
    from webnn_harness.backends.base import Unsupported
    from webnn_harness.execution.worker import build_record, run_case

    info = backend.info().to_json()
    t0 = time.perf_counter()
    try:
        compiled = backend.build(case.graph)
    except Unsupported as exc:
        return known.apply(build_record(case, info, exc, time.perf_counter() - t0))
    return known.apply(run_case(backend, compiled, case, info, time.perf_counter() - t0))
