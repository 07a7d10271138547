"""Every non-pass of a run accounted for (issue #40): each record that did not
pass falls in exactly one category, and a record in none is ``unaccounted``.

- ``case``: the case disagrees with the spec our tables follow (an older rule,
  or an expected value the spec's algorithm does not give): a WPT case note
  (harness/spec/data/wpt_case_notes.json) explains it, for every backend.
- ``backend``: a deviation of the backend, listed in its known-failures file
  with the evidence and the version range it was seen in. A listed entry
  missing either is ``unaccounted``: a reason alone is a claim, not a trace.
- ``refused``: the backend said it lacks what the graph needs (``unsupported``),
  in its own words: a capability, not a wrong answer. One with no message is
  ``unaccounted``.
- ``unaccounted``: a failure nothing explains: a backend bug to list, or a
  harness defect to fix.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from webnn_harness.loading.caseid import corpus_of
from webnn_harness.verdict.expectations import CASE_NOTE, Expectation, bundled_expectations, case_notes
from webnn_harness.verdict.record import Record

CATEGORIES = ("case", "backend", "refused", "unaccounted")
TALLIED = ("pass", "fail", "unsupported", "error", "crash", "timeout")


@dataclass(frozen=True)
class Accounted:
    """One non-pass and what explains it."""

    id: str
    status: str
    category: str
    reason: str  # the entry's reason, the refusal's message, or what is missing


@dataclass(frozen=True)
class BackendAccount:
    """One backend's run: its statuses per corpus, and every non-pass accounted for."""

    backend: str
    version: str
    statuses: Mapping[str, Mapping[str, int]]  # corpus -> status -> count
    items: tuple[Accounted, ...]

    def by_category(self) -> dict[str, int]:
        counts = Counter(i.category for i in self.items)
        return {c: counts[c] for c in CATEGORIES}

    @property
    def unaccounted(self) -> tuple[Accounted, ...]:
        return tuple(i for i in self.items if i.category == "unaccounted")


def _entry_of(record: Record, entries: Sequence[Expectation]) -> Expectation | None:
    """The shipped entry that marked the record known (a record keeps only its reason, which entries share)."""
    return next((e for e in entries if e.reason == record.known_failure and e.matches(record.file, record.case)), None)


def account_record(record: Record, entries: Sequence[Expectation]) -> Accounted | None:
    """The category of one record (None for a pass or a skipped case)."""
    if record.status in ("pass", "skipped"):
        return None
    why = record.known_failure
    if why:
        if why.startswith(CASE_NOTE):
            return Accounted(record.id, record.status, "case", why)
        entry = _entry_of(record, entries)
        if entry is None:
            return Accounted(record.id, record.status, "unaccounted", f"known, by an entry not shipped with the backend: {why}")
        missing = [k for k in ("evidence", "versions") if not getattr(entry, k)]
        if missing:
            return Accounted(record.id, record.status, "unaccounted",
                             f"known, but its entry has no {' or '.join(missing)}: {entry.describe()}")
        return Accounted(record.id, record.status, "backend", why)
    if record.status == "unsupported":
        if record.message:
            return Accounted(record.id, record.status, "refused", record.message)
        return Accounted(record.id, record.status, "unaccounted", "refused without saying why")
    return Accounted(record.id, record.status, "unaccounted", record.detail[:300] or record.status)


def account(records: Iterable[Record], backend: str, version: str) -> BackendAccount:
    """One backend's records accounted for against its shipped known failures and WPT's case notes."""
    entries = (*bundled_expectations(backend), *case_notes())
    statuses: dict[str, Counter] = defaultdict(Counter)
    items = []
    for r in records:
        statuses[corpus_of(r.id)][r.status] += 1
        if (item := account_record(r, entries)) is not None:
            items.append(item)
    return BackendAccount(backend, version, {c: dict(s) for c, s in sorted(statuses.items())}, tuple(items))


def markdown(accounts: Sequence[BackendAccount]) -> str:
    """The accounting as a closing note shows it: counts per backend and corpus, then categories and reasons."""
    lines = ["| backend | corpus | " + " | ".join(TALLIED) + " |", "|---|---|" + "---|" * len(TALLIED)]
    for a in accounts:
        for corpus, counts in a.statuses.items():
            lines.append(f"| {a.backend} {a.version} | {corpus} | " + " | ".join(str(counts.get(s, 0)) for s in TALLIED) + " |")
    lines += ["", "| backend | " + " | ".join(CATEGORIES) + " |", "|---|" + "---|" * len(CATEGORIES)]
    for a in accounts:
        lines.append(f"| {a.backend} | " + " | ".join(str(n) for n in a.by_category().values()) + " |")
    for a in accounts:
        lines += ["", f"### {a.backend} {a.version}"]
        grouped: dict[tuple[str, str], list[Accounted]] = defaultdict(list)
        for item in a.items:
            grouped[(item.category, item.reason)].append(item)
        for (category, reason), items in sorted(grouped.items(), key=lambda kv: (CATEGORIES.index(kv[0][0]), -len(kv[1]))):
            statuses = ", ".join(f"{n} {s}" for s, n in Counter(i.status for i in items).items())
            lines.append(f"- **{category}** ({statuses}): {reason[:400]}")
            lines += [f"  - `{i.id}`" for i in items[:3]]
            if len(items) > 3:
                lines.append(f"  - and {len(items) - 3} more")
    return "\n".join(lines) + "\n"
