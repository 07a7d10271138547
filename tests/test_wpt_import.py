"""import-wpt (harness/loading/wpt_import.py): WPT-shaped test files of our own,
run in the sandbox, become case files; a file that reaches for a file, the
network or a process, or never ends, is refused with one line.

The files here are hand-written in WPT's shape (META lines, a cases array,
``webnn_conformance_test(tests, buildAndExecuteGraph, toleranceFunc)``), but
one: tests/data/wpt_files holds a real WPT file (BSD-3, its README says
whence), the one that once failed on ``structuredClone``."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from webnn_harness.cli import main
from webnn_harness.loading.wpt_import import (Converted, NoCases, NotConverted, SandboxLimits, convert_folder,
                                              find_node, node_command, sandbox_command)

def _node_ok() -> bool:
    try:
        find_node()
    except ValueError:
        return False
    return True


pytestmark = pytest.mark.skipif(not _node_ok(), reason="import-wpt needs Node.js 20 or newer")

# A utils.js of our own with the parts of WPT's that a test file meets at load time: the page's
# location read through URLSearchParams, a tolerance function, the build function, and the call.
UTILS = """
'use strict';
const searchParams = new URLSearchParams(location.search);
const variant = searchParams.get('device') || location.search.substring(1);
const getPrecisionTolerance = (graphResources, intermediateOperands) => ({metric: 'ULP', value: 0});
const sizeOfShape = (array) => array.reduce((a, b) => a * b, 1);
const buildAndExecuteGraph = async (context, builder, graphResources) => ({});
async function webnn_conformance_test(tests, buildAndExecuteGraphFunc, toleranceFunc) {
  promise_test(async () => { await navigator.ml.createContext(); }, 'runs');
}
"""

META = """// META: title=test of our own, in WPT's shape
// META: global=window
// META: variant=?cpu
// META: script=../resources/utils.js
// META: timeout=long

'use strict';
"""


def relu_case(name: str, data, data_type: str = "float32") -> dict:
    shape = [len(data)]
    return {"name": name, "graph": {
        "inputs": {"reluInput": {"data": data, "descriptor": {"shape": shape, "dataType": data_type}}},
        "operators": [{"name": "relu", "arguments": [{"input": "reluInput"}], "outputs": "reluOutput"}],
        "expectedOutputs": {"reluOutput": {"data": [max(v, 0) for v in data],
                                           "descriptor": {"shape": shape, "dataType": data_type}}}}}


LITERAL = META + """
const reluTests = [
  {
    'name': 'relu float32 1D tensor',
    'graph': {
      'inputs': {
        'reluInput': {'data': [-1.5, 0, 2.25], 'descriptor': {shape: [3], dataType: 'float32'}}
      },
      'operators': [{'name': 'relu', 'arguments': [{'input': 'reluInput'}], 'outputs': 'reluOutput'}],
      'expectedOutputs': {
        'reluOutput': {'data': [0, 0, 2.25], 'descriptor': {shape: [3], dataType: 'float32'}}
      }
    }
  }
];

