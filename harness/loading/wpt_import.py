"""WPT's own WebNN test files as case files: ``webnn/conformance_tests/*.https.any.js``
of a WPT checkout (or of Chromium's or servo's vendored copy), each run as WPT
runs it, its cases written in our JSON (harness/schema/cases.schema.json).

Each test file builds its cases with its own code (literal arrays, loops,
helpers from ``webnn/resources/utils.js``) and hands them to utils.js's
``webnn_conformance_test(tests, buildAndExecuteGraph, toleranceFunc)``. Here
that call is recorded instead of run: the file and its META scripts run in
Node.js (``wpt_sandbox.js``), in a fresh ``vm`` context that holds nothing of
Node's, in a child process with Node's permission model on (no file read but
the sandbox script, no file write, no child process, no worker), a bounded heap
and a time limit. Node 20's permission model does not cover the network; the
context has no ``fetch``, ``require`` or ``process`` to reach it with.

Every file read is untrusted: its size is bounded, a META script must lie
inside the WPT folder, and only a file whose name is a plain stem (letters,
digits, ``_`` and ``-``, then ``.https.any.js``) becomes ``<stem>.json``.

What it needs: ``node`` 20 or newer on PATH (Debian trixie's ``nodejs``;
bookworm's 18 has no permission model).
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any, Iterator, Mapping, Sequence

from webnn_harness.files.writes import input_problem


CONFORMANCE_DIR = PurePosixPath("webnn/conformance_tests")
TEST_SUFFIX = ".https.any.js"
MAX_SOURCE_BYTES = 8 << 20  # WPT's largest WebNN test file is under 1 MiB
MAX_OUTPUT_BYTES = 256 << 20
NODE_HEAP_MB = 512
MIN_NODE_MAJOR = 20
_STEM = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$")  # WPT names files op.https.any.js and some-case.https.any.js


class ImportSetupError(ValueError):
    """What stops the whole import (no node, no conformance_tests folder): one line."""


@dataclass(frozen=True)
class SandboxLimits:
    seconds: float = 60.0  # per test file, scripts and all
    heap_mb: int = NODE_HEAP_MB


@dataclass(frozen=True)
class Converted:
    """One test file's cases in our JSON, to be written as ``<stem>.json``."""

    stem: str
    doc: dict[str, Any]


@dataclass(frozen=True)
class NotConverted:
    """One test file that gave no cases, and why (one line)."""

    file: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}: {self.reason}"


@dataclass(frozen=True)
class NoCases:
    """One test file that ran to its end in the sandbox and made no conformance case: WPT's folder
    also holds files that test other parts of the API (tensors, devices, graph building) with
    ``promise_test`` of their own. Not an error; said, with why, in INDEX.json."""

    file: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}: {self.reason}"


class NoCasesError(ValueError):
    """The file ran without error and recorded no case."""


# -- finding and reading files --------------------------------------------------------


def conformance_folder(wpt_dir: Path) -> Path:
    folder = Path(wpt_dir) / CONFORMANCE_DIR
    if not folder.is_dir():
        raise ImportSetupError(f"{wpt_dir}: no {CONFORMANCE_DIR}/ here; give the root of a WPT checkout "
                               "(or of Chromium's third_party/blink/web_tests/external/wpt, "
                               "or servo's tests/wpt/tests)")
    return folder


def test_files(wpt_dir: Path) -> list[Path]:
    """The conformance test files, by name."""
    return sorted(p for p in conformance_folder(wpt_dir).iterdir() if p.name.endswith(TEST_SUFFIX))


def output_stem(test_file_name: str) -> str | None:
    """``abs.https.any.js`` -> ``abs``; None for a name that is not a plain stem."""
    stem = test_file_name[: -len(TEST_SUFFIX)] if test_file_name.endswith(TEST_SUFFIX) else ""
    return stem if _STEM.match(stem) else None


