"""The floors under issue 14's targets: what a run of both corpora costs in
CPU time before any of the harness's own work, on this machine.

    python benchmarks/floors.py [--wpt ../shared/wpt --wpt ../shared/wpt-extra] [--backend NAME ...]

A run's wall time on 2 busy cores is at least its CPU time / 2, so a target
of T seconds is a budget of 2T CPU-s. Each line below is measured here, in
one process, by calling the library underneath directly (no harness
workers, no pipes, no records):

- a Python interpreter with numpy, started afresh (a run starts at least
  two: the command and the fork server its workers are forked from);
- parsing the corpora's JSON (json.loads of every file);
- each backend's own calls for the graphs the harness builds, batched as
  the run batches them: ``InferenceSession`` creation and ``run`` for ONNX
  Runtime, ``compile_model`` and ``infer`` for OpenVINO; the lowering that
  produces those graphs is ours and is left out;
- the float64 reference of every case (judging needs it for the masks of
  implementation-defined elements and for the expected values a case
  leaves out);
- first touch of fresh memory: the probe's byte search fills and computes
  on 1 GiB tensors in a fresh process; on a virtual machine the host backs
  guest pages at first touch, and that costs CPU time in the guest.

The sums say how much of each budget is left for everything else: case
loading beyond JSON, lowering, judging, records and the processes.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_speed import TARGETS, header  # noqa: E402


class Clock:
    """CPU seconds (this process and its threads) spent inside ``timed`` blocks, per name."""

    def __init__(self):
        self.spent: dict[str, float] = {}

    @contextmanager
    def timed(self, name: str):
        t0 = time.process_time()
        try:
            yield
        finally:
            self.spent[name] = self.spent.get(name, 0.0) + time.process_time() - t0


def child_cpu(code: str) -> float:
    """CPU-s of a fresh ``python -c code`` (median of 3)."""
    times = []
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return sorted(times)[1]


FIRST_TOUCH = """
import numpy as np
x = np.empty(1 << 28, np.float32); x[...] = 1.5  # 1 GiB, first touch
"""


def corpora(wpt: list[Path]):
    from webnn_harness.loading.cases import bundled_corpus, iter_cases

    roots = [root for root in (*wpt, bundled_corpus()) if root.is_dir()]
    files = [p for root in roots for p in sorted(root.rglob("*.json"))]
    return roots, files, [c for c in iter_cases(roots) if hasattr(c, "graph")]


def onnxruntime_floor(cases, clock: Clock) -> None:
    import onnxruntime as ort

    from webnn_harness import backends
    from webnn_harness.backends.base import preferred_batch_size

    backend = backends.create("onnxruntime", {})
    size = preferred_batch_size(backend.info().to_json())
    # An untimed pass first: the kernel table's one-node sessions (which opset
    # has a kernel) are the harness's choice of work, not the graphs' floor.
    # This backend keeps no sessions, so the timed pass builds every one again.
    for i in range(0, len(cases), size):
        backend.build_batch([c.graph for c in cases[i:i + size]])
    real_session, real_run = ort.InferenceSession.__init__, ort.InferenceSession.run

    def session(self, *args, **kwargs):
        with clock.timed("onnxruntime: InferenceSession()"):
            real_session(self, *args, **kwargs)

    def run(self, *args, **kwargs):
        with clock.timed("onnxruntime: run()"):
            return real_run(self, *args, **kwargs)

    ort.InferenceSession.__init__, ort.InferenceSession.run = session, run
    try:
        for i in range(0, len(cases), size):
            batch = cases[i:i + size]
            built = backend.build_batch([c.graph for c in batch])
            backend.compute_batch(built, [c.inputs for c in batch])
    finally:
        ort.InferenceSession.__init__, ort.InferenceSession.run = real_session, real_run


class _TimedCore:
    def __init__(self, core, clock: Clock):
        self._core, self._clock = core, clock

    def compile_model(self, *args, **kwargs):
        with self._clock.timed("openvino: compile_model()"):
            return self._core.compile_model(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._core, name)


def openvino_floor(cases, clock: Clock) -> None:
    from webnn_harness import backends
    from webnn_harness.backends.base import preferred_batch_size

    backend = backends.create("openvino", {})
    backend.core = _TimedCore(backend.core, clock)
    size = preferred_batch_size(backend.info().to_json())
    for i in range(0, len(cases), size):
        batch = cases[i:i + size]
        built = backend.build_batch([c.graph for c in batch])
        with clock.timed("openvino: compute (infer)"):
            backend.compute_batch(built, [c.inputs for c in batch])


def main() -> int:
    here = Path(__file__).resolve().parents[1]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--wpt", action="append", metavar="DIR",
                   help="a WPT corpus folder (repeatable; default: ../shared/wpt and ../shared/wpt-extra)")
    p.add_argument("--backend", action="append", choices=("onnxruntime", "openvino"),
                   help="default: both")
    args = p.parse_args()
    print(header())  # the harness, machine, and each backend's version, device and threads
    clock = Clock()
    interpreter = child_cpu("import numpy")
    first_touch = child_cpu(FIRST_TOUCH) - interpreter
    wpt = [Path(w) for w in args.wpt or (here.parent / "shared" / "wpt", here.parent / "shared" / "wpt-extra")]
    roots, files, cases = corpora(wpt)
    print(f"corpora: {', '.join(r.name for r in roots)}: {len(cases)} cases in {len(files)} files")
    with clock.timed("json.loads of every case file"):
        for path in files:
            json.loads(path.read_bytes())
    from webnn_harness.backends.reference.evaluate import evaluate

    with clock.timed("reference: evaluate every case"):
        for case in cases:
            try:
                evaluate(case.graph, case.inputs)
            except Exception:  # noqa: BLE001 - a case the reference cannot run costs what it cost
                pass
    for name in args.backend or ("onnxruntime", "openvino"):
        try:
            (onnxruntime_floor if name == "onnxruntime" else openvino_floor)(cases, clock)
        except ImportError as exc:
            print(f"{name}: not available ({exc})")
    print()
    print(f"{'what':44} {'CPU-s':>7}")
    print(f"{'a fresh interpreter with numpy (each)':44} {interpreter:7.2f}")
    print(f"{'first touch of 1 GiB in a fresh process':44} {first_touch:7.2f}")
    for name, seconds in clock.spent.items():
        print(f"{name:44} {seconds:7.2f}")
    common = 2 * interpreter + clock.spent["json.loads of every case file"] + clock.spent["reference: evaluate every case"]
    print()
    print("floor = 2 interpreters + JSON + reference + the backend's own calls; budget = target x 2 cores")
    for backend, backend_calls in (
            ("onnxruntime", ("onnxruntime: InferenceSession()", "onnxruntime: run()")),
            ("openvino", ("openvino: compile_model()", "openvino: compute (infer)"))):
        if not all(k in clock.spent for k in backend_calls):
            continue
        floor = common + sum(clock.spent[k] for k in backend_calls)
        budget = 2 * TARGETS[("run", backend)]
        print(f"{'run ' + backend:20} floor {floor:6.2f} CPU-s, budget {budget:5.1f}: "
              f"{budget - floor:+6.2f} CPU-s left for the harness's own work")
    return 0


if __name__ == "__main__":
    sys.exit(main())
