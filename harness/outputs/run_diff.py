"""Two runs compared case by case, per backend: what regressed, what was
fixed, what is new and what is gone. Cases are matched by stable id, so the
runs may come from different machines, checkouts and installs.

- regression: passed in BASE and not in NEW, or a case new in NEW that fails,
  errors, crashes or times out (expectations do not excuse it: a known
  failure that passed before is still a step back);
- fix: did not pass in BASE, passes in NEW;
- changed: did not pass in either, with another status (fail -> crash);
- new / removed: in one run only.

A backend whose settings (its ``-o`` options and what they imply) differ between the runs is said
so above its changes: they may come from the settings, not from the backend. So is a change of
machine (issue #47): its CPU, ISA class and features, or a setting in force that changes kernels
(``ONEDNN_MAX_CPU_ISA``): a version's change is told from a machine's.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Mapping

from webnn_harness.cpu import machine_changes
from webnn_harness.verdict.record import BAD_STATUSES, Record
from webnn_harness.outputs.run_folder import RunFolder, read_run_folder
from webnn_harness.outputs.text import printable

CHANGE_KINDS = ("regressions", "fixes", "changed", "new", "removed")


@dataclass(frozen=True)
class CaseChange:
    id: str
    base: str | None  # status in BASE, None when absent
    new: str | None  # status in NEW, None when absent
    known_failure: str | None = None  # NEW's expectation reason, if one names it
    message: str = ""  # NEW's message (or BASE's for a removed case); none for a pass


@dataclass(frozen=True)
class BackendDiff:
    backend: str
    base_version: str | None
    new_version: str | None
    regressions: tuple[CaseChange, ...]
    fixes: tuple[CaseChange, ...]
    changed: tuple[CaseChange, ...]
    new: tuple[CaseChange, ...]
    removed: tuple[CaseChange, ...]
    unchanged: int
    settings_changed: tuple[str, ...] = ()  # "key: base -> new" for each setting that differs

    def to_json(self) -> dict:
        return {"backend": self.backend, "baseVersion": self.base_version, "newVersion": self.new_version,
                "settingsChanged": list(self.settings_changed),
                "counts": {**{k: len(getattr(self, k)) for k in CHANGE_KINDS}, "unchanged": self.unchanged},
                **{k: [asdict(c) for c in getattr(self, k)] for k in CHANGE_KINDS}}


@dataclass(frozen=True)
class RunDiff:
    base: str  # the runs' labels
    new: str
    backends: tuple[BackendDiff, ...]
    machine_changed: tuple[str, ...] = ()  # "what: base -> new" for each machine fact that differs

    @property
    def regressions(self) -> int:
        return sum(len(b.regressions) for b in self.backends)

    @property
    def exit_code(self) -> int:
        return 1 if self.regressions else 0

    def to_json(self) -> dict:
        return {"base": self.base, "new": self.new, "regressions": self.regressions,
                "machineChanged": list(self.machine_changed), "backends": [b.to_json() for b in self.backends]}


def _by_backend(run: RunFolder) -> dict[str, tuple[Mapping, dict[str, Record]]]:
    out: dict[str, tuple[Mapping, dict[str, Record]]] = {}
    for r in run.records:
        info, cases = out.setdefault(str(r.backend.get("name", "?")), (r.backend, {}))
        cases[r.id] = r
    return out


def diff_backend(name: str, base: Mapping[str, Record], new: Mapping[str, Record],
                 base_info: Mapping | None, new_info: Mapping | None) -> BackendDiff:
    kinds: dict[str, list[CaseChange]] = {k: [] for k in CHANGE_KINDS}
    unchanged = 0
    for cid in sorted(base.keys() | new.keys()):
        b, n = base.get(cid), new.get(cid)
        shown = n or b  # a pass has nothing to say (its "detail" is the error within budget)
        change = CaseChange(cid, b.status if b else None, n.status if n else None,
                            n.known_failure if n else None, shown.detail[:160] if shown.status != "pass" else "")
        if b is None:
            kinds["regressions" if n.status in BAD_STATUSES else "new"].append(change)
        elif n is None:
            kinds["removed"].append(change)
        elif b.status == "pass" and n.status != "pass":
            kinds["regressions"].append(change)
        elif b.status != "pass" and n.status == "pass":
            kinds["fixes"].append(change)
        elif b.status != n.status:
            kinds["changed"].append(change)
        else:
            unchanged += 1
    return BackendDiff(name, base_info.get("version") if base_info else None,
                       new_info.get("version") if new_info else None,
                       **{k: tuple(v) for k, v in kinds.items()}, unchanged=unchanged,
                       settings_changed=settings_changes(base_info, new_info))


def settings_changes(base_info: Mapping | None, new_info: Mapping | None) -> tuple[str, ...]:
    """``key: base -> new`` for each backend setting that differs between two runs that both have
    the backend (its options, as its info() reports them: crash_abs false -> true)."""
    if not base_info or not new_info:
        return ()
    base, new = base_info.get("settings") or {}, new_info.get("settings") or {}
    return tuple(f"{k}: {_setting(base, k)} -> {_setting(new, k)}"
                 for k in sorted({*base, *new}, key=str) if base.get(k, _ABSENT) != new.get(k, _ABSENT))


_ABSENT = object()


def _setting(settings: Mapping, key) -> str:
    return json.dumps(settings[key], default=str) if key in settings else "(not set)"


def _name(run: RunFolder) -> str:
    """The folder's name, and the run's label where that says more (no local path: this goes into PR comments)."""
    return run.path.name if run.label == run.path.name else f"{run.path.name} ({run.label})"


def diff_runs(base_dir: str | Path, new_dir: str | Path, on_problem: Callable[[str], object] | None = None) -> RunDiff:
    """``on_problem``: told of each line of either results.jsonl that was skipped (harness/files/reading.py)."""
    base, new = read_run_folder(base_dir, on_problem=on_problem), read_run_folder(new_dir, on_problem=on_problem)
    b, n = _by_backend(base), _by_backend(new)
    names = list(dict.fromkeys([*b, *n]))
    return RunDiff(_name(base), _name(new), tuple(
        diff_backend(name, b.get(name, ({}, {}))[1], n.get(name, ({}, {}))[1],
                     b[name][0] if name in b else None, n[name][0] if name in n else None)
        for name in names), machine_changes(base.summary.get("machine"), new.summary.get("machine")))


# --------------------------------------------------------------------------- output

SHOWN = 50  # of each kind but regressions, which are always listed in full
SETTINGS_DIFFER = "the runs' backend settings differ, so changes may come from them"
MACHINE_DIFFERS = "the runs' machines differ, so changes may come from the machine, not the versions"


def _versions(d: BackendDiff) -> str:
    if d.base_version == d.new_version:
        return str(d.new_version)
    return f"{d.base_version or '(absent)'} -> {d.new_version or '(absent)'}"


def _counts(d: BackendDiff) -> str:
    return (f"{len(d.regressions)} regressions, {len(d.fixes)} fixes, {len(d.changed)} changed, "
            f"{len(d.new)} new, {len(d.removed)} removed, {d.unchanged} unchanged")


def _status(s: str | None) -> str:
    return s or "absent"


def format_text(diff: RunDiff) -> str:
    lines = [f"diff {diff.base} -> {diff.new}"]
    if diff.machine_changed:
        lines.append(f"{MACHINE_DIFFERS}: {'; '.join(diff.machine_changed)}")
    for d in diff.backends:
        lines.append(f"{d.backend} {_versions(d)}: {_counts(d)}")
        if d.settings_changed:
            lines.append(f"  {SETTINGS_DIFFER}: {'; '.join(d.settings_changed)}")
        for kind, word in (("regressions", "REGRESSION"), ("fixes", "fixed"), ("changed", "changed"),
                           ("new", "new"), ("removed", "removed")):
            items = getattr(d, kind)
            shown = items if kind == "regressions" else items[:SHOWN]
            for c in shown:
                known = f" [expected: {c.known_failure}]" if c.known_failure else ""
                msg = f" - {c.message}" if c.message else ""
                lines.append(f"  {word:10} {c.id}: {_status(c.base)} -> {_status(c.new)}{known}{msg}")
            if len(items) > len(shown):
                lines.append(f"  ... and {len(items) - len(shown)} more {kind}")
    lines.append(f"{diff.regressions} regression{'s' if diff.regressions != 1 else ''}")
    return "\n".join(printable(line) for line in lines) + "\n"  # a case name's newline forges no line


def _md(text: str) -> str:
    return printable(text).replace("\\", "\\\\").replace("|", "\\|").replace("`", "'").replace("<", "&lt;")


def format_markdown(diff: RunDiff) -> str:
    """A pull-request comment: a table of counts, regressions listed, the rest folded."""
    verdict = (f"**{diff.regressions} regression{'s' if diff.regressions != 1 else ''}**"
               if diff.regressions else "No regressions")
    lines = [f"### webnn-harness: {_md(diff.new)} against {_md(diff.base)}", "", verdict, "",
             "| Backend | Version | Regressions | Fixes | Changed | New | Removed | Unchanged |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    if diff.machine_changed:
        lines[3:3] = [f"**{MACHINE_DIFFERS}**: {_md('; '.join(diff.machine_changed))}", ""]
    for d in diff.backends:
        lines.append(f"| {_md(d.backend)} | {_md(_versions(d))} | {len(d.regressions)} | {len(d.fixes)} | "
                     f"{len(d.changed)} | {len(d.new)} | {len(d.removed)} | {d.unchanged} |")
    for d in diff.backends:
        if d.settings_changed:
            lines += ["", f"{_md(d.backend)}: **{SETTINGS_DIFFER}**: {_md('; '.join(d.settings_changed))}"]
    for d in diff.backends:
        for kind in CHANGE_KINDS:
            items = getattr(d, kind)
            if not items:
                continue
            shown = items if kind == "regressions" else items[:SHOWN]
            title = f"{d.backend}: {len(items)} {kind}"
            rows = ["| Case | Base | New | Detail |", "|---|---|---|---|"]
            for c in shown:
                detail = f"expected: {c.known_failure}" if c.known_failure else c.message
                rows.append(f"| `{_md(c.id)}` | {_status(c.base)} | {_status(c.new)} | {_md(detail)} |")
            if len(items) > len(shown):
                rows.append(f"| … and {len(items) - len(shown)} more | | | |")
            if kind == "regressions":
                lines += ["", f"#### {_md(title)}", "", *rows]
            else:
                lines += ["", f"<details><summary>{_md(title)}</summary>", "", *rows, "", "</details>"]
    return "\n".join(lines) + "\n"


def format_json(diff: RunDiff) -> str:
    return json.dumps(diff.to_json(), indent=1) + "\n"


FORMATS = {"text": format_text, "json": format_json, "markdown": format_markdown}
