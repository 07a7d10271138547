"""Every non-pass on WPT's two corpora is accounted for on every backend (issue #40): a WPT case
that disagrees with the spec (a case note), a backend deviation listed with evidence and versions,
or a refusal in the backend's own words; nothing unaccounted (harness/verdict/accounting.py)."""
import pytest

from webnn_harness.cli import main
from webnn_harness.verdict.accounting import account, account_record
from webnn_harness.verdict.expectations import CASE_NOTE, parse_expectations
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.run_folder import backend_groups, read_run_folder


def rec(status, known=None, message="", case="c"):
    return Record(file="wpt/x.json", case=case, ops=("relu",), data_types=("float32",),
                  backend={"name": "acme", "version": "1"}, status=status, required=True,
                  message=message, known_failure=known)


ENTRIES = parse_expectations([
    {"file": "x.json", "case": "traced", "reason": "a deviation", "evidence": "seen on 1", "versions": ">=1"},
    {"file": "x.json", "case": "claimed", "reason": "a claim"},
], "acme/known_failures.json")


@pytest.mark.parametrize("record,category", [
    (rec("pass"), None),
    (rec("fail", known=CASE_NOTE + "an older rule"), "case"),
    (rec("fail", known="a deviation", case="traced"), "backend"),
    (rec("fail", known="a claim", case="claimed"), "unaccounted"),  # a reason without evidence and versions
    (rec("fail", known="a reason no shipped entry gives", case="traced"), "unaccounted"),
    (rec("unsupported", message="the backend has no int8 kernel"), "refused"),
    (rec("unsupported"), "unaccounted"),  # refused without saying why
    (rec("error", message="boom"), "unaccounted"),
    (rec("crash", message="SIGSEGV"), "unaccounted"),
])
def test_each_non_pass_falls_in_one_category(record, category):
    got = account_record(record, ENTRIES)
    assert (got.category if got else None) == category


@pytest.mark.parametrize("backend", ["reference", "onnxruntime", "openvino", "litert", "chromium"])
def test_nothing_unaccounted_on_both_wpt_corpora(backend, wpt, tmp_path):
    out = tmp_path / backend
    code = main(["run", "-q", "--backend", backend, "--cases", str(wpt), "--cases", str(wpt.parent / "wpt-extra"),
                 "--out", str(out)])
    (group,) = backend_groups(read_run_folder(out))
    got = account(group[1], backend, str(group[0].get("version")))
    assert [f"{i.id}: {i.status}: {i.reason}" for i in got.unaccounted] == []
    assert code == 0  # every non-pass known: the run's own exit code agrees
    assert sum(sum(s.values()) for s in got.statuses.values()) > 2000  # both corpora ran
    if backend == "reference":  # the oracle deviates from nothing: only WPT's cases disagree with the spec
        assert {i.category for i in got.items} == {"case"}
