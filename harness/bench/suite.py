"""Bench suites: data files shipped in the package (``suites/<name>.json``) or
given by path. A suite is

    {"suite": "seed", "description": "...",
     "benchmarks": [
        {"id": "seed-conv2d-add-relu", "kind": "scenario", "title": "...",
         "params": {"workload": "...", ...},
         "variants": ["host", "readback", "deviceTensor", "fused"],
         "graph": {<a case graph in the WPT case schema, inputs may be {"generate": ...}>},
         "published": {"fused": {"seconds": 0.0208, "source": "..."}}},
        {"id": "layout-...", "kind": "scenario", "variants": ["nchw", "nhwc"],
         "graphs": {"nchw": {<graph>}, "nhwc": {<graph>}}}]}

A benchmark has one ``graph`` that every variant runs in its own way (see
harness/bench/variants.py), or one graph per variant (``graphs``) each run
whole. A malformed benchmark is a SuiteError naming file, benchmark and field;
the others still load.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

KINDS = ("scenario", "op", "transfer", "peak")


@dataclass(frozen=True)
class Benchmark:
    id: str
    suite: str
    kind: str
    title: str
    variants: tuple[str, ...]
    graphs: Mapping[str, dict]  # variant -> raw case graph (the same dict for every variant of a one-graph benchmark)
    params: Mapping[str, Any] = field(default_factory=dict)
    op: str | None = None
    published: Mapping[str, dict] = field(default_factory=dict)
    source: Any = None  # bench --cases: the case file it is read from (harness/bench/case_benchmarks.py CaseSource)


@dataclass(frozen=True)
class SuiteError:
    file: str
    benchmark: str
    field: str
    message: str

    def __str__(self) -> str:
        where = f'"{self.benchmark}": ' if self.benchmark else ""
        return f"{self.file}: {where}{self.field}: {self.message}"


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    benchmarks: tuple[Benchmark, ...]
    errors: tuple[SuiteError, ...] = ()


def builtin_suites() -> list[str]:
    folder = resources.files("webnn_harness.bench").joinpath("suites")
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


def _benchmark(raw: Any, suite: str, file: str, index: int) -> Benchmark | SuiteError:
    if not isinstance(raw, dict):
        return SuiteError(file, "", f"benchmarks[{index}]", "must be an object")
    bench_id = raw.get("id")
    if not isinstance(bench_id, str) or not bench_id:
        return SuiteError(file, "", f"benchmarks[{index}].id", "a benchmark needs a non-empty string id")
    error = lambda fld, msg: SuiteError(file, bench_id, fld, msg)  # noqa: E731
    kind = raw.get("kind")
    if kind not in KINDS:
        return error("kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    variants = raw.get("variants")
    if not isinstance(variants, list) or not variants or not all(isinstance(v, str) for v in variants):
        return error("variants", "must be a non-empty list of variant names")
    if len(set(variants)) != len(variants):
        return error("variants", "has duplicates")
    if ("graph" in raw) == ("graphs" in raw):
        return error("graph", "give exactly one of 'graph' (shared by the variants) or 'graphs' (one per variant)")
    if "graph" in raw:
        if not isinstance(raw["graph"], dict):
            return error("graph", "must be a case graph object")
        graphs = {v: raw["graph"] for v in variants}
    else:
        per_variant = raw["graphs"]
        if not isinstance(per_variant, dict) or set(per_variant) != set(variants):
            return error("graphs", "must map every variant, and only those, to a case graph")
        graphs = {v: per_variant[v] for v in variants}
    published = raw.get("published") or {}
    unknown = sorted(set(published) - set(variants))
    if unknown:
        return error("published", f"names variants the benchmark does not have: {', '.join(unknown)}")
    return Benchmark(
        id=bench_id, suite=suite, kind=kind, title=str(raw.get("title", bench_id)), variants=tuple(variants),
        graphs=graphs, params=dict(raw.get("params") or {}), op=raw.get("op"), published=dict(published),
    )


def load_suite(name_or_path: str) -> Suite:
    """A built-in suite by name, or a suite file by path. Raises ValueError
    (one line) when the suite cannot be read at all."""
    path = Path(name_or_path)
    if path.suffix == ".json" or path.exists():
        if not path.is_file():
            raise ValueError(f"{name_or_path}: no such suite file")
        from webnn_harness.files.reading import read_json

        doc, file, default_name = read_json(path), str(path), path.stem  # a ReadError is a ValueError
    else:
        if name_or_path not in builtin_suites():
            raise ValueError(f"no built-in suite {name_or_path!r} (built in: {', '.join(builtin_suites())}; or give a .json file)")
        res = resources.files("webnn_harness.bench").joinpath("suites", f"{name_or_path}.json")
        doc, file, default_name = json.loads(res.read_text()), f"suites/{name_or_path}.json", name_or_path
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise ValueError(f"{file}: a suite is an object with a 'benchmarks' list")
    suite = doc.get("suite") if isinstance(doc.get("suite"), str) else default_name
    benchmarks, errors, seen = [], [], set()
    for index, raw in enumerate(doc["benchmarks"]):
        item = _benchmark(raw, suite, file, index)
        if isinstance(item, Benchmark) and item.id in seen:
            item = SuiteError(file, item.id, "id", "duplicate benchmark id in this suite")
        if isinstance(item, Benchmark):
            seen.add(item.id)
            benchmarks.append(item)
        else:
            errors.append(item)
    return Suite(suite, str(doc.get("description", "")), tuple(benchmarks), tuple(errors))
