"""End-to-end CLI runs: exit codes, outputs, worker isolation."""
import json
import subprocess
import sys


from webnn_harness.cli import main

GOOD = {
    "name": "relu float32",
    "graph": {
        "inputs": {"x": {"data": [-1, 2, -3, 4], "descriptor": {"shape": [4], "dataType": "float32"}}},
        "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
        "expectedOutputs": {"y": {"data": [0, 2, 0, 4], "descriptor": {"shape": [4], "dataType": "float32"}}},
    },
}


def case(name, op="relu", expected=None, dtype="float32", required_shape=(4,)):
    c = json.loads(json.dumps(GOOD))
    c["name"] = name
    c["graph"]["operators"][0]["name"] = op
    if expected is None:
        del c["graph"]["expectedOutputs"]
    else:
        c["graph"]["expectedOutputs"]["y"]["data"] = expected
    return c


def run_cli(args, tmp_path):
    out = tmp_path / "out"
    code = main(["run", "-q", "--workers", "2", "--overwrite", "--out", str(out), *args])
    records = [json.loads(l) for l in (out / "results.jsonl").read_text().splitlines()] if (out / "results.jsonl").exists() else []
    return code, records, out


def write(tmp_path, cases, name="c.json"):
    p = tmp_path / name
    p.write_text(json.dumps({"tests": cases}))
    return p


def test_passing_run_exits_0_and_writes_records_and_summary(tmp_path):
    code, records, out = run_cli(["--backend", "reference", "--cases", str(write(tmp_path, [GOOD]))], tmp_path)
    assert code == 0
    (r,) = records
    assert r["status"] == "pass" and r["required"] and r["ops"] == ["relu"] and r["dataTypes"] == ["float32"]
    assert r["backend"]["name"] == "reference" and r["metric"] == "ULP" and r["budget"] == 0
    for key in ("file", "case", "maxError", "worstIndex", "expected", "actual", "message", "buildSeconds", "computeSeconds"):
        assert key in r
    summary = json.loads((out / "summary.json").read_text())
    assert summary["backends"][0]["counts"]["pass"] == 1
    assert summary["harnessVersion"] and summary["date"] and summary["machine"]


def test_a_wrong_expectation_fails_with_exit_1_and_names_the_worst_element(tmp_path):
    bad = case("relu wrong", expected=[0, 2, 0, 5])
    code, records, _ = run_cli(["--backend", "reference", "--cases", str(write(tmp_path, [bad]))], tmp_path)
    assert code == 1
    (r,) = records
    assert r["status"] == "fail" and r["worstIndex"] == [3] and r["expected"] == 5 and r["actual"] == 4


def test_a_malformed_case_is_an_error_and_the_rest_still_run(tmp_path):
    broken = case("broken")
    broken["graph"]["inputs"]["x"]["data"] = [1, 2]
    code, records, _ = run_cli(["--backend", "reference", "--cases", str(write(tmp_path, [broken, GOOD]))], tmp_path)
    assert code == 1
    by_name = {r["case"]: r for r in records}
    assert by_name["relu float32"]["status"] == "pass"
    assert by_name["broken"]["status"] == "error" and "inputs.x.data: data has 2 values" in by_name["broken"]["message"]


def test_bad_usage_exits_2(tmp_path, capsys):
    assert main(["run", "--backend", "nosuch", "--cases", str(write(tmp_path, [GOOD])), "--out", str(tmp_path)]) == 2
    assert "unknown backend 'nosuch'" in capsys.readouterr().err
    assert main(["run", "--backend", "reference", "--cases", str(tmp_path / "missing.json")]) == 2
    assert main(["run", "--backend", "reference", "-o", "novalue", "--cases", str(write(tmp_path, [GOOD]))]) == 2


def test_unreadable_input_exits_2(tmp_path):
    (tmp_path / "bad.json").write_text("{")
    code, records, _ = run_cli(["--backend", "reference", "--cases", str(tmp_path / "bad.json")], tmp_path)
    assert code == 2 and records[0]["status"] == "error"


