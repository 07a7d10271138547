"""Bad input, generated: every one must end as one line naming the file (and
the case and field where there is one), with the right exit code, no
traceback, and the good cases beside it still run.

Three groups, each run once so the suite adds seconds:
- CASE_LEVEL: a valid case with one field broken (every field x every wrong
  JSON type, then hand-picked traps); each sits in its own file beside a good
  case, and all files go through one ``run`` (exit 1: error records).
- FILE_LEVEL: files that are not case files at all (bad JSON, bad encoding,
  nesting 100,000 deep, a named pipe, too big); all through one ``run``
  beside a good file (exit 2: unreadable input).
- CLI_LEVEL: bad options and paths for every subcommand (exit 2 before any
  work, nothing written).
"""
from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

import pytest

from webnn_harness.cli import main

F32_4 = {"shape": [4], "dataType": "float32"}
GOOD = {
    "name": "good",
    "graph": {
        "inputs": {"x": {"data": [-1, 2, -3, 4], "descriptor": dict(F32_4)}},
        "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
        "expectedOutputs": {"y": {"data": [0, 2, 0, 4], "descriptor": dict(F32_4)}},
    },
}
BAD = {**GOOD, "name": "bad"}  # what the generator breaks, beside GOOD in the same file
MAX_CASE_BYTES = 50_000_000  # the runs below pass --max-case-bytes so the limit is the same on every machine

# ------------------------------------------------------------------ case level

WRONG_TYPES = {"null": None, "number": 7, "string": "s", "list": [], "object": {}, "bool": True}
# Each field of GOOD and the JSON types it may have; every other type is a bad input.
FIELDS = {
    "name": {"string"},
    "graph": {"object"},
    "graph.inputs": {"object"},
    "graph.inputs.x": {"object"},
    "graph.inputs.x.descriptor": {"object"},
    "graph.inputs.x.descriptor.shape": {"list"},
    "graph.inputs.x.descriptor.dataType": {"string"},
    "graph.inputs.x.data": {"list", "number", "bool"},  # a scalar (true is 1) fills the shape
    "graph.operators": {"list"},
    "graph.operators.0": {"object"},
    "graph.operators.0.name": {"string"},
    "graph.operators.0.arguments": {"list"},
    "graph.operators.0.arguments.0": {"object"},
    "graph.operators.0.arguments.0.input": {"string"},
    "graph.operators.0.outputs": {"string"},
    "graph.expectedOutputs.y": {"object"},
    "graph.expectedOutputs.y.descriptor": {"object"},
    "graph.expectedOutputs.y.data": {"list", "number", "bool"},
}
# Wrong types a case may still legitimately have (each checked to load and pass):
# expectedOutputs {} means "the reference computes them"; an empty operand name
# list "outputs": [] is refused by the builder (kept); nothing else is exempt.
VALID_ANYWAY: set[tuple[str, str]] = set()


def _set(case: dict, dotted: str, value) -> dict:
    case = copy.deepcopy(case)
    *parents, last = dotted.split(".")
    node = case
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return case


def _without(case: dict, dotted: str) -> dict:
    case = copy.deepcopy(case)
    *parents, last = dotted.split(".")
    node = case
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    del node[last]
    return case


def _nested(depth: int):
    value = [1.0]
    for _ in range(depth):
        value = [value]
    return value


def _op(name: str, *arguments, case=BAD, out_desc=None) -> dict:
    c = _set(case, "graph.operators.0", {"name": name, "arguments": [{"input": "x"}, *arguments], "outputs": "y"})
    if out_desc is None:
        return _without(c, "graph.expectedOutputs")
    return _set(c, "graph.expectedOutputs.y", {"descriptor": out_desc})


