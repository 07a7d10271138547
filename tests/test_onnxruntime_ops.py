"""Per op, on a sample of cases from cases/ and WPT:
- the lowering gives a model onnx.checker accepts (full shape inference) whose
  interface matches the graph;
- ORT agrees with the reference, judged exactly as `webnn-harness run` judges;
  a non-pass must be listed in backends/onnxruntime/known_failures.json."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from webnn_harness import backends  # noqa: E402
from webnn_harness.backends.base import Unsupported  # noqa: E402
from webnn_harness.backends.onnxruntime.emitter import ONNX_TYPES  # noqa: E402
from webnn_harness.backends.onnxruntime.lower import EMULATED, LOWER  # noqa: E402
from webnn_harness.loading.cases import Case  # noqa: E402
from webnn_harness.spec.catalog import operators  # noqa: E402
from webnn_harness.spec.graph import Graph, Node, TensorDesc  # noqa: E402
from webnn_harness.verdict.expectations import ExpectationSet  # noqa: E402

from conftest import wpt_dir  # noqa: E402
from corpora import corpus_cases, judged_record  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CORPORA = [ROOT / "cases", *filter(None, [wpt_dir()])]
SAMPLES_PER_OP = 4


def _cases_by_op() -> dict[str, list[Case]]:
    by_op: dict[str, list[Case]] = defaultdict(list)
    for case in (c for p in CORPORA if p.exists() for c in corpus_cases(p)):
        for op in {n.op for n in case.graph.nodes}:
            if len(by_op[op]) < SAMPLES_PER_OP:
                by_op[op].append(case)
    return by_op


CASES_BY_OP = _cases_by_op()
ALL_OPS = list(operators())


@pytest.fixture(scope="module")
def backend():
    return backends.create("onnxruntime", {})


def test_every_catalog_op_has_a_lowering():
    assert sorted(set(ALL_OPS) - set(LOWER)) == []
    assert len(ALL_OPS) == 95


def test_emulations_name_known_ops_with_a_reason():
    for op, how in EMULATED.items():
        assert op in LOWER and len(how) > 20, op


@pytest.mark.parametrize("op", ALL_OPS)
def test_lowered_model_passes_onnx_checker(backend, op):
    """Every sampled model passes the checker with full shape inference,
    except where ONNX's type constraints exclude a WebNN data type (e.g.
    PRelu on int8): then ORT must refuse it at build time (unsupported), never
    run an invalid model. At least one sample per op must be fully valid."""
    cases = CASES_BY_OP.get(op)
    if not cases:
        pytest.fail(f"no case in {', '.join(map(str, CORPORA))} uses {op}: add one")
    valid = 0
    for case in cases:
        model = backend.lower(case.graph)
        try:
            onnx.checker.check_model(model, full_check=True)
        except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as exc:
            if "type" not in str(exc).lower():
                raise
            with pytest.raises(Unsupported):
                backend.build(case.graph)
            continue
        valid += 1
        graph = case.graph
        assert [i.name for i in model.graph.input] == list(graph.inputs)
        assert [o.name for o in model.graph.output] == list(graph.outputs)
        assert {t.name for t in model.graph.initializer} >= set(graph.constants)
        for out in model.graph.output:
            desc = graph.descs[out.name]
            assert out.type.tensor_type.elem_type == ONNX_TYPES[desc.data_type]
            assert [d.dim_value for d in out.type.tensor_type.shape.dim] == list(desc.shape)
    assert valid, f"no sampled {op} case lowers to a fully valid ONNX model"


def _hand_graph(op, inputs, attributes, outputs, constants=None):
    descs = {**inputs, **outputs}
    operands = {k: k for k in inputs}
    return Graph(tuple(k for k in inputs if k not in (constants or {})), constants or {},
                 (Node(op, operands, attributes, tuple(outputs)),), tuple(outputs), descs)


def test_hand_built_graph_runs_without_the_case_loader(backend):
    # conv2d nhwc + ohwi filter: both layouts go through Transposes.
    x = np.arange(1 * 3 * 3 * 2, dtype=np.float32).reshape(1, 3, 3, 2)
    w = np.ones((4, 2, 2, 2), np.float32)
    graph = _hand_graph(
        "conv2d",
        {"input": TensorDesc((1, 3, 3, 2), "float32"), "filter": TensorDesc((4, 2, 2, 2), "float32")},
        {"padding": [0, 0, 0, 0], "strides": [1, 1], "dilations": [1, 1], "groups": 1,
         "inputLayout": "nhwc", "filterLayout": "ohwi"},
        {"out": TensorDesc((1, 2, 2, 4), "float32")},
        constants={"filter": w},
    )
    onnx.checker.check_model(backend.lower(graph), full_check=True)
    out = backend.compute(backend.build(graph), {"input": x})["out"]
    expected = np.array([[x[0, i:i + 2, j:j + 2, :].sum() for j in range(2)] for i in range(2)])
    np.testing.assert_array_equal(out[0, :, :, 0], expected)
    assert out.shape == (1, 2, 2, 4)


def test_zero_d_constant_keeps_rank_zero(backend):
    graph = _hand_graph("identity", {"input": TensorDesc((), "float32")}, {}, {"out": TensorDesc((), "float32")},
                        constants={"input": np.array(2.5, np.float32)})
    init = backend.lower(graph).graph.initializer[0]
    assert list(init.dims) == []
    assert backend.compute(backend.build(graph), {})["out"].shape == ()


@pytest.mark.parametrize("op", ALL_OPS)
def test_agrees_with_reference(backend, op):
    cases = CASES_BY_OP.get(op)
    if not cases:
        pytest.fail(f"no case uses {op}")
    known = ExpectationSet.for_backend("onnxruntime", backend.info().version, {})
    problems = []
    for case in cases:
        record = judged_record(backend, case, known)
        if record.status != "pass" and not record.known_failure:
            problems.append(f"{case.name}: {record.status} {record.message} max={record.max_error} budget={record.budget}")
    assert not problems, "\n".join(problems)