def inside(root: Path, path: Path) -> bool:
    """Whether ``path``, links resolved, lies inside ``root``."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # RuntimeError: Python 3.11's resolve() on a link loop
        return False


def read_source(root: Path, path: Path) -> str:
    """A file's text, refused (ValueError) outside ``root``, too big, or not UTF-8."""
    problem = input_problem(path)
    if problem:  # a link loop or a link to nothing, said as such
        raise ValueError(f"{path.name}: {problem}")
    if not inside(root, path):
        raise ValueError(f"{path.name} lies outside {root}")
    if not path.is_file():
        raise ValueError(f"{path.name}: not a regular file (a folder, named pipe or device); not read")
    if path.stat().st_size > MAX_SOURCE_BYTES:
        raise ValueError(f"{path.name}: over {MAX_SOURCE_BYTES >> 20} MiB")
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path.name}: not UTF-8 ({exc.reason} at byte {exc.start})") from None


@dataclass(frozen=True)
class Meta:
    title: str
    scripts: tuple[str, ...]
    variants: tuple[str, ...]
    long_timeout: bool


def read_meta(source: str) -> Meta:
    """The ``// META: key=value`` lines at the top of a WPT .any.js file (wptserve reads them there)."""
    title, scripts, variants, long_timeout = "", [], [], False
    for line in source.splitlines():
        match = re.match(r"\s*//\s*META:\s*(\w+)=(.*)$", line)
        if not match:
            if line.strip() and not line.strip().startswith("//"):
                break  # META lines end where the code starts
            continue
        key, value = match.group(1), match.group(2).strip()
        if key == "title":
            title = value
        elif key == "script":
            scripts.append(value)
        elif key == "variant":
            variants.append(value)
        elif key == "timeout":
            long_timeout = value == "long"
    return Meta(title, tuple(scripts), tuple(variants), long_timeout)


def meta_script_paths(root: Path, test_file: Path, text: str) -> list[Path]:
    """The files a test file's ``// META: script=`` lines name, as WPT resolves them (``/x`` from the
    WPT root, otherwise beside the test file); ValueError for one outside the WPT folder."""
    paths = []
    for name in read_meta(text).scripts:
        path = root / name.lstrip("/") if name.startswith("/") else test_file.parent / name
        if path.is_symlink() and input_problem(path):  # a loop or a link to nothing: said as such
            raise ValueError(f"META script {name!r}: {input_problem(path)}")
        if not inside(root, path):
            raise ValueError(f"META script {name!r} lies outside the WPT folder")
        paths.append(path)
    return paths


# -- running a file in the sandbox ----------------------------------------------------


def sandbox_script() -> Path:
    return Path(str(resources.files("webnn_harness.loading").joinpath("wpt_sandbox.js")))


def node_major(node: str) -> int:
    out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30, env={}).stdout
    match = re.match(r"v(\d+)\.", out.strip())
    return int(match.group(1)) if match else 0