webnn_conformance_test(reluTests, buildAndExecuteGraph, getPrecisionTolerance);
"""

LOOP = META + """
const reluTests = [];
for (const dataType of ['float32', 'float16']) {
  for (let rank = 1; rank <= 3; ++rank) {
    const data = [-2, -1, 0, 1, 2, 3].slice(0, rank * 2);
    reluTests.push({
      name: `relu ${dataType} ${rank}x2 values`,
      graph: {
        inputs: {reluInput: {data, descriptor: {shape: [data.length], dataType}}},
        operators: [{name: 'relu', arguments: [{input: 'reluInput'}], outputs: 'reluOutput'}],
        expectedOutputs: {reluOutput: {data: data.map((v) => Math.max(v, 0)),
                                       descriptor: {shape: [data.length], dataType}}},
      },
    });
  }
}
webnn_conformance_test(reluTests, buildAndExecuteGraph, getPrecisionTolerance);
"""

OWN_TOLERANCE = META + """
const getAbsPrecisionTolerance = (graphResources) => {
  const toleranceValueDict = {float32: 3, float16: 5};
  const dataType = graphResources.expectedOutputs.absOutput.descriptor.dataType;
  return {metric: 'ULP', value: toleranceValueDict[dataType]};
};
const absTests = ['float32', 'float16'].map((dataType) => ({
  name: `abs ${dataType}`,
  graph: {
    inputs: {absInput: {data: [NaN, -Infinity, -2], descriptor: {shape: [3], dataType}}},
    operators: [{name: 'abs', arguments: [{input: 'absInput'}], outputs: 'absOutput'}],
    expectedOutputs: {absOutput: {data: [NaN, Infinity, 2], descriptor: {shape: [3], dataType}}},
  },
}));
absTests.push({
  name: 'abs int64',
  graph: {
    inputs: {absInput: {data: [-9223372036854775807n, -5n], descriptor: {shape: [2], dataType: 'int64'}}},
    operators: [{name: 'abs', arguments: [{input: 'absInput'}], outputs: 'absOutput'}],
    expectedOutputs: {absOutput: {data: [9223372036854775807n, 5n], descriptor: {shape: [2], dataType: 'int64'}}},
  },
});
webnn_conformance_test(absTests, buildAndExecuteGraph, getAbsPrecisionTolerance);
"""

# Each reaches for what the sandbox must not give: the file system, the network, a process.
# The older shape: the file checks navigator.ml itself and calls webnn_conformance_test once per case,
# (buildFunc, toleranceFunc, test), with a build function today's utils.js no longer has, and its
# tolerance function says metricType.
OLDER = META + """
const getReluPrecisionTolerance = (graphResources) => ({metricType: 'ULP', value: 1});
const reluTests = [1, 2].map((n) => ({
  name: `relu float32 ${n} values`,
  graph: {
    inputs: {reluInput: {data: [-1, 2].slice(0, n), descriptor: {shape: [n], dataType: 'float32'}}},
    operators: [{name: 'relu', arguments: [{input: 'reluInput'}], outputs: 'reluOutput'}],
    expectedOutputs: {reluOutput: {data: [0, 2].slice(0, n), descriptor: {shape: [n], dataType: 'float32'}}},
  },
}));
if (navigator.ml) {
  reluTests.forEach((test) => {
    webnn_conformance_test(buildGraphAndCompute, getReluPrecisionTolerance, test);
  });
} else {
  test(() => assert_implements(navigator.ml, 'missing navigator.ml'));
}
"""

ESCAPES = {
    "read_file": "require('fs').readFileSync('/etc/hostname');",
    "fetch": "fetch('https://example.com/');",
    "process": "process.exit(3);",
    "escape_by_constructor": "this.constructor.constructor('return process')().mainModule.require('fs');",
}
ENDLESS = META + "while (true) {}\n"
ENDLESS_PROMISES = META + "(async () => { while (true) await null; })();\n"
ENDLESS_WAIT = META + "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\n"
HUNGRY = META + "const kept = []; while (true) kept.push(new Array(1 << 20).fill(1.5));\n"


def wpt_tree(root: Path, files: dict[str, str]) -> Path:
    """A WPT-shaped folder: webnn/resources/utils.js and webnn/conformance_tests/<name>.https.any.js."""
    (root / "webnn" / "resources").mkdir(parents=True)
    (root / "webnn" / "resources" / "utils.js").write_text(UTILS)
    tests = root / "webnn" / "conformance_tests"
    tests.mkdir()
    for stem, text in files.items():
        (tests / f"{stem}.https.any.js").write_text(text)
    return root


def converted(root: Path, limits: SandboxLimits = SandboxLimits()) -> dict[str, Converted | NotConverted]:
    items = convert_folder(root, sandbox_command(limits), commit="0" * 40, limits=limits)
    return {getattr(item, "stem", None) or item.file: item for item in items}


def test_a_literal_file_becomes_its_cases_with_the_tolerance_function_named(tmp_path):
    got = converted(wpt_tree(tmp_path, {"relu": LITERAL}))["relu"]
    assert isinstance(got, Converted)
    assert got.doc == {"source": "web-platform-tests/wpt/webnn/conformance_tests/relu.https.any.js",
                       "commit": "0" * 40,
                       "toleranceFunctions": [{"name": "getPrecisionTolerance", "from": "utils.js"}],
                       "tests": [relu_case("relu float32 1D tensor", [-1.5, 0, 2.25])]}


def test_a_file_that_makes_its_cases_in_loops(tmp_path):
    got = converted(wpt_tree(tmp_path, {"relu": LOOP}))["relu"]
    assert [t["name"] for t in got.doc["tests"]] == [f"relu {dt} {r}x2 values" for dt in ("float32", "float16")
                                                     for r in (1, 2, 3)]
    assert got.doc["tests"][5] == relu_case("relu float16 3x2 values", [-2, -1, 0, 1, 2, 3], "float16")


def test_a_files_own_tolerance_function_is_kept_as_text_and_applied_per_case(tmp_path):
    got = converted(wpt_tree(tmp_path, {"abs": OWN_TOLERANCE}))["abs"]
    (function,) = got.doc["toleranceFunctions"]
    assert function["name"] == "getAbsPrecisionTolerance"
    assert "toleranceValueDict = {float32: 3, float16: 5}" in function["source"]
    reason = "the WPT file's getAbsPrecisionTolerance"
    assert [t.get("tolerance") for t in got.doc["tests"]] == [
        {"metric": "ULP", "value": 3, "reason": reason}, {"metric": "ULP", "value": 5, "reason": reason}, None]
    # JSON-less values in our encoding: NaN and the infinities as strings, big 64-bit integers as {"bigint"}.
    assert got.doc["tests"][0]["graph"]["inputs"]["absInput"]["data"] == ["NaN", "-Infinity", -2]
    assert got.doc["tests"][2]["graph"]["inputs"]["absInput"]["data"] == [{"bigint": "-9223372036854775807"}, -5]


def test_the_older_per_case_call_and_a_hyphenated_name(tmp_path):
    got = converted(wpt_tree(tmp_path, {"relu-older": OLDER}))["relu-older"]
    assert [t["name"] for t in got.doc["tests"]] == ["relu float32 1 values", "relu float32 2 values"]
    assert got.doc["tests"][1]["graph"] == relu_case("", [-1, 2])["graph"]
    assert [t["tolerance"]["value"] for t in got.doc["tests"]] == [1, 1]
    assert [f["name"] for f in got.doc["toleranceFunctions"]] == ["getReluPrecisionTolerance"]


@pytest.mark.parametrize("stem", sorted(ESCAPES))
def test_a_file_that_reaches_for_files_network_or_processes_is_refused(tmp_path, stem):
    text = META + ESCAPES[stem] + LITERAL.split("'use strict';")[1]  # the escape, then a good file's cases
    got = converted(wpt_tree(tmp_path, {stem: text}))[f"{stem}.https.any.js"]
    assert isinstance(got, NotConverted)
    assert got.file == f"{stem}.https.any.js"
    assert "\n" not in got.reason and got.reason


def test_a_dynamic_import_gives_nothing(tmp_path):
    text = LITERAL.replace("webnn_conformance_test(reluTests", "const got = [];\n"
                           "import('fs').then(() => got.push(...reluTests), () => {});\n"
                           "webnn_conformance_test(got")
    got = converted(wpt_tree(tmp_path, {"relu": text}))["relu.https.any.js"]
    assert got.reason == "its webnn_conformance_test calls hold no cases"


def test_the_node_process_itself_may_read_no_file_and_start_no_process(tmp_path):
    """Below the vm context, Node's permission model: even code that got out may not read a file
    (but the sandbox script) or start a process."""
    secret = tmp_path / "secret.txt"
    secret.write_text("no")
    command = node_command(*find_node(), SandboxLimits())[:-1]
    for code in (f"require('fs').readFileSync({json.dumps(str(secret))})", "require('child_process').execSync('true')",
                 "new (require('worker_threads').Worker)('1', {eval: true})"):
        done = subprocess.run([*command, "-e", code], capture_output=True, text=True, timeout=60, env={})
        assert done.returncode != 0 and "ERR_ACCESS_DENIED" in done.stderr, code


@pytest.mark.parametrize("text", [ENDLESS, ENDLESS_PROMISES, ENDLESS_WAIT], ids=["loop", "promises", "wait"])
def test_a_file_that_never_ends_is_stopped(tmp_path, text):
    got = converted(wpt_tree(tmp_path, {"endless": text}), SandboxLimits(seconds=1))["endless.https.any.js"]
    assert isinstance(got, NotConverted)
    assert "timed out" in got.reason or "did not finish" in got.reason


def test_a_file_that_eats_memory_is_stopped(tmp_path):
    got = converted(wpt_tree(tmp_path, {"hungry": HUNGRY}), SandboxLimits(seconds=30, heap_mb=32))
    assert isinstance(got["hungry.https.any.js"], NotConverted)


def test_names_never_lead_outside_the_folders(tmp_path):
    outside = tmp_path / "outside.js"
    outside.write_text(UTILS)
    root = wpt_tree(tmp_path / "wpt", {"relu": LITERAL, "far": LITERAL.replace("../resources/utils.js",
                                                                               "../../../outside.js"),
                                       "not a stem": LITERAL})
    (root / "webnn" / "conformance_tests" / "linked.https.any.js").symlink_to(outside)
    got = converted(root)
    assert isinstance(got["relu"], Converted)
    assert "outside the WPT folder" in got["far.https.any.js"].reason
    assert "outside" in got["linked.https.any.js"].reason
    assert "not a plain stem" in got["not a stem.https.any.js"].reason


def test_a_file_without_the_call_says_so(tmp_path):
    got = converted(wpt_tree(tmp_path, {"nothing": META + "const tests = [];\n"}))["nothing.https.any.js"]
    assert isinstance(got, NoCases) and got.reason == "it never calls webnn_conformance_test"


# WPT's tensor, device and graph-building files test the API with promise_test of their own.
NO_CASES = META + """
promise_test(async () => {
  const context = await navigator.ml.createContext();
  webnn_conformance_test([], buildAndExecuteGraph, getPrecisionTolerance);
}, 'create a tensor');
"""


def test_a_file_that_makes_no_case_is_said_as_no_cases_not_as_an_error(tmp_path, capsys):
    root = wpt_tree(tmp_path / "wpt", {"relu": LITERAL, "tensor": NO_CASES})
    out = tmp_path / "out"
    assert main(["import-wpt", str(root), "--out", str(out), "-q"]) == 0
    said = capsys.readouterr()
    assert "no cases: tensor.https.any.js: it never calls webnn_conformance_test" in said.err
    assert said.out.startswith("1 files converted (1 cases), 1 with no cases, 0 not;")
    index = json.loads((out / "INDEX.json").read_text())
    assert {f["file"]: f.get("noCases", False) for f in index["files"]} == {"relu.json": False,
                                                                            "tensor.https.any.js": True}
    # A folder whose files all made no case is no success.
    only = wpt_tree(tmp_path / "only", {"tensor": NO_CASES})
    assert main(["import-wpt", str(only), "--out", str(tmp_path / "out2"), "-q"]) == 1


# WPT's own utils.js declares the call as a constant, a global lexical binding that a later script can
# neither assign nor shadow; the file calls it once per case (the older signature).
UTILS_CONST = UTILS.replace("async function webnn_conformance_test(tests, buildAndExecuteGraphFunc, toleranceFunc) {",
                            "const webnn_conformance_test =\n"
                            "    (buildAndExecuteGraphFunc, toleranceFunc, testResources) => {")


def test_utils_js_declaring_the_call_as_a_const_still_records_it(tmp_path):
    root = wpt_tree(tmp_path, {"relu": OLDER})
    (root / "webnn" / "resources" / "utils.js").write_text(UTILS_CONST)
    got = converted(root)["relu"]
    assert isinstance(got, Converted), got
    assert [t["name"] for t in got.doc["tests"]] == ["relu float32 1 values", "relu float32 2 values"]


def test_utils_js_whose_call_cannot_be_replaced_says_so(tmp_path):
    root = wpt_tree(tmp_path, {"relu": LITERAL})
    (root / "webnn" / "resources" / "utils.js").write_text(
        UTILS.replace("async function webnn_conformance_test", "class webnn_conformance_test {}\nfunction unused"))
    got = converted(root)["relu.https.any.js"]
    assert isinstance(got, NotConverted) and "recorder cannot replace it" in got.reason


def test_the_command_writes_a_case_file_per_test_file_and_one_line_per_refusal(tmp_path, capsys):
    root = wpt_tree(tmp_path / "wpt", {"relu": LOOP, "broken": META + "this is not JavaScript\n"})
    out = tmp_path / "out"
    assert main(["import-wpt", str(root), "--out", str(out), "--commit", "1" * 40]) == 1
    err = capsys.readouterr().err
    assert [line for line in err.splitlines() if line.startswith("not converted")] == [
        "not converted: broken.https.any.js: SyntaxError: Unexpected identifier 'is'"]
    relu = json.loads((out / "relu.json").read_text())
    assert relu["commit"] == "1" * 40 and len(relu["tests"]) == 6
    index = json.loads((out / "INDEX.json").read_text())
    assert [(f["file"], f["converted"]) for f in index["files"]] == [("broken.https.any.js", False),
                                                                     ("relu.json", True)]
    # The folder is owned: a second import into it needs --overwrite.
    assert main(["import-wpt", str(root), "--out", str(out)]) == 2
    assert main(["import-wpt", str(root), "--out", str(out), "--overwrite"]) == 1


def test_the_cases_written_run(tmp_path):
    root = wpt_tree(tmp_path / "wpt", {"relu": LOOP})
    out = tmp_path / "out"
    assert main(["import-wpt", str(root), "--out", str(out), "-q"]) == 0
    assert main(["run", "--backend", "reference", "--cases", str(out), "--out", str(tmp_path / "run"), "-q"]) == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["backends"][0]["counts"]["pass"] == 6


def test_without_node_the_command_says_what_it_needs(tmp_path, monkeypatch, capsys):
    root = wpt_tree(tmp_path / "wpt", {"relu": LITERAL})
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["import-wpt", str(root), "--out", str(tmp_path / "out")]) == 2
    assert "needs Node.js 20 or newer" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_folder_of_files_from_several_commits_records_each_file_s_own(tmp_path):
    root = wpt_tree(tmp_path / "wpt", {"relu": LOOP, "relu_again": LOOP})
    out = tmp_path / "out"
    assert main(["import-wpt", str(root), "--out", str(out), "--source", "servo/servo/tests/wpt/tests",
                 "--commit", "2" * 40, "--commit", "relu_again.https.any.js=" + "3" * 40]) == 0
    assert json.loads((out / "relu.json").read_text())["commit"] == "2" * 40
    again = json.loads((out / "relu_again.json").read_text())
    assert again["commit"] == "3" * 40
    assert again["source"] == "servo/servo/tests/wpt/tests/webnn/conformance_tests/relu_again.https.any.js"
    index = json.loads((out / "INDEX.json").read_text())
    assert index["commit"] == "2" * 40 and [f["commit"] for f in index["files"]] == ["2" * 40, "3" * 40]


@pytest.mark.parametrize("commits, problem", [
    (["nothex"], "not a commit"), (["1" * 40, "2" * 40], "a second commit for the whole folder"),
    (["relu.js=" + "1" * 40], "FILE is a test file's name"),
    (["gone.https.any.js=" + "1" * 40], "gone.https.any.js, which"),  # a typo records no commit for the file meant
])
def test_a_bad_commit_is_a_usage_error_before_anything_is_written(tmp_path, capsys, commits, problem):
    root = wpt_tree(tmp_path / "wpt", {"relu": LOOP})
    out = tmp_path / "out"
    assert main(["import-wpt", str(root), "--out", str(out), *(a for c in commits for a in ("--commit", c))]) == 2
    assert problem in capsys.readouterr().err and not out.exists()


def test_only_the_meta_lines_at_the_top_name_scripts(tmp_path):
    """wptserve reads META lines until the code starts: a META comment further down names no script."""
    late = LITERAL + "\n// META: script=../../../outside.js\n"
    got = converted(wpt_tree(tmp_path / "wpt", {"late": late}))
    assert isinstance(got["late"], Converted)  # not refused for a script outside the folder: never read


# --- the web platform's standard globals (wpt_sandbox.js, STANDARD) ----------------------------
REAL_FILES = Path(__file__).parent / "data" / "wpt_files"
# What a real utils.js gives the real file below at load time and in its tolerance function.
INSTANCE_NORM_UTILS = UTILS + """
const getInstanceNormPrecisionTolerance = (graphResources) => ({metricType: 'ULP', value: 840});
"""


def test_a_real_wpt_file_that_copies_its_cases_with_structured_clone(tmp_path):
    name = "instance-normalization-affine-layout"
    root = wpt_tree(tmp_path, {name: (REAL_FILES / f"{name}.https.any.js").read_text()})
    (root / "webnn" / "resources" / "utils.js").write_text(INSTANCE_NORM_UTILS)
    got = converted(root)[name]
    assert isinstance(got, Converted), got
    tests = {t["name"]: t for t in got.doc["tests"]}
    assert len(tests) == 11
    runtime = tests["instanceNormalization float32 NHWC runtime both"]["graph"]
    control = tests["instanceNormalization float32 NHWC constant affine control"]["graph"]
    composed = tests["instanceNormalization float16 NHWC runtime affine then conv2d"]["graph"]
    # the clones are copies: marking the control's operands constant left the original alone
    assert control["inputs"]["scale"]["constant"] is True and "constant" not in runtime["inputs"]["scale"]
    assert [op["name"] for op in composed["operators"]] == ["instanceNormalization", "conv2d"]
    assert [op["name"] for op in runtime["operators"]] == ["instanceNormalization"]
    assert {t.get("tolerance", {}).get("value") for t in tests.values()} == {840}


STANDARD_GLOBALS = META + """
const source = {data: new Float32Array([1.5, -2]), shape: [2], nested: {list: [1, 2]}};
source.self = source;
const copy = structuredClone(source);
copy.data[0] = 3;
copy.nested.list.push(3);
const text = new TextDecoder().decode(new TextEncoder().encode('\\u00e9\\u{1F600}'));
const half = new Float16Array([1.0003, 65519, 2049, 2 ** -25 * 3]);
const fromBits = new Float16Array(new Uint16Array([0x3c00, 0xfc00, 0x0001, 0x8400]).buffer);
const big = new BigInt64Array([2n ** 60n]);
let fired = false;
setTimeout(() => { fired = true; }, 0);
const values = [copy.data[0], source.data[0], copy.self === copy ? 1 : 0, copy.nested.list.length,
                source.nested.list.length, text.length, text.codePointAt(0), text.codePointAt(1),
                ...half, ...fromBits, Math.f16round(1.00146484375), atob(btoa('ab')) === 'ab' ? 1 : 0,
                Number(big[0] === 2n ** 60n), fired ? 1 : 0, performance.now()];
