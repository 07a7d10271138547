"""Differential fuzzing: valid graphs drawn by hypothesis (harness/fuzz/strategies.py)
run on a backend in the run's worker pool, judged exactly as ``run`` judges
(the worker computes, the reference gives the expected values, the judge
applies the tolerances and the implementation-defined masks), and every new
kind of failure shrunk by hypothesis to a minimal case file.

The search runs in rounds. A round is one hypothesis run whose test fails
on a failure whose root-cause key (harness/fuzz/findings.py) is not yet
found; hypothesis shrinks it (fewest calls, smallest shapes, simplest
values, the same key kept), the minimal graph is written under
``DIR/findings/`` and the next round looks for the next key. Failing
examples are kept in hypothesis's database under ``DIR/hypothesis`` so a
later run (``--overwrite``) replays them first (``KeptExamples``). A seeded
search (``--seed``) draws the same graphs every time; hypothesis then uses no
database (its ``@seed`` turns it off: a replay would change the graphs), so
only an unseeded run writes and replays ``DIR/hypothesis``. A crash or hang
of the backend is a record of the worker pool, so a finding, not the end of
the fuzzer.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from hypothesis import HealthCheck, Phase, given, seed as hseed, settings
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from webnn_harness.outputs.writing import Mode, OwnedFolder
from webnn_harness.files.writes import no_links_below, write_atomic
from webnn_harness import backends
from webnn_harness.verdict.expectations import ExpectationSet
from webnn_harness.fuzz.evidence import check_against_probe, load_probe_evidence, probe_known, probe_source
from webnn_harness.fuzz.findings import (FINDING_STATUSES, Finding, Tally, agreeing_expectations, finding_counts, finding_id,
                                         finding_value_kinds, group_key, related_expectations, same_root_cause,
                                         worst_of, write_finding)
from webnn_harness.fuzz.precision import classify_cause
from webnn_harness.probe.deviations import present_classes
from webnn_harness.fuzz.strategies import FuzzGraph, fuzzable_ops, graphs
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.records import run_header
from webnn_harness.execution.pool import RunOptions, WorkerPool

EXAMPLES_PER_ROUND = 200


@dataclass(frozen=True)
class FuzzSettings:
    backend: str
    options: Mapping[str, str] = field(default_factory=dict)
    ops: tuple[str, ...] = ()  # empty: every op with create steps
    seconds: float = 60.0
    seed: int | None = None  # None: hypothesis's own randomness, and the example database
    max_ops: int = 2
    timeout: float = 30.0  # per graph, as run's --timeout
    # A failure found near the end may shrink this long past the budget; then
    # the smallest failing graph so far stands. Default: half the budget, at least 30 s.
    shrink_seconds: float | None = None
    # Shrinking one finding stops after this long and the smallest failing
    # graph so far stands, so one slow shrink cannot eat the search's time.
    # Hypothesis has no public setting for it (its 300 s MAX_SHRINKING_SECONDS
    # is internal by choice: HypothesisWorks/hypothesis#3400), so the test
    # body stops the round. Default: 5% of the budget, at least 10 s.
    shrink_cap: float | None = None
    probe: str | None = None  # probe folder or <backend>-probe.json: findings are checked against it

    @property
    def shrink_budget(self) -> float:
        return self.shrink_seconds if self.shrink_seconds is not None else max(30.0, self.seconds / 2)

    @property
    def shrink_cap_seconds(self) -> float:
        return self.shrink_cap if self.shrink_cap is not None else max(10.0, self.seconds / 20)

    def to_json(self) -> dict:
        return {"backend": self.backend, "options": dict(self.options), "ops": list(self.ops), "seconds": self.seconds,
                "seed": self.seed, "maxOps": self.max_ops, "timeout": self.timeout,
                "shrinkSeconds": self.shrink_budget, "shrinkCapSeconds": self.shrink_cap_seconds,
                "probe": Path(self.probe).name if self.probe else None}


class KeptExamples(ExampleDatabase):
    """A fuzz folder's example database that forgets nothing. Hypothesis
    deletes a saved example that no longer fails when it is replayed, and a
    root cause already found is no failure to a later round (the test body
    returns on a known key), so the plain database ended a run holding none
    of its findings' examples. Deletes (and the delete half of a move) are
    ignored: a later run replays every failing example saved here."""

    def __init__(self, path: Path):
        super().__init__()
        self._db = DirectoryBasedExampleDatabase(str(path))

    def save(self, key: bytes, value: bytes) -> None:
        self._db.save(key, value)

    def fetch(self, key: bytes):
        return self._db.fetch(key)

    def delete(self, key: bytes, value: bytes) -> None:
        pass

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self._db.save(dest, value)


def _seeded(config: FuzzSettings, rounds: int):
    """Hypothesis's ``@seed`` for a seeded search (each round its own seed), else nothing."""
    return (lambda test: test) if config.seed is None else hseed(config.seed * 1_000_003 + rounds)


