"""What runs inside a worker process: build a batch of cases on one backend,
compute each, judge it, and send a record back per case.

The parent (harness/execution/pool.py) is told which case is in progress before it
starts, so a crash or hang can be pinned on exactly that case.
"""
from __future__ import annotations

import os
import time
import traceback
from dataclasses import replace
from typing import Any, Mapping

import numpy as np

from webnn_harness import backends

from webnn_harness.verdict import reference_cache as refcache
from webnn_harness.backends.base import BuildFailure, Unsupported, build_batch, build_settings, compute_batch
from webnn_harness.loading.cases import Case
from webnn_harness.verdict.judge import judge
from webnn_harness.verdict.wpt import wpt_judge
from webnn_harness.execution.forkserver import take_environment
from webnn_harness.execution.lifecycle import die_with_parent
from webnn_harness.verdict.record import Record, base_record


def _reference_outputs(case: Case):
    return refcache.current().outputs_for(case)


def expected_outputs(case: Case) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray | None], str]:
    """Expected values (the case's literal ones, else the reference's) and the
    masks of implementation-defined elements. The third item is a problem note."""
    try:
        ref = _reference_outputs(case)
    except Exception as exc:  # noqa: BLE001
        missing = [n for n in case.graph.outputs if n not in case.expected]
        if missing:
            raise RuntimeError(f"reference cannot compute expected {', '.join(missing)}: {type(exc).__name__}: {exc}") from exc
        return dict(case.expected), {}, f"reference failed, implementation-defined elements unknown: {exc}"
    expected = {n: case.expected.get(n, ref[n].values) for n in case.graph.outputs}
    masks = {n: ref[n].undefined for n in case.graph.outputs}
    return expected, masks, ""


def _computed(outputs):
    if isinstance(outputs, BaseException):
        raise outputs
    return outputs


def run_case(backend, compiled, case: Case, info: Mapping[str, Any], build_seconds: float,
             computed=None, computed_seconds: float = 0.0) -> Record:
    """``computed``: the outputs (or exception) of a batch compute, if any."""
    record = _compute_and_judge(backend, compiled, case, info, build_seconds, computed, computed_seconds)
    settings = build_settings(backend, compiled)
    return replace(record, build_settings=settings) if settings else record


def _compute_and_judge(backend, compiled, case: Case, info: Mapping[str, Any], build_seconds: float,
                       computed, computed_seconds: float) -> Record:
    t0 = time.perf_counter()
    try:
        actual = backend.compute(compiled, case.inputs) if computed is None else _computed(computed)
    except (Unsupported, BuildFailure) as exc:
        # A backend that builds in the same call as it computes (chromium: one page call per batch)
        # says at compute what the build said: a refusal, or its failure to build a valid graph.
        return build_record(case, info, exc, build_seconds)
    except Exception as exc:  # noqa: BLE001 - a backend failing at compute is a fail, with its message
        return base_record(case, info, "fail", message=f"compute raised {type(exc).__name__}: {exc}"[:2000],
                           build_seconds=build_seconds)
    compute_seconds = time.perf_counter() - t0 if computed is None else computed_seconds
    try:
        expected, masks, note = expected_outputs(case)
    except Exception as exc:  # noqa: BLE001
        return base_record(case, info, "error", message=str(exc)[:2000], build_seconds=build_seconds,
                           compute_seconds=compute_seconds)
    status, cmp, output = judge(case, actual, expected, masks)
    wpt = wpt_judge(case, actual, expected, masks)
    wpt_verdict = wpt.to_json() if wpt.status != status else None  # both verdicts kept where they differ
    if cmp is None:
        msg = f"backend returned no output {output!r}" if output else ""
        return base_record(case, info, status, message=msg, build_seconds=build_seconds, compute_seconds=compute_seconds,
                           wpt_verdict=wpt_verdict)
    message = cmp.message or note
    if cmp.uncompared:
        message = (message + "; " if message else "") + f"{cmp.uncompared} implementation-defined element(s) not compared"
    record = base_record(
        case, info, status,
        metric=cmp.metric, budget=cmp.budget, max_error=cmp.max_error, slack=cmp.slack, carried=cmp.carried, output=output,
        worst_index=cmp.worst_index, expected_value=cmp.expected_value, actual_value=cmp.actual_value,
        uncompared=cmp.uncompared, message=message, build_seconds=build_seconds, compute_seconds=compute_seconds,
        wpt_verdict=wpt_verdict,
    )
    if case.dot_product is not None:  # an accuracy case: TOSA's dot-product check beside the WPT verdict
        record = replace(record, compliance=case.dot_product.verdict(case, actual))
    return record


