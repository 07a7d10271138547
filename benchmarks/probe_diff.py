"""Did a speed lever change what the probe measured? Compares two probe
output folders (``webnn-harness probe --out``) of one backend, ignoring only
what is timing by nature (issue 14: "the capability JSON and evidence must be
identical before/after, except timing fields").

    python benchmarks/probe_diff.py BEFORE_DIR AFTER_DIR [--backend NAME]

Ignored: the date, every ``seconds`` field, the layout timing's samples
(``preferredInputLayout``'s timings, ratio and verdict: a measurement of the
moment, reported apart when its preferred layout differs) and the order in
which combinations completed (worker scheduling). Everything else — every
combination's outcome, message, error, example, deviation, the limits, the
byte search's attempts — must be equal. Exit 0 when equal, 1 when not
(each difference printed as a path), 2 for a usage mistake.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

TIMING_KEYS = {"seconds", "combinationSeconds", "date"}
# preferredInputLayout: the timed measurement itself; its method and shapes are compared.
LAYOUT_TIMING_KEYS = {"preferred", "verdict", "significant", "basis", "ratio", "timings"}
# Lists whose order is the order records arrived from the workers.
ARRIVAL_ORDERED = {"combinations", "acceptedButWrong"}


def _strip(value, path: str = ""):
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in TIMING_KEYS:
                continue
            if path.endswith("preferredInputLayout") and k in LAYOUT_TIMING_KEYS:
                continue
            out[k] = _strip(v, f"{path}/{k}")
        return out
    if isinstance(value, list):
        items = [_strip(v, f"{path}[]") for v in value]
        if path.rsplit("/", 1)[-1] in ARRIVAL_ORDERED or path.endswith("wrongFindings[]/combinations"):
            items.sort(key=lambda x: json.dumps(x, sort_keys=True))
        return items
    return value


def differences(a, b, path: str = "") -> list[str]:
    if type(a) is not type(b):
        return [f"{path}: {a!r:.120} != {b!r:.120}"]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}/{k}: only in {'after' if k in b else 'before'}")
            else:
                out += differences(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)} items"] + [
                f"{path}: first differing item {x!r:.300} != {y!r:.300}" for x, y in zip(a, b) if x != y][:3]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r:.200} != {b!r:.200}"]


def load(folder: Path, name: str) -> dict:
    files = {
        "probe.json": folder / f"{name}-probe.json",
        "opSupportLimits.json": folder / f"{name}-opSupportLimits.json",
        "header.json": folder / f"{name}-opSupportLimits.header.json",
    }
    out = {k: json.loads(p.read_text()) for k, p in files.items()}
    lines = (folder / f"{name}-probe.jsonl").read_text().splitlines()
    out["probe.jsonl"] = {"combinations": [json.loads(line) for line in lines]}
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("before", type=Path)
    p.add_argument("after", type=Path)
    p.add_argument("--backend", help="the probe files' name prefix (default: the one *-probe.json in BEFORE)")
    args = p.parse_args()
    name = args.backend
    if name is None:
        found = sorted(args.before.glob("*-probe.json"))
        if len(found) != 1:
            print(f"probe_diff: expected one *-probe.json in {args.before}, found {len(found)}: pass --backend", file=sys.stderr)
            return 2
        name = found[0].name[: -len("-probe.json")]
    try:
        before, after = load(args.before, name), load(args.after, name)
    except (OSError, ValueError) as exc:
        print(f"probe_diff: {exc}", file=sys.stderr)
        return 2
    layouts = [x.pop("preferredInputLayout", None) for x in (before["opSupportLimits.json"], after["opSupportLimits.json"])]
    found = []
    for part in before:
        found += differences(_strip(before[part]), _strip(after[part]), part)
    combos = len(before["probe.json"]["combinations"])
    for d in found:
        print(d)
    timing_note = "" if layouts[0] == layouts[1] else f"; preferredInputLayout (timed) {layouts[0]} -> {layouts[1]}"
    print(f"{name}: {combos} combinations, {len(found)} differences beyond timing{timing_note}")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