def _case_level() -> dict[str, object]:
    bad: dict[str, object] = {}
    for field, allowed in FIELDS.items():
        for type_name, value in WRONG_TYPES.items():
            if type_name not in allowed and (field, type_name) not in VALID_ANYWAY:
                bad[f"{field}={type_name}"] = _set(BAD, field, copy.deepcopy(value))
    for field in ("name", "graph", "graph.inputs.x.descriptor", "graph.inputs.x.descriptor.dataType",
                  "graph.inputs.x.data", "graph.operators", "graph.operators.0.name",
                  "graph.operators.0.outputs", "graph.expectedOutputs.y.descriptor"):
        bad[f"{field} missing"] = _without(BAD, field)
    huge = {"shape": [100000, 100000], "dataType": "float32"}
    traps = {
        # the MemoryError: refused from the descriptor before anything is allocated
        "huge generated input": _set(_without(BAD, "graph.expectedOutputs"), "graph.inputs.x",
                                     {"data": {"generate": {"distribution": "uniform"}}, "descriptor": huge}),
        "huge scalar-filled input": _set(_without(BAD, "graph.expectedOutputs"), "graph.inputs.x",
                                         {"data": 1, "descriptor": huge}),
        "huge expected output": _set(BAD, "graph.expectedOutputs.y", {"data": 0, "descriptor": huge}),
        "huge intermediate (expand)": _op("expand", {"newShape": [100000, 100000, 4]}),  # over the spec's 2^31-1
        "large intermediate (expand)": _op("expand", {"newShape": [4000, 4000, 4]}),  # within it; over --max-case-bytes
        "rank 65 shape": _set(_without(BAD, "graph.expectedOutputs"), "graph.inputs.x",
                              {"data": 1, "descriptor": {"shape": [1] * 65, "dataType": "float32"}}),
        "rank 65 reshape": _op("reshape", {"newShape": [1] * 63 + [2, 2]}),
        "negative dimension": _set(BAD, "graph.inputs.x.descriptor.shape", [-4]),
        "fractional dimension": _set(BAD, "graph.inputs.x.descriptor.shape", [1.5]),
        "dimension 2**70": _set(BAD, "graph.inputs.x.descriptor.shape", [2 ** 70]),
        "unknown data type": _set(BAD, "graph.inputs.x.descriptor.dataType", "float128"),
        "empty data type": _set(BAD, "graph.inputs.x.descriptor.dataType", ""),
        "too few values": _set(BAD, "graph.inputs.x.data", [1, 2, 3]),
        "too many values": _set(BAD, "graph.inputs.x.data", [1, 2, 3, 4, 5]),
        "value is a word": _set(BAD, "graph.inputs.x.data", [1, "two", 3, 4]),
        "value is an object": _set(BAD, "graph.inputs.x.data", [1, {"x": 1}, 3, 4]),
        "bad bigint": _set(BAD, "graph.inputs.x.data", [1, {"bigint": "12x"}, 3, 4]),
        "data nested 500 deep": _set(BAD, "graph.inputs.x.data", _nested(500)),
        "data nested 900 deep": _set(BAD, "graph.inputs.x.data", _nested(900)),
        "int8 value out of range": _set(_set(_without(BAD, "graph.expectedOutputs"),
                                             "graph.inputs.x.descriptor.dataType", "int8"),
                                        "graph.inputs.x.data", [1, 2, 3, 1000]),
        "unknown distribution": _set(BAD, "graph.inputs.x.data", {"generate": {"distribution": "poisson"}}),
        "generate bounds are words": _set(BAD, "graph.inputs.x.data",
                                          {"generate": {"distribution": "uniform", "low": "a", "high": "b"}}),
        "unknown operator": _set(BAD, "graph.operators.0.name", "nosuchop"),
        "argument names no operand": _set(BAD, "graph.operators.0.arguments.0.input", "z"),
        "output named like the input": _without(_set(BAD, "graph.operators.0.outputs", "x"), "graph.expectedOutputs"),
        "expected output not produced": _set(BAD, "graph.expectedOutputs", {"q": BAD["graph"]["expectedOutputs"]["y"]}),
        "expected shape differs": _set(BAD, "graph.expectedOutputs.y.descriptor.shape", [5]),
        "expected type differs": _set(BAD, "graph.expectedOutputs.y.descriptor.dataType", "int32"),
        "unknown tolerance metric": _set(BAD, "tolerance", {"metric": "XYZ", "value": 1}),
        "tolerance value a word": _set(BAD, "tolerance", {"metric": "ULP", "value": "a"}),
        "option of the wrong type": _op("softmax", {"axis": "last"}),
        "unknown option": _op("relu", {"options": {"nosuch": 1}}),
        "missing required argument": _op("gather"),
        "wrong rank for the op": _op("conv2d", {"filter": "x"}),
        "case is a number": 7,
        "case is a string": "case",
        "case is null": None,
        "case is a list": [GOOD],
    }
    bad.update(traps)
    return bad


CASE_LEVEL = _case_level()


def _file_name(case_id: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in case_id) + ".json"


def _once(tmp_path_factory, name: str, make) -> dict:
    """Run ``make(root)`` once per session even under xdist (pytest-xdist's
    documented recipe: a lock and a shared folder beside the workers' own)."""
    import filelock

    root = tmp_path_factory.getbasetemp().parent / name
    with filelock.FileLock(str(root) + ".lock"):
        done = root / "run.json"
        if not done.exists():
            root.mkdir()
            done.write_text(json.dumps(make(root)))
        return {**json.loads(done.read_text()), "root": root}


@pytest.fixture(scope="module")
def case_level_run(tmp_path_factory):
    """All case-level bad inputs, each in its own file beside a good case, in one run."""
    def make(root: Path) -> dict:
        folder = root / "cases"
        folder.mkdir()
        for case_id, bad in CASE_LEVEL.items():
            (folder / _file_name(case_id)).write_text(json.dumps({"tests": [bad, GOOD]}))
        return _run(root, ["--cases", str(folder)])

    return _once(tmp_path_factory, "bad_inputs_case_level", make)


def _run(root: Path, args: list[str]) -> dict:
    import contextlib
    import io

    out = root / "out"
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["run", "-q", "--backend", "reference", "--workers", "2", "--batch-size", "64",
                     "--max-case-bytes", str(MAX_CASE_BYTES), "--out", str(out), *args])
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())
    return {"code": code, "stderr": err.getvalue(), "records": records, "summary": summary}


def _records_of(run: dict, file: Path) -> list[dict]:
    """Records name a file by its stable id: its corpus (the folder given) and the path inside it."""
    return [r for r in run["records"] if r["file"] == file.name or r["file"].endswith("/" + file.name)]


def _assert_one_line(message: str, *names: str) -> None:
    assert message and "\n" not in message and "Traceback" not in message, message
    for name in names:
        assert name in message, (name, message)


def test_case_level_bad_inputs_number_at_least_90():
    assert len(CASE_LEVEL) >= 90


@pytest.mark.parametrize("case_id", list(CASE_LEVEL))
def test_a_bad_case_fails_alone_named(case_level_run, case_id):
    run = case_level_run
    file = run["root"] / "cases" / _file_name(case_id)
    records = _records_of(run, file)
    good = [r for r in records if r["case"] == "good"]
    bad = [r for r in records if r["case"] != "good" or r["status"] != "pass"]
    assert [r["status"] for r in good] == ["pass"], "the good case beside it did not run"
    assert len(bad) == 1 and bad[0]["status"] == "error", records
    raw = CASE_LEVEL[case_id]
    name = raw.get("name") if isinstance(raw, dict) and isinstance(raw.get("name"), str) else ""
    _assert_one_line(bad[0]["message"], bad[0]["file"], file.name, f'"{name}": ' if name else "")
    # one line naming the field too: "file: "case": field: message"
    assert bad[0]["message"].split(": ", 2 if name else 1)[-1].split(":")[0].strip(), bad[0]["message"]
    assert run["code"] == 1 and "Traceback" not in run["stderr"]


# ------------------------------------------------------------------ file level


