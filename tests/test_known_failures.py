"""Known failures are data: they mark a non-pass, never a pass, and stale ones are found."""
from webnn_harness.knownfailures import KnownFailures
from webnn_harness.results import Record


def rec(file, case, status):
    return Record(file=file, case=case, ops=("relu",), data_types=("float32",), backend={}, status=status, required=True)


def test_marks_matching_non_pass_and_reports_stale_entries():
    kf = KnownFailures([
        {"file": "elementwise/relu.json", "case": "relu a", "reason": "r1"},
        {"file": "relu.json", "match": "^relu int", "reason": "r2"},
        {"file": "relu.json", "case": "relu fixed", "reason": "r3"},
        {"file": "conv2d.json", "case": "never run", "reason": "r4"},
    ])
    a = kf.apply(rec("cases/elementwise/relu.json", "relu a", "fail"))
    assert a.known_failure == "r1" and not a.counts_against
    # the same name in WPT's relu.json is not our entry's file
    assert kf.apply(rec("/x/wpt/relu.json", "relu a", "fail")).known_failure is None
    assert kf.apply(rec("/x/wpt/relu.json", "relu int8", "crash")).known_failure == "r2"
    passed = kf.apply(rec("/x/wpt/relu.json", "relu fixed", "pass"))
    assert passed.known_failure is None
    assert [e["reason"] for e in kf.stale()] == ["r3"]  # ran and passed; r4 never ran
