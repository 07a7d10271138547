"""A bench change within the machine noise the benches measured is no change (issue 42): not on
the console, not on changes.html, no step on history.html; noisy benches are marked."""
import random

from webnn_harness.bench.console import comparison_lines
from webnn_harness.bench.regressions import BenchComparison, Change, compare_records, noise_cv
from webnn_harness.reports.archive import Point, _noise_note, _series

KEY = ("op/relu", "graph", "acme")


def record(median, n=400, seed=0):
    rng = random.Random(seed)
    times = [median * (1 + 0.01 * rng.random()) for _ in range(n)]
    return {"status": "ok", "latency": {"median": sorted(times)[n // 2], "times": times}}


def test_a_change_within_the_machine_noise_is_not_called_one():
    before, after = {KEY: record(0.010)}, {KEY: record(0.0072, seed=1)}  # 0.72x at a tiny p-value
    (quiet,) = compare_records(before, after)
    assert quiet.verdict == "faster" and quiet.p_value < 1e-10
    (noisy,) = compare_records(before, after, noise=(0.87, 0.41))
    assert noisy.verdict == "same" and "within the machine noise the benches measured (CV 87%)" in noisy.reason
    # beyond the noise it is still a change
    (big,) = compare_records(before, {KEY: record(0.030, seed=2)}, noise=(0.41, None))
    assert big.verdict == "slower"


def test_the_noise_is_read_from_the_bench_summary():
    assert noise_cv({"header": {"peaks": {"noise": {"cv": 0.87}}}}) == 0.87
    assert noise_cv({"header": {"peaks": {}}}) is None and noise_cv({}) is None


def test_console_says_the_noise_and_folds_what_a_filter_left_out():
    missing = [Change(f"op/b{i}", "graph", "acme", "missing", reason="in the baseline only") for i in range(39)]
    lines = comparison_lines(BenchComparison("base", "new", 0.05, 0.01, tuple(missing), noise=(0.87, 0.41)))
    assert len(lines) == 3
    assert lines[0].startswith("39 benchmark(s) of the baseline not timed here")
    assert "noisy machine (CV 87% and 41%" in lines[1] and "within 87%" in lines[1]
    assert "slower by > 87%" in lines[2]


def test_history_calls_no_step_at_a_noisy_benchs_point():
    values = [0.010, 0.010, 0.010, 0.006, 0.006, 0.006]
    quiet = [Point(f"1.{i}", "2026-01-0{i + 1}", v, "") for i, v in enumerate(values)]
    assert [s.index for s in _series("acme", "cpu", "median latency", "seconds", quiet, 0.05).steps] == [3]
    noisy = [Point(p.version, p.date, p.value, "", noisy=i == 3) for i, p in enumerate(quiet)]
    assert _series("acme", "cpu", "median latency", "seconds", noisy, 0.05).steps == ()


def test_changes_page_says_when_the_benches_were_noisy():
    assert _noise_note({"noiseCv": 0.02}, {"noiseCv": 0.03}) == ""
    note = _noise_note({"noiseCv": 0.87}, {"noiseCv": 0.41})
    assert "CV 87% and 41%" in note and "within 87% is not called one" in note
