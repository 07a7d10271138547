"""pytest plugin: every WebNN case as a pytest item, judged exactly as
``webnn-harness run`` judges it.

    pytest --webnn-backend NAME [--webnn-cases=PATH ...] [--webnn-option KEY=VALUE ...]
           [--webnn-expectations=FILE ...] [--webnn-shard I/N] [--webnn-timeout SECONDS]

(Paths with ``=``: pytest picks its rootdir and config file from path-like
arguments before plugins parse their options; ``-...`` arguments are skipped.)

Registered through the ``pytest11`` entry point, so installing webnn-harness
makes the options available; without ``--webnn-backend`` the plugin adds its
options and does nothing else.

Each case becomes an item whose node id is the case's stable id (corpus, path
inside it, case name), so ``-k``, ``-x``, ``--lf`` and pytest-xdist work as
they do on ordinary tests. The case runs in one of the harness's worker
processes (harness/execution/pool.py), the same path ``run`` takes: same graph
builder, reference, tolerances and judge; a backend that segfaults or hangs
fails that one item (``crash``, ``timeout``) instead of killing pytest.

Outcomes, from the run's record:
    pass                      passed
    unsupported, skipped      skipped, with the backend's message
    fail, error, crash, timeout   failed: expected and got (worst element,
                              budget) and the ``webnn-harness run`` command
                              that reproduces it
    listed in the expectations  xfail with the entry's reason, strict: a
                              listed case that passes is XPASS(strict), a
                              failure, so stale expectations are seen.
Items carry the marker ``webnn`` and one of ``webnn_required`` or
``webnn_optional`` (whether the case is inside the spec's required data types
and ranks). ``run``'s exit code counts required cases only; ``-m
webnn_required`` is the same gate. The items are added to whatever else
pytest collects: ``-m webnn`` (or running from a folder without tests) runs
only the cases. The ops and data types of a case are keywords, so ``-k
"leakyRelu and float32"`` selects by them as well as by name and file.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from webnn_harness.options import positive_seconds

if TYPE_CHECKING:  # the harness is imported only when the plugin is switched on
    from webnn_harness.loading.cases import Case, CaseError
    from webnn_harness.verdict.record import Record

MARKERS = (
    "webnn: a WebNN conformance case (pytest --webnn-backend); -m webnn runs only these",
    "webnn_required: a WebNN case inside the spec's required data types and ranks",
    "webnn_optional: a WebNN case outside the spec's required data types and ranks",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("webnn", "webnn-harness: WebNN conformance cases as test items")
    group.addoption("--webnn-backend", metavar="NAME",
                    help="run WebNN cases on this backend (an installed name or package.module:factory)")
    group.addoption("--webnn-cases", action="append", metavar="PATH",
                    help="case file or folder (repeatable; default: the bundled corpus)")
    group.addoption("--webnn-option", action="append", metavar="KEY=VALUE", help="backend option (repeatable)")
    group.addoption("--webnn-expectations", action="append", metavar="FILE",
                    help="known failures (the format of run --expectations; repeatable): listed cases are "
                         "xfail, strict (a listed case that passes fails)")
    group.addoption("--webnn-shard", metavar="I/N", help="only shard I of N of the cases (as run --shard)")
    group.addoption("--webnn-timeout", type=positive_seconds, default=60.0, metavar="SECONDS",
                    help="seconds per case before it counts as a timeout (default 60)")


def pytest_configure(config: pytest.Config) -> None:
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)
    if config.getoption("webnn_backend"):
        config.pluginmanager.register(WebnnCases(config), "webnn-harness-cases")


class CaseNotPassed(Exception):
    """Raised by an item whose case did not pass; carries the run's record."""

    def __init__(self, record: "Record", rerun: str):
        super().__init__(record.status)
        self.record, self.rerun = record, rerun


class CaseLoadFailed(Exception):
    """Raised by an item standing for a case that does not load."""


