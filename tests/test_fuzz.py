"""The fuzzer: graphs it draws are valid, the reference against itself finds
nothing, a planted bug is found and shrunk to a small runnable case, a crash
is a finding, and findings are grouped by root cause."""
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from webnn_harness.backends.reference import evaluate
from webnn_harness.loading.cases import load_file
from webnn_harness.cli import main
from webnn_harness.verdict.expectations import Expectation
from webnn_harness.fuzz.driver import FuzzSettings, fuzz
from webnn_harness.fuzz.findings import case_json, group_key, related_expectations, same_root_cause
from webnn_harness.fuzz.strategies import graphs, fuzzable_ops
from webnn_harness.verdict.record import Record

FAULTY = "webnn_harness.backends.faulty:create"
QUIET = {"crash_op": "", "hang_op": ""}  # faulty's default crash/hang ops off


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True)
@given(graphs(fuzzable_ops(), max_ops=2))
def test_drawn_graphs_pass_the_create_steps_and_load_back_as_cases(tmp_path_factory, graph):
    """Every drawn graph went through the builder (the create steps), its
    reference runs, and its case file loads back to the same graph."""
    values = evaluate(graph.case.graph, graph.case.inputs)
    assert set(values) >= set(graph.case.graph.outputs)
    path = tmp_path_factory.mktemp("case") / "g.json"
    path.write_text(json.dumps({"tests": [case_json(graph, "g")]}))
    (loaded,) = list(load_file(path))
    assert not hasattr(loaded, "message"), str(loaded)
    assert [n.op for n in loaded.graph.nodes] == [n.op for n in graph.case.graph.nodes]
    for name, value in graph.case.inputs.items():
        np.testing.assert_array_equal(loaded.inputs[name], value)


def test_edge_values_are_drawn():
    """NaN, infinities and integers beyond 2^53 appear among the inputs."""
    seen = set()

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True)
    @given(graphs(("add", "max"), max_ops=1))
    def collect(graph):
        for v in graph.case.inputs.values():
            if v.dtype.kind == "f":
                seen.update({"nan"} if np.isnan(v).any() else set())
                seen.update({"inf"} if np.isinf(v).any() else set())
            elif v.dtype == np.int64 and any(abs(int(x)) > 2**53 for x in v.reshape(-1)):
                seen.add("int64>2^53")

    collect()
    assert {"nan", "inf", "int64>2^53"} <= seen


def test_reference_against_itself_finds_nothing(tmp_path):
    result = fuzz(FuzzSettings("reference", ops=("add", "relu", "reduceSum", "transpose", "cast"), seconds=4, seed=7), tmp_path)
    assert result.tally.graphs > 10
    assert result.findings == []
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["findings"] == [] and summary["backend"]["name"] == "reference"
    assert summary["settings"]["seed"] == 7 and summary["harnessVersion"] and summary["machine"]
    assert sum(n for per in summary["triedByOp"].values() for n in per.values()) >= summary["graphs"]


def test_planted_negative_float16_bug_is_found_and_shrunk(tmp_path, capsys):
    """faulty adds 1 to relu's float16 output where the input is negative:
    the finding is relu float16, shrunk to a few elements, and its case file
    fails again under `run` on that backend and passes on the reference."""
    result = fuzz(FuzzSettings(FAULTY, {**QUIET, "wrong_negative_f16_op": "relu"}, ("relu",), seconds=6, seed=1, shrink_seconds=30,
                               shrink_cap=30), tmp_path)
    assert result.findings, "the planted bug was not found"
    for f in result.findings:
        assert f.ops == ("relu",) and "float16" in f.data_types and f.status == "fail"
        assert f.cause == "backend" and f.cause_note == ""  # relu in float16 does not give x + 1 either
    assert result.new_deviations == result.findings  # the command exits 1 on these
    smallest = min(result.findings, key=lambda f: f.elements)
    assert smallest.elements <= 4 and smallest.nodes == 1
    case_file = tmp_path / "findings" / f"{smallest.id}.json"
    doc = json.loads(case_file.read_text())
    (data,) = doc["tests"][0]["graph"]["inputs"].values()
    assert any(isinstance(x, float) and x < 0 for x in data["data"])  # the negative input that trips it
    details = json.loads((tmp_path / "findings-details" / f"{smallest.id}.json").read_text())
    assert details["worst"]["expected"] != details["worst"]["actual"] and details["seed"] == 1
    args = ["run", "--cases", str(case_file), "--workers", "1", "-q"]
    assert main([*args, "--backend", FAULTY, "-o", "crash_op=", "-o", "hang_op=", "-o", "wrong_negative_f16_op=relu",
                 "--out", str(tmp_path / "rerun")]) == 1
    assert main([*args, "--backend", "reference", "--out", str(tmp_path / "rerun-ref")]) == 0