def find_node() -> tuple[str, int]:
    """(node's path, its major version); ImportSetupError where there is none new enough."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise ImportSetupError("import-wpt needs Node.js 20 or newer on PATH (Debian: apt-get install nodejs)")
    major = node_major(node)
    if major < MIN_NODE_MAJOR:
        raise ImportSetupError(f"import-wpt needs Node.js {MIN_NODE_MAJOR} or newer for its permission model; "
                               f"{node} is version {major}")
    return node, major


def node_command(node: str, major: int, limits: SandboxLimits) -> list[str]:
    """Node with the permission model on: it may read the sandbox script and nothing else."""
    script = sandbox_script()
    # Node 20 and 22 name the model --experimental-permission; 23.5 made it --permission.
    permission = "--permission" if major >= 23 else "--experimental-permission"
    return [node, permission, f"--allow-fs-read={script}", f"--max-old-space-size={limits.heap_mb}",
            "--no-warnings", str(script)]  # no "permission is experimental" line on every file


def run_in_sandbox(command: list[str], scripts: list[tuple[str, str]], test: tuple[str, str],
                   limits: SandboxLimits) -> dict[str, Any]:
    """What the sandbox recorded of one test file; ValueError with the reason where it recorded nothing."""
    request = json.dumps({"scripts": [{"name": n, "text": t} for n, t in scripts],
                          "test": {"name": test[0], "text": test[1]},
                          "timeoutMs": int(limits.seconds * 1000)})
    try:
        # An empty environment: NODE_OPTIONS and the like must not loosen the flags above.
        done = subprocess.run(command, input=request.encode(), capture_output=True, timeout=limits.seconds + 10,
                              env={}, cwd="/")
    except subprocess.TimeoutExpired:
        raise ValueError(f"did not finish within {limits.seconds:g} s") from None
    if len(done.stdout) > MAX_OUTPUT_BYTES:
        raise ValueError(f"its cases are over {MAX_OUTPUT_BYTES >> 20} MiB of JSON")
    try:
        result = json.loads(done.stdout)
    except (ValueError, RecursionError):
        last = (done.stderr.decode(errors="replace").strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise ValueError(f"node stopped: {last}") from None
    if not isinstance(result, dict):
        raise ValueError("node's output is not a JSON object")
    if "error" in result:
        raise ValueError(str(result["error"]))
    return result


# -- the recorded calls as our JSON ---------------------------------------------------


def with_tolerances(tests: list, case_tolerances: list, name: str) -> list:
    """Each case with the tolerance its file's own function gave it (where it gave one)."""
    reason = f"the WPT file's {name or 'tolerance function'}"
    return [{**test, "tolerance": {**tol, "reason": reason}} if isinstance(tol, dict) and isinstance(test, dict)
            else test for test, tol in zip(tests, case_tolerances or [None] * len(tests))]


_SHA = re.compile(r"[0-9a-f]{7,40}")


@dataclass(frozen=True)
class Commits:
    """The commit each test file came from: one for the whole folder (a checkout's), and per file
    where a folder gathers files of several commits (``--commit FILE=SHA``)."""

    folder: str | None = None
    files: Mapping[str, str] = field(default_factory=dict)

    def of(self, name: str) -> str | None:
        return self.files.get(name, self.folder)


def parse_commits(values: Sequence[str]) -> Commits:
    """``--commit`` values: ``SHA`` (every file; given once) or ``FILE=SHA`` (that test file, by its name);
    a ValueError, one line, for anything else."""
    folder, files = None, {}
    for value in values:
        name, _, sha = value.rpartition("=")
        if not _SHA.fullmatch(sha):
            raise ValueError(f"--commit {value!r}: not a commit (7 to 40 lowercase hex digits), or FILE=commit")
        if not name:
            if folder is not None and folder != sha:
                raise ValueError(f"--commit {value!r}: a second commit for the whole folder (name the file: FILE={sha})")
            folder = sha
        elif not name.endswith(TEST_SUFFIX) or "/" in name:
            raise ValueError(f"--commit {value!r}: FILE is a test file's name, such as relu{TEST_SUFFIX}")
        else:
            files[name] = sha
    return Commits(folder, files)


def case_file(source: str, commit: str | None, calls: list[dict]) -> dict[str, Any]:
    """The recorded ``webnn_conformance_test`` calls as one case file."""
    doc: dict[str, Any] = {"source": source}
    if commit:
        doc["commit"] = commit
    functions = []
    for call in calls:
        if call["tolerance"] not in functions:
            functions.append(call["tolerance"])
    doc["toleranceFunctions"] = functions
    doc["tests"] = [case for call in calls
                    for case in with_tolerances(call["tests"], call["caseTolerances"], call["tolerance"].get("name"))]
    return doc


@lru_cache(maxsize=1)
def _case_file_schema() -> dict:
    return json.loads(resources.files("webnn_harness").joinpath("schema/cases.schema.json").read_text())


