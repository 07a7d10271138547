"""The HTML report: the model's numbers, escaping, the site's structure, the CLI.

Fixtures here are small hand-written run and probe outputs in the exact
formats harness/outputs/records.py and harness/probe write; tests/test_reports_browser.py
renders real runs and probes and loads them in Chromium.
"""
from __future__ import annotations

import json
import re
import shlex
from html.parser import HTMLParser
from pathlib import Path

import pytest
from webnn_harness.spec.catalog import operators
from webnn_harness.reports import ReportInputError, build_model, build_site
from webnn_harness.reports.capability import member_capability
from webnn_harness.reports.common import (
    format_value,
    options_from_command,
    options_from_settings,
    rerun_command,
)
from webnn_harness.reports.conformance import cell_outcome
from webnn_harness.verdict.record import Record
from webnn_harness.outputs.records import BackendTally, ResultWriter, write_summary

XSS = "<script>alert(1)</script>"
ORT = {"name": "onnxruntime", "version": "1.31.1", "device": "CPUExecutionProvider (x86_64)",
       "settings": {"provider": "CPUExecutionProvider", "graph_optimization_level": "all", "intra_op_threads": 1}}


def rec(case, status="pass", ops=("relu",), types=("float32",), required=True, backend=ORT, **kw) -> Record:
    return Record(file="cases/elementwise/relu.json", case=case, ops=tuple(ops), data_types=tuple(types),
                  backend=backend, status=status, required=required, **kw)


def write_run(out: Path, records: list[Record], command: str) -> Path:
    writer = ResultWriter(out)
    tallies: dict[str, BackendTally] = {}
    for r in records:
        writer.write(r)
        tallies.setdefault(r.backend["name"], BackendTally(r.backend)).add(r)
    writer.close()
    write_summary(out, tallies.values(), {"cases": len(records), "command": command})
    return out


RECORDS = [
    rec("relu float32 1D"),
    rec("relu float32 2D"),
    rec("relu float16 1D", types=("float16",)),
    rec(f"relu {XSS} float32", status="fail", metric="ULP", budget=0.0, max_error=3.0, output="out",
        worst_index=(1,), expected_value=1.5, actual_value=1.5000003),
    rec("relu int64 beyond 2^53", status="fail", types=("int64",), required=False, metric="exact", budget=0.0,
        max_error=float("inf"), worst_index=(0, 2), expected_value={"bigint": "9223372036854775807"}, actual_value=1),
    rec("reduceL1 uint32", status="unsupported", ops=("reduceL1",), types=("uint32",), required=False,
        message="<img src=x onerror=alert(2)> NOT_IMPLEMENTED"),
    rec("conv2d then relu", ops=("conv2d", "relu"), types=("float32",)),
    rec("clamp int32 known", status="fail", ops=("clamp",), types=("int32",), known_failure="upstream bug #1"),
]


def limits_doc(drop_conv_f16=False, clamp_types=("float32", "float16", "int32")) -> dict:
    """A small MLOpSupportLimits: relu and clamp complete-ish, conv2d maybe missing float16."""
    def tl(types, lo, hi):
        return {"dataTypes": list(types), "rankRange": {"min": lo, "max": hi}}

    conv_types = ("float32",) if drop_conv_f16 else ("float32", "float16")
    return {
        "preferredInputLayout": "nhwc", "maxTensorByteLength": 2**31,
        "input": tl(("float32", "float16", "int32"), 0, 8), "constant": tl(("float32",), 0, 8),
        "output": tl(("float32", "float16", "int32"), 0, 8),
        "relu": {"input": tl(("float32", "float16", "int32", "int8"), 0, 8),
                 "output": tl(("float32", "float16", "int32", "int8"), 0, 8)},
        "clamp": {"input": tl(clamp_types, 0, 8), "output": tl(clamp_types, 0, 8)},
        "conv2d": {m: tl(conv_types, 4, 4) if m != "bias" else tl(conv_types, 1, 1)
                   for m in ("input", "filter", "bias", "output")},
        "abs": {"input": tl((), 0, 0), "output": tl((), 0, 0)},  # probed, nothing works
        "softmax": {"input": tl(("float32", "float16"), 2, 4), "output": tl(("float32", "float16"), 2, 4)},
    }