def _deep(opener: str, closer: str, depth: int = 100_000) -> bytes:
    return (opener * depth + closer * depth).encode()


FILE_LEVEL: dict[str, bytes | str] = {
    "empty file": b"",
    "only whitespace": b" \n\t ",
    "an open brace": b"{",
    "cut short list": b'{"tests": [1, ',
    "trailing garbage": b'{"tests": []} x',
    "not JSON at all": b"hello world",
    "single quotes": b"{'tests': []}",
    "NaN literal only": b"NaN",
    "list nested 100,000 deep": _deep("[", "]"),
    "object nested 100,000 deep": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "tests nested 100,000 deep": b'{"tests": ' + _deep("[", "]") + b"}",
    "latin-1 text": b'{"tests": [{"name": "caf\xe9"}]}',
    "invalid UTF-8 in a string": b'{"tests": [{"name": "\xff\xfe\xfa"}]}',
    "a lone continuation byte": b"\x80",
    "NUL bytes": b"\x00" * 64,
    "top level number": b"7",
    "top level string": b'"tests"',
    "top level null": b"null",
    "top level true": b"true",
    "tests is a number": b'{"tests": 7}',
    "tests is a string": b'{"tests": "x"}',
    "tests is an object": b'{"tests": {}}',
    "object without tests": b'{"cases": []}',
    "over --max-case-bytes": b'{"tests": []}' + b" " * (MAX_CASE_BYTES + 1),
    "a named pipe": "fifo",
    "a folder named like a file": "folder",
}


@pytest.fixture(scope="module")
def file_level_run(tmp_path_factory):
    return _once(tmp_path_factory, "bad_inputs_file_level", _file_level_run)


def _file_level_run(root: Path) -> dict:
    args = []
    for case_id, content in FILE_LEVEL.items():
        path = root / _file_name(case_id)
        if content == "fifo":
            os.mkfifo(path)
        elif content == "folder":
            path.mkdir()
            (path / "inner.json").write_text("not json")
        else:
            path.write_bytes(content)
        args += ["--cases", str(path)]
    # A named pipe inside a searched folder is listed and refused, never opened.
    folder = root / "folder_with_pipe"
    folder.mkdir()
    os.mkfifo(folder / "pipe.json")
    (root / "good.json").write_text(json.dumps({"tests": [GOOD]}))
    return _run(root, [*args, "--cases", str(folder), "--cases", str(root / "good.json")])


def test_file_level_bad_inputs_leave_the_good_file_run(file_level_run):
    run = file_level_run
    (good,) = _records_of(run, run["root"] / "good.json")
    assert good["status"] == "pass" and run["code"] == 2 and "Traceback" not in run["stderr"]
    (pipe,) = _records_of(run, run["root"] / "folder_with_pipe" / "pipe.json")
    assert "not a regular file" in pipe["message"]


@pytest.mark.parametrize("case_id", list(FILE_LEVEL))
def test_an_unreadable_file_is_one_named_line(file_level_run, case_id):
    run = file_level_run
    path = run["root"] / _file_name(case_id)
    if FILE_LEVEL[case_id] == "folder":
        path = path / "inner.json"  # a folder is searched: its own bad file is the error
    (record,) = _records_of(run, path)
    assert record["status"] == "error"
    _assert_one_line(record["message"], record["file"], path.name)
    assert any(line.startswith(record["file"] + ":") for line in run["summary"]["loadErrors"])
    assert run["code"] == 2


# ------------------------------------------------------------------ command line


def _limits(tmp: Path, doc) -> str:
    path = tmp / "declared-opSupportLimits.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def _run_folder(tmp: Path, content: bytes | None = b"", summary: object = None) -> str:
    run = tmp / "run"
    run.mkdir(exist_ok=True)
    if content is not None:
        (run / "results.jsonl").write_bytes(content)
    if summary is not None:
        (run / "summary.json").write_text(json.dumps(summary))
    return str(run)


def _a_file(tmp: Path) -> str:
    (tmp / "a_file").write_text("mine")
    return str(tmp / "a_file")


def _full_folder(tmp: Path) -> str:
    (tmp / "mine").mkdir()
    (tmp / "mine" / "notes.txt").write_text("mine")
    return str(tmp / "mine")


GOOD_RUN = json.dumps({"file": "c.json", "case": "good", "ops": ["relu"], "dataTypes": ["float32"],
                       "backend": {"name": "reference"}, "status": "pass", "required": True}).encode() + b"\n"

