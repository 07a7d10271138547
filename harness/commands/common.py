"""What the commands share: the exit codes, the usage error, the option groups
declared once (backend and -o, --out and --overwrite, --quiet, --workers, the
executor) and the small checks several commands make before any work.

Kept light: harness/cli.py imports every command module to build its parser,
and ``run`` starts the fork server before the heavy imports (numpy, the
backends), so nothing here imports them at module level."""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from webnn_harness.options import parallelism

EXIT_OK, EXIT_FAILURES, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad usage or unreadable input: one line on stderr, exit code 2."""


# -- option groups -------------------------------------------------------------------


def add_backend_arguments(p: argparse.ArgumentParser, repeatable: str | None = None,
                          option_example: str | None = None) -> None:
    """``--backend``/``-b`` (one, required; or ``repeatable`` with that help) and ``-o``/``--option``."""
    if repeatable:
        p.add_argument("--backend", "-b", action="append", help=repeatable)
    else:
        p.add_argument("--backend", "-b", required=True, help="backend name (or package.module:factory)")
    p.add_argument("-o", "--option", action="append", metavar="KEY=VALUE",
                   help=f"backend option, e.g. {option_example}" if option_example else "backend option")


def add_out_argument(p: argparse.ArgumentParser, default: str, help: str | None = None) -> None:
    p.add_argument("--out", default=default, help=help or f"output folder (default: {default})")


def add_overwrite_argument(p, help: str) -> None:
    """``--overwrite`` (``p``: a parser or a group of mutually exclusive options)."""
    p.add_argument("--overwrite", action="store_true", help=help)


def add_quiet_argument(p: argparse.ArgumentParser, progress: str | None = None, help: str | None = None) -> None:
    """``--quiet``/``-q``: hides the ``progress`` (the bar, a line per record); ``help`` where it says more."""
    p.add_argument("--quiet", "-q", action="store_true",
                   help=help or f"no progress as it runs ({progress}); the summary still prints")


def add_judge_argument(p: argparse.ArgumentParser) -> None:
    """``--judge``: whose verdict a record's status is (harness/verdict/wpt.py)."""
    from webnn_harness.verdict.wpt import JUDGES

    p.add_argument("--judge", choices=JUDGES, default="harness",
                   help="whose verdict is each case's status: harness (ours, the default: never more lenient than "
                        "WPT on WPT's cases) or wpt (WPT's utils.js rule alone: would it pass WPT?); records keep "
                        "the other verdict where they differ")


def add_workers_argument(p: argparse.ArgumentParser, default: int | None = None) -> None:
    """``--workers`` (default: the cores, unless ``default``)."""
    p.add_argument("--workers", type=parallelism, default=default or os.cpu_count() or 1,
                   help=f"worker processes (default {default})" if default else "worker processes (default: cores)")


def add_executor_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="where cases run: local worker processes (default) or Ray actors (extra 'ray')")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="join this Ray cluster (default with --executor ray: start a local Ray instance)")


def folder_mode(args) -> str:
    """The output folder's mode of a command with ``--overwrite`` (harness/outputs/writing.py)."""
    return "overwrite" if args.overwrite else "new"


# -- checks and helpers --------------------------------------------------------------


def backend_options(pairs: list[str] | None) -> dict[str, str]:
    """``-o KEY=VALUE`` as a mapping; a malformed pair is a usage error."""
    from webnn_harness.backends.base import parse_options

    try:
        return parse_options(pairs or [])
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def default_backend_names(exclude: tuple[str, ...] = ()) -> list[str]:
    """The installed defaults that can be made here; a note on stderr for each left out."""
    from webnn_harness.backends import default_backends

    names, left_out = default_backends(exclude)
    for line in left_out:
        print(f"note: {line}", file=sys.stderr)
    return names


