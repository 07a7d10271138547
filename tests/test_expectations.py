"""Expectations: they mark a non-pass, never a pass; scoped by options and
versions; stale and unmatched entries are reported exactly; a run can write them."""
import json

import pytest

from webnn_harness.verdict.expectations import ExpectationSet, ExpectationsError, bundled_expectations, merge_reports, parse_expectations, read_expectations, release_version
from webnn_harness.outputs.expectations_update import update_expectations
from webnn_harness.verdict.record import Record


def rec(file, case, status, version="1.0"):
    return Record(file=file, case=case, ops=("relu",), data_types=("float32",),
                  backend={"name": "acme", "version": version}, status=status, required=True,
                  message="boom\nsecond line" if status != "pass" else "")


def entries(doc):
    return parse_expectations(doc, "x.json")


def test_marks_matching_non_pass_and_reports_stale_and_unmatched_entries():
    es = ExpectationSet(entries([
        {"file": "elementwise/relu.json", "case": "relu a", "reason": "r1"},
        {"file": "relu.json", "match": "^relu int", "reason": "r2"},
        {"file": "relu.json", "case": "relu fixed", "reason": "r3"},
        {"file": "conv2d.json", "case": "never run", "reason": "r4"},
    ]))
    a = es.apply(rec("cases/elementwise/relu.json", "relu a", "fail"))
    assert a.known_failure == "r1" and not a.counts_against
    # the same name in WPT's relu.json is not our entry's file
    assert es.apply(rec("wpt/relu.json", "relu a", "fail")).known_failure is None
    assert es.apply(rec("wpt/relu.json", "relu int8", "crash")).known_failure == "r2"
    passed = es.apply(rec("wpt/relu.json", "relu fixed", "pass"))
    assert passed.known_failure is None  # a pass is never marked
    assert [e.reason for e in es.stale()] == ["r3"]  # ran and passed
    assert [e.reason for e in es.unmatched()] == ["r4"]  # never ran
    assert [e["outcome"] for e in es.report()] == ["applied", "applied", "stale", "unmatched"]
    assert es.report()[0]["source"] == "x.json" and es.report()[3]["index"] == 3


@pytest.mark.parametrize("version,in_force", [("1.31.0", False), ("1.32.0", True), ("1.32.0rc1", True),
                                              ("2026.4.1-22982-e213a147257-releases/2026/4", True), ("nightly", False)])
def test_versions_scope_an_entry(version, in_force):
    es = ExpectationSet.for_backend("acme", version, {}, bundled=False)
    (e,) = entries([{"case": "c", "reason": "r", "versions": ">=1.32"}])
    assert e.applies_to(version, {}) is in_force
    assert es.entries == ()


def test_options_scope_an_entry():
    (e,) = entries([{"case": "c", "reason": "r", "options": {"ep": "CUDA"}}])
    assert e.applies_to("1", {"ep": "CUDA", "threads": "2"}) and not e.applies_to("1", {})


def test_an_option_value_with_a_bang_means_any_other_value_the_default_included():
    (e,) = entries([{"case": "c", "reason": "r", "options": {"delegate": "!none"}}])
    assert e.applies_to("1", {}) and e.applies_to("1", {"delegate": "xnnpack"})
    assert not e.applies_to("1", {"delegate": "none"})


def test_an_option_value_list_means_any_of_them_null_for_the_default():
    (e,) = entries([{"case": "c", "reason": "r", "options": {"ep": [None, "CPUExecutionProvider"]}}])
    assert e.applies_to("1", {}) and e.applies_to("1", {"ep": "CPUExecutionProvider"})
    assert not e.applies_to("1", {"ep": "CUDAExecutionProvider"})
    assert e.to_json()["options"] == {"ep": [None, "CPUExecutionProvider"]}