def probe_doc(version: str, wrong_case: str = XSS) -> dict:
    combo = {
        "id": "clamp/input.dataType=int32", "op": "clamp", "role": None, "member": "input", "axis": "dataType",
        "value": "int32", "inSpec": True, "operands": {"input": {"dataType": "int32", "shape": [2, 3]}},
        "outputs": [{"member": "output", "dataType": "int32", "shape": [2, 3]}],
        "attributes": {"minValue": -50, "maxValue": 100}, "outcome": "wrong", "message": wrong_case,
        "metric": "exact", "budget": 0.0, "maxError": 2.0, "example": {"index": [0, 2], "expected": 100, "actual": 102},
    }
    emulated = {**combo, "id": "relu/baseline=", "op": "relu", "member": None, "axis": "baseline", "value": "",
                "outcome": "emulated", "message": "", "example": None, "attributes": {}}
    layout = {**combo, "id": "conv2d/option=inputLayout=nhwc", "op": "conv2d", "member": None, "axis": "option",
              "value": "inputLayout=nhwc", "outcome": "supported", "message": "", "example": None}
    return {
        "header": {"harness": "webnn-harness", "harnessVersion": "0.1.0", "date": "2026-01-02T03:04:05+00:00",
                   "machine": {"platform": "test"},
                   "backend": {"name": "fakert", "version": version, "device": "CPU", "settings": {"ep": "cpu"}}},
        "summary": {"combinations": 3, "uniqueCalls": 3, "outcomes": {"supported": 1, "emulated": 1, "wrong": 1},
                    "seconds": 1.5},
        "combinations": [combo, emulated, layout],
        "optionValues": {"conv2d": {"inputLayout=nhwc": "supported", "groups=2": "rejected"}},
        "beyondSpecDataTypes": {},
        "emulations": {"relu": "Max(x, 0)"},
        "preferredInputLayout": {
            "preferred": "nhwc", "basis": "geometric mean of nhwc/nchw time ratios = 0.571",
            "shapes": {"channels": 32}, "ended": "end",
            "timings": {"conv2d": {"nchw": {"medianSeconds": 0.0021, "runs": 20},
                                   "nhwc": {"medianSeconds": 0.0012, "runs": 20}, "nhwcOverNchw": 0.5714},
                        "maxPool2d": {"nchw": {"medianSeconds": None, "runs": 0, "error": "Unsupported: <x>"},
                                      "nhwc": {"medianSeconds": 2.5e-5, "runs": 20}, "nhwcOverNchw": None}}},
        "maxTensorByteLength": {"maxTensorByteLength": 2**31, "kind": "budget" if version == "1.0" else "time",
                                "budget": 2**31,
                                "op": "relu (float32)", "firstFailure": None, "attempts": [{"bytes": 1, "ok": True}]},
        "analysis": {op: {} for op in ("relu", "clamp", "conv2d", "abs", "softmax")},
        "notTried": [], "harnessProblems": [],
    }


@pytest.fixture
def inputs(tmp_path: Path) -> list[Path]:
    run = write_run(tmp_path / "run", RECORDS, "webnn-harness run --backend onnxruntime -o threads=4 --out run")
    probe_dir = tmp_path / "probe"
    probe_dir.mkdir()
    for version, drop in (("1.0", False), ("1.1", True)):
        (probe_dir / f"fakert{version}-opSupportLimits.json").write_text(json.dumps(limits_doc(drop)))
        (probe_dir / f"fakert{version}-probe.json").write_text(json.dumps(probe_doc(version)))
    return [run, probe_dir]


@pytest.fixture
def site(inputs, tmp_path) -> Path:
    index = build_site(inputs, tmp_path / "site")
    assert index == tmp_path / "site" / "index.html"
    return index.parent


# ---------------------------------------------------------------- model: conformance


def test_counts_rates_and_known_failures(inputs):
    conf = build_model(inputs).conformance
    (b,) = conf.backends
    assert b.total == len(RECORDS)
    assert b.counts["pass"] == 4 and b.counts["fail"] == 3 and b.counts["unsupported"] == 1
    # required: 4 pass, 1 fail, 1 known fail -> 4/6; optional: 0 pass of 2
    assert b.required_rate == pytest.approx(4 / 6)
    assert b.optional_rate == 0.0
    assert b.known_failures == 1
    assert b.required_problems == 1  # the XSS-named fail; the known failure does not count
    assert b.header.harness_version and b.header.command.startswith("webnn-harness run")
    assert (b.required_failing, b.required_unsupported) == (2, 0)  # the known failure is still a failure
    assert b.supported_rate == pytest.approx(4 / 6)


