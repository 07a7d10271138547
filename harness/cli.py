"""The command line: a table of subcommands, one module each (harness/commands/),
each a thin call into the library. Expected errors print one line and exit 2;
never a traceback."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable

from webnn_harness import __version__
from webnn_harness.commands import (
    accuracy, archive, backends, bench, browsers, diff, fuzz, import_wpt, junit_xml, merge, ops, probe, report, run,
)
from webnn_harness.commands import import_onnx
from webnn_harness.commands.common import EXIT_FAILURES, EXIT_USAGE, UsageError, check_command_inputs
from webnn_harness.execution.lifecycle import Terminated, sigterm_raises
from webnn_harness.outputs.text import printable

# In the order --help lists them.
MODULES = {
    "run": run, "ops": ops, "backends": backends, "probe": probe, "fuzz": fuzz, "accuracy": accuracy,
    "report": report, "bench": bench, "diff": diff, "merge": merge, "archive": archive, "junit": junit_xml,
    "browsers": browsers, "import-wpt": import_wpt,
    "import-onnx": import_onnx,
}
COMMANDS: dict[str, tuple[Callable, str]] = {name: (m.handle, m.HELP) for name, m in MODULES.items()}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        """One line, like every other usage error (argparse also prints the whole usage)."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="webnn-harness", description="WebNN conformance and capability harness")
    p.add_argument("--version", action="version", version=f"webnn-harness {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    for name, module in MODULES.items():
        module.add_arguments(sub.add_parser(name, help=module.HELP))
    return p


def _never_unencodable() -> None:
    """A text we missed (a surrogate in a name read from a file) prints escaped, never a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> int:
    _never_unencodable()
    args = parser().parse_args(argv)
    args.argv = ["webnn-harness", *(sys.argv[1:] if argv is None else argv)]  # what summaries record
    fn, _ = COMMANDS[args.command]
    try:
        with sigterm_raises():
            check_command_inputs(args)
            return fn(args)
    except UsageError as exc:
        print(f"webnn-harness {args.command}: error: {printable(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except (KeyboardInterrupt, Terminated) as exc:
        # What the line says of continuing: the command's own way to, where it has one.
        what = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"stopped by {exc}"
        print(f"webnn-harness {args.command}: {what}; what was written so far is kept"
              f"{getattr(MODULES[args.command], 'CONTINUING', '')}", file=sys.stderr)
        return 128 + (exc.signum if isinstance(exc, Terminated) else 2)
    except BrokenPipeError:
        # The reader went away (`ops --json | head`): stop quietly. Point stdout at
        # devnull so the interpreter's own flush at exit does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILURES
    except OSError as exc:
        # A full disk, a read-only file system, a name too long, met while writing: the records written
        # so far are whole (each file is appended a line at a time or replaced atomically) and the summary
        # written first still says the output is incomplete.
        from webnn_harness.files.writes import describe_write_error

        print(f"webnn-harness {args.command}: error: {printable(describe_write_error(exc))}; what was written so far is kept",
              file=sys.stderr)
        return EXIT_FAILURES


if __name__ == "__main__":
    sys.exit(main())