class WebnnCases:
    """The plugin once switched on: the backend, its expectations, the cases
    and the worker pool that runs them (one per pytest process)."""

    def __init__(self, config: pytest.Config):
        from webnn_harness import backends
        from webnn_harness.backends.base import parse_options

        self.config = config
        self.backend = config.getoption("webnn_backend")
        try:
            self.options = parse_options(config.getoption("webnn_option") or [])
            instance = backends.create(self.backend, self.options)
            self.info = instance.info().to_json()
            del instance
        except Exception as exc:  # noqa: BLE001 - any failure to create the backend is a usage error
            raise pytest.UsageError(f"--webnn-backend {self.backend}: {type(exc).__name__}: {exc}") from None

        files = config.getoption("webnn_expectations") or []
        try:
            # What run applies: the backend's bundled known failures, then the files given.
            self.expectations = backends.known_failures(self.backend, self.info["version"], self.options, files)
        except ValueError as exc:  # ExpectationsError: one line naming file, entry and field
            raise pytest.UsageError(f"--webnn-expectations: {exc}") from None
        self.timeout = config.getoption("webnn_timeout")
        self.corpus_paths: dict[str, str | None] = {}
        self._pool = None

    # ---------------------------------------------------------------- collection
    @pytest.hookimpl(tryfirst=True)  # before -k/-m deselect and --lf filter what we add
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list) -> None:
        from webnn_harness.loading.caseid import case_id
        from webnn_harness.loading.cases import Case, bundled_corpus
        from webnn_harness.api import corpus_paths
        from webnn_harness.loading.selection import CaseFilter, Shard

        base = config.invocation_params.dir
        given = config.getoption("webnn_cases") or []
        paths = [base / p for p in given] or [bundled_corpus()]
        for path in paths:
            if not path.exists():
                raise pytest.UsageError(f"--webnn-cases {path}: no such file or folder")
        # Re-run commands name the corpus folders as given (relative to where pytest was started).
        self.corpus_paths = corpus_paths(given)
        shard = config.getoption("webnn_shard")
        try:
            loaded = CaseFilter(shard=Shard.parse(shard) if shard else None).selection(paths).finish()
        except ValueError as exc:  # SelectionError (nothing selected), two corpora with one id
            raise pytest.UsageError(str(exc)) from None
        files: dict[str, tuple[CaseFile, list[pytest.Item]]] = {}
        seen: set[str] = set()
        for case in loaded:
            if case.file not in files:  # named by the stable file id, so the items' node ids are the case ids
                files[case.file] = (CaseFile.from_parent(session, name=case.file, nodeid=case.file), [])
            parent, file_items = files[case.file]
            if isinstance(case, Case):
                item = CaseItem.from_parent(parent, name=case.name, nodeid=case.id, case=case, cases=self)
            else:
                name = case.name or "(file)"
                if case.id in seen:  # a duplicate name: the first case keeps the id
                    name = f"{name} (case {case.index})"
                item = CaseErrorItem.from_parent(parent, name=name, nodeid=case_id(case.file, name), error=case)
            seen.add(case.id)
            file_items.append(item)
        for parent, file_items in files.values():
            # Reported as collected, so the terminal's "collected N items" and --collect-only count them.
            config.hook.pytest_collectreport(report=pytest.CollectReport(parent.nodeid, "passed", None, file_items))
            items.extend(file_items)

    def expected_failure(self, case: "Case"):
        """The expectation entry that lists this case, if any."""
        return self.expectations.find(case.file, case.name)

    # ---------------------------------------------------------------- running
    def run_case(self, case: "Case") -> "Record":
        """One case through the harness's worker pool: the record ``run`` would write."""
        from webnn_harness.execution.pool import RunOptions, WorkerPool

        if self._pool is None:
            self._pool = WorkerPool(self.backend, self.options,
                                    RunOptions(workers=1, timeout=self.timeout, batch_size=1), self.info)
        records: list = []
        self._pool.run_cases([case], records.append)
        return records[0]

    def rerun_command(self, case: "Case") -> str:
        from webnn_harness.outputs.rerun_commands import rerun_command

        corpus = case.file.split("/", 1)[0]
        return rerun_command(self.info, [f"{k}={v}" for k, v in self.options.items()], case.file, case.name,
                             self.corpus_paths.get(corpus), backend_arg=self.backend)

    def pytest_sessionfinish(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def pytest_report_header(self) -> str:
        b = self.info
        return f"webnn-harness: backend {b['name']} {b['version']} on {b['device']}, settings {b.get('settings', {})}"


class CaseFile(pytest.Collector):
    """The case file a group of items comes from (named by its stable id)."""

    def collect(self):  # items are made by WebnnCases, not by walking this node
        return []


class CaseItem(pytest.Item):
    def __init__(self, *, case: "Case", cases: WebnnCases, **kwargs: Any):
        super().__init__(**kwargs)
        self.case, self.cases = case, cases
        self.extra_keyword_matches.update(case.graph.ops)
        self.extra_keyword_matches.update(case.graph.data_types)
        self.add_marker("webnn")
        self.add_marker("webnn_required" if case.required else "webnn_optional")
        self.entry = cases.expected_failure(case)
        if self.entry is not None:
            self.add_marker(pytest.mark.xfail(reason=f"known failure: {self.entry.reason}", strict=True))

    def runtest(self) -> None:
        record = self.cases.run_case(self.case)
        b = record.backend
        self.user_properties += [("backend", b.get("name")), ("version", b.get("version")),
                                 ("device", b.get("device")), ("status", record.status)]
        if record.status == "pass":
            return
        if record.status in ("unsupported", "skipped") and self.entry is None:
            pytest.skip(f"{record.status}: {record.message}" if record.message else record.status)
        raise CaseNotPassed(record, self.cases.rerun_command(self.case))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseNotPassed):
            return describe_failure(excinfo.value.record, excinfo.value.rerun)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, self.nodeid


class CaseErrorItem(pytest.Item):
    """A case that does not load fails alone, with the loader's one line."""

    def __init__(self, *, error: "CaseError", **kwargs: Any):
        super().__init__(**kwargs)
        self.error = error
        self.add_marker("webnn")

    def runtest(self) -> None:
        raise CaseLoadFailed(str(self.error))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseLoadFailed):
            return f"case does not load: {excinfo.value}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, self.nodeid


def describe_failure(record: "Record", rerun: str) -> str:
    """What was expected and what the backend gave, and how to reproduce it."""
    b = record.backend
    lines = [f"{record.case}: {record.status} on {b.get('name')} {b.get('version')} ({b.get('device')})"]
    if record.max_error is not None:
        where = f"{record.output}{list(record.worst_index or [])}"
        lines.append(f"  worst element {where}: expected {record.expected_value}, got {record.actual_value}")
        lines.append(f"  max {record.metric} error {record.max_error} > budget {record.budget}")
    if record.message:
        lines.append(f"  {record.message}")
    lines.append(f"  reproduce: {rerun}")
    return "\n".join(lines)
