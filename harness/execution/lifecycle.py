"""Process lifetimes: workers die with their parent, and the parent stops
cleanly on SIGINT and SIGTERM.

- A worker asks the kernel to SIGKILL it when its parent dies
  (``PR_SET_PDEATHSIG``, Linux prctl(2)), and everywhere runs a watchdog
  thread on the pipe multiprocessing gives it to its parent
  (``parent_process().sentinel``, readable once the parent is gone). A
  worker in a hung case therefore never outlives a parent killed with
  SIGKILL; multiprocessing's resource tracker then sees its pipe close and
  exits too.
- Workers start with SIGINT blocked and then ignore it: Ctrl-C reaches the
  whole foreground process group, and the parent (which stops the workers)
  is the one that should answer it, with one line rather than a traceback
  per worker.
- SIGTERM in the parent becomes a ``Terminated`` exception, so the same
  ``finally`` that writes the summary after Ctrl-C runs after SIGTERM too.
"""
from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from multiprocessing.connection import wait
from typing import Iterator

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class Terminated(BaseException):
    """The process received SIGTERM (a BaseException, like KeyboardInterrupt,
    so ``except Exception`` in case-handling code does not swallow it)."""

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def stop_reason(exc: BaseException) -> str:
    """How a run that raised ``exc`` ended, for summary.json."""
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted (SIGINT)"
    if isinstance(exc, Terminated):
        return f"terminated ({exc})"
    return f"stopped by {type(exc).__name__}: {exc}"


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises ``Terminated`` in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, _frame):
        raise Terminated(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def sigint_blocked() -> Iterator[None]:
    """Block SIGINT while starting a child: the mask is inherited across the
    spawn's exec, so the child cannot be interrupted before ``die_with_parent``
    has set it to be ignored."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def child_environment(values: dict[str, str]) -> Iterator[None]:
    """``values`` in os.environ while a child is started (a spawned or
    fork-server process takes the environment as it is then), then as before."""
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _watch_parent(sentinel) -> None:
    wait([sentinel])
    os._exit(70)  # the parent is gone: nobody will read what we compute


def die_with_parent(forked_by_server: bool = False) -> None:
    """Called first thing in a worker process (see the module docstring).

    ``forked_by_server``: the worker's own parent is multiprocessing's fork
    server (harness/execution/forkserver.py), which exits when the run's process does (its
    "alive" pipe closes), so PR_SET_PDEATHSIG still ends the worker then; the
    watchdog watches the run's process itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    parent = multiprocessing.parent_process()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watchdog below still covers it
        if parent is not None and os.getppid() != parent.pid and not forked_by_server:
            os._exit(70)  # the parent died before prctl took effect
    if parent is not None and parent.sentinel is not None:
        threading.Thread(target=_watch_parent, args=(parent.sentinel,), name="parent-watchdog",
                         daemon=True).start()