def test_real_failures_lead_and_unsupported_rows_come_last(inputs):
    conf = build_model(inputs).conformance
    ranks = [(p.status, bool(p.known_failure), p.required) for p in conf.problems]
    assert ranks == [("fail", False, True), ("fail", False, False), ("fail", True, True), ("unsupported", False, False)]


def test_runs_of_one_backend_are_told_apart_by_label_and_pages_carry_no_local_path(tmp_path):
    folders = []
    for label in ("wpt", "cases"):
        out = tmp_path / f"/home/someone/ci/{label}".lstrip("/")
        write_run(out, RECORDS[:4], f"/home/someone/.venv/bin/webnn-harness run --cases /home/someone/shared/{label} "
                                    f"--out /home/someone/ci/{label}")
        doc = json.loads((out / "summary.json").read_text())
        (out / "summary.json").write_text(json.dumps({**doc, "label": label}))
        folders.append(out)
    conf = build_model(folders).conformance
    assert [b.backend.label for b in conf.backends] == ["onnxruntime 1.31.1", "onnxruntime 1.31.1 · cases"]
    assert [b.header.label for b in conf.backends] == ["wpt", "cases"]
    index = build_site(folders, tmp_path / "site")
    for page in index.parent.rglob("*.html"):
        assert "/home/someone" not in page.read_text(), page
        assert str(tmp_path) not in page.read_text(), page


def test_matrix_lists_all_95_operators_with_not_tested_cells(inputs):
    (b,) = build_model(inputs).conformance.backends
    matrix = dict(b.matrix)
    assert list(matrix)[:95] == list(operators()) and len(matrix) == 95
    relu = dict(zip(b.data_types, matrix["relu"]))
    assert relu["float32"].outcome == "partial"  # 3 pass (one via the conv2d+relu graph), 1 fail
    assert (relu["float32"].passed, relu["float32"].total) == (3, 4)
    assert relu["float16"].outcome == "pass"
    assert relu["int64"].outcome == "fail"
    assert relu["uint8"].outcome == "untested" and relu["uint8"].title.endswith("no cases")
    assert dict(zip(b.data_types, matrix["conv2d"]))["float32"].outcome == "pass"
    assert dict(zip(b.data_types, matrix["clamp"]))["int32"].outcome == "known"
    assert dict(zip(b.data_types, matrix["reduceL1"]))["uint32"].outcome == "unsupported"
    assert all(c.outcome == "untested" for c in matrix["gru"])
    assert b.ops_tested == 4


@pytest.mark.parametrize("counts, known, outcome", [
    ({}, 0, "untested"), ({"pass": 2}, 0, "pass"), ({"pass": 1, "fail": 1}, 0, "partial"),
    ({"crash": 1}, 0, "fail"), ({"fail": 1}, 1, "known"), ({"pass": 1, "fail": 1}, 1, "known"),
    ({"unsupported": 2}, 0, "unsupported"), ({"unsupported": 1, "pass": 1}, 0, "partial-unsupported"),
    ({"skipped": 1}, 0, "skipped"), ({"timeout": 1, "unsupported": 1}, 0, "fail"),
])
def test_cell_outcome(counts, known, outcome):
    from collections import Counter

    assert cell_outcome(Counter(counts), known) == outcome


def test_problem_rows_carry_values_and_a_rerun_command(inputs):
    conf = build_model(inputs).conformance
    assert len(conf.problems) == 4
    big = next(p for p in conf.problems if "2^53" in p.case)
    assert big.expected == "9223372036854775807" and big.actual == "1"
    assert big.max_error == "inf" and big.worst_index == "[0, 2]" and big.metric == "exact"
    assert set(conf.filter_statuses) == {"fail", "unsupported"}
    assert "reduceL1" in conf.filter_ops and "uint32" in conf.filter_types
    # options come from the run's recorded command line
    argv = shlex.split(big.command)
    assert argv[:4] == ["webnn-harness", "run", "--backend", "onnxruntime"]
    assert argv[argv.index("-o") + 1] == "threads=4"
    assert "--cases" not in argv  # the bundled corpus is the default
    assert argv[argv.index("--id") + 1] == f"cases/elementwise/relu.json::{big.case}"
    assert argv[argv.index("--out") + 1].startswith("out/rerun-onnxruntime-")