def test_a_crash_is_a_finding_and_the_fuzzer_goes_on(tmp_path):
    # Shrinking a crash restarts a worker per step: on a loaded machine the
    # default cap (10 s) ate a 5 s budget before a second round began, and a
    # 1 s cap left the chain unshrunk. 5 s of shrinking in a 12 s budget does both.
    result = fuzz(FuzzSettings(FAULTY, {"crash_op": "abs", "hang_op": ""}, ("abs", "neg"), seconds=12, seed=2, shrink_cap=5),
                  tmp_path)
    crashes = [f for f in result.findings if f.status == "crash"]
    # One finding per root cause (op, data type, kind of value, message): chains that merely hold
    # abs are the same cause, so every crash finding is abs alone, one per data type it was drawn in.
    assert crashes and all(c.ops == ("abs",) for c in crashes)
    assert len({c.data_types for c in crashes}) == len(crashes)
    assert all("killed by SIGABRT" in c.message for c in crashes)
    assert result.rounds >= 2  # the search went on after the crash was written up


def _record(message="", expected=0.0, status="fail", ops=("relu",)):
    return Record(file="fuzz", case="c", ops=ops, data_types=("float16",), backend={}, status=status, required=True,
                  message=message, expected_value=expected)


def test_root_cause_key_ignores_numbers_and_masked_counts():
    a = group_key(_record("compute raised Error: index 7 out of range; 3 implementation-defined element(s) not compared"), "float16")
    b = group_key(_record("compute raised Error: index 12 out of range"), "float16")
    assert a == b
    assert group_key(_record(expected="NaN"), "float16") != group_key(_record(expected=1.5), "float16")
    assert group_key(_record(ops=("exp",)), "float16") != group_key(_record(), "float16")


def test_related_expectations_name_the_same_op_and_data_type():
    entries = [Expectation("gelu in float32", file="elementwise/gelu.json", match="^gelu float32 "),
               Expectation("pow int64", file="elementwise/pow.json", case="pow int64 values beyond 2^53")]
    assert [e.reason for e in related_expectations(("gelu",), ("float32",), entries)] == ["gelu in float32"]
    assert related_expectations(("gelu",), ("float16",), entries) == []
    assert [e.reason for e in related_expectations(("pow",), ("int64",), entries)] == ["pow int64"]


@pytest.mark.parametrize("argv,message", [
    (["--time", "0"], "argument --time: must be a finite number of seconds above 0"),
    (["--op", "noSuchOp"], "unknown WebNN operator"),
])
def test_cli_usage_mistakes_are_exit_2(tmp_path, capsys, argv, message):
    try:
        code = main(["fuzz", "--backend", "reference", "--out", str(tmp_path / "f"), *argv])
    except SystemExit as exc:  # argparse: the option's validator (harness/options.py)
        code = exc.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_cli_refuses_to_overwrite_a_fuzz_run(tmp_path, capsys):
    (tmp_path / "summary.json").write_text("{}")
    assert main(["fuzz", "--backend", "reference", "--time", "1", "--out", str(tmp_path)]) == 2
    assert "holds summary.json, which webnn-harness did not write" in capsys.readouterr().err


def test_a_chain_holding_an_op_already_found_failing_the_same_way_is_the_same_root_cause():
    crash = "crash | abs | float32 | none | worker process killed by SIGABRT"
    assert same_root_cause("crash | abs+neg | float32 | none | worker process killed by SIGABRT", crash)
    assert same_root_cause("crash | neg+abs | float32 | none | worker process killed by SIGABRT", crash)
    assert not same_root_cause("crash | neg | float32 | none | worker process killed by SIGABRT", crash)
    assert not same_root_cause("crash | abs+neg | float16 | none | worker process killed by SIGABRT", crash)
    assert not same_root_cause("fail | abs+neg | float32 | none | worker process killed by SIGABRT", crash)


PLANTED = {**QUIET, "wrong_negative_f16_op": "relu"}
RELU_F16_WRONG = {"op": "relu", "cause": "ordinary values", "values": [], "dataTypes": ["float16"],
                  "combinations": ["relu/input.dataType=float16"]}


