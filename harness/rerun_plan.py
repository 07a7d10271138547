"""``run --rerun-failures RUN``: the plan of a run again on what did not
pass in RUN, with RUN's backends, options, corpora and expectations unless
the command gives its own (``rerun_of``)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Container, Mapping, Sequence

from webnn_harness.backends import available
from webnn_harness.loading.caseid import BUNDLED_CORPUS
from webnn_harness.files.reading import ReadError, read_json
from webnn_harness.outputs.run_folder import SUMMARY, Rerun, rerun_failures
from webnn_harness.run_setup import BackendRequest, RunSetup


class RerunError(ValueError):
    """``--rerun-failures RUN`` that the run it reads does not allow as given: one line, exit code 2."""


@dataclass(frozen=True)
class RerunPlan:
    """``--rerun-failures OLD``: the same run again on the cases worth re-running, with OLD's backends,
    options, corpora and expectations unless the user gave their own (``overrides`` says which)."""
    only: Mapping[str, Container[tuple[str, str]]]  # backend name -> (file, case) to run again
    files: tuple[str, ...]  # the case file ids those are in (only these are loaded)
    backends: tuple[BackendRequest, ...]
    cases: tuple[str, ...]  # () the bundled corpus
    expectations: tuple[str, ...]
    overrides: tuple[str, ...]  # one line per setting of OLD that the user's command replaces
    cases_to_run: int


@dataclass(frozen=True)
class GivenSetup:
    """What the user's ``run --rerun-failures`` command gives itself (None: not given, OLD's is used)."""
    backends: Sequence[str] | None = None
    options: Mapping[str, str] | None = None
    cases: Sequence[str] | None = None
    expectations: Sequence[str] | None = None


def rerun_of(run_dir: str | Path, out: Path, given: GivenSetup = GivenSetup(),
             on_problem: Callable[[str], object] = lambda problem: None) -> RerunPlan:
    """``--rerun-failures RUN``: the required and listed cases that did not pass in ``run_dir`` (not
    the unsupported ones: the same backend refuses them again), for a new run into ``out``, with
    RUN's backends, options, corpora and expectations (its summary's ``request``), each replaced by
    what ``given`` gives. A backend read from RUN is run again only when it is a registered one.
    Lines of its results.jsonl that cannot be read go to ``on_problem``. Raises OutputFolderError or
    RerunError (ValueErrors, one line)."""
    rerun = rerun_failures(Path(run_dir), out)
    for problem in rerun.problems:
        on_problem(problem)
    try:  # a run's summary is not needed to re-run its records (an interrupted run may have none)
        summary = read_json(Path(run_dir) / SUMMARY)
    except ReadError:
        summary = {}
    old = RunSetup.from_summary(summary if isinstance(summary, Mapping) else {})
    source = str(run_dir)
    overrides: list[str] = []
    backends = _rerun_backends(old, rerun, given, source, overrides)
    if given.cases is not None:
        cases = tuple(given.cases)
        if old is not None and tuple(old.cases) != cases:
            overrides.append(f"--cases {' '.join(cases)} instead of {source}'s {' '.join(old.cases) or 'bundled corpus'}")
    else:
        cases = _old_cases(old, Path(run_dir), rerun.files, summary)
    if given.expectations is not None:
        expectations = tuple(given.expectations)
        if old is not None and tuple(old.expectations) != expectations:
            overrides.append(f"--expectations {' '.join(expectations)} instead of {source}'s "
                             f"{' '.join(old.expectations) or 'none'}")
    else:
        expectations = tuple(old.expectations) if old is not None else ()
        missing = [e for e in expectations if not Path(e).is_file()]
        if missing:
            raise RerunError(f"{source} ran with --expectations {missing[0]}, which is not here: give it with --expectations")
    return RerunPlan(rerun.only, tuple(rerun.files), backends, cases, expectations, tuple(overrides),
                     sum(len(v) for v in rerun.only.values()))


def _rerun_backends(old: RunSetup | None, rerun: Rerun, given: GivenSetup, source: str,
                    overrides: list[str]) -> tuple[BackendRequest, ...]:
    """OLD's backends that have cases to re-run, with OLD's options, unless the user names others or gives -o."""
    recorded = {b.name: b for b in old.backends} if old is not None else {}
    if given.backends:
        names = list(given.backends)
        ran = list(recorded) or rerun.backends  # as OLD was asked (a module:factory path), else as its records say
        if sorted(names) not in (sorted(ran), sorted(rerun.backends)):
            overrides.append(f"--backend {' '.join(names)} instead of {source}'s {' '.join(ran)}")
    else:
        names = [n for n in (recorded or rerun.backends) if n in rerun.only] or rerun.backends
        _check_registered(names, source)  # first: a results file never chooses code (issue 26)
    requests = [recorded.get(n, BackendRequest(n)) for n in names]
    if given.options is not None:
        if len(requests) > 1:
            raise RerunError("-o options apply to a single --backend; run each backend separately")
        before = dict(requests[0].options)
        if before != dict(given.options):
            overrides.append(f"-o {_pairs(given.options) or '(none)'} instead of {source}'s {_pairs(before) or 'no options'}")
        requests = [BackendRequest(requests[0].name, dict(given.options))]
    return tuple(requests)


def _pairs(options: Mapping[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in options.items())


def _old_cases(old: RunSetup | None, old_run: Path, files: Sequence[str], summary) -> tuple[str, ...]:
    """OLD's corpora, as its summary names them, when they are here; else what to give."""
    if old is not None and old.cases and all(Path(c).exists() for c in old.cases):
        return tuple(old.cases)
    _check_rerun_corpora(old_run, files, summary)
    return ()


def _check_registered(names: Sequence[str], source: str) -> None:
    """Backends named by a file we read must be registered ones: a ``module:factory`` written in a results
    file is never imported (data does not choose code); the user can still name it with --backend."""
    foreign = [n for n in names if n not in available()]
    if foreign:
        raise RerunError(f"{source}: its records name backend {foreign[0]!r}, which is not installed; "
                         "give the backend to re-run with --backend")


def _check_rerun_corpora(old_run: Path, files: Sequence[str], summary) -> None:
    """Without OLD's corpora here (nor ``--cases``) the bundled corpus is read: when OLD ran another
    corpus, say so with OLD's command rather than list every id the bundled corpus lacks. The
    bundled corpus is named by its id (``cases``) however it is installed (as ``webnn_harness/corpus``
    from a wheel: issue 41)."""
    others = sorted({f.split("/", 1)[0] for f in files} - {BUNDLED_CORPUS})
    if not others:
        return
    command = summary.get("command") if isinstance(summary, Mapping) else None  # only to quote it
    raise RerunError(f"{old_run} ran the corpus {', '.join(others)}, not the bundled one: pass the same --cases as it did"
                     + (f" (its command: {command})" if isinstance(command, str) else ""))