def test_onnxruntime_cpu_kernel_entries_stay_off_other_providers():
    """The H100 check (issue #30's round): ORT's CUDA provider failed cases
    with other deviations than the CPU kernels' (MLAS's sigmoid and erf); a
    CPU entry's reason never lands on a CUDA record, and the CUDA entries
    are in force only for the provider and version they were seen on."""
    bundled = bundled_expectations("onnxruntime")
    cpu = {e.index for e in bundled if e.applies_to("1.32.0", {})}
    assert cpu == {e.index for e in bundled if e.applies_to("1.32.0", {"ep": "CPUExecutionProvider"})}
    cuda = {e.index for e in bundled if e.applies_to("1.31.1", {"ep": "CUDAExecutionProvider"})}
    mlas = {e.index for e in bundled if "MLAS" in e.reason}
    assert mlas and mlas <= cpu and not mlas & cuda
    seen_on_cuda = {e.index for e in bundled if "CUDA" in e.reason}
    assert seen_on_cuda and seen_on_cuda <= cuda and not seen_on_cuda & cpu
    assert not any(e.applies_to("1.32.0", {"ep": "CUDAExecutionProvider"}) for e in bundled if e.index in seen_on_cuda)


def test_release_version_reads_backend_version_strings():
    assert str(release_version("2026.4.1-22982-e213a147257-releases/2026/4")) == "2026.4.1"
    assert release_version("unknown") is None


@pytest.mark.parametrize("doc,message", [
    ({"case": "c"}, r"\(document\): .* is not of type 'array'"),
    ([{"case": "c"}], r"\[0\]: 'reason' is a required property"),
    ([{"reason": "r"}], r"\[0\]: needs exactly one of \"case\" and \"match\""),
    ([{"reason": "r", "case": "c", "match": "m"}], r"\[0\]: needs exactly one"),
    ([{"reason": "r", "match": "("}], r"\[0\]\.match: not a regular expression"),
    ([{"reason": "r", "case": "c", "versions": "one point two"}], r"\[0\]\.versions: not a version specifier"),
    ([{"reason": "r", "case": "c", "cases": "typo"}], r"\[0\]: Additional properties"),
    ([{"reason": "r", "case": "c", "options": {"ep": []}}], r"\[0\]\.options\.ep: "),
    ([{"reason": "r", "case": "c", "options": {"ep": 3}}], r"\[0\]\.options\.ep: "),
])
def test_malformed_files_are_one_line_errors(doc, message):
    with pytest.raises(ExpectationsError, match=r"^x\.json: " + message):
        entries(doc)


def test_read_errors_name_the_file(tmp_path):
    with pytest.raises(ExpectationsError, match="not valid JSON"):
        (tmp_path / "e.json").write_text("[")
        read_expectations(tmp_path / "e.json")
    with pytest.raises(ExpectationsError, match="cannot read"):
        read_expectations(tmp_path / "missing.json")


@pytest.mark.parametrize("backend", ["onnxruntime", "openvino"])
def test_bundled_known_failure_files_follow_the_schema(backend):
    assert bundled_expectations(backend)
    assert bundled_expectations("no-such-backend") == ()


def test_given_files_add_to_the_bundled_ones(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps([{"file": "relu.json", "case": "c", "reason": "mine"}]))
    es = ExpectationSet.for_backend("onnxruntime", "1.32.0", {}, [path])
    assert es.entries[-1].reason == "mine" and es.entries[-1].source == str(path)
    assert len(es.entries) > 1


def test_shard_reports_merge_to_the_single_run_outcome():
    one = [{"source": "f", "index": 0, "outcome": "stale"}, {"source": "f", "index": 1, "outcome": "unmatched"},
           {"source": "f", "index": 2, "outcome": "unmatched"}]
    two = [{"source": "f", "index": 0, "outcome": "applied"}, {"source": "f", "index": 1, "outcome": "stale"},
           {"source": "f", "index": 2, "outcome": "unmatched"}]
    assert [e["outcome"] for e in merge_reports([one, two])] == ["applied", "stale", "unmatched"]


