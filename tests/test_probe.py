"""Capability probing: the reference yields exactly the spec's limits, a
crashing or hanging backend is recorded and the probe goes on, the output has
the spec's MLOpSupportLimits shape, --compare lists both kinds of difference."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from webnn_harness.spec.catalog import enum_values, operators
from webnn_harness.spec.dtypes import DATA_TYPES
from webnn_harness.probe.driver import probe
from webnn_harness.probe.limits import longest_run
from webnn_harness.execution.pool import RunOptions

FAULTY = "webnn_harness.backends.faulty:create"


@pytest.fixture(scope="module")
def reference_probe(tmp_path_factory):
    out = tmp_path_factory.mktemp("probe-reference")
    # Every operator, every operand, ranks 0..8; only the timing features
    # (layout timing, the byte-length search) are left out to keep CI fast.
    return probe("reference", {}, out, layout=False, byte_search=False,
                 run=RunOptions(workers=2, timeout=60, batch_size=64))


def test_reference_yields_exactly_the_spec_limits(reference_probe):
    limits = reference_probe.limits
    problems = []
    for op, spec in operators().items():
        assert op in limits, f"no member for {op}"
        assert set(limits[op]) == set(spec.operands), op
        for member, lim in spec.operands.items():
            want_max = min(lim.allowed_ranks.max if lim.allowed_ranks.max is not None else 8, 8)
            want = {"dataTypes": list(lim.allowed_data_types), "rankRange": {"min": lim.allowed_ranks.min, "max": want_max}}
            if limits[op][member] != want:
                problems.append(f"{op}.{member}: got {limits[op][member]}, spec {want}")
    assert not problems, "\n".join(problems)
    summary = reference_probe.evidence["summary"]
    assert summary["conformanceGaps"] == 0
    assert summary["acceptedButWrong"] == 0
    assert summary["outcomes"]["crash"] == summary["outcomes"]["timeout"] == 0


def test_reference_graph_level_limits(reference_probe):
    for member in ("input", "constant", "output"):
        assert reference_probe.limits[member] == {"dataTypes": list(DATA_TYPES), "rankRange": {"min": 0, "max": 8}}


def _idl_schema() -> dict:
    """MLOpSupportLimits as JSON Schema: the IDL's members, nothing else."""
    tensor_limits = {
        "type": "object", "additionalProperties": False, "required": ["dataTypes", "rankRange"],
        "properties": {
            "dataTypes": {"type": "array", "uniqueItems": True, "items": {"enum": list(enum_values("MLOperandDataType"))}},
            "rankRange": {"type": "object", "additionalProperties": False, "required": ["min", "max"],
                          "properties": {"min": {"type": "integer", "minimum": 0}, "max": {"type": "integer", "minimum": 0}}},
        },
    }
    props = {
        "preferredInputLayout": {"enum": list(enum_values("MLInputOperandLayout"))},
        "maxTensorByteLength": {"type": "integer", "minimum": 0},
        "input": tensor_limits, "constant": tensor_limits, "output": tensor_limits,
    }
    for op, spec in operators().items():
        props[op] = {"type": "object", "additionalProperties": False,
                     "properties": {m: tensor_limits for m in spec.operands}, "required": list(spec.operands)}
    return {"type": "object", "additionalProperties": False, "properties": props,
            "required": ["preferredInputLayout", "maxTensorByteLength", "input", "constant", "output"]}


def _check_spec_shape(doc: dict) -> None:
    jsonschema.validate(doc, _idl_schema())
    for name, value in doc.items():
        members = value.values() if name in operators() else ([value] if isinstance(value, dict) else [])
        for lim in members:
            assert lim["dataTypes"] == [t for t in DATA_TYPES if t in lim["dataTypes"]], f"{name}: not in enum order"
            assert lim["rankRange"]["min"] <= lim["rankRange"]["max"], name


