"""The probe's findings tell the truth: rank sweeps run at a working data
type, value deviations are their own finding, graph-level limits do not need
identity, --compare blames nothing unverified, the layout verdict carries its
uncertainty, and the pages show the same numbers as the terminal."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from webnn_harness.probe.driver import probe
from webnn_harness.probe import deviations
from webnn_harness.probe.declared import compare_declared
from webnn_harness.probe.layout import median_interval, verdict
from webnn_harness.probe.summary import probe_summary_text

FAULTY = "webnn_harness.backends.faulty:create"
QUICK = dict(layout=False, byte_search=False, max_rank=3)


@pytest.fixture(scope="module")
def sign_wrong_in_floats(tmp_path_factory):
    # faulty's wrong_op perturbs float results only: sign is wrong in float32
    # (the baseline type) and float16, right in every integer type.
    return probe(FAULTY, {"wrong_op": "sign"}, tmp_path_factory.mktemp("sign"), ops=["sign"], **QUICK)


def test_rank_sweep_runs_at_a_data_type_that_works(sign_wrong_in_floats):
    limits = sign_wrong_in_floats.limits["sign"]["input"]
    assert limits["rankRange"] == {"min": 0, "max": 3}, "a broken baseline type must not cost the ranks"
    assert "float32" not in limits["dataTypes"] and "int32" in limits["dataTypes"]
    ranks = [e for e in sign_wrong_in_floats.evidence["combinations"] if e["axis"] == "rank"]
    assert ranks and all(e["operands"]["input"]["dataType"] == "int32" for e in ranks)
    assert all(e["outcome"] == "supported" for e in ranks)


def test_wrong_results_are_grouped_by_root_cause(sign_wrong_in_floats):
    findings = sign_wrong_in_floats.evidence["wrongFindings"]
    assert len(findings) == 1, findings  # one finding, not one per sweep that met it
    (f,) = findings
    assert f["op"] == "sign" and f["cause"] == "ordinary values" and set(f["dataTypes"]) == {"float32", "float16"}
    assert sign_wrong_in_floats.evidence["summary"]["valueDeviations"] == 0


def test_graph_level_limits_without_identity(tmp_path):
    result = probe(FAULTY, {"reject_op": "identity"}, tmp_path, ops=["identity", "reshape", "relu"], **QUICK)
    for member in ("input", "constant", "output"):
        assert result.limits[member]["dataTypes"], f"{member}: a backend without identity still takes {member}s"
        assert result.limits[member]["rankRange"] == {"min": 0, "max": 3}
        assert result.evidence["analysis"]["graph"][member]["graphSweepOp"] == "reshape"
    assert result.limits["identity"]["input"]["dataTypes"] == []


def test_onnxruntime_sign_ranks_and_nan_deviation(tmp_path):
    pytest.importorskip("onnxruntime")
    result = probe("onnxruntime", {}, tmp_path, ops=["sign"], **QUICK)
    assert result.limits["sign"]["input"]["rankRange"] == {"min": 0, "max": 3}
    nan = [f for f in result.evidence["wrongFindings"] if f["values"] == ["NaN"]]
    if not result.evidence["wrongFindings"]:
        pytest.skip("this onnxruntime computes sign(NaN) as the spec says")
    assert nan and nan[0]["cause"] == "special values" and "float32" in nan[0]["dataTypes"]


def test_value_classes_and_classification():
    x = np.array([np.nan, 1.0, -0.0, np.inf], np.float32)
    assert set(deviations.value_classes(x, "float32")) == {"NaN", "Infinity", "negative zero"}
    big = np.array([2**53 + 1, 2**40, 5], np.int64)
    assert set(deviations.value_classes(big, "int64")) == {"beyond 2^53", "beyond 2^31"}
    ok = frozenset({"supported"})
    assert deviations.classify(["NaN"], {None: "supported"}, ok) == {"cause": "special values", "values": ["NaN"]}
    assert deviations.classify(["NaN", "Infinity"], {None: "supported", "NaN": "wrong", "Infinity": "supported"}, ok)["values"] == ["NaN"]
    assert deviations.classify(["NaN"], {None: "wrong"}, ok)["cause"] == "ordinary values"


def _entry(op, member, axis, value, data_type, rank, outcome, message="", ident=None):
    return {"id": ident or f"{op}/{member}.{axis}={value}", "op": op, "role": None, "member": member, "axis": axis,
            "value": value, "inSpec": True, "operands": {member: {"dataType": data_type, "shape": [2] * rank}},
            "outputs": [], "outcome": outcome, "message": message}


def _evidence():
    combos = [
        _entry("relu", "input", "baseline", "", "float32", 2, "supported", ident="relu/baseline"),
        _entry("relu", "input", "dataType", "int64", "int64", 2, "unverified"),
        _entry("relu", "input", "dataType", "int32", "int32", 2, "rejected", "no int32 kernel"),
        _entry("relu", "input", "dataType", "uint32", "uint32", 2, "rejected", "no int32 kernel"),
        _entry("relu", "input", "dataType", "int8", "int8", 2, "supported"),
        *[_entry("relu", "input", "rank", r, "float32", r, "supported") for r in range(9)],
        _entry("gemm", "a", "rank", 2, "float32", 2, "supported"),
    ]
    analysis = {"relu": {"input": {"workingDataTypes": ["float32", "int8"], "workingRanks": list(range(9))}},
                "gemm": {"a": {"workingDataTypes": ["float32"], "workingRanks": [1, 2]}}}
    return {"combinations": combos, "analysis": analysis, "preferredInputLayout": {"preferred": "nchw"},
            "maxTensorByteLength": {"maxTensorByteLength": 1 << 20, "kind": "budget"}}


def test_compare_reads_declarations_as_a_browser_does():
    declared = {"$provenance": {"file": "x"}, "maxTensorByteLength": 1 << 30,
                "relu": {"input": {"dataTypes": ["float32", "int64", "int32", "uint32", "int4", "bfloat16"]}},
                "gemm": {"a": {"dataTypes": ["float32"], "rankRange": {"min": 2, "max": 2}}}}
    diff = compare_declared(declared, _evidence(), "declared.json")
    broken = diff["declaredButBroken"]
    assert len(broken) == 1 and broken[0]["cause"] == "no int32 kernel", broken  # grouped by cause
    assert broken[0]["members"]["input"]["dataTypes"] == ["int32", "uint32"] and broken[0]["evidence"]
    assert [g["members"]["input"]["dataTypes"] for g in diff["declaredUnverified"]] == [["int64"]]
    not_tried = {t: g["cause"] for g in diff["declaredNotTried"] if g["op"] == "relu" for t in g["members"]["input"]["dataTypes"]}
    assert not_tried == {"int4": "never tried by the probe", "bfloat16": "not a data type the harness knows"}
    undeclared = diff["workingButUndeclared"]
    assert [g["members"] for g in undeclared] == [{"input": {"dataTypes": ["int8"], "ranks": []}}], \
        "no rankRange reads as the spec's ranks; gemm's rank 1 is outside the spec's allowed ranks"
    assert diff["topLevel"]["maxTensorByteLength"]["note"] == "at least this (search budget reached)"
    assert diff["counts"]["declaredButBroken"] == 2 and diff["groups"]["declaredButBroken"] == 1
    assert diff["provenance"] == {"file": "x"}


def test_layout_interval_and_verdict():
    med, lo, hi = median_interval([0.9, 0.92, 0.91, 0.93, 0.89, 0.9, 0.92, 0.95, 0.88, 0.9])
    assert lo <= med <= hi < 1 and verdict(lo, hi) == "nhwc"
    med, lo, hi = median_interval([0.8, 1.2, 0.9, 1.1, 1.0, 0.95, 1.05])
    assert verdict(lo, hi) == "no significant preference"
    assert verdict(1.01, 1.2) == "nchw"


def test_backend_page_and_terminal_agree(sign_wrong_in_floats, tmp_path):
    from webnn_harness.reports import build_model, build_site

    out = sign_wrong_in_floats.evidence_path.parent
    declared = tmp_path / "declared.json"
    declared.write_text(json.dumps({"sign": {"input": {"dataTypes": ["float32", "int32"]}}}))
    evidence = json.loads(sign_wrong_in_floats.evidence_path.read_text())
    evidence["compare"] = compare_declared(json.loads(declared.read_text()), evidence, declared.name)
    sign_wrong_in_floats.evidence_path.write_text(json.dumps(evidence))
    model = build_model([out])
    (pb,) = model.probes
    text = probe_summary_text(evidence)
    c = pb.counts
    assert f"{c['complete'] + c['emulated']} of 1 support" in text and f"{c['gaps']} miss" in text
    assert f"{c['wrong']} compute wrong" in text
    index = build_site([out], tmp_path / "site")
    page = next((index.parent / "backends").glob("*.html")).read_text()
    title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
    assert "<" not in title and "capabilities" in title
    assert "Declared but broken" in page and "<table class=\"gaps compare\">" in page
    assert "wrong on ordinary values" in page


def test_one_classification_per_op_and_data_type_on_every_page_and_the_terminal(sign_wrong_in_floats, tmp_path):
    """Issue 25, item 7: sign, accepted and wrong in float32, was counted both
    "with gaps" and "with wrong results" (the matrix header added up to one
    more operator than there are), its float32 chip said "required, not
    supported", and the backend page counted its gaps apart from the index."""
    from webnn_harness.reports import build_model, build_site

    out = sign_wrong_in_floats.evidence_path.parent
    model = build_model([out])
    (pb,) = model.probes
    sign = pb.ops["sign"]
    assert sign.status == "wrong" and not sign.has_gaps
    (member,) = [m for m in sign.members if m.member == "input"]
    assert "float32" in member.wrong_types and "float32" not in member.missing_types
    c = pb.counts
    assert sum(c.values()) == len(pb.ops) == 95  # one status per operator
    assert (c["wrong"], c["gaps"], c["absent"]) == (1, 0, 0)
    summary = sign_wrong_in_floats.evidence["summary"]["operators"]
    assert summary == {"complete": 0, "gaps": 0, "wrong": 1, "absent": 0}  # the terminal's numbers, the same
    assert "0 miss a required data type or rank, 1 compute wrong values" in probe_summary_text(sign_wrong_in_floats.evidence)
    index = build_site([out], tmp_path / "site")
    html = index.read_text()
    row = re.search(r"<tr>\s*<td><a href=\"backends/.*?</tr>", html, re.S).group(0)
    cells = [int(n) for n in re.findall(r'<td class="num[^"]*">(\d+)</td>', row)]
    assert sum(cells) == 95, f"the index's columns count each operator once (sign was in two): {cells}"
    sign_cell = re.search(r'title="sign on .*?</a>', html, re.S).group(0)
    assert 'class="t wrong" title="float32: accepted, computes wrong values"' in sign_cell
    assert "float32: required by the spec, not supported" not in sign_cell
    page = next((index.parent / "backends").glob("*.html")).read_text()
    assert "0 miss a required data type or rank, 1 compute wrong values" in page
    assert "(0 with gaps, 1 wrong, 0 not supported)" in page
