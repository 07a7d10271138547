"""What Chromium inserts for a layout it does not prefer: each layout
benchmark of the seed suite (nchw, nhwc, nhwcTransposed) built once in the
chromium backend's page with Chromium's own ``--webnn-tflite-dump-model``
switch (services/webnn/webnn_switches.h), and the operators of each LiteRT
model Chromium wrote counted. Chromium on LiteRT computes convolutions and
pools in nhwc, so an nchw graph's model carries TRANSPOSE operators the graph
never had; the bench's nchw - nhwc difference (performance page, "Layout")
is their cost.

    python benchmarks/chromium_layout_dump.py [--filter REGEX]
"""
from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections import Counter
from pathlib import Path

from webnn_harness.backends.chromium import create
from webnn_harness.backends.chromium.browser import FLAGS, Browser
from webnn_harness.bench.suite import load_suite
from webnn_harness.loading.cases import load_case


def model_ops(path: Path) -> Counter:
    """The builtin operators of a LiteRT flatbuffer, counted."""
    from ai_edge_litert import schema_py_generated as schema

    model = schema.Model.GetRootAsModel(path.read_bytes(), 0)
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    codes = [max(model.OperatorCodes(i).BuiltinCode(), model.OperatorCodes(i).DeprecatedBuiltinCode())
             for i in range(model.OperatorCodesLength())]
    subgraph = model.Subgraphs(0)
    return Counter(names.get(codes[subgraph.Operators(i).OpcodeIndex()], "?") for i in range(subgraph.OperatorsLength()))


def _written(folder: Path, before: set[Path], seconds: float = 10.0) -> list[Path]:
    """The models dumped since ``before``: Chromium writes them from a
    best-effort background task, so wait until one is there and complete."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        new = sorted(set(folder.iterdir()) - before)
        if new:
            time.sleep(0.5)  # the write of the last one to finish
            return sorted(set(folder.iterdir()) - before)
        time.sleep(0.1)
    return []


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--filter", default="^layout-", help="benchmark ids (default: the layout workloads)")
    args = p.parse_args()
    backend = create({})
    with tempfile.TemporaryDirectory() as dump:
        backend.browser = Browser(backend.target.executable, (*FLAGS, f"--webnn-tflite-dump-model={dump}"))
        print(f"Chromium {backend.version}, models dumped by --webnn-tflite-dump-model")
        for bench in load_suite("seed").benchmarks:
            if not re.search(args.filter, bench.id):
                continue
            for variant in bench.variants:
                case = load_case({"name": bench.id, "graph": bench.graphs[variant]}, bench.id, 0)
                before = set(Path(dump).iterdir())
                backend.compute(backend.build(case.graph), case.inputs)
                written = _written(Path(dump), before)
                ops = sum((model_ops(path) for path in written), Counter())
                graph_ops = ", ".join(case.graph.ops)
                print(f"{bench.id} {variant}: graph {graph_ops} -> LiteRT "
                      + (", ".join(f"{op} x{n}" for op, n in sorted(ops.items())) or "no model dumped"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