@lru_cache(maxsize=1)
def _case_file_validator():
    import jsonschema

    return jsonschema.Draft202012Validator(_case_file_schema())


@lru_cache(maxsize=1)
def _is_valid_case_file():
    """A yes/no check of the schema in Rust: ``jsonschema`` takes minutes over a file that makes millions of
    values in a loop (a hang to the user); only a file it refuses is read again for the message."""
    try:
        import jsonschema_rs
    except ImportError:
        return _case_file_validator().is_valid
    return jsonschema_rs.Draft202012Validator(_case_file_schema()).is_valid


def check_case_file(doc: dict[str, Any]) -> None:
    """ValueError naming the first field of ``doc`` that our case schema refuses."""
    if _is_valid_case_file()(doc):
        return
    error = next(iter(_case_file_validator().iter_errors(doc)), None)
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "the file"
        raise ValueError(f"its cases do not fit our schema at {where}: {' '.join(error.message.split())[:200]}")


def recorded_calls(result: dict[str, Any]) -> list[dict]:
    calls = result.get("calls")
    if not isinstance(calls, list) or not calls:
        raise NoCasesError("it never calls webnn_conformance_test")
    if not any(isinstance(c, dict) and c.get("tests") for c in calls):
        raise NoCasesError("its webnn_conformance_test calls hold no cases")
    return [c for c in calls if isinstance(c, dict)]


def convert_file(root: Path, test_file: Path, command: list[str], limits: SandboxLimits, source_repo: str,
                 commit: str | None) -> Converted | NoCases | NotConverted:
    """One test file, run in the sandbox, as a case file; or why it made none, or why not."""
    name = test_file.name
    stem = output_stem(name)
    if stem is None:
        return NotConverted(name, "its name is not a plain stem (letters, digits, _ and -), so it names no output file")
    try:
        text = read_source(root, test_file)
        scripts = [(str(p.relative_to(root)) if p.is_relative_to(root) else p.name, read_source(root, p))
                   for p in meta_script_paths(root, test_file, text)]
        calls = recorded_calls(run_in_sandbox(command, scripts, (name, text), limits))
        doc = case_file(f"{source_repo}/{CONFORMANCE_DIR}/{name}", commit, calls)
        check_case_file(doc)
    except NoCasesError as exc:
        return NoCases(name, str(exc))
    except (ValueError, OSError) as exc:
        return NotConverted(name, str(exc))
    return Converted(stem, doc)


def sandbox_command(limits: SandboxLimits) -> list[str]:
    """The node command every file runs under; ImportSetupError where there is no node new enough."""
    node, major = find_node()
    return node_command(node, major, limits)


def convert_folder(wpt_dir: Path, command: list[str], source_repo: str = "web-platform-tests/wpt",
                   commit: str | Commits | None = None, limits: SandboxLimits = SandboxLimits()
                   ) -> Iterator[Converted | NoCases | NotConverted]:
    """Every conformance test file of ``wpt_dir``, converted or not, by name; ``commit``: the folder's, or
    ``Commits`` (per file)."""
    root = Path(wpt_dir)
    commits = commit if isinstance(commit, Commits) else Commits(commit)
    for test_file in test_files(root):
        yield convert_file(root, test_file, command, limits, source_repo, commits.of(test_file.name))


def index_entry(item: Converted | NoCases | NotConverted) -> dict[str, Any]:
    """A line of the import's INDEX.json."""
    if isinstance(item, NoCases):
        return {"file": item.file, "converted": False, "tests": 0, "noCases": True, "reason": item.reason}
    if isinstance(item, NotConverted):
        return {"file": item.file, "converted": False, "reason": item.reason}
    return {"file": f"{item.stem}.json", "source": item.doc["source"], "commit": item.doc.get("commit"),
            "tests": len(item.doc["tests"]), "converted": True,
            "toleranceFunctions": [t.get("name") for t in item.doc["toleranceFunctions"]]}