@dataclass
class FuzzResult:
    findings: list[Finding]
    tally: Tally
    seconds: float
    rounds: int
    summary_path: Path

    @property
    def new_deviations(self) -> list[Finding]:
        """What a CI fails on: findings that are not known and are the
        backend's (a precision effect is what the spec's formula gives in
        the operand's type, e.g. an intermediate overflowing float32)."""
        return [f for f in self.findings if not f.known and f.cause != "precision"]


class _BudgetSpent(BaseException):
    """Raised inside the hypothesis test when the time is up. A BaseException,
    so hypothesis ends the round at once instead of shrinking it as a failure."""


class _Failure(Exception):
    """Raised inside the hypothesis test: this example shows a new root cause."""

    def __init__(self, key: str, record: Record, graph: FuzzGraph):
        super().__init__(key)
        self.key, self.record, self.graph = key, record, graph


def _output_type(record: Record, graph: FuzzGraph) -> str:
    descs = graph.case.graph.descs
    name = record.output if record.output in descs else graph.case.graph.outputs[0]
    return descs[name].data_type


# What a fuzz writes in its folder; ``--overwrite`` replaces them and keeps the example database (hypothesis/),
# which the next run replays.
FUZZ_FILES = ("summary.json", "findings", "findings-details")
DATABASE = "hypothesis"


def fuzz(config: FuzzSettings, out: Path, on_finding: Callable[[Finding], None] | None = None,
         mode: Mode = "new") -> FuzzResult:
    """Fuzz ``config.backend`` for ``config.seconds`` (plus shrinking of the last
    finding, bounded by ``config.shrink_budget``) and write findings and ``out/summary.json``
    into ``out``, owned for the fuzz (harness/outputs/writing.py)."""
    ops = fuzzable_ops(config.ops)
    backend = backends.create(config.backend, config.options)
    info = backend.info().to_json()
    del backend
    known = backends.known_failures(config.backend, info["version"], config.options)
    evidence = load_probe_evidence(Path(config.probe), info["name"]) if config.probe else None
    no_links_below(Path(out), Path(out) / DATABASE)  # Hypothesis writes a folder per key there: none leads out
    with OwnedFolder(Path(out), mode, kind="fuzz", files=FUZZ_FILES):
        return _fuzz(config, Path(out), on_finding, ops, info, known, evidence)


