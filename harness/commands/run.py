"""``webnn-harness run``: conformance cases on backends (the library: harness/api.py ``run``)."""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from webnn_harness.commands.common import (
    EXIT_FAILURES, EXIT_OK, EXIT_USAGE, UsageError, add_backend_arguments, add_executor_arguments, check_inputs,
    add_judge_argument, add_out_argument, add_overwrite_argument, add_quiet_argument, add_workers_argument,
    backend_options, backend_requests,
    executors, public_argv, warn,
)
from webnn_harness.options import positive_int, positive_seconds
from webnn_harness.outputs.text import printable

HELP = "run conformance cases on backends"
# What the interrupt line says of continuing.
CONTINUING = " (run --resume continues the run)"
EXPECTATIONS_SHOWN = 3
FAILING_SHOWN = 20


def add_arguments(run: argparse.ArgumentParser) -> None:
    add_backend_arguments(run, repeatable="backend name (repeatable; default: all installed defaults)",
                          option_example="ep=CUDAExecutionProvider")
    run.add_argument("--cases", action="append", help="case file or folder (repeatable; default: the bundled corpus)")
    run.add_argument("--op", action="append", help="only cases using this operator (repeatable)")
    run.add_argument("--filter", help="only cases whose name matches this regular expression")  # checked by CaseFilter
    add_out_argument(run, "out/run")
    add_workers_argument(run)
    run.add_argument("--timeout", type=positive_seconds, default=60.0, help="seconds per case before it counts as a timeout (default 60)")
    run.add_argument("--batch-size", type=positive_int,
                     help="cases per worker batch (default: the backend's preference, else 16)")
    run.add_argument("--max-case-bytes", type=positive_int, metavar="BYTES",
                     help="refuse a case whose tensors need more (default: a quarter of physical memory)")
    again = run.add_mutually_exclusive_group()
    add_overwrite_argument(again, "replace the run already in --out")
    again.add_argument("--resume", action="store_true",
                       help="continue the interrupted run in --out: keep its records, run only the cases they lack")
    again.add_argument("--rerun-failures", metavar="RUN",
                       help="run only the cases that did not pass in the run folder RUN (into a new --out)")
    run.add_argument("--junit", metavar="FILE", help="also write JUnit XML")
    add_judge_argument(run)
    add_executor_arguments(run)
    run.add_argument("--no-cache", action="store_true",
                     help="compute reference results afresh, neither reading nor writing "
                          "$XDG_CACHE_HOME/webnn-harness (default ~/.cache/webnn-harness)")
    add_quiet_argument(run, "the bar")
    run.add_argument("--id", action="append", metavar="CASE_ID",
                     help="only this case id (wpt/relu.json::name) or case file id (wpt/relu.json) (repeatable)")
    run.add_argument("--shard", metavar="I/N", help="run shard I of N (1-based): a balanced slice by case id")
    run.add_argument("--label", help="the run's name on report pages (default: its corpora, e.g. wpt)")
    run.add_argument("--expectations", action="append", metavar="FILE",
                     help="known failures of this backend (JSON, harness/schema/expectations.schema.json; repeatable)")
    run.add_argument("--update-expectations", metavar="FILE",
                     help="after the run, write FILE from its failures (keeping entries that still apply)")


def handle(args) -> int:
    from webnn_harness.loading.cases import bundled_corpus

    plan = _plan(args)
    if plan is None:  # --rerun-failures of a run where nothing is worth re-running: said, exit 0
        return EXIT_OK
    requests = plan.requests or backend_requests(args.backend, args.option)
    if args.update_expectations and len(requests) != 1:
        raise UsageError("--update-expectations writes one backend's expectations: give exactly one --backend")
    failing = []
    result = _run(args, plan, tuple(plan.cases or [bundled_corpus()]), tuple(requests), failing.append)
    out = Path(args.out)
    _print_result(args, result, failing, requests, out)
    if args.junit:
        _write_junit(out, Path(args.junit))
    exit_code = result.exit_code
    if args.update_expectations:
        exit_code = _update_expectations(Path(args.update_expectations), out, requests[0], result, plan.expectations)
    if any(e.index == -1 for e in result.load_errors):
        return EXIT_USAGE
    return exit_code


@dataclass(frozen=True)
class _Plan:
    """What the command line asks to run, checked before anything runs; with ``--rerun-failures``,
    what the old run ran (rerun_plan.rerun_of) where the command gives nothing of its own."""
    shard: object  # a loading.selection.Shard, or None
    ids: tuple[str, ...]
    only: object = None  # per backend, the (file, case) pairs to re-run; None: every selected case
    requests: tuple = ()  # () the command's --backend/-o
    cases: tuple[str, ...] | None = None  # None: the bundled corpus
    expectations: tuple[str, ...] = ()