# id -> (argv builder given a temp folder and a good case file, text the one line must contain)
CLI_LEVEL = {
    "run --timeout 0": (lambda t, c: ["run", "--timeout", "0", "--cases", c], "--timeout"),
    "run --timeout -1": (lambda t, c: ["run", "--timeout", "-1", "--cases", c], "--timeout"),
    "run --timeout nan": (lambda t, c: ["run", "--timeout", "nan", "--cases", c], "--timeout"),
    "run --timeout inf": (lambda t, c: ["run", "--timeout", "inf", "--cases", c], "--timeout"),
    "run --timeout abc": (lambda t, c: ["run", "--timeout", "abc", "--cases", c], "--timeout"),
    "run --workers 0": (lambda t, c: ["run", "--workers", "0", "--cases", c], "--workers"),
    "run --workers -2": (lambda t, c: ["run", "--workers", "-2", "--cases", c], "--workers"),
    "run --workers 1.5": (lambda t, c: ["run", "--workers", "1.5", "--cases", c], "--workers"),
    "run --batch-size 0": (lambda t, c: ["run", "--batch-size", "0", "--cases", c], "--batch-size"),
    "run --max-case-bytes 0": (lambda t, c: ["run", "--max-case-bytes", "0", "--cases", c], "--max-case-bytes"),
    "run --resume --overwrite": (lambda t, c: ["run", "--resume", "--overwrite", "--cases", c], "--resume"),
    "run --out an existing file": (lambda t, c: ["run", "--cases", c, "--out", _a_file(t)], "a_file"),
    "run --out unwritable": (lambda t, c: ["run", "--cases", c, "--out", "/proc/webnn-harness/out"], "/proc/"),
    "run --out holding a run": (lambda t, c: ["run", "--cases", c, "--out", _run_folder(t, GOOD_RUN)], "--overwrite"),
    "run --junit unwritable": (lambda t, c: ["run", "--cases", c, "--junit", "/proc/webnn-harness/j.xml"], "j.xml"),
    "run --junit a folder": (lambda t, c: ["run", "--cases", c, "--junit", str(t)], "is a folder"),
    "run --cases missing": (lambda t, c: ["run", "--cases", str(t / "missing.json")], "missing.json"),
    "run --backend nosuch": (lambda t, c: ["run", "--cases", c, "--backend", "nosuch"], "nosuch"),
    "run -o not a pair": (lambda t, c: ["run", "--cases", c, "--backend", "reference", "-o", "novalue"], "novalue"),
    "run -o unknown option": (lambda t, c: ["run", "--cases", c, "--backend",
                                            "webnn_harness.backends.faulty:create", "-o", "nosuch=1"], "nosuch"),
    "run --rerun-failures missing": (lambda t, c: ["run", "--rerun-failures", str(t / "gone")], "gone"),
    "run --rerun-failures foreign": (lambda t, c: ["run", "--rerun-failures", _run_folder(t, b'{"a": 1}\n')],
                                     "line 1"),
    "run --rerun-failures into itself": (lambda t, c: ["run", "--rerun-failures", _run_folder(t, GOOD_RUN),
                                                       "--out", str(t / "run")], "--out"),
    "ops nosuch": (lambda t, c: ["ops", "nosuch"], "nosuch"),
    "ops misspelt": (lambda t, c: ["ops", "reluu"], "relu"),
    "probe --compare missing": (lambda t, c: ["probe", "-b", "reference", "--compare", str(t / "no.json")], "no.json"),
    "probe --compare not JSON": (lambda t, c: ["probe", "-b", "reference", "--compare", _limits(t, "[1,")],
                                 "declared-opSupportLimits.json"),
    "probe --compare hello world": (lambda t, c: ["probe", "-b", "reference", "--compare",
                                                  _limits(t, {"hello": "world"})], "hello"),
    "probe --compare a list": (lambda t, c: ["probe", "-b", "reference", "--compare", _limits(t, [1, 2])], "a list"),
    "probe --compare empty object": (lambda t, c: ["probe", "-b", "reference", "--compare", _limits(t, {})],
                                     "names no operator"),
    "probe --compare dataTypes a string": (lambda t, c: ["probe", "-b", "reference", "--compare",
                                                         _limits(t, {"relu": {"input": {"dataTypes": "float32"}}})],
                                           "relu.input.dataTypes"),
    "probe --compare negative rank": (lambda t, c: ["probe", "-b", "reference", "--compare", _limits(
        t, {"relu": {"input": {"dataTypes": ["float32"], "rankRange": {"min": -1, "max": 4}}}})],
        "relu.input.rankRange.min"),
    "probe --compare nested deep": (lambda t, c: ["probe", "-b", "reference", "--compare",
                                                  _limits(t, "[" * 100_000 + "]" * 100_000)], "nested too deeply"),
    "probe --max-bytes 0": (lambda t, c: ["probe", "-b", "reference", "--max-bytes", "0"], "--max-bytes"),
    "probe --timeout 0": (lambda t, c: ["probe", "-b", "reference", "--timeout", "0"], "--timeout"),
    "probe --op nosuch": (lambda t, c: ["probe", "-b", "reference", "--op", "nosuch"], "nosuch"),
    "bench --timeout 0": (lambda t, c: ["bench", "-b", "reference", "--timeout", "0"], "--timeout"),
    "bench --min-time -1": (lambda t, c: ["bench", "-b", "reference", "--min-time", "-1"], "--min-time"),
    "bench --max-time inf": (lambda t, c: ["bench", "-b", "reference", "--max-time", "inf"], "--max-time"),
    "bench --min-samples 0": (lambda t, c: ["bench", "-b", "reference", "--min-samples", "0"], "--min-samples"),
    "bench --threads 0": (lambda t, c: ["bench", "-b", "reference", "--threads", "0"], "--threads"),
    "fuzz --timeout 0": (lambda t, c: ["fuzz", "-b", "reference", "--timeout", "0"], "--timeout"),
    "report --out an existing file": (lambda t, c: ["report", _run_folder(t, GOOD_RUN), "--out", _a_file(t)],
                                      "a_file"),
    "report --out a foreign folder": (lambda t, c: ["report", _run_folder(t, GOOD_RUN), "--out", _full_folder(t)],
                                      "holds no earlier report"),
    "report foreign limits": (lambda t, c: ["report", _limits(t, {"hello": "world"})], "hello"),
    "report foreign JSON lines": (lambda t, c: ["report", _run_folder(t, b'{"x": 1}\n{"y": 2}\n')], "line 1"),
    "report non-JSON lines": (lambda t, c: ["report", _run_folder(t, b"hello\nworld\n")], "line 1"),
    "report summary not an object": (lambda t, c: ["report", _run_folder(t, GOOD_RUN, summary=[1])], "summary.json"),
    "report missing input": (lambda t, c: ["report", str(t / "gone")], "gone"),
    "report an unknown file": (lambda t, c: ["report", _a_file(t)], "a_file"),
    "archive add foreign JSON lines": (lambda t, c: ["archive", "add", str(t / "arch"),
                                                     _run_folder(t, b'{"x": 1}\n{"y": 2}\n')], "line 1"),
    "archive add missing folder": (lambda t, c: ["archive", "add", str(t / "arch"), str(t / "gone")], "gone"),
    "archive add into a foreign folder": (lambda t, c: ["archive", "add", _full_folder(t), _run_folder(t, GOOD_RUN)],
                                          "is no archive"),
    "archive list not an archive": (lambda t, c: ["archive", "list", str(t)], "not a webnn-harness archive"),
    "report --archive not an archive": (lambda t, c: ["report", "--archive", str(t), "--out", str(t / "site")],
                                        "not a webnn-harness archive"),
    "report --archive and folders": (lambda t, c: ["report", _run_folder(t, GOOD_RUN), "--archive", str(t)],
                                     "one of the two"),
    "unknown subcommand": (lambda t, c: ["nosuch"], "nosuch"),
}