def _fuzz(config: FuzzSettings, out: Path, on_finding: Callable[[Finding], None] | None, ops, info: Mapping,
          known: ExpectationSet, evidence: Mapping | None) -> FuzzResult:
    database = KeptExamples(out / DATABASE)
    pool = WorkerPool(config.backend, config.options, RunOptions(workers=1, timeout=config.timeout, batch_size=1), info)
    tally = Tally()
    found: dict[str, Finding] = {}
    hits: dict[str, int] = {}
    started = time.monotonic()
    deadline = started + config.seconds
    rounds = 0

    def execute(graph: FuzzGraph) -> Record:
        records: list[Record] = []
        pool.run_cases([graph.case], records.append)
        return records[0]

    try:
        while time.monotonic() < deadline:
            state = {"shrinking": False, "shrink_graphs": 0, "stopped_by": None}

            @_seeded(config, rounds)
            @settings(max_examples=EXAMPLES_PER_ROUND, deadline=None, database=database,
                      suppress_health_check=list(HealthCheck), report_multiple_bugs=False, print_blob=False,
                      phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink))
            @given(graphs(ops, config.max_ops))
            def attempt(graph: FuzzGraph) -> None:
                now = time.monotonic()
                if now > deadline + (config.shrink_budget if state["shrinking"] else 0):
                    state["stopped_by"] = "budget"
                    raise _BudgetSpent  # the smallest failure so far (state["last"]) stands
                if state["shrinking"] and now > state["shrink_started"] + config.shrink_cap_seconds:
                    state["stopped_by"] = "cap"
                    raise _BudgetSpent
                record = execute(graph)
                tally.add(record, state["shrinking"])
                state["shrink_graphs"] += state["shrinking"]
                if record.status not in FINDING_STATUSES:
                    return
                key = group_key(record, _output_type(record, graph))
                key = next((k for k in found if same_root_cause(key, k)), key)
                if not state["shrinking"]:
                    hits[key] = hits.get(key, 0) + 1
                if key in found:
                    return
                if state["shrinking"] and key != state["key"] and not same_root_cause(state["key"], key):
                    return  # shrinking keeps the root cause it started from (or the same one on fewer ops)
                if not state["shrinking"]:
                    state["shrink_started"] = time.monotonic()
                state["shrinking"], state["key"] = True, key
                state["last"] = _Failure(key, record, graph)
                raise state["last"]

            rounds += 1
            try:
                attempt()
                continue
            except _Failure as raised:
                failure = raised
            except _BudgetSpent:
                failure = state.get("last")
                if failure is None:
                    break
            if failure is not None:
                shrink = {"shrink_seconds": round(time.monotonic() - state["shrink_started"], 3),
                          "shrink_graphs": state["shrink_graphs"], "shrink_stopped_by": state["stopped_by"]}
                finding = _finding(failure, config, known, hits.get(failure.key, 1), evidence, shrink)
                found[failure.key] = finding
                write_finding(out, finding, failure.graph)
                if on_finding:
                    on_finding(finding)
    finally:
        pool.close()
        seconds = time.monotonic() - started
        for key, finding in found.items():
            found[key] = _with_hits(finding, hits.get(key, 1))
        summary = write_fuzz_summary(out, info, config, tally, list(found.values()), seconds, rounds,
                                     complete=time.monotonic() >= deadline,
                                     probe=probe_source(evidence, Path(config.probe)) if evidence else None)
    return FuzzResult(list(found.values()), tally, seconds, rounds, summary)


def _with_hits(finding: Finding, count: int) -> Finding:
    from dataclasses import replace

    return replace(finding, hits=count)


def _finding(failure: _Failure, config: FuzzSettings, known: ExpectationSet, count: int,
             evidence: Mapping | None, shrink: Mapping) -> Finding:
    record, graph = failure.record, failure.graph
    worst = worst_of(record)
    related = related_expectations(record.ops, record.data_types, known.entries)
    kinds = finding_value_kinds(worst, failure.key.split(" | ")[2], present_classes(graph.case))
    agreeing, others = agreeing_expectations(related, kinds, record.message, record.data_types)
    verdicts = check_against_probe(evidence, graph.case) if evidence else []
    cause, cause_note = classify_cause(graph.case, record.status, worst)
    return Finding(
        key=failure.key, id=finding_id(failure.key), status=record.status, ops=tuple(record.ops),
        data_types=tuple(record.data_types), value_kind=failure.key.split(" | ")[3], message=record.message,
        worst=worst, required=record.required, seed=config.seed,
        elements=sum(int(v.size) for v in graph.case.inputs.values()), nodes=len(graph.case.graph.nodes),
        known=tuple(dict.fromkeys(agreeing + probe_known(verdicts))), related=tuple(others), hits=count,
        cause=cause, cause_note=cause_note, probe=tuple(verdicts), **shrink,
    )


def write_fuzz_summary(out: Path, info: Mapping, config: FuzzSettings, tally: Tally, findings: Sequence[Finding],
                       seconds: float, rounds: int, complete: bool, probe: Mapping | None = None) -> Path:
    path = out / "summary.json"
    written = [f.to_json() for f in findings]
    doc = {
        **run_header(info),
        "kind": "fuzz",
        "complete": complete,
        "settings": config.to_json(),
        "seconds": round(seconds, 3),
        "rounds": rounds,
        "graphs": tally.graphs,
        "shrinkingGraphs": tally.shrinking,
        "shrinkingSeconds": round(sum(f.shrink_seconds for f in findings), 3),
        "shrinksCapped": sum(1 for f in findings if f.shrink_stopped_by == "cap"),
        "probe": probe,
        "statuses": tally.statuses,
        "triedByOp": tally.generated,
        "findings": written,
        **finding_counts(written),
    }
    return write_atomic(path, json.dumps(doc, indent=1) + "\n")


__all__ = ["FuzzResult", "FuzzSettings", "Finding", "fuzz"]
