"""Fingerprints of the OpenVINO models the lowering builds, to show that a
change to how lowering constructs nodes gives the same graphs (issue 14:
``ov.op.Constant`` in place of ``opset.constant``).

    python benchmarks/probe_lowering_dump.py OUT.json [--wpt ../shared/wpt]

Every graph of the probe's first two sweeps (data types, ranks) and of both
corpora is lowered alone and serialised to OpenVINO IR (XML + weights); the
XML with node names' per-process counters removed and the weights' bytes are
hashed, one fingerprint per graph. Two dumps taken before and after a
change are compared with ``cmp`` or ``diff``. Prints the count and the time
spent lowering (CPU seconds).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import tempfile
import time
from pathlib import Path

import openvino as ov

from webnn_harness.backends.openvino.lower import lower_graph
from webnn_harness.loading.cases import Case, bundled_corpus, load_cases
from webnn_harness.spec.catalog import operators
from webnn_harness.probe.plan import plan
from webnn_harness.probe.synth import to_case

COUNTER = re.compile(rb'((?:name|names)="[^"]*?)_\d+(")')


def graphs(wpt: Path | None):
    combos, _ = plan(list(operators()), 8, sweeps=("types",))
    ranks, _ = plan(list(operators()), 8, sweeps=("ranks",))
    for i, combo in enumerate(combos + ranks):
        for role in (None, "constant") if combo.axis in ("dataType", "rank") and combo.op == "identity" else (None,):
            try:
                yield f"probe {combo.id} {role}", to_case(combo, i, role).graph
            except Exception:  # noqa: BLE001 - the probe does not build it either
                continue
    for item in load_cases([p for p in (wpt, bundled_corpus()) if p]):
        if isinstance(item, Case):
            yield f"{item.file} {item.name}", item.graph


def fingerprint(graph, folder: Path) -> tuple[str, float]:
    t0 = time.process_time()
    try:
        lowered = lower_graph(graph)
    except Exception as exc:  # noqa: BLE001 - the refusal is part of the fingerprint
        return f"refused: {type(exc).__name__}: {exc}"[:200], time.process_time() - t0
    seconds = time.process_time() - t0
    model = ov.Model(lowered.results, lowered.parameters, "g")
    ov.save_model(model, str(folder / "g.xml"), compress_to_fp16=False)
    xml = COUNTER.sub(rb"\1\2", (folder / "g.xml").read_bytes())
    weights = (folder / "g.bin").read_bytes() if (folder / "g.bin").exists() else b""
    (folder / "g.bin").unlink(missing_ok=True)
    return hashlib.sha256(xml + b"\0" + weights).hexdigest(), seconds


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--wpt", type=Path)
    args = p.parse_args()
    out, lowering = {}, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, graph in graphs(args.wpt):
            out[name], seconds = fingerprint(graph, Path(tmp))
            lowering += seconds
    args.out.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
    print(f"{len(out)} graphs, lowering {lowering:.2f} CPU-s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