@pytest.mark.parametrize("name", [XSS, "a (b) [c] {d} x.y $z ^ * + ? | \\ 'quote'", "plain name"])
def test_rerun_command_names_the_case_by_id_and_a_fresh_out_folder(name):
    argv = shlex.split(rerun_command({"name": "reference"}, [], "wpt/f.json", name))
    assert argv[argv.index("--cases") + 1] == "wpt"  # the corpus name: no local path on a page
    assert argv[argv.index("--id") + 1] == f"wpt/f.json::{name}"
    local = shlex.split(rerun_command({"name": "reference"}, [], "wpt/f.json", name, "/data/wpt"))
    assert local[local.index("--cases") + 1] == "/data/wpt"
    other = shlex.split(rerun_command({"name": "reference"}, [], "wpt/f.json", name + "x"))
    assert argv[argv.index("--out") + 1] != other[other.index("--out") + 1]


def test_options_recovered_from_command_or_settings():
    assert options_from_command("webnn-harness run -b openvino -o device=GPU --option precision=default") == [
        "device=GPU", "precision=default"]
    assert options_from_command("") is None
    assert options_from_settings({"name": "openvino", "settings": {"device": "GPU", "precision": "exact"}}) == [
        "device=GPU"]
    assert options_from_settings({"name": "onnxruntime", "settings": {"provider": "CUDAExecutionProvider",
                                                                      "intra_op_threads": 1}}) == [
        "ep=CUDAExecutionProvider"]


def test_format_value():
    assert format_value({"bigint": "18446744073709551615"}) == "18446744073709551615"
    assert format_value(1.5000003) == "1.5000003"
    assert format_value(float("nan")) == "nan"
    assert format_value(None) == ""
    assert format_value([1, 2.5]) == "[1, 2.5]"


# ---------------------------------------------------------------- model: capabilities


def test_member_capability_marks_missing_required_types_and_ranks():
    spec = operators()["softmax"]
    ok = member_capability(spec, "input", {"dataTypes": ["float32", "float16"],
                                           "rankRange": {"min": 0, "max": 8}})
    assert ok.missing_types == () and ok.missing_ranks == ""
    lo, hi = spec.operands["input"].required_ranks.min, spec.operands["input"].required_ranks.max
    narrow = member_capability(spec, "input", {"dataTypes": ["float32"], "rankRange": {"min": lo + 1, "max": hi}})
    assert narrow.missing_types == ("float16",)
    assert narrow.missing_ranks.startswith(f"spec requires rank {lo}–")
    absent = member_capability(spec, "input", None)
    assert absent.missing_types == spec.operands["input"].required_data_types


def test_capability_model_from_probe_files(inputs):
    m = build_model(inputs)
    assert [p.backend.label for p in m.probes] == ["fakert 1.0", "fakert 1.1"]  # versions in order
    old, new = m.probes
    assert old.preferred_layout == "nhwc" and old.max_tensor_byte_length == 2**31
    assert old.layout_timings == (("conv2d", "2.100 ms (median of 20)", "1.200 ms (median of 20)", "0.571"),
                                  ("maxPool2d", "failed: Unsupported: <x>", "25.0 µs (median of 20)", ""))
    assert old.layout_basis.startswith("geometric mean") and ("shapes.channels", "32") in old.layout_evidence
    assert "memory budget" in old.bytes_lower_bound and ("attempts", "1") in old.bytes_evidence
    assert "time budget" in new.bytes_lower_bound  # a search cut short by time is a lower bound too
    assert old.limits_download == "fakert-1.0-opSupportLimits.json"
    assert old.ops["relu"].status == "emulated" and old.ops["relu"].emulated == "Max(x, 0)"
    assert old.ops["clamp"].status == "wrong" and len(old.ops["clamp"].wrong) == 1
    assert old.ops["conv2d"].status == "complete"
    assert dict(old.ops["conv2d"].layouts) == {"inputLayout=nhwc": "supported"}
    assert dict(old.ops["conv2d"].option_variants) == {"groups=2": "rejected"}
    assert new.ops["conv2d"].status == "gaps" and new.ops["conv2d"].missing_types == ("float16",)
    assert old.ops["abs"].status == "absent"  # probed, nothing works
    assert old.ops["gru"].status == "unprobed"  # the probe's analysis does not name it
    assert old.ops["softmax"].has_gaps  # ranks 2-4 only
    assert m.changed == {("fakert-1.1", "conv2d")}
    assert old.counts["wrong"] == 1 and old.counts["absent"] == 1


