"""Where cases run: the seam between ``run``/``probe`` and the machinery
that executes batches of cases in isolation.

An *executor* runs a list of cases on one backend and hands each record to
``on_record`` as it completes; a crash or hang becomes that case's record
(the contract of ``harness/execution/pool.py``). An *executor factory* makes one
executor per backend request and can describe a backend (its info) where
the backend actually runs, which matters when that is another machine.
Where ``bench`` runs for a factory is the bench's to say
(``bench.ray_cluster.bench_executor``).

    local   the worker pool of harness/execution/pool.py (the default)
    ray     actors on a Ray cluster (harness/execution/ray_cluster.py, extra ``ray``)
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Protocol

from webnn_harness.loading.cases import Case
from webnn_harness.verdict.record import Record
from webnn_harness.execution.pool import RunOptions, WorkerPool

EXECUTORS = ("local", "ray")


class Executor(Protocol):
    def run_cases(self, cases: Iterable[Case], on_record: Callable[[Record], None]) -> None:
        """Run ``cases``, each record to ``on_record`` as it completes. ``cases`` may be a generator
        that loads them as they are taken (``run`` streams its selection): the local pool starts
        workers on the first batches meanwhile, the Ray executor takes them all first."""
        ...

    def close(self) -> None: ...


class ExecutorFactory(Protocol):
    def __call__(self, backend: str, options: Mapping[str, str], run: RunOptions, info: Mapping) -> Executor: ...

    def describe(self, backend: str, options: Mapping[str, str]) -> dict[str, Any]: ...

    def close(self) -> None: ...


class LocalExecutors:
    """Worker processes on this machine. ``preload``: every backend the
    command runs, whose packages the fork server imports once for all their
    workers (harness/execution/forkserver.py); when empty, the backend of
    whichever pool starts it first. ``run`` sets it to its backends."""

    preload: tuple[str, ...] = ()

    def __call__(self, backend: str, options: Mapping[str, str], run: RunOptions, info: Mapping) -> Executor:
        return WorkerPool(backend, options, run, info, self.preload)

    def describe(self, backend: str, options: Mapping[str, str]) -> dict[str, Any]:
        from webnn_harness import backends
        from webnn_harness.execution.pool import describe_in_worker

        # Asked of a worker where that is cheap (harness/execution/pool.py); here otherwise, and for a backend
        # that cannot start, so that its own exception (and message) is raised.
        return describe_in_worker(backend, options, self.preload) or backends.create(backend, options).info().to_json()

    def close(self) -> None:
        pass


def executors(kind: str, address: str | None = None, workers: int | None = None) -> ExecutorFactory:
    """The factory for ``--executor kind``. ``address`` joins a running Ray
    cluster; without it a local Ray instance with ``workers`` CPUs is started
    and shut down by ``close()``."""
    if kind == "local":
        if address:
            raise ValueError("--ray-address needs --executor ray")
        return LocalExecutors()
    if kind == "ray":
        from webnn_harness.execution.ray_cluster import RayExecutors

        return RayExecutors(address, num_cpus=workers)
    raise ValueError(f"unknown executor {kind!r} (known: {', '.join(EXECUTORS)})")
