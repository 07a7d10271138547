"""Running one measurement function in its own process: a crash, an
out-of-memory kill or a hang ends that process, not the probe. The function
reports through ``send(message)``; the parent keeps every message that
arrived before the end, so a search that dies part-way still says how far
it got. ``start_isolated`` starts it now and ``Isolated.collect`` gathers it
later, so it can run beside other work (``probe.beside``)."""
from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass
from typing import Any, Callable

_CTX = mp.get_context("spawn")


def _child(conn, target: Callable, args: tuple) -> None:
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


def start_isolated(target: Callable, args: tuple) -> Isolated:
    parent, child = _CTX.Pipe(duplex=False)
    proc = _CTX.Process(target=_child, args=(child, target, args), daemon=True)
    proc.start()
    child.close()
    return Isolated(proc, parent)


def run_isolated(target: Callable, args: tuple, timeout: float) -> tuple[list[Any], str]:
    """(messages sent, how it ended: "end" | "exception: ..." | "crash: ..." | "timeout")."""
    return start_isolated(target, args).collect(timeout)


def event():
    """An event a parent can set for its isolated child (same start method)."""
    return _CTX.Event()
