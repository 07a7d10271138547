"""The model rule: how a whole model's output is judged where the chain rule stops being meaningful.

The chain rule (harness/verdict/tolerance.py) widens the expected value by what each ancestor's
budget can move it, measured by rerunning the reference downstream of that ancestor. Its own
docstring names where that stops holding:

- cost: two reruns of everything downstream per carried op, so a network of n layers pays about
  n^2 op runs (DenseNet-121's 1,700 nodes: hours of float64 convolutions per case);
- soundness: where an intermediate is too large for the single-element runs (more than
  ``COORDINATE_RUNS`` op runs) and a linear op with weights of both signs is downstream, the
  all-low / all-high runs cancel and under-count the error; every convolution of a CNN is such.

So a graph of more than ``MODEL_NODES`` operators whose chain rule would pay more than
``CHAIN_RUNS`` downstream op runs, or would skip the single-element runs ahead of a
non-elementwise op, is judged by this rule instead. No WPT or corpus graph comes near it (the
largest has 9 operators); the imported ONNX models all do (``webnn-harness import-onnx``).

The rule starts from the one ONNX's own backend test applies to these same models
(onnx/backend/test/loader/__init__.py: ``rtol = 1e-3``, ``atol = 1e-7``, checked by
``np.testing.assert_allclose``), and adds one term, ``NORM * max|expected|`` over the output:

    |actual - expected| <= atol + rtol * |expected| + NORM * max|expected|     (NORM = 1e-5)

Why the added term: a float32 sum of n terms errs by up to about n * 2^-24 * sum |term| (Higham,
Accuracy and Stability of Numerical Algorithms, 3.1), which scales with the terms, not with the
result. Where an output cancels to near zero, ``rtol * |expected|`` has nothing to scale with:
DenseNet-121's fc6 (a 1x1 convolution over 1,024 channels, no softmax after it) has an element at
-2.5e-4 beside a largest output of 2.07, and ONNX Runtime running the original ONNX file, OpenVINO
and LiteRT all land 4e-6 away from the float64 value there (10 to 13 times ONNX's bound; 2e-6 of
the largest output). 1e-5 is 84 float32 ULPs of the largest output; the rule must admit ONNX
Runtime on the model's own ONNX graph, and does for every model imported so far.

The record says which rule judged it: metric ``MODEL`` with budget 1, the error the worst element's
``|actual - expected| / (atol + rtol * |expected| + NORM * max|expected|)``, and a message naming
the rule.
"""
from __future__ import annotations

import numpy as np

from webnn_harness.spec.dtypes import is_float
from webnn_harness.verdict.comparison import Comparison, abs_distance
from webnn_harness.spec.values import encode_number

MODEL_NODES = 16  # fewer operators: always the chain rule (WPT's largest subgraph has 9)
CHAIN_RUNS = 2048  # downstream op runs the chain rule may pay for one output before it is not worth it
RTOL, ATOL = 1e-3, 1e-7  # onnx/backend/test/loader/__init__.py, the model tests' defaults
METRIC = "MODEL"
NORM = 1e-5  # of the output's largest magnitude: a sum's rounding scales with its terms (module docstring)
RULE = (f"model rule: |actual - expected| <= {ATOL:g} + {RTOL:g} * |expected| + {NORM:g} * max|expected| "
        "(ONNX's backend model tests, plus a term for cancellation)")


def judged_by_model_rule(case, output: str) -> bool:
    """Whether ``output`` of ``case`` is judged by this rule rather than the chain rule (module docstring)."""
    from webnn_harness.verdict.judge import carried_nodes
    from webnn_harness.verdict.tolerance import COORDINATE_RUNS, _elementwise

    nodes = case.graph.nodes
    if len(nodes) <= MODEL_NODES or case.tolerance:
        return False
    position = {name: i for i, node in enumerate(nodes) for name in node.outputs}
    runs = 0
    for node in carried_nodes(case, output):
        start = position[node.outputs[0]] + 1
        downstream = nodes[start:]
        runs += 2 * len(downstream)
        size = max(case.graph.descs[o].size for o in node.outputs)
        if 2 * size * len(downstream) > COORDINATE_RUNS and not _elementwise(downstream):
            return True  # the single-element runs are skipped ahead of a linear op: not sound
        if runs > CHAIN_RUNS:
            return True
    return False


def compare_model(expected: np.ndarray, actual: np.ndarray, data_type: str,
                  undefined: np.ndarray | None = None) -> Comparison:
    """``actual`` against ``expected`` by the model rule (an integer output stays exact)."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return Comparison(False, METRIC, 1.0, message=f"{list(actual.shape)} {actual.dtype.name}, expected "
                                                      f"{list(expected.shape)} {expected.dtype.name}; {RULE}")
    dist = abs_distance(expected, actual)
    if is_float(data_type):
        magnitude = np.abs(expected.astype(np.float64))
        largest = float(np.nanmax(np.where(np.isfinite(magnitude), magnitude, 0.0))) if magnitude.size else 0.0
        dist = dist / (ATOL + RTOL * magnitude + NORM * largest)
    uncompared = 0
    if undefined is not None and undefined.any():
        dist, uncompared = np.where(undefined, 0.0, dist), int(undefined.sum())
    if dist.size == 0:
        return Comparison(True, METRIC, 1.0, 0.0, uncompared=uncompared, message=RULE)
    flat = int(np.argmax(dist))
    worst = tuple(int(i) for i in np.unravel_index(flat, dist.shape)) if dist.ndim else ()
    max_error = float(dist.reshape(-1)[flat])
    return Comparison(max_error <= 1.0, METRIC, 1.0, max_error, worst, encode_number(expected.reshape(-1)[flat]),
                      encode_number(actual.reshape(-1)[flat]), uncompared, RULE)