def probe_evidence(folder, wrong=(), working=("float32", "float16")):
    """A minimal <backend>-probe.json of the faulty backend."""
    doc = {"header": {"backend": {"name": "faulty", "version": "0"}, "date": "2026-11-23", "harnessVersion": "0.1.0"},
           "analysis": {"relu": {"input": {"workingDataTypes": list(working), "triedDataTypes": ["float32", "float16", "int8"]}}},
           "wrongFindings": list(wrong)}
    folder.mkdir(exist_ok=True)
    (folder / "faulty-probe.json").write_text(json.dumps(doc))
    return folder


@pytest.fixture(scope="module")
def capped_run(tmp_path_factory):
    """The planted relu float16 bug fuzzed with a shrink cap shorter than one
    graph's run and a probe that already reported relu float16 wrong."""
    root = tmp_path_factory.mktemp("capped")
    probe = probe_evidence(root / "probe", wrong=[RELU_F16_WRONG])
    result = fuzz(FuzzSettings(FAULTY, PLANTED, ("relu",), seconds=8, seed=1, shrink_cap=0.001, probe=str(probe)), root / "fuzz")
    return result, root / "fuzz", json.loads((root / "fuzz" / "summary.json").read_text())


def test_shrink_cap_ends_each_findings_shrinking_and_is_reported(capped_run):
    """Shrinking stops at its first step: the unshrunk failure is written, and summary.json says so."""
    result, out, summary = capped_run
    assert result.findings
    assert summary["settings"]["shrinkCapSeconds"] == 0.001
    assert summary["shrinksCapped"] == len(result.findings) == len(summary["findings"])
    for f in summary["findings"]:
        assert f["shrink"]["stoppedBy"] == "cap" and f["shrink"]["graphs"] == 0
        assert (out / "findings" / f"{f['id']}.json").exists()
    assert summary["shrinkingSeconds"] == pytest.approx(sum(f["shrink"]["seconds"] for f in summary["findings"]), abs=0.01)


def test_finding_the_probe_already_reported_wrong_is_known(capped_run):
    result, out, summary = capped_run
    for f in result.findings:
        assert "probe: relu float16 wrong on ordinary values" in f.known
        assert {"op": "relu", "dataType": "float16", "probe": "wrong", "cause": "ordinary values", "values": [],
                "combinations": ["relu/input.dataType=float16"]} in f.probe
    assert summary["newFindings"] == 0 and summary["probe"]["file"] == "faulty-probe.json"
    assert summary["probe"]["backend"]["name"] == "faulty" and str(out.parent) not in json.dumps(summary["probe"])


def test_finding_on_a_data_type_the_probe_declares_supported_says_so(capped_run, tmp_path):
    from webnn_harness.fuzz.evidence import check_against_probe, load_probe_evidence

    result, out, _ = capped_run
    evidence = load_probe_evidence(probe_evidence(tmp_path / "probe"), "faulty")
    for f in result.findings:
        (case,) = list(load_file(out / "findings" / f"{f.id}.json"))
        assert check_against_probe(evidence, case) == [{"op": "relu", "dataType": "float16", "probe": "supported"}]


def test_probe_verdicts_match_op_data_type_and_special_values():
    from webnn_harness.fuzz.evidence import probe_known, probe_verdict

    nan_only = {"op": "exp", "cause": "special values", "values": ["NaN"], "dataTypes": ["float32"], "combinations": ["c"]}
    evidence = {"analysis": {"exp": {"input": {"workingDataTypes": ["float32"], "triedDataTypes": ["float32", "int32"]}}},
                "wrongFindings": [nan_only]}
    assert probe_verdict(evidence, "exp", "float32", ["NaN", "Infinity"])["probe"] == "wrong"
    assert probe_verdict(evidence, "exp", "float32", ["Infinity"]) == {  # another kind of value: new
        "op": "exp", "dataType": "float32", "probe": "wrong on other values", "values": ["NaN"]}
    assert probe_verdict(evidence, "exp", "int32", [])["probe"] == "not supported"
    assert probe_verdict(evidence, "exp", "float16", [])["probe"] == "not tried"
    assert probe_verdict(evidence, "log", "float32", [])["probe"] == "not tried"
    assert probe_known([probe_verdict(evidence, "exp", "float32", ["NaN"])]) == ["probe: exp float32 wrong on special values (NaN)"]


def test_fuzz_probe_of_another_backend_is_a_usage_error(tmp_path, capsys):
    probe = probe_evidence(tmp_path)
    assert main(["fuzz", "--backend", "reference", "--time", "1", "--probe", str(probe / "faulty-probe.json"),
                 "--out", str(tmp_path / "f")]) == 2
    assert "evidence of faulty, not reference" in capsys.readouterr().err