def test_output_files_have_the_idl_shape(tmp_path):
    result = probe("reference", {}, tmp_path, ops=["relu", "conv2d", "split", "lstm", "identity"],
                   max_bytes=4 << 20, run=RunOptions(workers=2, timeout=60, batch_size=64))
    doc = json.loads(result.limits_path.read_text())
    _check_spec_shape(doc)
    assert doc["maxTensorByteLength"] == 4 << 20
    assert result.evidence["maxTensorByteLength"]["kind"] == "budget"
    assert doc["preferredInputLayout"] in ("nchw", "nhwc")
    layout = result.evidence["preferredInputLayout"]
    assert {w["op"] for w in layout["shapes"].values()} == {"conv2d", "averagePool2d", "maxPool2d"}
    assert all(r["nhwcOverNchw"] > 0 and r["ci95"][0] <= r["nhwcOverNchw"] <= r["ci95"][1]
               for r in layout["timings"].values())
    header = json.loads((tmp_path / "reference-opSupportLimits.header.json").read_text())
    for key in ("backend", "harnessVersion", "date", "settings", "device"):
        assert key in header
    evidence = json.loads(result.evidence_path.read_text())
    assert {"combinations", "conformanceGaps", "acceptedButWrong", "optionValues", "beyondSpecDataTypes"} <= set(evidence)
    assert "inputLayout=nhwc" in evidence["optionValues"]["conv2d"]
    assert "direction=both" in evidence["optionValues"]["lstm"]


@pytest.fixture(scope="module")
def faulty_probe(tmp_path_factory):
    out = tmp_path_factory.mktemp("probe-faulty")
    options = {"crash_op": "abs", "hang_op": "neg", "segv_op": "sign", "wrong_op": "exp", "hang_seconds": "600"}
    return probe(FAULTY, options, out, ops=["abs", "neg", "sign", "exp", "relu"], max_rank=1,
                 layout=False, byte_search=False, run=RunOptions(workers=2, timeout=1.5, batch_size=16))


def test_crash_and_hang_are_recorded_and_the_probe_goes_on(faulty_probe):
    by_op: dict[str, set] = {}
    for e in faulty_probe.evidence["combinations"]:
        by_op.setdefault(e["op"], set()).add(e["outcome"])
    # abs aborts, sign segfaults: crash; neg sleeps: timeout. Beyond-spec types
    # the create steps refuse are never run, so only these outcomes appear.
    assert by_op["abs"] <= {"crash", "rejected"} and "crash" in by_op["abs"]
    assert by_op["sign"] <= {"crash", "rejected"} and "crash" in by_op["sign"]
    assert by_op["neg"] <= {"timeout", "rejected"} and "timeout" in by_op["neg"]
    assert "wrong" in by_op["exp"] and "supported" not in by_op["exp"]
    assert "supported" in by_op["relu"]
    crash = next(e for e in faulty_probe.evidence["combinations"] if e["op"] == "sign" and e["outcome"] == "crash")
    assert "SIGSEGV" in crash["message"]
    limits = faulty_probe.limits
    assert limits["abs"]["input"]["dataTypes"] == [] and limits["neg"]["input"]["dataTypes"] == []
    assert limits["exp"]["input"]["dataTypes"] == [], "accepted-but-wrong must never be listed as supported"
    assert limits["relu"]["input"]["dataTypes"] == list(operators()["relu"].operands["input"].allowed_data_types)
    gaps = {(g["op"], t) for g in faulty_probe.evidence["conformanceGaps"] for t in g["dataTypes"]}
    assert ("abs", "float32") in gaps and ("exp", "float32") in gaps
    wrong = faulty_probe.evidence["acceptedButWrong"]
    assert wrong and all(w["id"].startswith("exp/") for w in wrong)
    assert all(w["example"]["expected"] != w["example"]["actual"] for w in wrong)


def test_partial_results_are_written_as_they_come(faulty_probe):
    lines = faulty_probe.evidence_path.with_suffix(".jsonl").read_text().splitlines()
    assert len(lines) == len(faulty_probe.evidence["combinations"])
    assert all("outcome" in json.loads(line) for line in lines)


