"""``bench --cases DIR``: every case of case folders timed as one graph.

A case folder (WPT's multi-op graphs, the bundled corpus, the models
``import-onnx`` writes) becomes a bench suite: one benchmark per case, named
by the case's stable id (corpus + path + name, harness/loading/caseid.py), so
the models page (reports/models.py) joins its figures with the run records of
the same cases. Each benchmark has the whole-graph variant ``graph`` and goes
the bench's one way (harness/bench/driver.py, worker.py: verified against the
reference with the case's own tolerances, then build, first dispatch and the
calibrated steady state).

The parent reads each file's JSON only to list its cases and count their
operators; the worker loads the case itself from its file
(``load_benchmark_case``), values, weights and tolerances included, so a
model's weights are never pickled from process to process.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from webnn_harness.bench.channels_last import allows_nhwc, nhwc_case
from webnn_harness.bench.suite import Benchmark, Suite, SuiteError
from webnn_harness.loading.caseid import corpus_of
from webnn_harness.loading.cases import Case, CaseError, PendingCase, find_case_files, read_file

KIND = "case"  # the bench record's kind for a case benchmark (suite benchmarks: op, scenario, transfer, peak)
WHOLE_GRAPH = "graph"  # the variant: the case's graph as one backend graph, as the case gives it
NHWC = "nhwc"  # the variant: the same graph rewritten channels-last (harness/bench/channels_last.py), where it has nchw image ops


@dataclass(frozen=True)
class CaseSource:
    """Where a case benchmark's worker reads its case: the file on this
    machine (never published: records carry the stable ``file`` id only), its
    stable file id and the case's index in it."""

    path: str
    file: str
    index: int
    name: str


def operator_counts(raw: Any) -> dict[str, int] | None:
    """How many times the raw case's graph calls each operator (catalog
    spelling); None when its JSON does not list them cleanly (loading says why)."""
    from webnn_harness.spec.catalog import operator

    try:
        return dict(sorted(Counter(operator(op["name"]).name for op in raw["graph"]["operators"]).items()))
    except (KeyError, TypeError, AttributeError):
        return None


def _raw_cases(path: Path, file: str, max_case_bytes: int | None) -> tuple[list[tuple[PendingCase, Any]], list[CaseError]]:
    """The file's pending cases with their raw JSON (for the operator counts), and its errors."""
    from webnn_harness.loading.cases import read_case_json
    from webnn_harness.loading.casesize import default_max_case_bytes

    pending, errors = [], []
    entries = list(read_file(path, True, file, max_case_bytes))
    raw_doc = read_case_json(path, file, max_case_bytes or default_max_case_bytes()) if entries else None
    tests = raw_doc[0] if isinstance(raw_doc, tuple) else None
    tests = tests.get("tests") if isinstance(tests, dict) else tests
    for entry in entries:
        if isinstance(entry, CaseError):
            errors.append(entry)
            continue
        raw = tests[entry.index] if isinstance(tests, list) and entry.index < len(tests) else None
        pending.append((entry, raw))
    return pending, errors


# What a bench record keeps of an imported model's description (the case's "model", written by
# import-onnx: /work/notes/model-case-format.md): the models page marks these cases as models.
MODEL_FACTS = ("file", "opset", "nodes", "sha256")


def case_benchmark(entry: PendingCase, raw: Any, local_path: str, corpus: str) -> Benchmark:
    counts = operator_counts(raw) or {}
    nodes = sum(counts.values())
    params = {"file": entry.file, "case": entry.name, "operators": counts, "nodes": nodes,
              "workload": f"{nodes} op{'s' if nodes != 1 else ''}"}
    model = raw.get("model") if isinstance(raw, dict) else None
    if isinstance(model, dict):
        params["model"] = {k: model[k] for k in MODEL_FACTS if isinstance(model.get(k), (str, int))}
    variants = (WHOLE_GRAPH, NHWC) if allows_nhwc(raw) else (WHOLE_GRAPH,)
    return Benchmark(
        id=entry.id, suite=corpus, kind=KIND, title=entry.name or entry.file, variants=variants,
        graphs={v: {} for v in variants},  # the worker loads the case from ``source``
        params=params,
        source=CaseSource(local_path, entry.file, entry.index, entry.name),
    )


def case_suite(paths: Iterable[str | Path], max_case_bytes: int | None = None) -> Suite:
    """Every case under ``paths`` as a benchmark; a file or case that cannot
    be read is a SuiteError naming it (the others still run). Raises
    ValueError (DuplicateCaseId) for two corpora with one id."""
    benchmarks, errors = [], []
    corpora = []
    for found in find_case_files(paths):
        corpus = corpus_of(found.id)
        if not found.path.exists():
            errors.append(SuiteError(found.id, "", "", "no such file or folder"))
            continue
        corpora.append(corpus)
        pending, bad = _raw_cases(found.path, found.id, max_case_bytes)
        errors.extend(SuiteError(e.file, e.name, e.field, e.message) for e in bad)
        benchmarks.extend(case_benchmark(entry, raw, str(found.path), corpus) for entry, raw in pending)
    name = "cases:" + ",".join(dict.fromkeys(c for c in corpora if c)) if corpora else "cases"
    return Suite(name, "case graphs timed whole (bench --cases)", tuple(benchmarks), tuple(errors))


def load_benchmark_case(benchmark: Benchmark, variant: str, file: str) -> Case | CaseError:
    """The case a benchmark's variant verifies and times: a suite's graph
    loaded as a case (``file`` names it in messages), or a case benchmark's
    case read from its file, its tolerances and weights as ``run`` loads them."""
    from webnn_harness.loading.cases import load_case, loaded

    source = benchmark.source
    if source is None:
        return load_case({"name": benchmark.id, "graph": benchmark.graphs[variant]}, file, 0)
    for entry in read_file(Path(source.path), True, source.file):
        if entry.index == source.index:
            case = loaded(entry)
            return nhwc_case(case, _raw_case(source)) if variant == NHWC and isinstance(case, Case) else case
    return CaseError(source.file, source.name, source.index, "", "the case is no longer in its file")


def _raw_case(source: CaseSource) -> Any:
    """The case's JSON as its file holds it (the nhwc rewrite works on its operators)."""
    from webnn_harness.loading.cases import read_case_json
    from webnn_harness.loading.casesize import default_max_case_bytes

    read = read_case_json(Path(source.path), source.file, default_max_case_bytes())
    if isinstance(read, CaseError):
        raise ValueError(str(read))
    doc = read[0]["tests"] if isinstance(read[0], dict) else read[0]
    return doc[source.index]
