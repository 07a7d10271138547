"""The harness's own math: ULP distance, float16 rounding, comparison verdicts."""
import numpy as np
import pytest

from webnn_harness.verdict.comparison import compare, integer_distance, ulp_distance
from webnn_harness.spec.values import to_array

F32, F16 = np.float32, np.float16


def next_up(x, dtype):
    return np.nextafter(dtype(x), dtype(np.inf), dtype=dtype)


@pytest.mark.parametrize("dtype", [F32, F16])
def test_adjacent_floats_are_one_ulp_apart(dtype):
    for x in [0.0, 1.0, -1.0, 3.5, 1e-3, -250.0]:
        assert ulp_distance(np.array([x], dtype), np.array([next_up(x, dtype)], dtype))[0] == 1


@pytest.mark.parametrize("dtype", [F32, F16])
def test_signed_zeros_are_equal_and_straddle_zero_counts_both_sides(dtype):
    assert ulp_distance(np.array([0.0], dtype), np.array([-0.0], dtype))[0] == 0
    tiny = np.finfo(dtype).smallest_subnormal
    # -tiny .. +tiny is two steps: -tiny -> 0 -> +tiny.
    assert ulp_distance(np.array([-tiny], dtype), np.array([tiny], dtype))[0] == 2


@pytest.mark.parametrize("dtype", [F32, F16])
def test_nan_equals_nan_but_not_numbers(dtype):
    d = ulp_distance(np.array([np.nan, np.nan, 1.0], dtype), np.array([np.nan, 1.0, np.nan], dtype))
    assert d[0] == 0 and np.isinf(d[1]) and np.isinf(d[2])


@pytest.mark.parametrize("dtype", [F32, F16])
def test_infinities(dtype):
    big = np.finfo(dtype).max
    d = ulp_distance(np.array([np.inf, np.inf, -np.inf], dtype), np.array([np.inf, big, np.inf], dtype))
    assert d[0] == 0
    assert d[1] == 1  # max finite is one step below infinity
    assert d[2] > 1e6 if dtype is F32 else d[2] > 60000


def test_float16_is_compared_as_16_bit_patterns():
    one = np.array([1.0], F16)
    assert ulp_distance(one, next_up(1.0, F16).reshape(1))[0] == 1
    # 1 + 2^-10 is 1 float16 ULP above 1, but 8192 float32 ULPs.
    assert ulp_distance(np.array([1.0], F32), np.array([1 + 2**-10], F32))[0] == 8192


def test_float16_rounding_from_json_is_round_to_nearest_even():
    # 2049 lies exactly between float16 2048 and 2050: ties go to even (2048).
    # 2051 lies between 2050 and 2052: ties to even give 2052.
    a = to_array([2049, 2051, 65504, 65520, 1e-8, -65536], [6], "float16")
    assert a.tolist()[:3] == [2048.0, 2052.0, 65504.0]
    assert np.isinf(a[3]) and a[3] > 0  # 65520 rounds past the maximum: overflow to infinity
    assert a[4] == F16(0.0) or a[4] == np.finfo(F16).smallest_subnormal * 0  # below half the smallest subnormal
    assert np.isinf(a[5]) and a[5] < 0


def test_values_beyond_2_53_stay_exact():
    big = 2**53 + 1
    a = to_array([{"bigint": str(big)}, {"bigint": str(-(2**63))}], [2], "int64")
    assert int(a[0]) == big and int(a[1]) == -(2**63)
    u = to_array([{"bigint": str(2**64 - 1)}], [1], "uint64")
    assert int(u[0]) == 2**64 - 1


def test_integer_distance_is_exact_for_64_bit():
    e = np.array([2**63 - 1, 0], np.int64)
    a = np.array([-(2**63), 0], np.int64)
    assert integer_distance(e, a)[0] == float(2**64 - 1)
    assert integer_distance(np.array([2**64 - 1], np.uint64), np.array([0], np.uint64))[0] == float(2**64 - 1)


def test_compare_verdict_and_worst_element():
    expected = np.array([[1.0, 2.0], [3.0, 4.0]], F32)
    actual = expected.copy()
    actual[1, 0] = next_up(3.0, F32)
    actual[1, 0] = next_up(actual[1, 0], F32)  # 2 ULP off
    ok = compare(expected, actual, "float32", "ULP", 2)
    assert ok.passed and ok.max_error == 2 and ok.worst_index == (1, 0)
    bad = compare(expected, actual, "float32", "ULP", 1)
    assert not bad.passed and bad.expected_value == 3.0 and bad.actual_value == float(actual[1, 0])


def test_compare_atol():
    r = compare(np.array([1.0], F32), np.array([1.001], F32), "float32", "ATOL", 1 / 1024)
    assert not r.passed  # 0.001 > 1/1024
    assert compare(np.array([1.0], F32), np.array([1.0009], F32), "float32", "ATOL", 1 / 1024).passed


def test_compare_rejects_wrong_shape_and_type():
    assert not compare(np.zeros(3, F32), np.zeros(4, F32), "float32", "ULP", 0).passed
    r = compare(np.zeros(3, F32), np.zeros(3, np.float64), "float32", "ULP", 100)
    assert not r.passed and "data type" in r.message


def test_implementation_defined_elements_are_not_compared():
    expected = np.array([1, 2, 3], np.int32)
    actual = np.array([1, 99, 3], np.int32)
    mask = np.array([False, True, False])
    r = compare(expected, actual, "int32", "exact", 0, mask)
    assert r.passed and r.uncompared == 1
    assert not compare(expected, actual, "int32", "exact", 0).passed


def test_zero_dimensional_outputs():
    r = compare(np.array(1.0, F32), np.array(1.0, F32), "float32", "ULP", 0)
    assert r.passed and r.worst_index == ()