def test_op_and_filter_select_cases(tmp_path):
    cases = [GOOD, case("abs float32", op="abs", expected=[1, 2, 3, 4])]
    code, records, _ = run_cli(["--backend", "reference", "--cases", str(write(tmp_path, cases)), "--op", "abs"], tmp_path)
    assert [r["case"] for r in records] == ["abs float32"] and code == 0
    code, records, _ = run_cli(["--backend", "reference", "--cases", str(write(tmp_path, cases)), "--filter", "^relu"], tmp_path)
    assert [r["case"] for r in records] == ["relu float32"]


def test_crash_and_hang_are_recorded_and_the_run_goes_on(tmp_path):
    """The faulty test backend aborts the process on abs and hangs on neg."""
    cases = [
        case("before", op="relu"),
        case("crashes", op="abs"),
        case("middle", op="relu"),
        case("hangs", op="neg"),
        case("after", op="relu"),
    ]
    code, records, _ = run_cli(
        ["--backend", "webnn_harness.backends.faulty:create", "--cases", str(write(tmp_path, cases)), "--timeout", "3", "--batch-size", "5"],
        tmp_path,
    )
    status = {r["case"]: r["status"] for r in records}
    assert status == {"before": "pass", "crashes": "crash", "middle": "pass", "hangs": "timeout", "after": "pass"}
    assert code == 1
    crash = next(r for r in records if r["case"] == "crashes")
    assert "SIGABRT" in crash["message"] or "killed" in crash["message"]


def test_interrupted_run_keeps_records(tmp_path):
    """Records are flushed as they complete: kill the CLI mid-run and read them."""
    cases = [case(f"relu {i}") for i in range(6)] + [case("hangs", op="neg")] + [case(f"late {i}") for i in range(3)]
    path = write(tmp_path, cases)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "webnn_harness", "run", "-q", "--workers", "1", "--batch-size", "1", "--timeout", "60",
         "--backend", "webnn_harness.backends.faulty:create", "--cases", str(path), "--out", str(out)],
    )
    results = out / "results.jsonl"
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and len(results.read_text().splitlines()) >= 6:
            break
        time.sleep(0.2)
    proc.kill()
    proc.wait()
    lines = results.read_text().splitlines()
    assert len(lines) >= 6 and all(json.loads(l)["status"] == "pass" for l in lines)


def test_junit_output(tmp_path):
    bad = case("relu wrong", expected=[0, 2, 0, 5])
    junit = tmp_path / "junit.xml"
    code, _, _ = run_cli(["--backend", "reference", "--cases", str(write(tmp_path, [GOOD, bad])), "--junit", str(junit)], tmp_path)
    xml = junit.read_text()
    assert code == 1 and 'name="relu wrong"' in xml and "<failure" in xml


def test_ops_json_has_every_operator_with_spec_member_names(capsys):
    assert main(["ops", "--json"]) == 0
    ops = json.loads(capsys.readouterr().out)["ops"]
    assert len(ops) == 95
    assert set(ops["lstm"]["operands"]) >= {"output0", "output1", "output2", "peepholeWeight"}
    assert set(ops["concat"]["operands"]) == {"inputs", "output"}
    assert set(ops["split"]["operands"]) == {"input", "outputs"}
    assert set(ops["logicalNot"]["operands"]) == {"a", "output"}
    conv = ops["conv2d"]
    assert conv["options"]["groups"]["default"] == 1 and conv["options"]["inputLayout"]["default"] == "nchw"
    assert conv["operands"]["input"]["allowedRanks"] == {"min": 4, "max": 4}
    assert ops["abs"]["operands"]["input"]["allowedDataTypes"] == ["float32", "float16", "int32", "int64", "int8"]


def test_backends_lists_the_reference(capsys):
    assert main(["backends"]) == 0
    assert "reference" in capsys.readouterr().out


def test_python_dash_m_entry_point():
    out = subprocess.run([sys.executable, "-m", "webnn_harness", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "webnn-harness" in out.stdout
