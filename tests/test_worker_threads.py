"""A worker holds the threads of the graphs it is running, not of every batch it ran (issue 42: a
worker process holding 3,780 threads, then "can't start new thread"). A refused graph's exception
kept its batch's list alive through its traceback (a reference cycle only the garbage collector's
full pass frees), and with the list every compiled session and its runtime's thread pool."""
import gc
import threading
import weakref

import pytest

from webnn_harness.backends.base import Unsupported, build_batch, compute_batch

POOL = 3  # threads per compiled session, as ONNX Runtime's intra-op pool with -o threads=4


class Session:
    """A compiled graph owning a thread pool that ends when the session is let go."""

    def __init__(self):
        stop = threading.Event()
        self.threads = [threading.Thread(target=stop.wait, daemon=True) for _ in range(POOL)]
        for t in self.threads:
            t.start()
        weakref.finalize(self, stop.set)


class OneByOne:
    def build(self, graph):
        if graph == "refused":
            raise Unsupported("no such kernel")
        return Session()


class Batched(OneByOne):
    """A backend with its own batch builder, catching in its own frame (as OpenVINO's does)."""

    def build_batch(self, graphs):
        out = []
        for g in graphs:
            try:
                out.append(self.build(g))
            except Unsupported as exc:
                out.append(exc)
        return out

    def compute_batch(self, compiled, inputs):
        out = []
        for c in compiled:
            try:
                raise RuntimeError("compute failed") from None
            except RuntimeError as exc:
                out.append(exc)
        return out


@pytest.mark.parametrize("backend", [OneByOne(), Batched()], ids=["build", "build_batch"])
def test_threads_of_a_batch_end_with_it_without_the_garbage_collector(backend):
    before = threading.active_count()
    live = weakref.WeakSet()
    gc.collect()
    gc.disable()  # the collector's full pass comes seldom in a worker: none here
    try:
        for _ in range(10):
            built = build_batch(backend, ["a", "b", "refused", "c"])
            live.update(b for b in built if isinstance(b, Session))
            computed = compute_batch(backend, built, [{}] * len(built))
            assert all(c.__traceback__ is None for c in [*built, *computed] if isinstance(c, BaseException))
            threads = [t for b in built if isinstance(b, Session) for t in b.threads]
            del built, computed
            for t in threads:
                t.join(timeout=10)
        assert len(live) == 0
        assert threading.active_count() - before == 0
    finally:
        gc.enable()
