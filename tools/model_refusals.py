"""Which models each backend refused, naming op and operand, and whether opSupportLimits predicted it.

    python tools/model_refusals.py RUN_DIR --cases DIR [--declared BACKEND=FILE]... [--probed BACKEND=FILE]...

RUN_DIR is a ``webnn-harness run`` folder over ``--cases DIR`` (an ``import-onnx`` folder). The
chromium backend's declared table defaults to the shipped one (harness/probe/declared_tables,
chromium-ort-opSupportLimits.json: what Chromium's ONNX Runtime backend declares); a probed table
is what ``webnn-harness probe`` wrote (<backend>-opSupportLimits.json). One line per refusal, and
per model a table flagged that ran anyway (harness/probe/model_refusals.py).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _pairs(values: list[str], flag: str) -> dict[str, Path]:
    out = {}
    for v in values:
        backend, sep, path = v.partition("=")
        if not sep:
            sys.exit(f"{flag} {v!r}: expected BACKEND=FILE")
        out[backend] = Path(path)
    return out


def main(argv: list[str] | None = None) -> int:
    from webnn_harness.loading.cases import Case, load_cases
    from webnn_harness.probe.declared import shipped_declared_tables
    from webnn_harness.probe.model_refusals import read_records, read_table, refusal_checks

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir", type=Path)
    p.add_argument("--cases", type=Path, required=True)
    p.add_argument("--declared", action="append", default=[], metavar="BACKEND=FILE")
    p.add_argument("--probed", action="append", default=[], metavar="BACKEND=FILE")
    args = p.parse_args(argv)
    declared = {"chromium": shipped_declared_tables().get("chromium-ort"), **_pairs(args.declared, "--declared")}
    tables: dict[str, dict] = {}
    for kind, given in (("declared", declared), ("probed", _pairs(args.probed, "--probed"))):
        for backend, path in given.items():
            if path is not None:
                tables.setdefault(backend, {})[kind] = read_table(Path(path))
    graphs = {c.id: c.graph for c in load_cases([args.cases]) if isinstance(c, Case)}
    records = read_records(args.run_dir)
    if not records or not graphs:
        print("nothing to check: no records or no cases", file=sys.stderr)
        return 2
    for check in refusal_checks(records, graphs, tables):
        print(check.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