let cloneError = '';
try { structuredClone({f() {}}); } catch (e) { cloneError = e.name; }
webnn_conformance_test([{
  name: 'standard globals ' + cloneError + ' ' + typeof DOMException,
  graph: {
    inputs: {x: {data: values, descriptor: {shape: [values.length], dataType: 'float32'}}},
    operators: [{name: 'identity', arguments: [{input: 'x'}], outputs: 'y'}],
    expectedOutputs: {y: {data: values, descriptor: {shape: [values.length], dataType: 'float32'}}},
  },
}], buildAndExecuteGraph, getPrecisionTolerance);
"""


def test_the_standard_globals_a_wpt_file_may_use(tmp_path):
    got = converted(wpt_tree(tmp_path, {"globals": STANDARD_GLOBALS}))["globals"]
    assert isinstance(got, Converted), got
    (case,) = got.doc["tests"]
    assert case["name"] == "standard globals DataCloneError function"
    assert case["graph"]["inputs"]["x"]["data"] == [
        3, 1.5, 1, 3, 2,  # a deep copy, its cycle kept
        3, 0xE9, 0x1F600,  # UTF-8 there and back (the emoji is two UTF-16 units)
        1, 65504, 2048, 2 ** -23,  # float16 rounding: nearest, ties to even, subnormal
        1, "-Infinity", 2 ** -24, -(2 ** -14),  # a buffer's binary16 bits read
        1.001953125, 1, 1,
        0, 0]  # a timer never fires; the clock reads 0
