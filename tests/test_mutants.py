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
from webnn_harness.verdict.wpt import wpt_judge
from webnn_harness.verdict.tolerance import narrowed_type

CORPUS = Path(__file__).resolve().parents[1] / "cases"
CAST_FILE = CORPUS / "elementwise" / "cast.json"


def verdicts(case, mutation: str | None) -> tuple[str, str]:
    """Our judge's and WPT's rule's verdicts on ``mutation`` (None: the reference itself) for ``case``."""
    ref = evaluate(case.graph, case.inputs)
    expected = {n: ref[n].values for n in case.graph.outputs}
    undefined = {n: ref[n].undefined for n in case.graph.outputs}
    if mutation is None:
        actual = dict(expected)
    else:
        backend = MutantBackend({"mutation": mutation})
        actual = backend.compute(backend.build(case.graph), case.inputs)
    return judge(case, actual, expected, undefined)[0], wpt_judge(case, actual, expected, undefined).status


def status(case, mutation: str | None) -> str:
    """The judge's verdict on ``mutation`` (None: the reference itself) for ``case``."""
    return verdicts(case, mutation)[0]


def changes(case, mutation: str) -> bool:
    """Whether the mutation gives other bits than the reference on some output."""
    ref = evaluate(case.graph, case.inputs)
    backend = MutantBackend({"mutation": mutation})
    actual = backend.compute(backend.build(case.graph), case.inputs)
    return any(not np.array_equal(_bytes(actual[n]), _bytes(ref[n].values)) for n in case.graph.outputs)


def _bytes(values) -> np.ndarray:
    return np.ascontiguousarray(values).reshape(-1).view(np.uint8)


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


# --- the audit on WPT's own cases (../shared/wpt, ../shared/wpt-extra) ------
# A mutation per op family, the cheapest wrong optimisation a compiler makes.
# (mutation, WPT files, whether the judge fails every case the mutation changes)
AUDIT = [
    ("fold_cast_round_trip", ["wpt/cast.json"], True),  # WPT's cast.json has no round trip: see CASTS above
    ("drop_clamp", ["wpt/clamp.json"], True),
    # WPT's data movement files hold no subnormal: our movement corpus does
    ("flush_subnormals", ["cases/movement"], True),
    ("pool_count_padding", ["wpt-extra/average_pool2d.json"], True),
    ("half_precision_weights", ["wpt/conv2d.json", "wpt/conv_transpose2d.json", "wpt/matmul.json", "wpt-extra/gemm.json",
                                "wpt-extra/gru.json", "wpt-extra/lstm.json"], True),
    # Not caught, by design or by the cases (README "The mutation audit"):
    ("reassociate_sum", ["wpt/reduce_sum.json", "wpt/reduce_mean.json", "wpt/matmul.json"], False),
    ("drop_epsilon", ["wpt/batch_normalization.json", "wpt/instance_normalization.json",
                      "wpt/layer_normalization.json"], False),
    # Twins (tolerance.py): the six quantized comparisons too, as WPT's rule fails them
    ("fold_qdq_round_trip", ["wpt-extra/qdq_subgraph.json"], True),
]


def audited(wpt, mutation, files):
    """(cases the mutation changes, those the judge fails, the names of those
    WPT's rule fails and ours passes) over ``files`` (WPT's, or our corpus's
    where they start with cases/)."""
    changed = caught = 0
    laxer = []
    for name in files:
        path = CORPUS.parent / name if name.startswith("cases/") else wpt.parent / name
        for case in load_cases([path]):
            if not hasattr(case, "graph") or not changes(case, mutation):
                continue
            ours, theirs = verdicts(case, mutation)
            changed += 1
            caught += ours == "fail"
            if theirs == "fail" and ours != "fail":
                laxer.append(case.name)
    return changed, caught, laxer


@pytest.mark.parametrize("mutation,files,caught_all", AUDIT, ids=[a[0] for a in AUDIT])
def test_the_mutation_audit(wpt, mutation, files, caught_all):
    changed, caught, laxer = audited(wpt, mutation, files)
    assert laxer == []  # never more lenient than WPT's rule: what escapes ours escapes WPT's too
    if mutation != "fold_cast_round_trip":
        assert changed
    if caught_all:
        assert caught == changed
    else:
        assert caught < changed  # the README says why each one escapes (WPT's rule passes them too)


QDQ_COMPARISONS = ["equal", "notEqual", "greater", "greaterOrEqual", "lesser", "lesserOrEqual"]


def test_folding_a_qdq_pair_before_a_comparison_fails_both_rules(wpt):
    """The six "quantized element-wise logical" cases: the fold leaves one side
    of a tie unrounded; ours fails it (twins move together), as WPT's does."""
    cases = {c.name: c for c in load_cases([wpt.parent / "wpt-extra" / "qdq_subgraph.json"])}
    for op in QDQ_COMPARISONS:
        case = cases[f"quantized element-wise logical {op}"]
        assert changes(case, "fold_qdq_round_trip")
        assert verdicts(case, "fold_qdq_round_trip") == ("fail", "fail"), op
        assert verdicts(case, None) == ("pass", "pass"), op


# --- arithmetic after a narrowing cast (tolerance.py, "Arithmetic on narrowed values")
# cast_rounding's inputs (1.0003 rounds to 1, 1.0007 to 1.0009765625, ...) and
# 2049 (to 2048), each folded round trip up to half a float16 spacing off.
ROUND_TRIP_INPUT = [1.0003, -1.0003, 1.0007, -1.0007, 2049.0, -2051.0, 0.30001, 3 * 2.0 ** -25]


