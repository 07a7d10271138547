"""Issue 50 (round 5 of hostile inputs): the tries round 4 left open, then the same classes in what rounds 4
and 5 added (browsers install and list, chromium's options, the page server, import-wpt). Each try ends in
one line with the documented exit code (harness/commands/common.py), writes nothing outside the folder
named, and leaves no refused output folder with files. The tries, per class, are counted at the end."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from test_bad_inputs import GOOD, QUICK_BENCH, _quietly, outputs  # noqa: F401 - the shared folders
from test_wpt_import import _node_ok

REPO = Path(__file__).resolve().parents[1]
LONG = "n" * 300  # a name longer than any file system's NAME_MAX (255)


def _copy(outputs, tmp: Path, name: str) -> Path:  # noqa: F811
    return Path(shutil.copytree(outputs[name], tmp / f"my-{name}", ignore=shutil.ignore_patterns(".*.lock")))


def _tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def _one_line(code: int, errors: list[str], expected_code: int, *words: str) -> None:
    assert code == expected_code and len(errors) == 1 and "Traceback" not in errors[0], (code, errors)
    for word in words:
        assert word in errors[0], (word, errors[0])


# ------------------------------------------------------------------ links at every depth

def test_report_archive_never_writes_a_site_into_an_entry(tmp_path, outputs):
    arch = tmp_path / "arch"
    assert _quietly(["archive", "add", str(arch), str(outputs["run"]), str(outputs["bench"])])[0] == 0
    entry = next((arch / "entries").iterdir())
    (tmp_path / "to-entries").symlink_to(arch / "entries")
    before = _tree(arch)
    for out in (entry / "site", arch / "entries", tmp_path / "to-entries" / entry.name / "site"):
        code, errors, _ = _quietly(["report", "--archive", str(arch), "--out", str(out)])
        _one_line(code, errors, 2, "inside the archive's entries")
    assert _tree(arch) == before
    code, errors, _ = _quietly(["report", "--archive", str(arch), "--out", str(tmp_path / "site")])
    assert code == 0 and not errors, errors  # the same archive, a site outside it


SITE_IN_ENTRY = 3
DATABASE_LINKS = ["hypothesis", "hypothesis/KEY", "hypothesis/KEY/VALUE"]  # the folder, a key folder, an example


@pytest.mark.parametrize("link", DATABASE_LINKS)
def test_fuzz_never_writes_its_example_database_through_a_link(tmp_path, outputs, link):
    fuzz = _copy(outputs, tmp_path, "fuzz")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "mine").write_text("mine")
    database = fuzz / "hypothesis"
    key = sorted(p for p in database.iterdir() if p.is_dir())[0] if database.is_dir() else None
    if key is None:
        database.mkdir(exist_ok=True)
        key = database / ("0" * 16)
        key.mkdir()
        (key / ("1" * 16)).write_bytes(b"\0")
    value = sorted(key.iterdir())[0]
    path = {"hypothesis": database, "hypothesis/KEY": key, "hypothesis/KEY/VALUE": value}[link]
    shutil.rmtree(path) if path.is_dir() else path.unlink()
    path.symlink_to(outside / "mine" if link.endswith("VALUE") else outside)
    before = _tree(fuzz)
    code, errors, _ = _quietly(["fuzz", "-q", "-b", "reference", "--op", "abs", "--time", "1", "--overwrite",
                                "--out", str(fuzz)])
    _one_line(code, errors, 2, "symbolic link")
    assert _tree(outside) == {"mine": b"mine"} and _tree(fuzz) == before


CASES_LINKS = {  # a cases folder holding links: each bad one one named error line, the good case still run
    "a link to itself": lambda d: (d / "loop" / "b.json").symlink_to("b.json"),
    "two links in a cycle": lambda d: ((d / "loop" / "c.json").symlink_to("d.json"),
                                       (d / "loop" / "d.json").symlink_to("c.json")),
    "a link to nothing": lambda d: (d / "loop" / "e.json").symlink_to("gone.json"),
    "a loop three folders down": lambda d: ((d / "x" / "y" / "z").mkdir(parents=True),
                                            (d / "x" / "y" / "z" / "f.json").symlink_to("f.json")),
}


@pytest.mark.parametrize("kind", list(CASES_LINKS))
def test_a_cases_folder_holding_a_bad_link_names_it_in_one_line(tmp_path, kind):
    cases = tmp_path / "cases"
    (cases / "loop").mkdir(parents=True)
    (cases / "good.json").write_text(json.dumps({"tests": [GOOD]}))
    (cases / "up").symlink_to("..")  # a folder link back up: not followed, so no loop of folders
    CASES_LINKS[kind](cases)
    code, errors, _ = _quietly(["run", "-q", "-b", "reference", "--workers", "1", "--cases", str(cases),
                                "--out", str(tmp_path / "r")])
    assert code == 2 and errors, errors  # unreadable input: exit 2, after the good case ran
    named = [e for e in errors if e.startswith("error: ")]
    assert named and all(("symbolic link loop" in e or "does not exist" in e) for e in named), named
    records = [json.loads(x) for x in (tmp_path / "r" / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records if r["case"] == "good"] == ["pass"]


INPUT_LINKS = {
    "report a link to nothing": lambda t: ["report", str(t / "dangling"), "--out", str(t / "site")],
    "diff a link loop": lambda t: ["diff", str(t / "loop"), str(t / "loop")],
    "archive add a link loop": lambda t: ["archive", "add", str(t / "arch"), str(t / "loop")],
    "junit a link loop": lambda t: ["junit", str(t / "loop"), "--out", str(t / "j.xml")],
    "run --cases a link loop": lambda t: ["run", "-b", "reference", "--cases", str(t / "loop"), "--out", str(t / "r")],
}


@pytest.mark.parametrize("case_id", list(INPUT_LINKS))
def test_an_input_that_is_a_bad_link_is_one_line_before_any_work(tmp_path, case_id):
    (tmp_path / "dangling").symlink_to("gone")
    (tmp_path / "loop").symlink_to("loop")
    code, errors, _ = _quietly(INPUT_LINKS[case_id](tmp_path))
    _one_line(code, errors, 2)
    assert "symbolic link" in errors[0], errors
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "loop"]


# ------------------------------------------------------------------ bad names and values

OVER_LONG = {  # every input path a command reads: a name too long is exit 2, not a write error or a traceback
    "run --cases": ["run", "-b", "reference", "--cases", "L", "--out", "O"],
    "run --expectations": ["run", "-b", "reference", "--cases", "G", "--expectations", "L", "--out", "O"],
    "run --rerun-failures": ["run", "--rerun-failures", "L", "--out", "O"],
    "report": ["report", "L", "--out", "O"],
    "report --archive": ["report", "--archive", "L", "--out", "O"],
    "diff base": ["diff", "L", "G"],
    "diff new": ["diff", "G", "L"],
    "junit": ["junit", "L", "--out", "O"],
    "merge": ["merge", "L", "--out", "O"],
    "import-wpt": ["import-wpt", "L", "--out", "O"],
    "bench --suite": ["bench", "-b", "reference", "--suite", "L", "--out", "O"],
    "bench --baseline": ["bench", "-b", "reference", "--baseline", "L", "--out", "O"],
    "probe --compare": ["probe", "-b", "reference", "--compare", "L", "--out", "O"],
    "fuzz --probe": ["fuzz", "-b", "reference", "--probe", "L", "--out", "O"],
    "archive add": ["archive", "add", "A", "L"],
}


@pytest.mark.parametrize("case_id", list(OVER_LONG))
def test_an_over_long_input_path_is_exit_2_before_any_work(tmp_path, case_id):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"tests": [GOOD]}))
    names = {"L": str(tmp_path / LONG), "O": str(tmp_path / "out"), "G": str(good), "A": str(tmp_path / "arch")}
    code, errors, _ = _quietly([names.get(a, a) for a in OVER_LONG[case_id]])
    _one_line(code, errors, 2, "too long")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.json"]


def test_rerun_failures_after_a_green_run_says_so_and_exits_0(tmp_path, outputs, capsys):
    from webnn_harness.cli import main

    assert main(["run", "--rerun-failures", str(outputs["run"]), "--out", str(tmp_path / "again")]) == 0
    out, err = capsys.readouterr()
    assert "nothing to re-run" in out and len(out.strip().splitlines()) == 1 and not err.strip(), (out, err)
    assert not (tmp_path / "again").exists()


# ------------------------------------------------------------------ a corrupt bench --baseline

def _baseline_forms(outputs) -> dict:
    line = (outputs["bench"] / "bench.jsonl").read_text().splitlines()[0]
    rec = json.loads(line)
    lat = rec["latency"]
    run_line = (outputs["run"] / "results.jsonl").read_text()
    return {
        "empty": ("", None), "blank lines": ("\n\n", None), "truncated line": (line[: len(line) // 2], None),
        "a list": ("[1]\n", None), "an empty object": ("{}\n", None),
        "latency a string": (json.dumps({**rec, "latency": "x"}) + "\n", None),
        "latency null": (json.dumps({**rec, "latency": None}) + "\n", None),
        "latency without times": (json.dumps({**rec, "latency": {k: v for k, v in lat.items() if k != "times"}})
                                  + "\n", None),
        "times of strings": (json.dumps({**rec, "latency": {**lat, "times": ["a"]}}) + "\n", None),
        "median negative": (json.dumps({**rec, "latency": {**lat, "median": -1}}) + "\n", None),
        "median NaN": (line.replace('"median": ', '"median": NaN, "was": ', 1) + "\n", None),
        "a time Infinity": (json.dumps({**rec, "latency": {**lat, "times": [*lat["times"], float("inf")]}}) + "\n",
                            None),
        "status a number": (json.dumps({**rec, "status": 5}) + "\n", None),
        "backend a string": (json.dumps({**rec, "backend": "x"}) + "\n", None),
        "a run's records": (run_line, None),
        "a good line and garbage": (line + "\ngarbage\n", None),
        "summary not JSON": (line + "\n", "x"), "summary a list": (line + "\n", "[1]"),
        "summary without a machine": (line + "\n", "{}"), "summary missing": (line + "\n", ""),
    }


BASELINE_FORMS = 20


def test_every_corrupt_baseline_form_is_refused_before_the_bench(tmp_path, outputs):
    forms = _baseline_forms(outputs)
    assert len(forms) == BASELINE_FORMS
    for name, (lines, summary) in forms.items():
        base = Path(shutil.copytree(outputs["bench"], tmp_path / name.replace(" ", "-"),
                                    ignore=shutil.ignore_patterns(".*.lock")))
        (base / "bench.jsonl").write_text(lines)
        if summary == "":
            (base / "summary.json").unlink()
        elif summary is not None:
            (base / "summary.json").write_text(summary)
        out = tmp_path / f"out-{name.replace(' ', '-')}"
        code, errors, _ = _quietly(["bench", "-b", "reference", "--suite", str(outputs["bench"].parent / "suite.json"),
                                    "--baseline", str(base), "--out", str(out), *QUICK_BENCH])
        assert code == 2 and len(errors) == 1 and "--baseline" in errors[0], (name, errors)
        assert not out.exists(), name


# ------------------------------------------------------------------ a report beside one malformed line

BAD_PROFILES = [{"runs": -1}, {"runs": 1, "nodeTimes": "wall"}, {"nodes": 5}, "x",
                {"runs": 1, "nodes": [{"name": "n", "op": "relu", "kernel": "k", "seconds": -1}]}]


@pytest.mark.parametrize("profile", BAD_PROFILES)
def test_report_leaves_out_a_line_with_a_malformed_profile_and_builds_the_rest(tmp_path, outputs, profile):
    bench = _copy(outputs, tmp_path, "bench")
    first = json.loads((bench / "bench.jsonl").read_text().splitlines()[0])
    with open(bench / "bench.jsonl", "a") as fh:
        fh.write(json.dumps({**first, "variant": "v2", "profile": profile}) + "\n")
    code, errors, warnings = _quietly(["report", str(bench), str(outputs["run"]), "--out", str(tmp_path / "site")])
    assert code == 0 and not errors and any("line 2" in w and "profile" in w for w in warnings), (errors, warnings)
    assert (tmp_path / "site" / "index.html").is_file()


# ------------------------------------------------------------------ a plugin's info of the wrong types

PLUGIN_INFOS = {
    "version a number": "BackendInfo('p', 5, 'cpu')",
    "device None": "BackendInfo('p', '1', None)",
    "version a list": "BackendInfo('p', ['1'], 'cpu')",
    "settings a number": "BackendInfo('p', '1', 'cpu', settings=5)",
}
PLUGIN_MODULE = """
from webnn_harness.backends.base import BackendInfo

