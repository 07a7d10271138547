"""Running one measurement function in its own process: a crash, an
out-of-memory kill or a hang ends that process, not the probe. The function
reports through ``send(message)``; the parent keeps every message that
arrived before the end, so a search that dies part-way still says how far
it got."""
from __future__ import annotations

import multiprocessing as mp
import time
from typing import Any, Callable

_CTX = mp.get_context("spawn")


def _child(conn, target: Callable, args: tuple) -> None:
    try:
        target(conn.send, *args)
        conn.send(("end", None))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides
        conn.send(("exception", f"{type(exc).__name__}: {exc}"[:500]))


def run_isolated(target: Callable, args: tuple, timeout: float) -> tuple[list[Any], str]:
    """(messages sent, how it ended: "end" | "exception: ..." | "crash: ..." | "timeout")."""
    parent, child = _CTX.Pipe(duplex=False)
    proc = _CTX.Process(target=_child, args=(child, target, args), daemon=True)
    proc.start()
    child.close()
    messages: list[Any] = []
    deadline = time.monotonic() + timeout
    ending = "timeout"
    while time.monotonic() < deadline:
        if parent.poll(min(0.25, max(0.0, deadline - time.monotonic()))):
            try:
                msg = parent.recv()
            except (EOFError, OSError):
                proc.join(2)
                ending = f"crash: exit code {proc.exitcode}"
                break
            if isinstance(msg, tuple) and msg and msg[0] == "end":
                ending = "end"
                break
            if isinstance(msg, tuple) and msg and msg[0] == "exception":
                ending = f"exception: {msg[1]}"
                break
            messages.append(msg)
        elif not proc.is_alive():
            ending = f"crash: exit code {proc.exitcode}"
            break
    if proc.is_alive():
        proc.kill()
    proc.join(5)
    parent.close()
    return messages, ending
