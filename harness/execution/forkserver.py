"""The fork server that worker processes are forked from, and
``start_process``, the one place a harness process starts a child: the
workers of ``run``, ``probe`` and ``bench`` (harness/execution/pool.py,
harness/bench/driver.py) and the probe's isolated measurements
(harness/probe/isolate.py).

The server is a fresh interpreter, started (``prestart``) with the first
child: it imports the worker's modules and the packages each backend declares
(its facts' ``preload``, read in the server: backend_preload.py) once, while
the command's own process goes on loading cases, and forks each child from
there (a spawned worker imported numpy, onnx and onnxruntime again, about
0.5 CPU-s each). This module imports no more than multiprocessing.
"""
from __future__ import annotations

import atexit
import contextlib
import multiprocessing as mp
import os
from multiprocessing import forkserver as mp_forkserver
from typing import Any, Callable, Iterable, Mapping

from webnn_harness.execution.lifecycle import child_environment, sigint_blocked

START_METHOD = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
CONTEXT = mp.get_context(START_METHOD)

# What the fork server imports before forking workers: the worker itself
# (numpy, the harness, the reference), then BACKEND_PRELOAD, which imports
# what each of the run's backends says its workers need (its facts' preload:
# backends/base.py, "Facts"). The backends' facts are read there, in the
# server, from the names in PRELOAD_BACKENDS of its environment: this process
# imports no backend to start it.
WORKER_MODULES = ("webnn_harness.execution.worker", "webnn_harness.backends.reference.evaluate")
BACKEND_PRELOAD = "webnn_harness.execution.backend_preload"
PRELOAD_BACKENDS = "WEBNN_HARNESS_PRELOAD_BACKENDS"


# The server's own environment, over the run's. `import openvino` sends a
# telemetry event (openvino/tools/ovc/__init__.py: telemetry.send_event("ov",
# "import", ...)) from a thread that starts a multiprocessing.Process, and so
# imports multiprocessing.popen_fork, just after the import returns; a worker
# forked in that moment inherits the held import lock and blocks forever on its
# first import (seen in 1 of 11 OpenVINO runs: the describing worker stuck in
# importlib's _lock_unlock_module until the 120 s start timeout). The sender
# stays silent where CI=true (openvino_telemetry/utils/opt_in_checker.py,
# _run_in_ci; ovc asks for disable_in_ci). Workers take the run's own
# environment (harness/execution/worker.py), so nothing they run sees it.
SERVER_ENVIRONMENT = {"CI": "true"}


def server_environment(backends: Iterable[str]) -> dict[str, str]:
    """What the server starts with over the run's environment: SERVER_ENVIRONMENT,
    and the backends whose declared modules it preloads (one name a line)."""
    return {**SERVER_ENVIRONMENT, PRELOAD_BACKENDS: "\n".join(backends)}


def prestart(backends: Iterable[str] = ()) -> None:
    """Start the fork server now (it imports while the caller goes on), with
    the modules the workers of ``backends`` need; called by ``start_process``.
    The first call in a process decides what the server imports; later ones
    do nothing."""
    if START_METHOD != "forkserver":
        return
    server = mp_forkserver._forkserver
    starting = server._forkserver_pid is None
    if starting:
        CONTEXT.set_forkserver_preload([*WORKER_MODULES, BACKEND_PRELOAD])
        atexit.register(_reap_server)
    # SIGINT blocked: inherited across its exec, by the server and so by every worker it forks.
    with sigint_blocked(), (child_environment(server_environment(backends)) if starting else contextlib.nullcontext()):
        server.ensure_running()


def start_process(target: Callable[..., Any], args: tuple, preload: Iterable[str] = (),
                  environment: Mapping[str, str] | None = None, duplex: bool = True) -> tuple[Any, Any]:
    """Start ``target(conn, *args, environ)`` in a child process: the one
    place the harness starts one (the run's and the bench's workers, the
    probe's isolated measurements). Returns the process and this process's
    end of the pipe whose other end is ``conn``.

    The child is forked from the fork server, started now if it is not yet
    (``prestart``: the first start decides what it imports, ``preload``'s
    backends' packages). ``environ`` is what the child passes to
    ``take_environment``: this process's environment with ``environment``
    over it, which the server takes too when this call starts it (the bench's
    BLAS thread counts, read when the server imports numpy)."""
    with child_environment(dict(environment or {})):
        prestart(preload)
        parent, child = CONTEXT.Pipe(duplex)
        process = CONTEXT.Process(target=target, args=(child, *args, environment_for_child()), daemon=True)
        # SIGINT blocked until the child ignores it: Ctrl-C is the parent's to answer (lifecycle.py)
        with sigint_blocked():
            process.start()
    child.close()
    return process, parent


def environment_for_child() -> dict[str, str] | None:
    """What a child started now is to run with: this process's environment
    as it is now (XDG_CACHE_HOME, WEBNN_HARNESS_*), for a child forked by the
    server, which has the environment it started with; None for a spawned
    child, which inherits it. The child passes it to ``take_environment``."""
    return dict(os.environ) if START_METHOD == "forkserver" else None


def take_environment(environ: dict[str, str] | None) -> bool:
    """In the child: adopt ``environ`` (``environment_for_child``'s); True
    when the child was forked by the server."""
    if environ is None:
        return False
    os.environ.clear()
    os.environ.update(environ)
    return True


def _reap_server() -> None:
    """At exit, end the fork server and wait for it, so that its CPU time and
    its workers' count in this process's children (getrusage), as a spawned
    worker's did; unreaped, it would exit a moment later, uncounted."""
    server = mp_forkserver._forkserver  # CPython's own singleton: no public way to stop it
    pid, alive = server._forkserver_pid, server._forkserver_alive_fd
    if pid is None:
        return
    server._forkserver_pid = server._forkserver_alive_fd = None
    try:
        os.close(alive)  # the server exits when its "alive" pipe closes
        os.waitpid(pid, 0)
    except OSError:
        pass