def _plan(args) -> _Plan | None:
    from webnn_harness.outputs.expectations_update import check_updatable
    from webnn_harness.outputs.run_folder import NothingToRerun, OutputFolderError, check_writable_file
    from webnn_harness.loading.selection import SelectionError, Shard
    from webnn_harness.rerun_plan import rerun_of

    check_inputs([*(args.cases or []), *(args.expectations or [])])
    try:
        plan = _Plan(Shard.parse(args.shard) if args.shard else None, tuple(args.id or ()),
                     cases=tuple(args.cases) if args.cases else None, expectations=tuple(args.expectations or ()))
        if args.rerun_failures:
            rerun = rerun_of(args.rerun_failures, Path(args.out), _given_setup(args), on_problem=warn)
            plan = _Plan(plan.shard, plan.ids or rerun.files, rerun.only, tuple(rerun.backends), rerun.cases or None,
                         rerun.expectations)
            _print_rerun_plan(args.rerun_failures, rerun)
        if args.junit:
            check_writable_file(Path(args.junit), "--junit")
        if args.update_expectations:
            check_updatable(Path(args.update_expectations))
    except NothingToRerun as exc:  # a retry step after a green run: no mistake, nothing to do
        print(printable(str(exc)))
        return None
    except (SelectionError, OutputFolderError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    return plan


def _run(args, plan: _Plan, paths: tuple, requests: tuple, on_failing):
    """The run (api.run) as the command asks, with its progress bar; ``on_failing`` gets each record
    that counts against the exit code."""
    from webnn_harness.backends import BackendError, UnknownBackend
    from webnn_harness.loading.cases import DuplicateCaseId
    from webnn_harness.verdict.expectations import ExpectationsError
    from webnn_harness.outputs.run_folder import OutputFolderError
    from webnn_harness.progress import Progress
    from webnn_harness.api import RunEvents, RunRequest, run
    from webnn_harness.execution.pool import RunOptions
    from webnn_harness.loading.selection import CaseFilter, SelectionError

    opts = RunOptions(workers=args.workers, timeout=args.timeout, batch_size=args.batch_size,
                      reference_cache=not args.no_cache)
    mode = "resume" if args.resume else "overwrite" if args.overwrite else "new"
    progress = Progress("case", enabled=not args.quiet)
    try:
        with executors(args) as executor:
            selection = CaseFilter(ops=tuple(args.op) if args.op else None, name_filter=args.filter, ids=plan.ids,
                                   shard=plan.shard, max_case_bytes=args.max_case_bytes)
            request = RunRequest(cases=paths, backends=requests, out_dir=Path(args.out), selection=selection,
                                 options=opts, expectations=plan.expectations, label=args.label,
                                 mode=mode, only=plan.only, executor=executor, command=public_argv(args),
                                 judge=args.judge)
            events = RunEvents(on_record=lambda r: on_failing(r) if r.counts_against else None,
                               progress=progress.update, on_total=progress.set_total,
                               on_backend=lambda info, n: progress.start(f"{info['name']} {info['version']}", n))
            return run(request, events)
    except (UnknownBackend, BackendError, SelectionError, ExpectationsError, DuplicateCaseId,
            OutputFolderError) as exc:
        raise UsageError(str(exc)) from None
    finally:
        progress.close()


def _print_result(args, result, failing: list, requests, out: Path) -> None:
    """What the run found, a line per backend, then what failed and how to run it again."""
    for problem in result.dropped_lines:
        warn(problem)
    if result.resumed:
        print(f"resumed: kept {result.resumed} records of the earlier run in {out}")
    for err in result.load_errors[:20]:
        print(f"error: {printable(err)}", file=sys.stderr)
    if len(result.load_errors) > 20:
        print(f"error: ... and {len(result.load_errors) - 20} more case errors", file=sys.stderr)
    narrowed = bool(args.op or args.filter or args.id or args.shard)
    for tally in result.tallies:
        b = tally.backend
        counts = ", ".join(f"{n} {s}" for s, n in tally.counts.items() if n)
        known = f" ({tally.known_failures} known failures)" if tally.known_failures else ""
        loading = f", {tally.loading_seconds:.1f} s of it loading the cases alongside" if tally.loading_seconds >= 0.05 else ""
        print(printable(f"{b['name']} {b['version']} on {b['device']}: {counts}{known} in {tally.seconds:.1f} s{loading}"))
        _print_expectation_outcomes(result, b["name"], narrowed)
    _print_failing(failing, dict(zip((t.backend["name"] for t in result.tallies), requests)), result.corpus_paths)
    if failing:  # a run that fails: the command that runs it again on what did not pass
        _print_rerun_failures_command(out)
    from webnn_harness.cpu import machine_summary  # the machine is part of the configuration (issue #47)
    print(printable(f"machine: {machine_summary()}"))
    print(f"results: {out / 'results.jsonl'}, summary: {out / 'summary.json'}")


def _write_junit(out: Path, junit: Path) -> None:
    from webnn_harness.backends import options_from_settings
    from webnn_harness.outputs.junit import write_junit

    try:
        write_junit(out, junit, options_from_settings)
    except OSError as exc:  # checked before the run; the folder may have gone since
        raise UsageError(f"{junit}: cannot write JUnit XML: {exc.strerror or exc}") from None
    print(f"junit: {junit}")


def _given_setup(args):
    """What a ``--rerun-failures`` command gives itself; the rest is the old run's."""
    from webnn_harness.rerun_plan import GivenSetup

    return GivenSetup(backends=args.backend, options=backend_options(args.option) if args.option else None,
                      cases=args.cases, expectations=args.expectations)


def _print_rerun_plan(old: str, plan) -> None:
    """What the re-run runs, and each of the old run's settings the command replaces (said, since a
    re-run with other options or expectations is not the same run again)."""
    print(f"re-running {plan.cases_to_run} case{'s' if plan.cases_to_run != 1 else ''} of {old} that did not pass "
          f"(required or listed; not the unsupported), with its backends, options, corpora and expectations")
    for line in plan.overrides:
        print(f"  note: {line}", file=sys.stderr)


def _print_rerun_failures_command(out: Path) -> None:
    """The command that runs this run's failures again (its setup is in its summary)."""
    import shlex

    from webnn_harness.outputs.rerun_commands import shown_path, with_shortened_note

    shown, cut = shown_path(out)
    again = shown_path(out.with_name(out.name + "-rerun"))[0]
    print("re-run what failed: " + with_shortened_note(
        shlex.join(["webnn-harness", "run", "--rerun-failures", shown, "--out", again]), cut))


def _print_expectation_outcomes(result, backend: str, narrowed: bool) -> None:
    from webnn_harness.verdict.expectations import CASE_NOTES, bundled_source

    # A case note names a case that no backend computing as the spec says passes; one that passes
    # on this backend (computing as WPT's expected values were) is no stale entry.
    _print_entries("stale expectation (its cases ran and passed)",
                   [e for e in result.expectations_with(backend, "stale") if e["source"] != CASE_NOTES])

    # The shipped files' entries name cases of other corpora too: unmatched, they are no news
    # (still in summary.json).
    shipped = (bundled_source(backend), CASE_NOTES)
    unmatched = [e for e in result.expectations_with(backend, "unmatched") if e["source"] not in shipped]
    if unmatched and narrowed:
        # --op/--filter/--id/--shard leave most entries' cases out on purpose.
        print(f"  {len(unmatched)} expectations matched no case of this selection", file=sys.stderr)
    else:
        _print_entries("expectation matched no case", unmatched)


def _print_entries(what: str, entries: list[dict]) -> None:
    """One line for a few entries; a count and the first few for many (all are in summary.json)."""
    if len(entries) <= EXPECTATIONS_SHOWN:
        for entry in entries:
            print(f"  {what}: {_describe_entry(entry)}", file=sys.stderr)
    elif entries:
        first = "; ".join(_describe_entry(e) for e in entries[:EXPECTATIONS_SHOWN])
        print(f"  {len(entries)} x {what} (all listed in summary.json under \"expectations\"), the first "
              f"{EXPECTATIONS_SHOWN}: {first}", file=sys.stderr)


def _describe_entry(entry: dict) -> str:
    what = f'"{entry["case"]}"' if "case" in entry else f"/{entry.get('match')}/"
    return f"{entry['source']}[{entry['index']}]: {entry.get('file', '*')}: {what}"


def _print_failing(failing, requests, corpus_paths) -> None:
    """The required cases that count against the exit code, each with what to
    run to see it again (``requests``: backend info name -> the request as the
    user gave it, which may be a module:factory path)."""
    if not failing:
        return
    from webnn_harness.outputs.rerun_commands import rerun_command

    print(f"{len(failing)} required case{'s' if len(failing) != 1 else ''} failed"
          f"{f' (first {FAILING_SHOWN} shown)' if len(failing) > FAILING_SHOWN else ''}:")
    for r in sorted(failing, key=lambda r: (r.backend["name"], r.id))[:FAILING_SHOWN]:
        detail = r.detail[:120]
        print(printable(f"  {r.status:7} {r.backend['name']}: {r.id}{' - ' + detail if detail else ''}"))
        req = requests.get(r.backend["name"])
        cmd = rerun_command(r.backend, [f"{k}={v}" for k, v in req.options.items()] if req else [], r.file, r.case,
                            corpus_paths.get(r.file.split("/", 1)[0]), req.name if req else None)
        print(f"          {cmd}")


def _update_expectations(path: Path, out: Path, request, result, given: tuple[str, ...]) -> int:
    """Write ``path`` from the run and judge the run against it (verdict/expectations.py
    ``update_from_run``): the exit code of the run as the next one will see it."""
    from webnn_harness.verdict.expectations import ExpectationsError
    from webnn_harness.outputs.expectations_update import update_from_run

    version = str(result.tallies[0].backend.get("version", ""))
    try:
        update = update_from_run(path, out / "results.jsonl", request.name, version, request.options, given)
    except ExpectationsError as exc:
        raise UsageError(str(exc)) from None
    counts, left = update.counts, update.left
    print(f"expectations: {path} ({counts['added']} added, {counts['kept']} kept, {counts['dropped']} dropped as passing)")
    print(f"judged against the updated expectations: {left} required failure{'s' if left != 1 else ''} "
          f"not listed{'; exit 1' if left else ''}")
    return EXIT_FAILURES if left else EXIT_OK