def test_update_writes_failures_keeps_live_entries_and_drops_passing_ones(tmp_path):
    path = tmp_path / "exp.json"
    previous = entries([
        {"file": "wpt/a.json", "case": "still failing", "reason": "known bug 1"},
        {"file": "wpt/a.json", "case": "fixed now", "reason": "known bug 2"},
        {"file": "wpt/b.json", "case": "not run", "reason": "known bug 3"},
        {"file": "wpt/a.json", "case": "fixed now", "reason": "other release", "versions": "<1"},
    ])
    records = [rec("wpt/a.json", "still failing", "fail"), rec("wpt/a.json", "fixed now", "pass"),
               rec("wpt/a.json", "new crash", "crash"), rec("wpt/a.json", "unsupported", "unsupported")]
    counts = update_expectations(path, records, previous, "1.0", {})
    assert counts == {"kept": 3, "added": 1, "dropped": 1}
    doc = json.loads(path.read_text())
    assert [e["reason"] for e in doc[:3]] == ["known bug 1", "known bug 3", "other release"]
    assert doc[3] == {"file": "wpt/a.json", "case": "new crash", "reason": "crash on acme 1.0: boom second line"}
    # the written file is valid and, applied to the same run, marks every failure
    es = ExpectationSet(read_expectations(path))
    assert all(not es.apply(r).counts_against for r in records)


def test_status_message_and_actual_pin_an_entry_to_the_one_failure_it_explains():
    es = ExpectationSet(entries([
        {"file": "q.json", "match": ".", "status": ["error"], "message": "invalid per spec: q: rank", "reason": "older rule"},
        {"file": "l.json", "case": "lstm", "status": ["fail"], "actual": 58.02899932861328, "reason": "wrong expected"},
    ]))
    older = rec("wpt/q.json", "a", "error")
    assert es.apply(older.with_(message="invalid per spec: q: rank 1")).known_failure == "older rule"
    # the same case failing another way is not the failure the entry names: not known, and not stale either
    assert es.apply(older.with_(message="a crash in the backend")).known_failure is None
    assert es.apply(rec("wpt/q.json", "b", "fail").with_(message="invalid per spec: q: rank 1")).known_failure is None
    lstm = rec("wpt/l.json", "lstm", "fail")
    assert es.apply(lstm.with_(actual_value=58.02899932861328)).known_failure == "wrong expected"
    assert es.apply(lstm.with_(actual_value=58.5)).known_failure is None
    assert [e["outcome"] for e in es.report()] == ["applied", "applied"]


def test_an_entry_that_only_met_other_failures_is_not_called_stale():
    es = ExpectationSet(entries([{"case": "c", "status": ["error"], "reason": "r"}]))
    es.apply(rec("wpt/x.json", "c", "fail"))
    assert es.stale() == [] and [e.reason for e in es.unmatched()] == ["r"]


@pytest.mark.parametrize("bad,field", [({"status": ["wrong"]}, "status"), ({"message": "("}, "message"),
                                       ({"evidence": ""}, "evidence"), ({"actual": [1]}, "actual")])
def test_the_new_fields_are_checked(bad, field):
    with pytest.raises(ExpectationsError, match=field):
        entries([{"case": "c", "reason": "r", **bad}])


def test_every_backend_gets_the_wpt_case_notes_each_with_its_rule_and_evidence():
    from webnn_harness.verdict.expectations import CASE_NOTE, CASE_NOTES, case_notes

    notes = case_notes()
    assert notes and all(n.reason.startswith(CASE_NOTE) and n.evidence for n in notes)
    # every note names the one failure it explains: a status, and a message or a value
    assert all(n.status and (n.message is not None or n.actual is not None) for n in notes)
    # written out and read back whole: an actual of 0 (the quantizeLinear note's) is kept
    assert [parse_expectations([n.to_json()], "x")[0].actual for n in notes] == [n.actual for n in notes]
    assert 0 in [n.actual for n in notes]
    sources = {e.source for e in ExpectationSet.for_backend("acme", "1", {}).entries}
    assert sources == {CASE_NOTES}
    assert ExpectationSet.for_backend("acme", "1", {}, bundled=False).entries == ()


@pytest.mark.parametrize("backend", ["onnxruntime", "openvino", "litert", "chromium"])
def test_shipped_entries_with_the_new_fields_round_trip(backend):
    for e in bundled_expectations(backend):
        assert parse_expectations([e.to_json()], "x")[0].to_json() == e.to_json()
