"""Run WPT's own WebNN conformance files in a browser and compare its verdicts with a run of ours.

Issue #36 asks that the Chromium backend's verdicts agree, case for case, with what WPT's own
``resources/testharness.js`` and ``webnn/resources/utils.js`` report for the same cases in the same
browser. This tool is that check. No WPT code lives here: the WPT files are read from a folder laid
out as WPT lays them out (``resources/``, ``webnn/resources/``, ``webnn/conformance_tests/``).

Three modes:

    # 1. (optional) write webnn/conformance_tests/*.https.any.js from our corpus JSON: the same
    #    test arrays WPT's files hold (our corpus is the node-eval of those files), called the way the
    #    current WPT files call utils.js. Use it where the real files cannot be had.
    python tools/wpt_in_browser.py --root WPT_ROOT --regenerate --cases ../shared/wpt --file relu.json

    # 2. serve WPT_ROOT on 127.0.0.1, open each *.https.any.js as WPT's .any.html wrapper does, with
    #    the variant query of the device (?cpu), and write {file: {subtest: {status, message}}}.
    python tools/wpt_in_browser.py --root WPT_ROOT --browser PATH/TO/chrome --device cpu --out wpt.json

    # 3. compare with a run folder's results.jsonl of ours.
    python tools/wpt_in_browser.py --wpt-results wpt.json --cases ../shared/wpt --compare RUN/results.jsonl

How utils.js names and skips cases (read from the current webnn/resources/utils.js): each case is a
``promise_test`` named ``[required] <name>`` when it needs only what minimum_datatype_set.json makes
every implementation support, else ``[optional] <name>``. An optional case that the context's
``opSupportLimits()`` does not support (an operator it lacks, a data type or a rank outside its limits)
is not run at all: utils.js pushes it onto its global ``testsToSkip`` and makes no subtest of it. This
tool records those as status ``SKIPPED`` (not a testharness status). A required case the browser
refuses runs and fails with the browser's exception. utils.js also adds one unnamed promise_test
around the cases (named after the page title); it is kept in the results and shown apart.

Agreement, case for case: WPT PASS with our pass; WPT FAIL, TIMEOUT, NOTRUN or PRECONDITION_FAILED
with our fail, unsupported, error, crash or timeout; SKIPPED with our unsupported or skipped. The
browser is driven with Playwright (our ``test`` extra); a browser that crashes or hangs is launched
again for the next file, and the file keeps the results it had logged.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import json
import re
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

# The arguments the chromium backend launches its browser with (no sandbox or zygote as root in a
# container, one process, SwiftShader for the GPU process, WebNN switched on): the same browser state.
from webnn_harness.backends.chromium.browser import FLAGS as BROWSER_ARGS
from webnn_harness.loading.wpt_import import Meta, read_meta

TESTS_DIR = "webnn/conformance_tests"
TEST_SUFFIX = ".https.any.js"
WRAPPER_SUFFIX = ".https.any.html"
REPORTER_PATH = "/resources/testharnessreport.js"
HARNESS_ENTRY = "(harness)"  # the file's harness status, kept beside its subtests
SKIPPED = "SKIPPED"  # an optional case utils.js left out (testsToSkip): no testharness status
SKIPPED_MESSAGE = "optional case the context's opSupportLimits() does not support: utils.js leaves it out (testsToSkip)"
RESULT_MARK = "webnn-harness-wpt-result "


# Our reporter in place of WPT's testharnessreport.js: every result is logged as it comes (so a file
# whose browser crashes keeps what it had), and the completion is left on window for the driver.
REPORTER_JS = """// webnn-harness tools/wpt_in_browser.py: reports testharness results to the driver.
add_result_callback(function (test) {
  console.log(%(mark)s + JSON.stringify(
      {name: test.name, status: test.status, message: test.message}));
});
add_completion_callback(function (tests, harness_status) {
  window.__webnnHarnessCompletion = {
    tests: tests.map(function (t) {
      return {name: t.name, status: t.status, message: t.message};
    }),
    harness: {status: harness_status.status, message: harness_status.message},
  };
});
""" % {"mark": json.dumps(RESULT_MARK)}

# WPT's tools/serve any.html template, as it wraps a .any.js for the window global.
WRAPPER_HTML = """<!doctype html>
<meta charset=utf-8>
{meta}<script>
self.GLOBAL = {{
  isWindow: function() {{ return true; }},
  isWorker: function() {{ return false; }},
  isShadowRealm: function() {{ return false; }},
}};
</script>
<script src="/resources/testharness.js"></script>
<script src="/resources/testharnessreport.js"></script>
{scripts}<div id=log></div>
<script src="{test}"></script>
"""

# testharness.js's status codes, by the names wptrunner reports them with (its format_status()
# words differ: "Pass", "Not Run", "Optional Feature Unsupported").
SUBTEST_STATUSES = {0: "PASS", 1: "FAIL", 2: "TIMEOUT", 3: "NOTRUN", 4: "PRECONDITION_FAILED"}
HARNESS_STATUSES = {0: "OK", 1: "ERROR", 2: "TIMEOUT", 3: "PRECONDITION_FAILED"}

WPT_PASS = frozenset({"PASS"})
WPT_NOT_PASS = frozenset({"FAIL", "TIMEOUT", "NOTRUN", "PRECONDITION_FAILED"})
OURS_PASS = frozenset({"pass"})
OURS_NOT_PASS = frozenset({"fail", "unsupported", "error", "crash", "timeout"})
OURS_NOT_RUN = frozenset({"unsupported", "skipped"})
CASE_PREFIX = re.compile(r"^\[(required|optional)\] ")


# ---------------------------------------------------------------------------------------------
# META lines and the .any.html wrapper

def variant_for_device(meta: Meta, device: str) -> str:
    """The file's variant query for the device type: utils.js reads ``?device=cpu`` or else the whole
    query after ``?`` (``?cpu``) as the key of its context options."""
    for variant in meta.variants:
        if variant in (f"?{device}", f"?device={device}"):
            return variant
    raise ValueError(f"no variant for device {device!r} among {list(meta.variants)}")


def wrapper_html(meta: Meta, test_name: str) -> str:
    """The page WPT serves as ``X.https.any.html`` for ``X.https.any.js`` (window global)."""
    lines = []
    if meta.long_timeout:
        lines.append('<meta name="timeout" content="long">\n')
    if meta.title:
        lines.append(f"<title>{_html_escape(meta.title)}</title>\n")
    scripts = "".join(f'<script src="{_html_escape(src)}"></script>\n' for src in meta.scripts)
    return WRAPPER_HTML.format(meta="".join(lines), scripts=scripts, test=_html_escape(test_name))


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")


# ---------------------------------------------------------------------------------------------
# Regenerating WPT-shaped test files from our corpus

SPECIAL_FLOATS = {"NaN": "NaN", "Infinity": "Infinity", "-Infinity": "-Infinity"}


def js_literal(value: Any) -> str:
    """A corpus value as the JavaScript WPT wrote: "NaN"/"Infinity" strings as numbers,
    {"bigint": "<decimal>"} as a BigInt literal."""
    if isinstance(value, dict):
        if set(value) == {"bigint"}:
            return f"{int(value['bigint'])}n"
        return "{" + ", ".join(f"{json.dumps(k)}: {js_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(js_literal(v) for v in value) + "]"
    if isinstance(value, str) and value in SPECIAL_FLOATS:
        return SPECIAL_FLOATS[value]
    return json.dumps(value)


def file_tolerance_js(tolerance: Mapping[str, Any] | None) -> str | None:
    """A corpus ``fileTolerance`` (the tolerance a WPT file defines for itself) as the function the
    file passes to webnn_conformance_test; None where utils.js's getPrecisionTolerance applies.
    Expressions of the case's shape are not written (no file in use has one)."""
    if not tolerance:
        return None
    metric = tolerance["metric"]
    if "value" in tolerance:
        value = js_literal(tolerance["value"])
        return f"(graphResources, intermediateOperands) => ({{metricType: '{metric}', value: {value}}})"
    by_type = tolerance["byDataType"]
    if any(isinstance(v, str) for v in by_type.values()):
        raise ValueError(f"fileTolerance {by_type} is an expression of the shape: not written")
    return ("(graphResources, intermediateOperands) => ({metricType: '%s', value: %s["
            "getExpectedDataTypeOfSingleOutput(graphResources.expectedOutputs)]})" % (metric, js_literal(by_type)))