@pytest.mark.parametrize("case_id", list(CLI_LEVEL))
def test_a_usage_mistake_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, case_id):
    monkeypatch.chdir(tmp_path)  # default --out folders land here, and must not appear
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"tests": [GOOD]}))
    build, expected = CLI_LEVEL[case_id]
    argv = build(tmp_path, str(good))
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()}
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert expected in lines[0], (expected, lines[0])
    after = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before, "a usage mistake wrote or changed files"


def test_ops_json_into_a_closed_pipe_is_quiet(tmp_path):
    import subprocess

    proc = subprocess.run(f'"{sys.executable}" -m webnn_harness ops --json | head -c 10', shell=True,
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout.startswith("{") and "BrokenPipeError" not in proc.stderr and "Traceback" not in proc.stderr


def test_the_default_case_size_limit_is_a_fraction_of_memory():
    from webnn_harness.loading.cases import load_case
    from webnn_harness.loading.casesize import default_max_case_bytes, physical_memory

    assert 0 < default_max_case_bytes() < physical_memory()
    side = int((default_max_case_bytes() // 4) ** 0.5) + 2  # a float32 square just over the limit
    raw = _set(_without(GOOD, "graph.expectedOutputs"), "graph.inputs.x",
               {"data": {"generate": {"distribution": "uniform"}}, "descriptor": {"shape": [side, side], "dataType": "float32"}})
    err = load_case(raw, "f.json", 0)
    assert err.field == "inputs.x.descriptor" and "--max-case-bytes" in err.message


# ------------------------------------------------------------------ every command, hostile files and folders
# Each try gives one command a damaged copy of a real output (a run, a bench, a fuzz folder, made once) or a
# hostile path, and must end as the README says: exit 2 with one line for usage and unreadable input, 0 or
# 1 with a "warning:" line per skipped line of an output folder, never a traceback, nothing outside --out.

DEEP = b"[" * 200_000 + b"]" * 200_000
FAULTY = "webnn_harness.backends.faulty:create"
QUICK_BENCH = ["--min-time", "0.01", "--min-samples", "3", "--max-time", "0.5", "-q"]


def _tiny_suite(path: Path, bench_id: str = "relu-2x3") -> str:
    graph = {"inputs": {"x": {"data": {"generate": {"distribution": "uniform", "low": -1, "high": 1}},
                              "descriptor": {"shape": [2, 3], "dataType": "float32"}}},
             "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}]}
    path.write_text(json.dumps({"suite": "tiny", "benchmarks": [
        {"id": bench_id, "kind": "op", "op": "relu", "title": "relu", "variants": ["host"], "graph": graph}]}))
    return str(path)


def _quietly(argv: list[str]) -> tuple[int, list[str], list[str]]:
    """(exit code, error lines, warning lines) of ``main(argv)``; an exception escaping main fails the try."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code
    lines = [line for line in err.getvalue().splitlines() if line.strip()]
    return code, [x for x in lines if not x.startswith("warning: ")], [x for x in lines if x.startswith("warning: ")]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, Path]:
    """A finished run, bench and fuzz folder (made once per test session) to damage copies of."""
    root = tmp_path_factory.getbasetemp().parent / "bad_inputs_outputs"
    import filelock

    with filelock.FileLock(str(root) + ".lock"):
        if not (root / "done").exists():
            root.mkdir(exist_ok=True)
            (root / "good.json").write_text(json.dumps({"tests": [GOOD]}))
            made = [_quietly(["run", "-q", "-b", "reference", "--workers", "1", "--cases", str(root / "good.json"),
                              "--out", str(root / "run")]),
                    _quietly(["bench", "-b", "reference", "--suite", _tiny_suite(root / "suite.json"),
                              "--out", str(root / "bench"), *QUICK_BENCH]),
                    _quietly(["fuzz", "-q", "-b", FAULTY, "-o", "wrong_op=abs", "-o", "crash_op=", "-o", "hang_op=",
                              "--op", "abs", "--time", "2", "--shrink-cap", "1", "--out", str(root / "fuzz")])]
            assert [m[0] for m in made] == [0, 0, 1], made
            (root / "done").write_text("")
    return {name: root / name for name in ("run", "bench", "fuzz", "good.json")}


def _copy(outputs, tmp: Path, name: str) -> Path:
    import shutil

    return Path(shutil.copytree(outputs[name], tmp / f"my-{name}", ignore=shutil.ignore_patterns(".*.lock")))


def _first_line(path: Path) -> dict:
    return json.loads(path.read_text().splitlines()[0])


def _append_copy(path: Path, **changes) -> None:
    """A second record like the first, with ``changes`` (and its own variant or case, so it is a new key)."""
    record = {**_first_line(path), **changes}
    with open(path, "a") as fh:
        fh.write(json.dumps(record) + "\n")


def _json_set(path: Path, key: str, value) -> Path:
    doc = json.loads(path.read_text())
    node = doc
    *parents, last = key.split(".")
    for k in parents:
        node = node[int(k)] if isinstance(node, list) else node[k]
    node[int(last) if isinstance(node, list) else last] = value
    path.write_text(json.dumps(doc))
    return path


def _deep_file(t: Path, name: str = "deep.json") -> str:
    (t / name).write_bytes(DEEP)
    return str(t / name)


def _replace(path: Path, content: bytes | None) -> Path:
    """``path`` replaced by ``content`` (None: by a folder)."""
    path.unlink()
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    return path


def _with_line(folder: Path, file: str, line: bytes) -> Path:
    with open(folder / file, "ab") as fh:
        fh.write(line + b"\n")
    return folder


def _first_file(folder: Path) -> Path:
    return sorted(p for p in folder.iterdir() if p.suffix == ".json")[0]


def _symlinked_summary(t: Path) -> str:
    mine = t / "mine.txt"
    mine.write_text("mine")
    (t / "b").mkdir()
    (t / "b" / "summary.json").symlink_to(mine)
    return str(t / "b")


def _held(t: Path, kind: str) -> str:
    """A folder whose lock another process holds (the lock is taken here, in a child, for the test's life)."""
    import subprocess
    import time

    folder = t / "held"
    folder.mkdir()
    lock = folder / f".webnn-harness-{kind}.lock"
    proc = subprocess.Popen([sys.executable, "-c", f"import filelock,time; l=filelock.FileLock({str(lock)!r}); "
                             "l.acquire(); print('held', flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    _HELD.append(proc)
    time.sleep(0.05)
    return str(folder)


_HELD: list = []
LONG_NAME = "n" * 300  # over NAME_MAX (255)
LONG_PATH = "/".join(["p" * 200] * 25)  # over PATH_MAX (4096)

# id -> (argv builder given a temp folder and the outputs, exit code, text the error (or a warning) must contain)
EVERY_COMMAND = {
    # nesting 200,000 deep, in every kind of file but cases (those: FILE_LEVEL above)
    "bench --suite nested deep": (lambda t, o: ["bench", "-b", "reference", "--suite", _deep_file(t), "--out",
                                                str(t / "b")], 2, "nested too deeply"),
    "run --expectations nested deep": (lambda t, o: ["run", "-q", "-b", "reference", "--cases", str(o["good.json"]),
                                                     "--expectations", _deep_file(t), "--out", str(t / "r")],
                                       2, "nested too deeply"),
    "run --update-expectations nested deep": (lambda t, o: ["run", "-q", "-b", "reference", "--cases",
                                                            str(o["good.json"]), "--update-expectations", _deep_file(t),
                                                            "--out", str(t / "r")], 2, "nested too deeply"),
    "fuzz --probe nested deep": (lambda t, o: ["fuzz", "-b", "reference", "--probe", _deep_file(t, "r-probe.json"),
                                               "--time", "1", "--out", str(t / "f")], 2, "nested too deeply"),
    "diff a results line nested deep": (lambda t, o: ["diff", str(o["run"]), str(_with_line(
        _copy(o, t, "run"), "results.jsonl", DEEP))], 0, "nested too deeply"),
    "diff results all nested deep": (lambda t, o: ["diff", str(o["run"]), str(_replace(
        _copy(o, t, "run") / "results.jsonl", DEEP + b"\n").parent)], 2, "nested too deeply"),
    "diff a bench line nested deep": (lambda t, o: ["diff", str(o["bench"]), str(_with_line(
        _copy(o, t, "bench"), "bench.jsonl", DEEP))], 0, "nested too deeply"),
    "report a results summary nested deep": (lambda t, o: ["report", str(_replace(
        _copy(o, t, "run") / "summary.json", DEEP).parent), "--out", str(t / "site")], 2, "nested too deeply"),
    "report a bench summary nested deep": (lambda t, o: ["report", str(_replace(
        _copy(o, t, "bench") / "summary.json", DEEP).parent), "--out", str(t / "site")], 2, "nested too deeply"),
    "report fuzz finding details nested deep": (lambda t, o: ["report", str(_replace(_first_file(
        _copy(o, t, "fuzz") / "findings-details"), DEEP).parent.parent), "--out", str(t / "site")],
        0, "findings-details"),
    "junit summary nested deep": (lambda t, o: ["junit", str(_replace(_copy(o, t, "run") / "summary.json", DEEP).parent),
                                                "--out", str(t / "j.xml")], 2, "nested too deeply"),
    "merge summary nested deep": (lambda t, o: ["merge", str(_replace(_copy(o, t, "run") / "summary.json", DEEP).parent),
                                                "--out", str(t / "m")], 2, "nested too deeply"),
    # output paths
    "bench --out a file": (lambda t, o: ["bench", "-b", "reference", "--out", _a_file(t)], 2, "not a folder"),
    "merge --out a file": (lambda t, o: ["merge", str(o["run"]), "--out", _a_file(t)], 2, "a_file"),
    "fuzz --out a file": (lambda t, o: ["fuzz", "-b", "reference", "--time", "1", "--out", _a_file(t)], 2, "not a folder"),
    "probe --out a file": (lambda t, o: ["probe", "-b", "reference", "--op", "relu", "--out", _a_file(t)],
                           2, "not a folder"),
    "diff --out a folder": (lambda t, o: ["diff", str(o["run"]), str(o["run"]), "--out", str(t)], 2, "is a folder"),
    "junit --out a folder": (lambda t, o: ["junit", str(o["run"]), "--out", str(t)], 2, "is a folder"),
    "run --update-expectations under a file": (lambda t, o: ["run", "-q", "-b", "reference", "--cases",
                                                             str(o["good.json"]), "--update-expectations",
                                                             _a_file(t) + "/x.json", "--out", str(t / "r")],
                                               2, "a_file"),
    "run --resume, results.jsonl a folder": (lambda t, o: ["run", "-q", "-b", "reference", "--resume", "--cases",
                                                           str(o["good.json"]), "--out", str(_replace(
                                                               _copy(o, t, "run") / "results.jsonl", None).parent)],
                                             2, "results.jsonl"),
    "diff, results.jsonl a folder": (lambda t, o: ["diff", str(o["run"]), str(_replace(
        _copy(o, t, "run") / "results.jsonl", None).parent)], 2, "results.jsonl"),
    "junit, summary.json a folder": (lambda t, o: ["junit", str(_replace(_copy(o, t, "run") / "summary.json", None).parent),
                                                   "--out", str(t / "j.xml")], 2, "not a regular file"),
    "report, summary.json a folder": (lambda t, o: ["report", str(_replace(
        _copy(o, t, "run") / "summary.json", None).parent), "--out", str(t / "site")], 2, "summary.json"),
    "bench --out a name too long": (lambda t, o: ["bench", "-b", "reference", "--out", str(t / LONG_NAME)],
                                    2, "too long"),
    "run --out a path too long": (lambda t, o: ["run", "-q", "-b", "reference", "--cases", str(o["good.json"]),
                                                "--out", str(t / LONG_PATH)], 2, "too long"),
    "junit --out a name too long": (lambda t, o: ["junit", str(o["run"]), "--out", str(t / LONG_NAME)], 2, "too long"),
    "bench --out a run folder": (lambda t, o: ["bench", "-b", "reference", "--out", str(_copy(o, t, "run"))],
                                 2, "holds a run"),
    "bench --out --overwrite a run folder": (lambda t, o: ["bench", "-b", "reference", "--overwrite", "--out",
                                                           str(_copy(o, t, "run"))], 2, "holds a run"),
    "run --out --overwrite a bench folder": (lambda t, o: ["run", "-q", "-b", "reference", "--overwrite", "--cases",
                                                           str(o["good.json"]), "--out", str(_copy(o, t, "bench"))],
                                             2, "holds a bench"),
    "fuzz --out a run folder": (lambda t, o: ["fuzz", "-b", "reference", "--time", "1", "--out", str(_copy(o, t, "run"))],
                                2, "holds a run"),
    "bench --out, summary.json a link to a user's file": (lambda t, o: ["bench", "-b", "reference", "--out",
                                                                        _symlinked_summary(t)], 2, "summary.json"),
    "bench --out a folder another bench holds": (lambda t, o: ["bench", "-b", "reference", "--out", _held(t, "bench")],
                                                 2, "another bench"),
    "probe --out holding this backend's probe": (lambda t, o: ["probe", "-b", "reference", "--op", "relu", "--out", str(
        _with_line(t, "reference-probe.json", b"{}"))], 2, "--overwrite"),
    # security: data never chooses code
    "run --rerun-failures naming module:factory": (lambda t, o: ["run", "--rerun-failures", _run_folder(
        t, GOOD_RUN.replace(b'"reference"', b'"os:system"').replace(b'"pass"', b'"fail"')), "--out", str(t / "r")],
        2, "not installed"),
    # hostile report inputs
    "report published.seconds 0": (lambda t, o: ["report", str(_appended(_copy(o, t, "bench"), "bench.jsonl",
                                                                          variant="v2", published={"seconds": 0})),
                                                 "--out", str(t / "site")], 0, "line 2"),
    "report bench backend a string": (lambda t, o: ["report", str(_appended(_copy(o, t, "bench"), "bench.jsonl",
                                                                             variant="v2", backend="acme")),
                                                    "--out", str(t / "site")], 0, "line 2"),
    "report loadErrors 5": (lambda t, o: ["report", str(_json_set(_copy(o, t, "bench") / "summary.json", "loadErrors",
                                                                  5).parent), "--out", str(t / "site")],
                            2, "loadErrors"),
    "report fuzz hits many": (lambda t, o: ["report", str(_json_set(_copy(o, t, "fuzz") / "summary.json",
                                                                    "findings.0.hits", "many").parent),
                                            "--out", str(t / "site")], 2, "findings[0].hits"),
    "report a non-UTF-8 results line": (lambda t, o: ["report", str(_with_line(_copy(o, t, "run"), "results.jsonl",
                                                                               b"\xff\xfe{}")), "--out", str(t / "site")],
                                        0, "line 2"),
    "report a findings case with a malformed input": (lambda t, o: ["report", str(_json_set(_first_file(
        _copy(o, t, "fuzz") / "findings"), "tests.0.graph.inputs", {"x": {"data": "nope"}}).parent.parent),
        "--out", str(t / "site")], 0, ""),
    # diff / merge / junit on records and summaries of the wrong shape
    "diff a record of the wrong shape": (lambda t, o: ["diff", str(o["run"]), str(_appended(
        _copy(o, t, "run"), "results.jsonl", case="other", ops="relu"))], 0, "line 2"),
    "merge a summary of the wrong shape": (lambda t, o: ["merge", str(_json_set(_copy(o, t, "run") / "summary.json",
                                                                                "backends", "x").parent),
                                                         "--out", str(t / "m")], 2, "backends"),
    "junit past an unreadable line, as run --resume": (lambda t, o: ["junit", str(_with_line(
        _copy(o, t, "run"), "results.jsonl", b"not json")), "--out", str(t / "j.xml")], 0, "line 2"),
    "run --out --overwrite a fuzz folder from before manifests": (lambda t, o: [
        "run", "-q", "-b", "reference", "--overwrite", "--cases", str(o["good.json"]), "--out",
        str(_json_set(_replace(_copy(o, t, "fuzz") / ".webnn-harness-output.json", b"{}").parent / "summary.json",
                      "findings", []).parent)], 2, "holds a fuzz"),
    "junit a record of the wrong shape only": (lambda t, o: ["junit", _run_folder(t, b'{"file": 5}\n'),
                                                             "--out", str(t / "j.xml")], 2, "line 1"),
    # options, the same validators everywhere
    "fuzz --time nan": (lambda t, o: ["fuzz", "-b", "reference", "--time", "nan"], 2, "--time"),
    "fuzz --max-ops 0": (lambda t, o: ["fuzz", "-b", "reference", "--max-ops", "0"], 2, "--max-ops"),
    "bench --filter not a regex": (lambda t, o: ["bench", "-b", "reference", "--filter", "(["], 2, "--filter"),
    "run --filter not a regex": (lambda t, o: ["run", "--filter", "(["], 2, "--filter"),
    "bench --backend json:nosuch": (lambda t, o: ["bench", "--backend", "json:nosuch", "--out", str(t / "b")],
                                    2, "json:nosuch"),
    "run --backend :nosuch": (lambda t, o: ["run", "--backend", ":nosuch", "--cases", str(o["good.json"])],
                              2, ":nosuch"),
    "diff --threshold -1": (lambda t, o: ["diff", str(o["bench"]), str(o["bench"]), "--threshold", "-1"],
                            2, "--threshold"),
    "bench --threshold inf": (lambda t, o: ["bench", "-b", "reference", "--threshold", "inf"], 2, "--threshold"),
}


def _appended(folder: Path, file: str, **changes) -> Path:
    _append_copy(folder / file, **changes)
    return folder


@pytest.mark.parametrize("case_id", list(EVERY_COMMAND))
def test_every_command_handles_hostile_files_and_folders(tmp_path, outputs, monkeypatch, case_id):
    monkeypatch.chdir(tmp_path)  # default --out folders land here
    build, expected_code, text = EVERY_COMMAND[case_id]
    argv = build(tmp_path, outputs)
    outside = sorted(p.name for p in tmp_path.parent.iterdir())
    try:
        code, errors, warnings = _quietly(argv)
    finally:
        for proc in _HELD:
            proc.kill()
            proc.wait()
        _HELD.clear()
    assert code == expected_code, (code, errors, warnings)
    if expected_code == 2:
        assert len(errors) == 1 and text in errors[0], errors
    else:
        assert not [e for e in errors if "Traceback" in e or "error" in e], errors
        assert any(text in w for w in warnings) or not text, warnings
    assert sorted(p.name for p in tmp_path.parent.iterdir()) == outside, "wrote beside the test's folder"
    if (tmp_path / "mine.txt").exists():
        assert (tmp_path / "mine.txt").read_text() == "mine"


def test_a_bench_id_with_dot_dot_writes_its_artifact_inside_out(tmp_path, outputs):
    suite = _tiny_suite(tmp_path / "suite.json", bench_id="../../escaped")
    out = tmp_path / "deep" / "er" / "b"
    code, errors, _ = _quietly(["bench", "-b", "reference", "--suite", suite, "--out", str(out), *QUICK_BENCH])
    assert code == 0, errors
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written and all(out in p.parents or p == tmp_path / "suite.json" for p in written), written


def test_bench_into_a_run_folder_leaves_its_summary_alone(tmp_path, outputs):
    run = _copy(outputs, tmp_path, "run")
    before = (run / "summary.json").read_bytes()
    assert _quietly(["bench", "-b", "reference", "--overwrite", "--out", str(run)])[0] == 2
    assert (run / "summary.json").read_bytes() == before


def test_charts_and_junit_draw_hostile_names_as_valid_xml(tmp_path, outputs):
    import xml.dom.minidom

    bench = _copy(outputs, tmp_path, "bench")
    name = "$x^{2$ \x1b[31m \x07 relu"
    _json_lines = [json.loads(line) for line in (bench / "bench.jsonl").read_text().splitlines()]
    (bench / "bench.jsonl").write_text("".join(json.dumps({**r, "benchmark": name, "title": name}) + "\n"
                                               for r in _json_lines))
    code, errors, _ = _quietly(["report", str(bench), "--out", str(tmp_path / "site")])
    assert code == 0, errors
    charts = list((tmp_path / "site").rglob("*.svg"))
    assert charts
    for chart in charts:
        xml.dom.minidom.parse(str(chart))  # raises on a control character
    run = _copy(outputs, tmp_path, "run")
    (run / "results.jsonl").write_text(json.dumps({**_first_line(run / "results.jsonl"), "case": "a\x1bb\x00c",
                                                   "status": "fail", "message": "\x07"}) + "\n")
    code, errors, _ = _quietly(["junit", str(run), "--out", str(tmp_path / "j.xml")])
    assert code == 1 and not errors, errors  # written; exit 1 on its required failure, as run's (issue 42)
    doc = xml.dom.minidom.parse(str(tmp_path / "j.xml"))
    assert doc.getElementsByTagName("testcase")[0].getAttribute("name") == "a\\x1bb\\x00c"


def test_a_cases_folder_with_a_symlink_loop_runs_the_good_case_beside_it(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "good.json").write_text(json.dumps({"tests": [GOOD]}))
    (folder / "a.json").symlink_to("b.json")
    (folder / "b.json").symlink_to("a.json")
    code, errors, _ = _quietly(["run", "-q", "-b", "reference", "--cases", str(folder), "--out", str(tmp_path / "r")])
    records = [json.loads(line) for line in (tmp_path / "r" / "results.jsonl").read_text().splitlines()]
    assert {r["file"]: r["status"] for r in records} == {"cases/good.json": "pass", "cases/a.json": "error",
                                                         "cases/b.json": "error"}
    assert code == 2 and not any("Traceback" in e for e in errors)


def test_counts_for_the_closing_note():
    """Bad inputs tried (each handled, by the tests above)."""
    # +pipe in a folder, +ops | head; +dot-dot bench id, bench over a run, hostile names in charts and JUnit,
    # a symlink loop (the four tests after EVERY_COMMAND)
    total = len(CASE_LEVEL) + len(FILE_LEVEL) + 1 + len(CLI_LEVEL) + 1 + len(EVERY_COMMAND) + 4
    print(f"bad inputs: {len(CASE_LEVEL)} case-level, {len(FILE_LEVEL) + 1} file-level, "
          f"{len(CLI_LEVEL) + 1} command-line, {len(EVERY_COMMAND) + 4} every other command; {total} in all")
    assert total >= 90