def test_the_required_set_as_a_certificate_measured_and_declared(inputs, tmp_path):
    old, new = build_model(inputs).probes
    # measured: abs lists nothing, clamp computes int32 wrong, softmax misses ranks, 1.1's conv2d float16
    assert not old.certificate.measured_met and old.certificate.declared is None
    assert [t for t in old.certificate.measured if t.startswith("clamp")] == [
        f"clamp: computes wrong values ({old.ops['clamp'].wrong[0].varied})"]
    assert any(t.startswith("abs.input: ") for t in old.certificate.measured)
    assert "conv2d.input: float16" in new.certificate.measured and "conv2d.input: float16" not in old.certificate.measured
    # declared: the probe's declaredConformanceGaps (a malformed entry counts for nothing)
    folder = tmp_path / "declared"
    folder.mkdir()
    doc = probe_doc("1.0")
    doc["declaredConformanceGaps"] = [{"op": "conv2d", "member": "filter", "dataTypes": ["float16"], "ranks": [],
                                       "listed": True},
                                      {"op": "relu", "member": "input", "dataTypes": [], "ranks": [0, 1, 2, 4],
                                       "listed": True}, {"op": 7}]
    doc["declaredConformanceGapsSource"] = "chromium-ort-opSupportLimits.json"
    (folder / "fakert1.0-opSupportLimits.json").write_text(json.dumps(limits_doc()))
    (folder / "fakert1.0-probe.json").write_text(json.dumps(doc))
    (p,) = build_model([folder]).probes
    assert p.certificate.declared == ("conv2d.filter: float16", "relu.input: ranks 0–2, 4")
    assert p.certificate.declared_met is False and p.certificate.declared_source == "chromium-ort-opSupportLimits.json"
    doc["declaredConformanceGaps"] = []
    (folder / "fakert1.0-probe.json").write_text(json.dumps(doc))
    (p,) = build_model([folder]).probes
    assert p.certificate.declared_met is True
    html = (build_site([folder], tmp_path / "site").parent / "index.html").read_text()
    assert "declared: <strong>met</strong>" in html and f"measured: not met ({len(p.certificate.measured)})" in html
    assert "<li>softmax.input: spec requires rank 1–5, backend has 2–4</li>" in html


def test_limits_file_alone_is_enough(tmp_path):
    path = tmp_path / "declared-opSupportLimits.json"
    path.write_text(json.dumps(limits_doc()))
    (p,) = build_model([path]).probes
    assert p.backend.name == "declared"
    assert p.ops["gru"].status == "absent"  # without evidence, a missing member means not supported
    assert p.ops["relu"].status == "complete"