class Plugin:
    def info(self):
        return {info}

def create(options):
    return Plugin()
"""
FORGED_LAST_LINE = """
import atexit, json
atexit.register(lambda: print(json.dumps({"name": "forged", "version": 5, "device": "x"})))

def create(options):
    raise RuntimeError("never made")
"""


def test_backends_lists_a_plugin_whose_info_has_the_wrong_types_as_failed(tmp_path, monkeypatch, capsys):
    for i, info in enumerate(PLUGIN_INFOS.values()):
        (tmp_path / f"typo{i}_backend.py").write_text(PLUGIN_MODULE.format(info=info))
    (tmp_path / "forged_backend.py").write_text(FORGED_LAST_LINE)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    from webnn_harness import backends
    from webnn_harness.cli import main

    real = backends.available()
    plugins = {f"typo{i}": f"typo{i}_backend:create" for i in range(len(PLUGIN_INFOS))}
    monkeypatch.setattr(backends, "available", lambda: {**real, **plugins, "forged": "forged_backend:create"})
    for argv in (["backends"], ["backends", "--json"]):
        assert main(argv) == 0
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        if argv == ["backends"]:
            rows = {line.split()[0]: line for line in out.splitlines() if line.split()}
            for name in [*plugins, "forged"]:
                assert "not available" in rows[name], rows[name]
            assert "not a string" in rows["typo0"] and "not a mapping" in rows["typo3"]
            assert "reference" in rows and "not available" not in rows["reference"]
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"tests": [GOOD]}))
    monkeypatch.syspath_prepend(str(tmp_path))  # this process imports them too (its workers read PYTHONPATH)
    for target in plugins.values():  # and a run on one is refused before any case, not written unreadable
        code, errors, _ = _quietly(["run", "-q", "-b", target, "--workers", "1", "--cases", str(good),
                                    "--out", str(tmp_path / "r")])
        _one_line(code, errors, 2, "its info() gives")
        assert not (tmp_path / "r").exists()


# ------------------------------------------------------------------ chromium: bad executables and versions

def _script(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


BAD_EXECUTABLES = {
    "/bin/false": (lambda t: "/bin/false", "not a usable Chromium"),
    "/bin/true": (lambda t: "/bin/true", "not a usable Chromium"),
    "a folder": (lambda t: str(t), "is a folder"),
    "no such file": (lambda t: str(t / "nosuch" / "chrome"), "does not exist"),
    "not executable": (lambda t: (t / "plain").write_text("x") and str(t / "plain"), "not executable"),
    "prints junk": (lambda t: _script(t / "junk", "#!/bin/sh\nprintf '\\033[31mjunk\\nforged line\\n'\n"),
                    "not a usable Chromium"),
    "a Chromium version, exit 1": (lambda t: _script(t / "liar", "#!/bin/sh\necho Chromium 1.2.3.4\nexit 1\n"),
                                   "status 1"),
    "a version without a browser name": (lambda t: _script(t / "bare", "#!/bin/sh\necho 120.0.6099.109\n"),
                                         "not a usable Chromium"),
    "hangs on --version": (lambda t: _script(t / "slow", "#!/bin/sh\nsleep 30\n"), "did not answer"),
    "an empty script": (lambda t: _script(t / "empty", ""), "not a usable Chromium"),
}
chromium_importable = pytest.mark.skipif(
    __import__("importlib").util.find_spec("playwright") is None, reason="the chromium backend needs playwright")


@chromium_importable
@pytest.mark.parametrize("case_id", list(BAD_EXECUTABLES))
def test_a_bad_executable_is_one_line_before_any_case(tmp_path, monkeypatch, case_id):
    import webnn_harness.backends.chromium as chromium

    monkeypatch.setattr(chromium, "VERSION_SECONDS", 1)
    (tmp_path / "exe").mkdir()
    make, words = BAD_EXECUTABLES[case_id]
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"tests": [GOOD]}))
    code, errors, _ = _quietly(["run", "-q", "-b", "chromium", "--workers", "1", "-o",
                                f"executable={make(tmp_path / 'exe')}", "--cases", str(good),
                                "--out", str(tmp_path / "r")])
    _one_line(code, errors, 2, words)
    assert not (tmp_path / "r").exists()


@chromium_importable
def test_a_link_to_the_browser_or_a_relative_path_runs_it(tmp_path, monkeypatch):
    from webnn_harness.backends.chromium import install

    if not install.installed() or shutil.which("node") is None:
        pytest.skip("no Chromium installed for the chromium backend")
    (tmp_path / "chrome").symlink_to(install.resolve(None).executable)
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"tests": [GOOD]}))
    monkeypatch.chdir(tmp_path)
    code, errors, _ = _quietly(["run", "-q", "-b", "chromium", "--workers", "1", "-o", "executable=chrome",
                                "--cases", "good.json", "--out", "r"])
    assert code == 0 and not errors, errors


BAD_VERSIONS = ["abc", "153.0.0\n", "\u0661\u0665\u0663", "../x", "9" * 12, "153.0.0-rc.1", "", "153.0.0.0",
                "153.0", " 153"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "webnn-harness" / "browsers"


@pytest.mark.parametrize("version", BAD_VERSIONS)
def test_browsers_install_of_a_version_that_is_none_is_exit_2_before_npm(tmp_path, cache, monkeypatch, version):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    asked = tmp_path / "npm-was-asked"
    _script(fake_bin / "npm", f"#!/bin/sh\ntouch {asked}\nexit 1\n")
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    code, errors, _ = _quietly(["browsers", "install", "153.0.0", version])
    _one_line(code, errors, 2, "neither a package version")
    assert not asked.exists() and not cache.exists()


CHROMIUM_VERSIONS = [v for v in BAD_VERSIONS[:6] if v.strip() == v]  # -o strips a value's spaces


@chromium_importable
@pytest.mark.parametrize("version", CHROMIUM_VERSIONS)
def test_chromium_o_version_that_is_none_is_one_line(tmp_path, cache, version):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"tests": [GOOD]}))
    code, errors, _ = _quietly(["run", "-q", "-b", "chromium", "-o", f"version={version}", "--cases", str(good),
                                "--out", str(tmp_path / "r")])
    _one_line(code, errors, 2, "neither a package version")
    assert not (tmp_path / "r").exists()


def test_browsers_list_and_install_with_links_in_the_cache(tmp_path, cache, monkeypatch, capsys):
    """A version folder that is a link (to a folder without a browser, or holding a link loop), a name that is
    no version: listed only when whole, and an install over a link replaces the link, never what it leads to."""
    from webnn_harness.backends.chromium import install
    from webnn_harness.cli import main

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine").write_text("mine")
    cache.mkdir(parents=True)
    (cache / "150.0.0").symlink_to(elsewhere)
    (cache / "151.0.0").mkdir()
    (cache / "151.0.0" / "chromium").write_text("x")
    (cache / "151.0.0" / "loop").symlink_to(".")
    (cache / "152.0.0\n").mkdir()
    (cache / "152.0.0\n" / "chromium").write_text("x")
    assert main(["browsers", "list"]) == 0
    listed = capsys.readouterr().out
    assert "151.0.0" in listed and "150.0.0" not in listed and "152" not in listed, listed
    tgz = tmp_path / "pkg.tgz"
    monkeypatch.setattr(install, "npm_pack", lambda version, into: tgz)
    monkeypatch.setattr(install, "_package_version", lambda tgz: None)

    def staged(tgz, into):
        for name in ("chromium.br", "swiftshader.tar.br", "package.json"):
            (into / name).write_text("{}")

    monkeypatch.setattr(install, "_copy_members", staged)
    monkeypatch.setattr(install, "unbrotli", lambda source, target: target.write_text("x"))
    monkeypatch.setattr(install, "extract_regular_files", lambda tar, into: None)
    install.install("150.0.0")
    assert not (cache / "150.0.0").is_symlink() and (cache / "150.0.0" / "chromium").is_file()
    assert _tree(elsewhere) == {"mine": b"mine"}


# ------------------------------------------------------------------ the page server

PAGE_REQUESTS = {  # (request bytes, the status it gets); HOST is the server's own
    "another site's Host (DNS rebinding)": (b"GET / HTTP/1.1\r\nHost: evil.example:80\r\n\r\n", 421),
    "no Host": (b"GET / HTTP/1.0\r\n\r\n", 421),
    "a path leaving the root": (b"GET /../../etc/passwd HTTP/1.1\r\nHost: HOST\r\n\r\n", 404),
    "an encoded path leaving the root": (b"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: HOST\r\n\r\n", 404),
    "a tensor no call serves": (b"GET /tensor/9 HTTP/1.1\r\nHost: HOST\r\n\r\n", 404),
    "a tensor path with a query": (b"GET /tensor/1?x HTTP/1.1\r\nHost: HOST\r\n\r\n", 404),
    "a POST": (b"POST / HTTP/1.1\r\nHost: HOST\r\nContent-Length: 3\r\n\r\nabc", 501),
    "a request line of 100 kB": (b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: HOST\r\n\r\n", 414),
    "junk": (b"\x00\xff\x1b[31m\r\n\r\n", 400),
}


def _exchange(port: int, request: bytes) -> bytes:
    """What the server says to ``request``, read to the end (it closes the connection after one answer)."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):  # it may answer (414) before the request is all sent
            pass
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return reply