def round_trip_then(tmp_path, op, other=None, x=ROUND_TRIP_INPUT):
    """op(cast(cast(x, float16), float32), other): ``other`` an input (unmoved)
    or, when None, a second round trip of x reversed."""
    import json

    n = len(x)
    desc = {"shape": [n], "dataType": "float32"}
    inputs = {"x": {"data": list(x), "descriptor": desc}}
    ops = [{"name": "cast", "arguments": [{"input": "x"}, {"type": "float16"}], "outputs": "n"},
           {"name": "cast", "arguments": [{"input": "n"}, {"type": "float32"}], "outputs": "w"}]
    if other is None:
        inputs["v"] = {"data": list(x)[::-1], "descriptor": desc}
        ops += [{"name": "cast", "arguments": [{"input": "v"}, {"type": "float16"}], "outputs": "vn"},
                {"name": "cast", "arguments": [{"input": "vn"}, {"type": "float32"}], "outputs": "o"}]
    else:
        inputs["o"] = {"data": other, "descriptor": desc}
    ops.append({"name": op, "arguments": [{"a": "w"}, {"b": "o"}], "outputs": "y"})
    path = tmp_path / f"{op}.json"
    path.write_text(json.dumps({"tests": [{"name": op, "graph": {"inputs": inputs, "operators": ops}}]}))
    (case,) = load_cases([path])
    return case


ARITHMETIC = [(op, other) for op in ("add", "sub", "mul")
              for other in (None, [0.25, 3.0, -1.5, 0.1, 7.0, 2.0 ** -20, 1.0, -3.0])]


@pytest.mark.parametrize("op,other", ARITHMETIC, ids=[f"{op}-{'round trip' if o is None else 'input'}"
                                                      for op, o in ARITHMETIC])
def test_folding_a_round_trip_before_arithmetic_fails_both_rules(tmp_path, op, other):
    case = round_trip_then(tmp_path, op, other)
    assert changes(case, "fold_cast_round_trip")
    assert verdicts(case, "fold_cast_round_trip") == ("fail", "fail")
    assert verdicts(case, None) == ("pass", "pass")


def test_arithmetic_on_narrowed_values_admits_what_the_casts_budgets_allow(tmp_path):
    """The casts may each round to a float16 neighbour (1 ULP of float16): the
    sum of those neighbours, and 1 float32 ULP of add's own on top, passes; a
    value between two lattice points, inside the carried interval, fails."""
    other = [0.1, 0.25, -0.3, 3.3, 1e-3, -7.7, 0.2, 2.0 ** -20]  # sums rounded to float32 at the interval's ends
    case = round_trip_then(tmp_path, "add", other)
    exact = evaluate(case.graph, case.inputs)["y"].values
    narrowed = np.asarray(ROUND_TRIP_INPUT, np.float32).astype(np.float16)
    for side in (np.inf, -np.inf):
        neighbour = (np.nextafter(narrowed, np.float16(side)).astype(np.float32) + np.float32(other)).astype(np.float32)
        for actual, status in ((neighbour, "pass"), (np.nextafter(neighbour, np.float32(side)), "pass"),
                               (((exact.astype(np.float64) + neighbour) / 2).astype(np.float32), "fail")):
            assert judge(case, {"y": actual}, {"y": exact}, {})[0] == status, (side, actual)
    assert judge(case, {"y": exact}, {"y": exact}, {})[0] == "pass"
    assert judge(case, {"y": np.nextafter(exact, np.float32(np.inf))}, {"y": exact}, {})[0] == "pass"



# Each cast may round to either float16 neighbour (its 1 ULP) and the op may be 1 float32 ULP off:
# every such backend passes, and the folded round trip fails, on random operands over 7 decades.
# Not mul of two round trips: the chain rule adds the two moves and drops their product (its
# docstring's "second order" limit), which fails a backend whose two casts both round away.
RANDOM_ARITHMETIC = [("add", True), ("sub", True), ("add", False), ("sub", False), ("mul", False)]


def _moved(values, steps):
    """``values`` one step of their own type up (+1), down (-1) or not (0), per element."""
    up, down = (np.nextafter(values, np.array(side, values.dtype)) for side in (np.inf, -np.inf))
    return np.where(steps > 0, up, np.where(steps < 0, down, values))


@pytest.mark.parametrize("op,two", RANDOM_ARITHMETIC, ids=[f"{op}-{'two round trips' if two else 'an input'}"
                                                             for op, two in RANDOM_ARITHMETIC])
def test_arithmetic_on_narrowed_values_on_random_operands(tmp_path, op, two):
    rng = np.random.default_rng(7)
    compute = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op]
    for trial in range(6):
        x, v = ((rng.standard_normal(16) * 10.0 ** rng.integers(-3, 4, 16)).astype(np.float32) for _ in range(2))
        folder = tmp_path / str(trial)
        folder.mkdir()
        case = round_trip_then(folder, op, None if two else v.tolist(), x.tolist())
        exact = evaluate(case.graph, case.inputs)["y"].values
        b = x[::-1] if two else v
        for _ in range(4):
            a16 = _moved(x.astype(np.float16), rng.integers(-1, 2, 16)).astype(np.float32)
            b16 = _moved(b.astype(np.float16), rng.integers(-1, 2, 16)).astype(np.float32) if two else b
            actual = _moved(compute(a16, b16).astype(np.float32), rng.integers(-1, 2, 16))
            assert judge(case, {"y": actual}, {"y": exact}, {})[0] == "pass", (trial, actual)
        folded = compute(x, b).astype(np.float32)
        assert judge(case, {"y": folded}, {"y": exact}, {})[0] == "fail", trial