def backend_requests(names: list[str] | None, option_pairs: list[str] | None):
    from webnn_harness.api import BackendRequest

    options = backend_options(option_pairs)
    if not names:
        names = default_backend_names()
    if len(names) > 1 and options:
        # An option names one backend's setting (ep=, device=); applying it to
        # several backends would be a guess, so ask for separate runs.
        raise UsageError("-o options apply to a single --backend; run each backend separately")
    return [BackendRequest(n, options) for n in names]


def check_operator_names(names) -> None:
    import difflib

    from webnn_harness.spec.catalog import operators

    unknown = [op for op in names if op not in operators()]
    if unknown:
        hints = [m for op in unknown for m in difflib.get_close_matches(op, operators(), n=1)]
        raise UsageError(f"unknown operator{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}"
                         + (f" (did you mean {', '.join(hints)}?)" if hints else "; `webnn-harness ops` lists them"))


@contextlib.contextmanager
def executors(args):
    """The executor factory of ``--executor``/``--ray-address``, closed after
    the command; a Ray run ends with how many cases each node ran."""
    from webnn_harness.execution.executors import executors as make_executors

    try:
        factory = make_executors(args.executor, args.ray_address, getattr(args, "workers", None))
    except ValueError as exc:  # --ray-address without --executor ray
        raise UsageError(str(exc)) from None
    try:
        yield factory
    finally:
        factory.close()
    spread = getattr(factory, "cases_per_node", None)
    if spread:
        print("ray: " + ", ".join(f"{n} on {node}" for node, n in sorted(spread.items())), file=sys.stderr)


def public_argv(args) -> str:
    """This command line (as ``main`` got it) as a summary records it (outputs/rerun_commands.public_command)."""
    from webnn_harness.outputs.rerun_commands import public_command

    return public_command(args.argv)


def warn(problem: str) -> None:
    """A line of an output folder that was skipped (harness/files/reading.py): said, never fatal."""
    from webnn_harness.outputs.text import printable

    print(f"warning: {printable(problem)}", file=sys.stderr)


def check_inputs(paths) -> None:
    """Each input path can be looked up, before any work: else one line, exit 2 (a link loop, a link to
    nothing, a name too long for the file system, a missing file)."""
    from webnn_harness.files.writes import input_problem, line_path

    for path in paths:
        problem = input_problem(path)
        if problem:
            raise UsageError(f"{line_path(path)}: {problem}")


# Per command, the arguments that name files or folders it reads: cli.main looks each up before the command
# runs, so a link loop, a link to nothing or a name too long for the file system is one line and exit 2, not
# a traceback or an OSError said as a write error. A plain missing path is left to the command (it may be a
# name, as bench --suite ops is, or say more, as a run folder's own check does).
INPUT_ARGUMENTS = {
    "run": ("cases", "expectations", "rerun_failures"), "report": ("inputs", "archive"), "diff": ("base", "new"),
    "junit": ("run",), "merge": ("folders",), "import-wpt": ("wpt_dir",), "bench": ("suite", "baseline"),
    "probe": ("compare",), "fuzz": ("probe",), "archive": ("folders",), "import-onnx": ("models",),
}


def check_command_inputs(args) -> None:
    """``INPUT_ARGUMENTS`` of ``args.command`` that cannot be looked up for another reason than being absent."""
    from webnn_harness.files.writes import input_problem, line_path

    for name in INPUT_ARGUMENTS.get(args.command, ()):
        value = getattr(args, name, None)
        for path in value if isinstance(value, list) else [value] if value else []:
            try:
                os.stat(path)
            except FileNotFoundError:
                if os.path.islink(path):  # a link to nothing is said as such
                    raise UsageError(f"{line_path(path)}: {input_problem(path)}") from None
            except (OSError, ValueError):
                raise UsageError(f"{line_path(path)}: {input_problem(path)}") from None


def check_out_file(path: str | None) -> None:
    """An --out FILE that cannot be written is a usage error before any work (a folder, a missing
    parent, a name too long), not a traceback after it."""
    from webnn_harness.outputs.run_folder import check_writable_file

    if path:
        try:
            check_writable_file(Path(path), "--out")
        except ValueError as exc:
            raise UsageError(str(exc)) from None