def test_the_page_server_answers_hostile_requests_with_nothing_but_an_error():
    from webnn_harness.backends.chromium.browser import LoopbackServer

    server = LoopbackServer(b"<!doctype html>page")
    try:
        host = server.url.split("/")[2].encode()
        port = int(host.split(b":")[1])
        served = server.serve(b"tensor bytes")
        for name, (request, status) in PAGE_REQUESTS.items():
            reply = _exchange(port, request.replace(b"HOST", host))
            # the status line, or for a request too broken to be HTTP/1.x (junk) the error page's code
            first = reply.split(b"\r\n")[0] if reply.startswith(b"HTTP/") else reply
            assert str(status).encode() in first and b" 200 " not in first, (name, reply[:100])
            assert b"page" not in reply and b"tensor bytes" not in reply, name
        own = _exchange(port, b"GET " + served.encode() + b" HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
        assert own.endswith(b"\r\n\r\ntensor bytes")  # and its own request is still answered
    finally:
        server.close()


# ------------------------------------------------------------------ hostile WPT files

node = pytest.mark.skipif(not _node_ok(), reason="import-wpt needs Node.js 20 or newer")
HOSTILE_WPT = {  # file -> a word of the one line that says why it was not converted (None: converted)
    "huge": "over 8 MiB", "deep_source": "call stack", "deep_cases": "call stack", "throwing": "boom",
    "throwing_object": "node stopped", "latin1": "not UTF-8", "nul_characters": "SyntaxError",
    "fifo": "not a regular file", "folder": "not a regular file", "self_loop": "symbolic link loop",
    "dangling": "does not exist", "meta_loop": "symbolic link loop", "prototype_poisoning": "",
    "millions_of_values": None,
}
NO_CASES_WPT = ("empty",)  # ran and made no case: one "no cases:" line, not an error (as WPT's tensor tests)


def _hostile_wpt_tree(root: Path) -> Path:
    from test_wpt_import import LITERAL, META, wpt_tree

    texts = {
        "throwing": META + "throw new Error('boom\\nforged: line');\n",
        "throwing_object": META + "throw {toString() { throw 1; }};\n",
        "deep_source": META + "const x = " + "[" * 100_000 + "]" * 100_000 + ";\n",
        "deep_cases": META + "let t = 1; for (let i = 0; i < 100000; i++) t = [t];\n"
                             "webnn_conformance_test([{name: 'n', graph: t}], buildAndExecuteGraph, "
                             "getPrecisionTolerance);\n",
        "empty": "", "nul_characters": META + "\0\0\0",
        "meta_loop": LITERAL.replace("../resources/utils.js", "../resources/loop.js"),
        "prototype_poisoning": (META + "Object.prototype.toJSON = () => { throw 1 };\n"
                                + LITERAL.split("'use strict';")[1]),
        "millions_of_values": META + "const big = []; for (let i = 0; i < 3e6; i++) big.push(1.5);\n"
            "webnn_conformance_test([{name: 'n', graph: {inputs: {x: {data: big, descriptor: {shape: [3000000], "
            "dataType: 'float32'}}}, operators: [{name: 'relu', arguments: [{input: 'x'}], outputs: 'y'}]}}], "
            "buildAndExecuteGraph, getPrecisionTolerance);\n",
    }
    wpt_tree(root, texts)
    tests = root / "webnn" / "conformance_tests"
    (tests / "huge.https.any.js").write_bytes(b"//" + b"x" * (9 << 20))
    (tests / "latin1.https.any.js").write_bytes(META.encode() + b"const s = '\xe9';\n")
    (tests / "self_loop.https.any.js").symlink_to("self_loop.https.any.js")
    (tests / "dangling.https.any.js").symlink_to("nowhere.js")
    (tests / "folder.https.any.js").mkdir()
    (root / "webnn" / "resources" / "loop.js").symlink_to("loop.js")
    os.mkfifo(tests / "fifo.https.any.js")
    return root


@node
def test_hostile_wpt_files_are_each_one_line_and_the_import_goes_on(tmp_path):
    root = _hostile_wpt_tree(tmp_path / "wpt")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "webnn_harness", "import-wpt", str(root), "--out", str(out),
                           "--timeout", "20", "-q"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert [line for line in lines if line.startswith("no cases:")] == [
        f"no cases: {stem}.https.any.js: it never calls webnn_conformance_test" for stem in NO_CASES_WPT], lines
    lines = [line for line in lines if not line.startswith("no cases:")]
    assert len(lines) == len([w for w in HOSTILE_WPT.values() if w is not None]), lines
    for stem, word in HOSTILE_WPT.items():
        said = [line for line in lines if line.startswith(f"not converted: {stem}.https.any.js")]
        if word is None:
            assert not said and (out / f"{stem}.json").is_file(), stem
        else:
            assert len(said) == 1 and word in said[0], (stem, said)
    assert "forged: line" not in proc.stderr


@node
def test_import_wpt_overwrite_replaces_a_link_in_its_folder_never_what_it_leads_to(tmp_path):
    from test_wpt_import import LITERAL, wpt_tree

    root = wpt_tree(tmp_path / "wpt", {"relu": LITERAL})
    out = tmp_path / "out"
    assert _quietly(["import-wpt", str(root), "--out", str(out), "-q"])[0] == 0
    mine = tmp_path / "mine.json"
    mine.write_text("mine")
    (out / "relu.json").unlink()
    (out / "relu.json").symlink_to(mine)
    code, errors, _ = _quietly(["import-wpt", str(root), "--out", str(out), "--overwrite", "-q"])
    assert code in (0, 2) and mine.read_text() == "mine", errors
    assert code == 2 or not (out / "relu.json").is_symlink()


# ------------------------------------------------------------------ the README's pytest plugin example

def test_no_test_module_imports_through_the_tests_package():
    """``pytest`` (not ``python -m pytest``) puts tests/ on sys.path, not the checkout: a module importing
    ``tests.x`` fails to collect there, and the README's plugin command (which collects every module) exits 1."""
    import ast

    for path in sorted((REPO / "tests").glob("*.py")):
        for node_ in ast.walk(ast.parse(path.read_text())):
            if isinstance(node_, ast.ImportFrom) and (node_.module or "").split(".")[0] == "tests":
                pytest.fail(f"{path.name}:{node_.lineno} imports from tests.{node_.module[6:]}: import it by its "
                            "module name, as the other test modules do")


def test_the_readme_plugin_command_collects_from_a_fresh_shell(tmp_path):
    """The README's command as written, by the ``pytest`` script, in the checkout: every module collects."""
    pytest_script = Path(sys.executable).with_name("pytest")
    if not pytest_script.exists():
        pytest.skip("no pytest script beside this interpreter")
    from processes import MARKER  # its own session: it must not count this session's processes as its orphans

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH", MARKER))}
    proc = subprocess.run([str(pytest_script), "--webnn-backend", "example-numpy", "--webnn-cases=cases",
                           "--webnn-expectations=examples/numpy_float32/expectations.json", "-m", "webnn",
                           "--collect-only", "-q", "-p", "no:cacheprovider"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "error" not in proc.stdout.lower().split("warnings summary")[0], \
        proc.stdout[-3000:]


# ------------------------------------------------------------------ the tries, per class

def test_counts_for_the_closing_note():
    counts = {
        "links at every depth": SITE_IN_ENTRY + len(DATABASE_LINKS) + len(CASES_LINKS) + len(INPUT_LINKS)
                                + 3 + 1 + 1,  # + import-wpt's loop, link to nothing, META loop; cache; out link
        "bad names and paths": len(OVER_LONG) + 1,  # + --rerun-failures after a green run
        "corrupt baselines": BASELINE_FORMS,
        "malformed lines beside good ones": len(BAD_PROFILES),
        "plugin info of the wrong types": 2 * len(PLUGIN_INFOS) + 1,  # listed and run; + a forged last line
        "bad executables": len(BAD_EXECUTABLES) + 1,  # + a relative link to the browser
        "bad versions": len(BAD_VERSIONS) + len(CHROMIUM_VERSIONS) + 1,  # + a version-like folder's name
        "page server requests": len(PAGE_REQUESTS),
        "hostile WPT files": len(HOSTILE_WPT) - 3,  # the three links are counted above
        "the README's plugin example": 2,
    }
    print("issue 50 tries: " + ", ".join(f"{n} {c}" for c, n in counts.items()) + f"; {sum(counts.values())} in all")
    assert sum(counts.values()) >= 100
