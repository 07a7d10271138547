"""Check ``run --judge wpt`` (harness/verdict/wpt.py) against WPT's own
utils.js, case for case: run a backend on WPT-shaped case files in this
process, judge each case's outputs with ``wpt_judge`` and, under node, with
utils.js itself (tools/wpt_rule_check.js), and list where they differ.

    .venv/bin/python tools/wpt_rule_check.py --backend reference --utils /work/wpt-src/webnn/resources/utils.js \\
        --cases ../shared/wpt --cases ../shared/wpt-extra

Where a WPT file has its own tolerance function (utils.js does not hold those)
both sides are given the same one: the case file's ``fileTolerance``, else the
op's budget in our tables (``wpt._file_function``); everything else — the sum
of getPrecisionTolerance, the ULP and ATOL comparisons, toHalf, the handling
of NaN, signed zeros, integers and filled scalars — is utils.js's own code.
Cases the backend refuses or fails to build are left out (WPT never judges
them either). Prints the counts and every disagreement; exit 1 on any.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from webnn_harness.spec.values import encode_number

HERE = Path(__file__).resolve().parent


def actual_for_utils(values: np.ndarray, data_type: str) -> dict:
    """An output as utils.js reads it from MLContext.readTensor (see the .js's header)."""
    flat = np.asarray(values).reshape(-1)
    if data_type == "float16":
        data = [int(b) for b in flat.astype(np.float16).view(np.uint16)]
    elif data_type == "float32":
        data = [encode_number(v) for v in flat.astype(np.float32)]
    elif data_type in ("int64", "uint64"):
        data = [str(int(v)) for v in flat]
    elif data_type in ("int4", "uint4"):
        nibbles = [int(v) & 0xF for v in flat] + [0]
        data = [nibbles[i] | (nibbles[i + 1] << 4) for i in range(0, len(flat), 2)]
    else:
        data = [int(v) for v in flat]
    return {"dataType": data_type, "data": data}


def _as_read(values: np.ndarray, expected: dict) -> np.ndarray:
    """An output whose expected data is one number filling it: utils.js
    reads its first 1000 elements only (kMaximumIndexToValidate), and so
    node is given those alone (36 million floats make no JSON line)."""
    if isinstance(expected.get("data"), (int, float)) and np.asarray(values).size > 1:
        return np.asarray(values).reshape(-1)[:1000]
    return values


def items(backend_name: str, paths: list[str]):
    """(case id, our WPT verdict, the line for node) for every case the backend computes."""
    from webnn_harness import backends
    from webnn_harness.backends.base import Unsupported
    from webnn_harness.execution.worker import expected_outputs
    from webnn_harness.loading.cases import Case, load_cases
    from webnn_harness.verdict.wpt import _file_function, wpt_judge

    backend = backends.create(backend_name, {})
    raw_files: dict[str, dict] = {}
    for case in load_cases(paths):
        if not isinstance(case, Case):
            continue
        raw = raw_files.setdefault(case.path, json.loads(Path(case.path).read_text()))
        graph = raw["tests"][case.index]["graph"]
        try:
            actual = backend.compute(backend.build(case.graph), case.inputs)
            expected, masks, _ = expected_outputs(case)
        except Unsupported:
            continue
        except Exception:  # noqa: BLE001 - a failed build or compute is no verdict of either rule
            continue
        ours = wpt_judge(case, actual, expected, masks)
        first = case.graph.descs[case.graph.outputs[0]].data_type
        own = _file_function(case, first)
        line = {
            "id": case.id, "graph": graph,
            "actual": {n: actual_for_utils(_as_read(actual[n], graph["expectedOutputs"][n]), case.graph.descs[n].data_type)
                       for n in case.graph.outputs if n in actual and n in graph.get("expectedOutputs", {})},
            "fileFunction": {"metricType": own[0], "value": own[1]} if own else None,
            "intermediateOperands": {name: {"shape": list(desc.shape)} for name, desc in case.graph.descs.items()},
        }
        yield case.id, ours, line


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", required=True)
    parser.add_argument("--cases", action="append", required=True)
    parser.add_argument("--utils", required=True, help="WPT's webnn/resources/utils.js")
    parser.add_argument("--node", default="node")
    parser.add_argument("--save", metavar="FILE", help="also keep the cases given to node in FILE (a new file)")
    args = parser.parse_args(argv)
    if args.save and os.path.lexists(args.save):
        parser.error(f"--save {args.save}: exists (choose a new file)")
    ours = {}
    with tempfile.TemporaryFile("w+") as out:  # nothing left in the folder it ran from
        for case_id, verdict, line in items(args.backend, args.cases):
            ours[case_id] = verdict
            out.write(json.dumps(line) + "\n")
        out.seek(0)
        if args.save:
            with open(args.save, "x") as kept:  # never over a file of the user's
                shutil.copyfileobj(out, kept)
            out.seek(0)
        done = subprocess.run([args.node, str(HERE / "wpt_rule_check.js"), args.utils], stdin=out,
                              capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"node failed: {done.stderr[-2000:]}")
    theirs = {v["id"]: v for v in map(json.loads, done.stdout.splitlines())}
    differ = [(i, ours[i], theirs.get(i)) for i in ours if theirs.get(i, {}).get("status") != ours[i].status]
    passed = sum(v.status == "pass" for v in ours.values())
    print(f"{args.backend}: {len(ours)} cases judged, {passed} pass by --judge wpt, "
          f"{sum(v['status'] == 'pass' for v in theirs.values())} pass by utils.js; {len(differ)} differ")
    for case_id, mine, utils in differ:
        print(f"  {case_id}: --judge wpt {mine.status} ({mine.metric} {mine.max_error} / {mine.budget}); "
              f"utils.js {utils and utils['status']} {utils and utils['message'][:200]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