def with_shape(value: Any) -> Any:
    """Older WPT files (two softplus copies in our corpus) name a descriptor's shape ``dimensions``;
    the current utils.js reads ``shape``."""
    if isinstance(value, dict):
        return {("shape" if k == "dimensions" else k): with_shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [with_shape(v) for v in value]
    return value


# Tolerances that WPT files define for themselves where our corpus did not record one (its
# web-platform-tests copies came from an evaluation of the files that kept only the test arrays).
# Without them utils.js's getPrecisionTolerance gives these ops 0 ULP. Value: a corpus-style
# fileTolerance, or the name of a utils.js function the file passes.
KNOWN_FILE_TOLERANCES: dict[str, tuple[Any, str]] = {
    "exp.https.any.js": ({"metric": "ULP", "byDataType": {"float32": 32, "float16": 1}},
                         "the current exp.https.any.js getExpPrecisionTolerance (read in the code index)"),
    "instance_normalization.https.any.js": ("getInstanceNormPrecisionTolerance",
                                            "utils.js defines it for this file (WPT PR 43891: 840 ULP, float16 8400)"),
    "log.https.any.js": ({"metric": "ATOL", "byDataType": {"float32": 1 / 1024, "float16": 1 / 1024}},
                         "log.https.any.js as harness/spec/opspec/elementwise.py cites it (not re-read here)"),
    "sqrt.https.any.js": ({"metric": "ULP", "byDataType": {"float32": 1, "float16": 1}},
                          "sqrt 1 ULP as harness/spec/opspec/elementwise.py cites WPT (not re-read here)"),
    "div.https.any.js": ({"metric": "ULP", "byDataType": {"float32": 2, "float16": 2}},
                         "div.https.any.js as harness/spec/opspec/elementwise.py cites it (not re-read here)"),
    "pow.https.any.js": ({"metric": "ULP", "byDataType": {"float32": 32, "float16": 2}},
                         "pow.https.any.js as harness/spec/opspec/elementwise.py cites it (not re-read here)"),
    "cast.https.any.js": ({"metric": "ULP", "byDataType": {"float32": 1, "float16": 1, "int32": 0, "uint32": 0,
                                                           "int64": 0, "uint64": 0, "int8": 0, "uint8": 0}},
                          "WPT's cast budget (1 ULP to a float type, integers exact; older utils.js table)"),
    "layer_normalization.https.any.js": ({"metric": "ATOL", "byDataType": {"float32": 1 / 1024, "float16": 1 / 512}},
                                         "the older WPT ATOL that ../shared/wpt/README.md records; the current "
                                         "file's own function could not be read"),
}


def tolerance_js(corpus_doc: Mapping[str, Any], wpt_file: str) -> tuple[str, str]:
    """The tolerance argument of the file's webnn_conformance_test call, and where it comes from."""
    recorded = file_tolerance_js(corpus_doc.get("fileTolerance"))
    if recorded:
        return recorded, "the corpus's fileTolerance"
    if wpt_file in KNOWN_FILE_TOLERANCES:
        tolerance, why = KNOWN_FILE_TOLERANCES[wpt_file]
        return (tolerance if isinstance(tolerance, str) else file_tolerance_js(tolerance)), why
    return "getPrecisionTolerance", "utils.js getPrecisionTolerance"


def wpt_file_name(corpus_doc: Mapping[str, Any], corpus_file: Path) -> str:
    """The WPT file a corpus file was taken from: the last part of its ``source``."""
    source = str(corpus_doc.get("source") or "")
    name = source.rsplit("/", 1)[-1]
    if not name.endswith(TEST_SUFFIX):
        raise ValueError(f"{corpus_file}: source {source!r} is not a WPT {TEST_SUFFIX} file")
    return name


def regenerated_test_file(corpus_doc: Mapping[str, Any], corpus_file: Path) -> str:
    """A WPT-shaped .https.any.js: META lines as the current WPT files have them, the corpus's test
    array, and the call the current utils.js takes."""
    wpt_file = wpt_file_name(corpus_doc, corpus_file)
    op_title = wpt_file[: -len(TEST_SUFFIX)]
    tolerance, tolerance_source = tolerance_js(corpus_doc, wpt_file)
    tests = ",\n".join("  " + js_literal({"name": t["name"], "graph": with_shape(t["graph"])})
                        for t in corpus_doc["tests"])
    return (
        f"// META: title=test WebNN API {op_title} operation\n"
        "// META: global=window\n"
        "// META: variant=?cpu\n// META: variant=?gpu\n// META: variant=?npu\n"
        "// META: script=../resources/utils.js\n// META: timeout=long\n\n"
        "'use strict';\n\n"
        f"// Regenerated by webnn-harness tools/wpt_in_browser.py from {corpus_file.parent.name}/{corpus_file.name}\n"
        f"// (source: {corpus_doc.get('source')} at {corpus_doc.get('commit')}).\n"
        f"// Tolerance: {tolerance_source}.\n\n"
        f"const regeneratedTests = [\n{tests}\n];\n\n"
        f"const regeneratedTolerance =\n    {tolerance};\n\n"
        "webnn_conformance_test(\n    regeneratedTests, buildAndExecuteGraph, regeneratedTolerance);\n"
    )


def corpus_files(case_dirs: Sequence[Path], names: Sequence[str] = ()) -> Iterator[Path]:
    """The corpus JSON files of ``case_dirs`` (each a WPT file's cases), or only those named."""
    wanted = set(names)
    for case_dir in case_dirs:
        for path in sorted(case_dir.glob("*.json")):
            if wanted and path.name not in wanted:
                continue
            doc = json.loads(path.read_text())
            if isinstance(doc, dict) and isinstance(doc.get("tests"), list):
                yield path


def regenerate(root: Path, case_dirs: Sequence[Path], names: Sequence[str]) -> list[Path]:
    out_dir = root / TESTS_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in corpus_files(case_dirs, names):
        doc = json.loads(path.read_text())
        try:
            text = regenerated_test_file(doc, path)
        except ValueError as exc:
            print(f"not written: {path}: {exc}", file=sys.stderr)
            continue
        target = out_dir / wpt_file_name(doc, path)
        target.write_text(text)
        written.append(target)
    return written


# ---------------------------------------------------------------------------------------------
# Serving and running

class WptHandler(http.server.SimpleHTTPRequestHandler):
    """Files of the WPT root, with our reporter and the generated .any.html wrappers."""

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        path = self.path.split("?", 1)[0]
        if path == REPORTER_PATH:
            return self._send(REPORTER_JS, "text/javascript")
        if path.endswith(WRAPPER_SUFFIX):
            source = Path(self.translate_path(path[: -len(WRAPPER_SUFFIX)] + TEST_SUFFIX))
            if source.is_file():
                name = path.rsplit("/", 1)[-1][: -len(WRAPPER_SUFFIX)] + TEST_SUFFIX
                return self._send(wrapper_html(read_meta(source.read_text()), name), "text/html")
        return super().do_GET()

    def _send(self, text: str, content_type: str) -> None:
        body = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the http.server name
        pass


def serve(root: Path) -> http.server.ThreadingHTTPServer:
    """A server of ``root`` on the loopback interface only (a secure context, as WebNN needs)."""
    handler = functools.partial(WptHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def subtests_from_completion(completion: Mapping[str, Any], skipped: Iterable[str]) -> dict[str, dict]:
    """One file's entries: every subtest, the optional cases utils.js skipped, the harness status."""
    entries = {t["name"]: {"status": SUBTEST_STATUSES[t["status"]], "message": t["message"] or ""}
               for t in completion["tests"]}
    for name in skipped:
        entries.setdefault(f"[optional] {name}", {"status": SKIPPED, "message": SKIPPED_MESSAGE})
    harness = completion["harness"]
    entries[HARNESS_ENTRY] = {"status": HARNESS_STATUSES[harness["status"]], "message": harness["message"] or ""}
    return entries


def subtests_so_far(lines: Iterable[str], status: str, message: str) -> dict[str, dict]:
    """A file that did not complete: the results it logged before, and why it stopped."""
    entries: dict[str, dict] = {}
    for line in lines:
        result = json.loads(line[len(RESULT_MARK):])
        entries[result["name"]] = {"status": SUBTEST_STATUSES[result["status"]], "message": result["message"] or ""}
    entries[HARNESS_ENTRY] = {"status": status, "message": message}
    return entries


class Browser:
    """One browser for the whole run, launched again after a crash."""

    def __init__(self, playwright: Any, executable: Path) -> None:
        self._playwright, self._executable = playwright, executable
        self._browser = None
        self._context = None

    def page(self) -> Any:
        """A new page (a fresh document per file) in the browser's one context: a single-process
        Chromium goes away when the last context of ``Browser.new_page`` closes with its page."""
        if self._browser is None or not self._browser.is_connected():
            self._browser = self._playwright.chromium.launch(
                executable_path=str(self._executable), headless=True, args=list(BROWSER_ARGS))
            self._context = self._browser.new_context()
        return self._context.new_page()

    @property
    def version(self) -> str:
        self.page().close()
        return self._browser.version

    def drop(self) -> None:
        """Forget a browser that crashed or hung (killing it if it is still there)."""
        if self._browser is not None:
            try:
                self._browser.close()
            except Exception:  # noqa: BLE001 - a dead browser may fail to close in any way
                pass
        self._browser = self._context = None


def run_file(browser: Browser, url: str, timeout_s: float) -> dict[str, dict]:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    logged: list[str] = []
    page = browser.page()
    page.on("console", lambda msg: logged.append(msg.text) if msg.text.startswith(RESULT_MARK) else None)
    deadline = time.monotonic() + timeout_s
    try:
        page.goto(url, wait_until="load", timeout=timeout_s * 1000)
        page.wait_for_function("() => window.__webnnHarnessCompletion !== undefined",
                               timeout=max(deadline - time.monotonic(), 0.001) * 1000)
        completion = page.evaluate("() => window.__webnnHarnessCompletion")
        skipped = page.evaluate("() => typeof testsToSkip === 'undefined' ? [] : testsToSkip.map(t => t.name)")
        page.close()
        return subtests_from_completion(completion, skipped)
    except PlaywrightTimeout:
        browser.drop()  # a hung page in a single-process browser: start afresh
        return subtests_so_far(logged, "TIMEOUT", f"no completion within {timeout_s:g} s (this tool's per-file timeout)")
    except PlaywrightError as exc:
        browser.drop()
        return subtests_so_far(logged, "CRASH", f"browser gone: {str(exc).splitlines()[0]}")


def test_files(root: Path, names: Sequence[str]) -> list[Path]:
    files = sorted((root / TESTS_DIR).glob(f"*{TEST_SUFFIX}"))
    if names:
        wanted = {n if n.endswith(TEST_SUFFIX) else n + TEST_SUFFIX for n in names}
        files = [f for f in files if f.name in wanted]
    return files


def run_all(root: Path, executable: Path, device: str, files: Sequence[Path], timeout_s: float,
            progress: Any = print) -> dict[str, dict]:
    from playwright.sync_api import sync_playwright

    server = serve(root)
    results: dict[str, dict] = {}
    try:
        with sync_playwright() as playwright:
            browser = Browser(playwright, executable)
            version = browser.version
            progress(f"browser {version}, device {device}, {len(files)} files, server http://127.0.0.1:{server.server_port}")
            for path in files:
                variant = variant_for_device(read_meta(path.read_text()), device)
                url = f"http://127.0.0.1:{server.server_port}/{TESTS_DIR}/{path.name[: -len(TEST_SUFFIX)]}{WRAPPER_SUFFIX}{variant}"
                started = time.monotonic()
                entries = run_file(browser, url, timeout_s)
                entries[HARNESS_ENTRY].update(browser=version, device=device)
                results[path.name] = entries
                counts = Counter(e["status"] for n, e in entries.items() if n != HARNESS_ENTRY)
                progress(f"{path.name}: {entries[HARNESS_ENTRY]['status']} {dict(sorted(counts.items()))} "
                         f"in {time.monotonic() - started:.1f} s")
            browser.drop()
    finally:
        server.shutdown()
    return results


# ---------------------------------------------------------------------------------------------
# Comparing with our records

def case_name(subtest: str) -> str | None:
    """Our case name for a utils.js subtest name, None for a subtest that is no case."""
    match = CASE_PREFIX.match(subtest)
    return subtest[match.end():] if match else None


def is_required(subtest: str) -> bool:
    """utils.js names a case ``[required]`` when minimum_datatype_set.json covers all it needs."""
    return subtest.startswith("[required] ")


def corpus_file_by_wpt_file(case_dirs: Sequence[Path]) -> dict[str, str]:
    """``relu.https.any.js`` -> ``wpt/relu.json``, as our records name files."""
    mapping: dict[str, str] = {}
    for path in corpus_files(case_dirs):
        name = wpt_file_name(json.loads(path.read_text()), path)
        ours = f"{path.parent.name}/{path.name}"
        if name in mapping:
            raise ValueError(f"{name} is the source of both {mapping[name]} and {ours}")
        mapping[name] = ours
    return mapping


def verdict(wpt_status: str | None, ours: str | None) -> str:
    """agree / disagree for one case, or why it cannot be judged."""
    if wpt_status is None:
        return "only ours"
    if ours is None:
        return "only WPT"
    if wpt_status in WPT_PASS:
        return "agree" if ours in OURS_PASS else "disagree"
    if wpt_status == SKIPPED:
        return "agree" if ours in OURS_NOT_RUN else "disagree"
    if wpt_status in WPT_NOT_PASS:
        return "agree" if ours in OURS_NOT_PASS else "disagree"
    return "disagree"


@dataclass(frozen=True)
class CaseComparison:
    wpt_file: str
    ours_file: str
    case: str
    wpt_status: str | None
    wpt_message: str
    ours_status: str | None
    ours_message: str
    wpt_required: bool | None = None
    ours_required: bool | None = None

    @property
    def verdict(self) -> str:
        return verdict(self.wpt_status, self.ours_status)


def compare(wpt_results: Mapping[str, Mapping[str, Mapping[str, Any]]], records: Iterable[Any],
            file_map: Mapping[str, str]) -> list[CaseComparison]:
    """Every case of every WPT file run, beside our record of it (records of other files are left out)."""
    ours: dict[tuple[str, str], Any] = {(r.file, r.case): r for r in records}
    rows = []
    for wpt_file, subtests in sorted(wpt_results.items()):
        ours_file = file_map.get(wpt_file, "")
        wpt_cases = {case_name(n): (n, e) for n, e in subtests.items() if case_name(n) is not None}
        ours_cases = {case for (f, case) in ours if f == ours_file}
        for case in sorted(set(wpt_cases) | ours_cases):
            (name, entry), record = wpt_cases.get(case, (None, None)), ours.get((ours_file, case))
            rows.append(CaseComparison(
                wpt_file, ours_file, case,
                entry["status"] if entry else None, (entry or {}).get("message", ""),
                record.status if record else None, record.message if record else "",
                is_required(name) if name else None, record.required if record else None))
    return rows


COLUMNS = ("file", "cases", "WPT PASS", "WPT not pass", "WPT skipped", "ours pass", "ours not pass",
           "agree", "disagree", "only WPT", "only ours", "harness")


def table_row(wpt_file: str, rows: Sequence[CaseComparison], harness: str) -> tuple:
    wpt = Counter(r.wpt_status for r in rows)
    ours = Counter(r.ours_status for r in rows)
    verdicts = Counter(r.verdict for r in rows)
    return (wpt_file, len(rows), sum(wpt[s] for s in WPT_PASS), sum(wpt[s] for s in WPT_NOT_PASS), wpt[SKIPPED],
            sum(ours[s] for s in OURS_PASS), sum(ours[s] for s in OURS_NOT_PASS), verdicts["agree"],
            verdicts["disagree"], verdicts["only WPT"], verdicts["only ours"], harness)


def format_table(table: Sequence[tuple]) -> str:
    widths = [max(len(str(row[i])) for row in table) for i in range(len(table[0]))]
    return "\n".join("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in
                               enumerate(zip(row, widths))).rstrip() for row in table)


def report(wpt_results: Mapping[str, Mapping[str, Mapping[str, Any]]], rows: Sequence[CaseComparison]) -> str:
    by_file: dict[str, list[CaseComparison]] = {}
    for row in rows:
        by_file.setdefault(row.wpt_file, []).append(row)
    table = [COLUMNS]
    for wpt_file in sorted(wpt_results):
        harness = wpt_results[wpt_file].get(HARNESS_ENTRY, {}).get("status", "?")
        table.append(table_row(wpt_file, by_file.get(wpt_file, []), harness))
    table.append(table_row("all", rows, ""))
    lines = [format_table(table), ""]
    other = [(f, n, e) for f, s in sorted(wpt_results.items()) for n, e in s.items()
             if case_name(n) is None and n != HARNESS_ENTRY and e["status"] != "PASS"]
    for wpt_file, name, entry in other:
        lines.append(f"subtest that is no case, not passing: {wpt_file} :: {name}: {entry['status']} {entry['message']}")
    for wpt_file, subtests in sorted(wpt_results.items()):
        harness = subtests.get(HARNESS_ENTRY, {})
        if harness.get("status") not in (None, "OK"):
            lines.append(f"harness {harness['status']}: {wpt_file}: {harness.get('message', '')}")
    required_differs = Counter(r.wpt_file for r in rows if None not in (r.wpt_required, r.ours_required)
                               and r.wpt_required != r.ours_required)
    if required_differs:
        lines.append(f"{sum(required_differs.values())} cases that utils.js calls [required]/[optional] where our "
                     "records say the opposite (WPT's minimum_datatype_set.json against our spec tables): "
                     + ", ".join(f"{f} {n}" for f, n in sorted(required_differs.items())))
    disagreements = [r for r in rows if r.verdict != "agree"]
    lines.append(f"{len(disagreements)} of {len(rows)} cases not in agreement"
                 + (":" if disagreements else "."))
    for r in disagreements:
        lines.append(f"- [{r.verdict}] {r.ours_file or r.wpt_file}::{r.case}\n"
                     f"    WPT:  {r.wpt_status or 'no subtest'}: {r.wpt_message}\n"
                     f"    ours: {r.ours_status or 'no record'}: {r.ours_message}")
    return "\n".join(lines)


def read_our_records(path: Path) -> tuple[Any, ...]:
    from webnn_harness.outputs.run_folder import read_records_whole

    read = read_records_whole(path)
    for problem in read.problems:
        print(f"skipped: {problem}", file=sys.stderr)
    return read.records


# ---------------------------------------------------------------------------------------------

def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, help="WPT folder (resources/, webnn/resources/, webnn/conformance_tests/)")
    parser.add_argument("--regenerate", action="store_true",
                        help="write ROOT/webnn/conformance_tests/*.https.any.js from the --cases corpus files")
    parser.add_argument("--cases", type=Path, action="append", default=[], help="a corpus folder (repeatable)")
    parser.add_argument("--file", action="append", default=[],
                        help="only this file (corpus NAME.json with --regenerate, else X.https.any.js); repeatable")
    parser.add_argument("--browser", type=Path, help="the browser executable to run")
    parser.add_argument("--device", default="cpu", choices=("cpu", "gpu", "npu"))
    parser.add_argument("--timeout", type=float, default=180.0,
                        help="seconds a file may take (testharness's own long timeout is 60 s)")
    parser.add_argument("--out", type=Path, help="where to write the WPT results JSON")
    parser.add_argument("--wpt-results", type=Path, help="a WPT results JSON of --out, to compare")
    parser.add_argument("--compare", type=Path, metavar="RESULTS_JSONL",
                        help="compare --wpt-results with this results.jsonl of ours")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.compare:
        if not args.wpt_results or not args.cases:
            sys.exit("--compare needs --wpt-results and --cases (to map WPT files to our corpus files)")
        wpt_results = json.loads(args.wpt_results.read_text())
        rows = compare(wpt_results, read_our_records(args.compare), corpus_file_by_wpt_file(args.cases))
        print(report(wpt_results, rows))
        return 0
    if not args.root:
        sys.exit("--root is needed to regenerate or to run")
    if args.regenerate:
        for path in regenerate(args.root, args.cases, args.file):
            print(f"wrote {path}")
        return 0
    if not args.browser or not args.out:
        sys.exit("a run needs --browser and --out")
    files = test_files(args.root, args.file)
    results = run_all(args.root, args.browser, args.device, files, args.timeout)
    args.out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
