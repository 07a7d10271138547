"""Running one measurement function in its own process: a crash, an
out-of-memory kill or a hang ends that process, not the probe. The function
reports through ``send(message)``; the parent keeps every message that
arrived before the end, so a search that dies part-way still says how far
it got. ``start_isolated`` starts it now and ``Isolated.collect`` gathers it
later, so it can run beside other work (``probe.beside``).

The process is forked from the run's fork server (harness/execution/forkserver.py), which
has imported numpy, the harness and the backend's packages once for the
workers: a spawned process spent about half a CPU-second importing them
again (issue 14). It takes this process's environment, ignores Ctrl-C (the
probe answers it) and dies with the probe, as a worker does
(harness/execution/lifecycle.py).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

# The workers' start method, for ``event``: the child it is shared with is forked from the
# fork server (multiprocessing has one per process) that the workers are forked from.
from webnn_harness.execution.forkserver import CONTEXT as _CTX, start_process, take_environment
from webnn_harness.execution.lifecycle import die_with_parent


def _child(conn, target: Callable, args: tuple, environ: dict | None = None) -> None:
    die_with_parent(forked_by_server=take_environment(environ))
    try:
        target(conn.send, *args)
        conn.send(("end", None))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides
        conn.send(("exception", f"{type(exc).__name__}: {exc}"[:500]))


@dataclass(eq=False)
class Isolated:
    process: Any
    conn: Any

    def collect(self, timeout: float) -> tuple[list[Any], str]:
        """(messages sent, how it ended: "end" | "exception: ..." | "crash: ..." | "timeout"),
        waiting at most ``timeout`` seconds from now; the process is gone afterwards."""
        messages: list[Any] = []
        deadline = time.monotonic() + timeout
        ending = "timeout"
        while time.monotonic() < deadline:
            if self.conn.poll(min(0.25, max(0.0, deadline - time.monotonic()))):
                try:
                    msg = self.conn.recv()
                except (EOFError, OSError):
                    self.process.join(2)
                    ending = f"crash: exit code {self.process.exitcode}"
                    break
                if isinstance(msg, tuple) and msg and msg[0] == "end":
                    ending = "end"
                    break
                if isinstance(msg, tuple) and msg and msg[0] == "exception":
                    ending = f"exception: {msg[1]}"
                    break
                messages.append(msg)
            elif not self.process.is_alive():
                ending = f"crash: exit code {self.process.exitcode}"
                break
        self.close()
        return messages, ending

    def close(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


def start_isolated(target: Callable, args: tuple, preload: Iterable[str] = ()) -> Isolated:
    """``target(send, *args)`` in a process of its own, started now, as a
    worker is (harness/execution/forkserver.py). Started before the probe's
    first worker (``probe.beside``), it starts the fork server, which then
    imports ``preload``'s backends' packages for both; started alone, the
    server imports only the harness and the child the rest."""
    return Isolated(*start_process(_child, (target, args), preload, duplex=False))


def run_isolated(target: Callable, args: tuple, timeout: float) -> tuple[list[Any], str]:
    """(messages sent, how it ended: "end" | "exception: ..." | "crash: ..." | "timeout")."""
    return start_isolated(target, args).collect(timeout)


def event():
    """An event a parent can set for its isolated child (same start method)."""
    return _CTX.Event()