def test_bad_inputs_are_one_line_errors(tmp_path):
    with pytest.raises(ReportInputError, match="no such file"):
        build_model([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReportInputError, match="no run results"):
        build_model([tmp_path / "empty"])
    bad = tmp_path / "x-opSupportLimits.json"
    bad.write_text("[1, 2]")
    with pytest.raises(ReportInputError, match="expected a JSON object"):
        build_model([bad])
    broken = tmp_path / "run"
    broken.mkdir()
    (broken / "results.jsonl").write_text("{not json\n")
    with pytest.raises(ReportInputError, match="results.jsonl: line 1: not valid JSON"):
        build_model([broken])


# ---------------------------------------------------------------- the site


class _Page(HTMLParser):
    """Collects what the structural tests look at."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.scripts: list[dict] = []
        self.ids: set[str] = set()
        self.rows: dict[str, int] = {}
        self._table: list[str] = []
        self._in_tbody = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key):
                self.links.append(a[key])
        if tag == "script":
            self.scripts.append(a)
        if tag == "table":
            self._table.append(a.get("id", ""))
        if tag == "tbody":
            self._in_tbody = True
        if tag == "tr" and self._in_tbody and self._table:
            self.rows[self._table[-1]] = self.rows.get(self._table[-1], 0) + 1

    def handle_endtag(self, tag):
        if tag == "table" and self._table:
            self._table.pop()
        if tag == "tbody":
            self._in_tbody = False


def parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_site_layout_and_local_links(site):
    pages = sorted(site.rglob("*.html"))
    names = {p.relative_to(site).as_posix() for p in pages}
    assert {"index.html", "conformance.html", "backends/fakert-1.0.html", "backends/fakert-1.1.html"} <= names
    assert {f"ops/{op}.html" for op in operators()} <= names
    assert (site / "static" / "site.css").is_file() and (site / "static" / "site.js").is_file()
    for page in pages:
        parsed = parse(page)
        for link in parsed.links:
            assert not re.match(r"^(https?:)?//", link), f"{page}: external resource {link}"
            target = link.split("#")[0]
            if target:
                assert (page.parent / target).resolve().exists(), f"{page}: broken link {link}"
        # the only script is our own file, no inline script
        assert parsed.scripts == [{"src": "../" * (len(page.relative_to(site).parts) - 1) + "static/site.js"}]


def test_conformance_page_structure(site, inputs):
    page = parse(site / "conformance.html")
    assert page.rows["problem-table"] == 4
    text = (site / "conformance.html").read_text()
    assert text.count('<th class="opcol"><a href="ops/') == 95
    assert 'data-status="unsupported"' in text and 'data-required="optional"' in text
    assert "66.7%" in text  # required pass rate
    assert "<svg class=\"bar\"" in text


def test_capability_pages_structure(site):
    index = parse(site / "index.html")
    assert index.rows["cap-table"] == 95
    text = (site / "index.html").read_text()
    assert text.count('href="ops/conv2d.html#fakert-1.1"') == 1
    assert 'class="delta"' in text  # conv2d changed between the two versions
    assert 'class="t missing"' in text
    backend = (site / "backends" / "fakert-1.1.html").read_text()
    assert "2,147,483,648 bytes (2 GiB)" in backend and "at least" in backend
    assert "failed: Unsupported: &lt;x&gt;" in backend and "1.200 ms (median of 20)" in backend
    assert 'href="../data/fakert-1.1-opSupportLimits.json" download' in backend
    saved = json.loads((site / "data" / "fakert-1.1-opSupportLimits.json").read_text())
    assert saved == limits_doc(drop_conv_f16=True)
    op = (site / "ops" / "clamp.html").read_text()
    assert "at [0, 2] expected 100, got 102" in op and 'id="fakert-1.0"' in op


def test_untrusted_strings_are_escaped_everywhere(site):
    assert XSS in RECORDS[3].case
    seen_escaped = 0
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script>alert" not in html, page
        assert "<img src=x" not in html, page
        assert "onerror=alert" not in html or "&lt;img src=x onerror=alert(2)&gt;" in html, page
        seen_escaped += "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # the case name (conformance, relu page) and the probe message (clamp page) all came through
    assert seen_escaped >= 3


def test_rendering_is_deterministic(inputs, tmp_path):
    a = build_site(inputs, tmp_path / "a").parent
    b = build_site(inputs, tmp_path / "b").parent
    for page in a.rglob("*.html"):
        assert page.read_text() == (b / page.relative_to(a)).read_text(), page


def test_runs_only_site_leads_with_conformance(inputs, tmp_path):
    site = build_site(inputs[:1], tmp_path / "runs-only").parent
    assert "<h1>Conformance report</h1>" in (site / "index.html").read_text()
    assert not list(site.glob("backends/*"))


def test_cli_report(inputs, tmp_path, capsys):
    from webnn_harness.cli import main

    out = tmp_path / "cli-site"
    assert main(["report", *map(str, inputs), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert str(out / "index.html") in printed and (out / "index.html").resolve().as_uri() in printed
    assert main(["report", str(tmp_path / "nope"), "--out", str(out)]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_a_max_error_beyond_a_carried_interval_says_so(tmp_path):
    """A multi-op record judged by the chain rule measures its error from the
    interval the ancestors' budgets allow: the problem row says so, the others do not."""
    records = [rec("erf then min", status="fail", ops=("erf", "min"), metric="ULP", budget=0.0, max_error=8192.0,
                   carried=True, output="y", worst_index=(1, 2), expected_value=0.995, actual_value=0.993),
               rec("relu alone", status="fail", metric="ULP", budget=0.0, max_error=3.0, output="y")]
    run = write_run(tmp_path / "run", records, "webnn-harness run --backend onnxruntime --out run")
    problems = {p.case: p for p in build_model([run]).conformance.problems}
    assert problems["erf then min"].carried and not problems["relu alone"].carried
    site = build_site([run], tmp_path / "site").parent
    for page in (site / "conformance.html", site / "ops" / "erf.html"):
        text = page.read_text()
        assert text.count("beyond carried interval") == 1, page.name
    assert "beyond carried interval" not in (site / "ops" / "relu.html").read_text()
