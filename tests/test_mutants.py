"""The mutation audit (backends/mutants.py): a backend applying one cheap
wrong optimisation is failed by the judge wherever the optimisation changes
a value, and the reference passes the same cases. What the judge cannot
catch is asserted too, so a change that starts catching it is noticed."""
from pathlib import Path

import numpy as np
import pytest

from webnn_harness.backends.mutants import MutantBackend
from webnn_harness.backends.reference.evaluate import evaluate
from webnn_harness.loading.cases import load_cases
from webnn_harness.verdict.judge import judge
from webnn_harness.verdict.tolerance import narrowed_type

CORPUS = Path(__file__).resolve().parents[1] / "cases"
CAST_FILE = CORPUS / "elementwise" / "cast.json"


def status(case, mutation: str | None) -> str:
    """The judge's verdict on ``mutation`` (None: the reference itself) for ``case``."""
    ref = evaluate(case.graph, case.inputs)
    expected = {n: ref[n].values for n in case.graph.outputs}
    undefined = {n: ref[n].undefined for n in case.graph.outputs}
    if mutation is None:
        actual = dict(expected)
    else:
        backend = MutantBackend({"mutation": mutation})
        actual = backend.compute(backend.build(case.graph), case.inputs)
    return judge(case, actual, expected, undefined)[0]


def changes(case, mutation: str) -> bool:
    """Whether the mutation gives other bits than the reference on some output."""
    ref = evaluate(case.graph, case.inputs)
    backend = MutantBackend({"mutation": mutation})
    actual = backend.compute(backend.build(case.graph), case.inputs)
    return any(not np.array_equal(np.asarray(actual[n]).view(np.uint8), np.asarray(ref[n].values).view(np.uint8))
               for n in case.graph.outputs)


# The graphs of casts in cast.json (tools/cases/elementwise.py, cast_rounding_cases)
CASTS = [c for c in load_cases([CAST_FILE]) if len(c.graph.nodes) > 1]


@pytest.mark.parametrize("case", CASTS, ids=[c.name for c in CASTS])
def test_folding_a_cast_round_trip_fails_every_case_it_changes(case):
    assert changes(case, "fold_cast_round_trip")
    assert status(case, "fold_cast_round_trip") == "fail"
    assert status(case, None) == "pass"


def test_a_widened_output_after_a_narrowing_cast_holds_float16_values_only():
    four = next(c for c in CASTS if c.name.startswith("four successive"))
    assert narrowed_type(four.graph, "secondWidened") == "float16"
    assert narrowed_type(four.graph, "firstWidened") == "float16"
    assert narrowed_type(four.graph, "secondNarrowed") is None  # its own type