def build_record(case: Case, info, exc: BaseException, seconds: float) -> Record:
    if isinstance(exc, Unsupported):
        return base_record(case, info, "unsupported", message=str(exc)[:2000], build_seconds=seconds)
    if isinstance(exc, BuildFailure):  # a spec-valid graph the backend fails to build: its bug, not a refusal
        return base_record(case, info, "error", message=f"build failed: {exc}"[:2000], build_seconds=seconds,
                           build_settings=exc.settings or None)
    tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
    return base_record(case, info, "error", message=f"build raised {tb}"[:2000], build_seconds=seconds)


def open_backend(conn, backend_name: str, options: Mapping[str, str], forked_by_server: bool = False):
    """Create a worker's backend and tell the parent: ("ready", info), or
    ("fatal", message) and None. Shared by the run and bench workers."""
    die_with_parent(forked_by_server)  # first: a worker must never outlive its parent (harness/execution/lifecycle.py)
    try:
        backend = backends.create(backend_name, options)
        info = backend.info().to_json()
    except Exception as exc:  # noqa: BLE001
        conn.send(("fatal", f"{type(exc).__name__}: {exc}"))
        return None
    conn.send(("ready", info))
    return backend, info


def worker_main(conn, backend_name: str, options: Mapping[str, str], reference_cache: bool = True,
                environ: Mapping[str, str] | None = None) -> None:
    """Entry point of a worker process. Protocol in harness/execution/pool.py.

    ``environ``: the run's environment, given to a worker forked from the
    fork server (whose own environment is the one it started with).

    With ``WEBNN_HARNESS_PROFILE=DIR`` set, the worker's cProfile statistics
    are written to ``DIR/worker-PID.prof`` when it stops
    (benchmarks/harness_speed.py --profile)."""
    forked_by_server = take_environment(environ)
    folder = os.environ.get("WEBNN_HARNESS_PROFILE")
    if not folder:
        return _serve(conn, backend_name, options, reference_cache, forked_by_server)
    import cProfile

    profiler = cProfile.Profile(time.process_time)  # CPU seconds: wall time on a shared machine says little
    profiler.enable()
    try:
        return _serve(conn, backend_name, options, reference_cache, forked_by_server)
    finally:
        profiler.disable()
        profiler.dump_stats(os.path.join(folder, f"worker-{os.getpid()}.prof"))


def _serve(conn, backend_name: str, options: Mapping[str, str], reference_cache: bool, forked_by_server: bool) -> None:
    refcache.configure(reference_cache)
    opened = open_backend(conn, backend_name, options, forked_by_server)
    if opened is None:
        return
    backend, info = opened
    while True:
        msg = conn.recv()
        if msg[0] == "stop":
            return
        _, batch_id, cases = msg
        for event in batch_events(backend, info, batch_id, cases):
            conn.send(event)


def batch_events(backend, info: Mapping[str, Any], batch_id, cases):
    """Build and compute a batch of cases together, then judge them one by
    one, yielding the worker protocol's messages (harness/execution/pool.py):
    ("building", id), ("start", 0), per case ("record", i, Record), then
    ("done", id). A record also says that case i + 1 starts: nothing runs
    between the two, and a second message per case cost the worker and the
    run's process about 0.3 CPU-s each per run of both corpora. The executor
    on the other side (the local pool or Ray) pins a crash or hang on the
    last case started."""
    yield ("building", batch_id)
    t0 = time.perf_counter()
    built = build_batch(backend, [c.graph for c in cases])
    t1 = time.perf_counter()
    computed = compute_batch(backend, built, [c.inputs for c in cases])
    per_case_build = (t1 - t0) / max(1, len(cases))
    per_case_compute = (time.perf_counter() - t1) / max(1, sum(c is not None for c in computed))
    for i, case in enumerate(cases):
        # Each compiled graph let go once judged: a session's threads live no longer than its case.
        compiled, built[i], output = built[i], None, computed[i]
        computed[i] = None
        if i == 0:
            yield ("start", 0)
        try:
            if isinstance(compiled, BaseException):
                record = build_record(case, info, compiled, per_case_build)
            else:
                record = run_case(backend, compiled, case, info, per_case_build, output, per_case_compute)
        except Exception as exc:  # noqa: BLE001 - a harness bug is an error record, not a crash
            where = traceback.extract_tb(exc.__traceback__)[-1]
            record = base_record(case, info, "error", message=f"harness error: {type(exc).__name__}: {exc} "
                                 f"({where.filename}:{where.lineno})"[:2000])
        del compiled, output
        yield ("record", i, record)
    yield ("done", batch_id)
