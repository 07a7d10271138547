"""A merged ORT session refused for one graph's types: the graphs ONNX's
strict type check rejects are built alone at once, and every graph's result
(handle or ORT's own error) is what a session of its own gives."""
from __future__ import annotations

from batchcheck import assert_batch_equals_alone
import pytest

pytest.importorskip("onnxruntime")

from webnn_harness import backends  # noqa: E402
from webnn_harness.backends.base import build_batch, compute_batch  # noqa: E402
from webnn_harness.probe.synth import to_case  # noqa: E402

import webnn_harness.probe.plan as plan  # noqa: E402


def _cases():
    """conv2d at its float32 baseline and at integer types beyond the spec
    (ONNX's Conv has no integer form: ORT answers INVALID_GRAPH), interleaved."""
    combos, _ = plan.combos_for("conv2d", 4, sweeps=("types",))
    wanted = ("conv2d/baseline=", "conv2d/input.dataType=int32", "conv2d/input.dataType=float16",
              "conv2d/input.dataType=int8", "conv2d/option=strides=2", "conv2d/input.dataType=uint8")
    picked = [c for w in wanted for c in combos if c.id == w]
    assert len(picked) == len(wanted)
    return [to_case(c, i) for i, c in enumerate(picked)]


def test_refused_types_leave_the_rest_merged_with_results_of_their_own(monkeypatch):
    from webnn_harness.backends.onnxruntime import batch

    checked = []
    real = batch.well_typed
    monkeypatch.setattr(batch, "well_typed", lambda model: checked.append(1) or real(model))
    backend = backends.create("onnxruntime", {})
    cases = _cases()
    built = build_batch(backend, [c.graph for c in cases])
    computed = compute_batch(backend, built, [c.inputs for c in cases])
    refused = [isinstance(b, BaseException) for b in built]
    assert refused == [False, True, False, True, False, True]
    assert checked, "the refusal made the batch check its graphs' types"
    merged = {id(b.merged) for b in built if isinstance(b, batch.MergedCase)}
    assert len(merged) == 1, "the well-typed graphs stayed in one session"
    assert_batch_equals_alone(backend, cases, built, computed)
    assert all("INVALID_GRAPH" in str(b) for b in built if isinstance(b, BaseException))


def test_a_graph_with_a_node_without_a_kernel_is_built_alone_never_merged(monkeypatch):
    """The kernel table already knows ORT has no int8 Trilu: that graph is
    built alone (ORT's own NOT_IMPLEMENTED), and no merged session is tried
    and refused for it; the rest merge into one session."""
    from webnn_harness.backends.onnxruntime import batch
    from webnn_harness.spec.graph import TensorDesc
    from webnn_harness.probe.synth import single_node_graph

    backend = backends.create("onnxruntime", {})
    graphs = [single_node_graph("relu", {"input": TensorDesc((2, 3), "float32")}, {}),
              single_node_graph("triangular", {"input": TensorDesc((2, 3), "int8")}, {}),
              single_node_graph("relu", {"input": TensorDesc((3, 2), "float32")}, {})]
    refusals = []
    session = backend._ort.InferenceSession

    def counted(*args, **kwargs):
        try:
            return session(*args, **kwargs)
        except Exception:
            refusals.append(1)
            raise

    monkeypatch.setattr(backend._ort, "InferenceSession", counted)
    built = build_batch(backend, graphs)
    assert isinstance(built[1], BaseException) and "Trilu" in str(built[1])
    assert len(refusals) == 1, "only the graph alone was refused"
    assert isinstance(built[0], batch.MergedCase) and built[0].merged is built[2].merged
