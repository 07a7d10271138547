"""Which processes a test session started, found by an environment marker
its children inherit (Linux /proc; other systems have no cheap equivalent)."""
from __future__ import annotations

import os
import time
from pathlib import Path

MARKER = "WEBNN_HARNESS_TEST_SESSION"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:  # gone meanwhile, or not ours
        return b""


def parent_of(pid: int) -> int:
    stat = _read(Path(f"/proc/{pid}/stat")).decode(errors="replace")
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses
    rest = stat[stat.rfind(")") + 2:].split()
    return int(rest[1]) if len(rest) > 1 else 0


def alive(pid: int) -> bool:
    state = _read(Path(f"/proc/{pid}/stat")).decode(errors="replace")
    return bool(state) and state[state.rfind(")") + 2:][:1] not in ("Z", "X")  # a zombie has ended


def command(pid: int) -> str:
    return _read(Path(f"/proc/{pid}/cmdline")).replace(b"\0", b" ").decode(errors="replace").strip()


def children(pid: int) -> list[int]:
    return [p for p in _pids() if parent_of(p) == pid]


def descendants(pid: int) -> list[int]:
    """Children, their children, and so on (workers are the fork server's children)."""
    out, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        out += kids
        todo += kids
    return out


def _pids() -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]


def marked(session: str) -> set[int]:
    """Live processes carrying ``MARKER=session`` in their environment."""
    needle = f"{MARKER}={session}".encode()
    return {p for p in _pids() if needle in _read(Path(f"/proc/{p}/environ")).split(b"\0") and alive(p)}


def orphans(session: str, grace: float = 10.0) -> dict[int, str]:
    """Processes of this session whose parent is not of this session (so they
    were orphaned: reparented to init or a subreaper), after ``grace`` seconds
    for ones still shutting down."""
    deadline = time.monotonic() + grace
    while True:
        mine = marked(session) - {os.getpid()}
        left = {p: command(p) for p in mine if parent_of(p) not in mine | {os.getpid()}}
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.25)


def wait_gone(pids, timeout: float = 10.0) -> list[int]:
    """The pids still alive after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        left = [p for p in pids if alive(p)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def sleeping_worker(watchdog_only: bool) -> None:
    """A stand-in worker (target of a spawned process in test_faults): what
    harness/execution/lifecycle.py sets up, then a hang. ``watchdog_only`` pretends not
    to be on Linux, so only the pipe watchdog can end it."""
    import sys

    from webnn_harness.execution import lifecycle

    if watchdog_only:
        sys.platform = "darwin"
    lifecycle.die_with_parent()
    time.sleep(600)


SPAWN_A_SLEEPING_WORKER = """
import multiprocessing as mp, sys, time
from processes import sleeping_worker
if __name__ == "__main__":
    p = mp.get_context("spawn").Process(target=sleeping_worker, args=(sys.argv[1] == "watchdog",), daemon=True)
    p.start()
    print(p.pid, flush=True)
    time.sleep(600)
"""