def test_an_interrupted_probe_keeps_its_partial_results(tmp_path):
    cmd = [sys.executable, "-m", "webnn_harness", "probe", "--backend", FAULTY, "-o", "hang_op=neg", "-o", "crash_op=none",
           "--op", "relu", "--op", "neg", "--out", str(tmp_path), "--timeout", "600", "--workers", "1",
           "--batch-size", "4", "--no-layout", "--no-bytes", "-q"]
    proc = subprocess.Popen(cmd, cwd=Path(__file__).parents[1], start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    jsonl = tmp_path / "faulty-probe.jsonl"
    deadline = time.monotonic() + 120
    try:
        # relu runs first; neg then hangs for ever (timeout 600 s): interrupt it.
        while time.monotonic() < deadline:
            if jsonl.exists() and sum(1 for _ in jsonl.open()) >= 8:
                break
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    lines = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert len(lines) >= 8  # relu's baseline and data-type sweep (its ranks come in the second pass)
    assert all(e["op"] == "relu" for e in lines)


def test_compare_lists_declared_but_broken_and_working_but_undeclared(faulty_probe, tmp_path):
    from webnn_harness.probe.declared import compare_declared

    declared = json.loads(json.dumps(faulty_probe.limits))
    declared["abs"]["input"] = {"dataTypes": ["float32"], "rankRange": {"min": 0, "max": 1}}  # crashes
    declared["relu"]["input"] = {"dataTypes": ["float32"], "rankRange": {"min": 0, "max": 0}}  # works wider
    diff = compare_declared(declared, faulty_probe.evidence, "declared.json")

    def flat(groups):
        return {(g["op"], member, axis[:-1], v) for g in groups for member, m in g["members"].items()
                for axis in ("dataTypes", "ranks") for v in m[axis]}

    broken = flat(diff["declaredButBroken"])
    assert ("abs", "input", "dataType", "float32") in broken
    assert ("abs", "input", "rank", 1) in broken
    assert all(g["outcome"] == "crash" for g in diff["declaredButBroken"] if g["op"] == "abs")
    undeclared = flat(diff["workingButUndeclared"])
    assert ("relu", "input", "dataType", "float16") in undeclared
    assert ("relu", "input", "rank", 1) in undeclared
    assert not any(g["op"] == "abs" for g in diff["workingButUndeclared"])


def test_cli_probe_with_compare(faulty_probe, tmp_path):
    declared = tmp_path / "declared.json"
    declared.write_text(json.dumps({"relu": {"input": {"dataTypes": ["float32"], "rankRange": {"min": 0, "max": 0}},
                                             "output": {"dataTypes": ["float32"], "rankRange": {"min": 0, "max": 0}}}}))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "webnn_harness", "probe", "--backend", "reference", "--op", "relu", "--out", str(out),
           "--compare", str(declared), "--max-bytes", str(1 << 20), "--no-layout", "-q"]
    done = subprocess.run(cmd, cwd=Path(__file__).parents[1], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "working but undeclared" in done.stdout
    evidence = json.loads((out / "reference-probe.json").read_text())
    assert evidence["compare"]["counts"]["workingButUndeclared"] > 0
    assert evidence["compare"]["counts"]["declaredButBroken"] == 0
    _check_spec_shape(json.loads((out / "reference-opSupportLimits.json").read_text()))
    # the required set, measured (relu: met) and as declared (relu to rank 0 only; every other operator left out)
    assert evidence["conformanceGaps"] == []
    assert evidence["declaredConformanceGapsSource"] == "declared.json"
    declared_gaps = {(g["op"], g["member"]): g for g in evidence["declaredConformanceGaps"]}
    required = operators()["relu"].operands["input"].required_ranks
    assert declared_gaps["relu", "input"]["ranks"] == list(range(max(required.min, 1), min(required.max or 8, 8) + 1))
    assert declared_gaps["relu", "input"]["dataTypes"] == [t for t in operators()["relu"].operands["input"].required_data_types
                                                          if t != "float32"]
    assert declared_gaps["abs", "input"]["dataTypes"] == list(operators()["abs"].operands["input"].required_data_types)
    assert evidence["summary"]["declaredConformanceGaps"] == len(declared_gaps)


def test_longest_run_keeps_the_contiguous_ranks():
    assert longest_run({0, 1, 2, 4, 5}) == (0, 2)
    assert longest_run({1, 3, 4, 5}) == (3, 5)
    assert longest_run(set()) is None
