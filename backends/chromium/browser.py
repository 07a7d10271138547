"""One headless Chromium driven through Playwright, with the backend's page
loaded: started on first use, ended with the process.

The page is served by a loopback HTTP server of this process
(``http://127.0.0.1``: a secure context, which ``navigator.ml`` needs and
``about:blank`` is not), which also serves the large tensors of a call: the
page fetches them at network speed, where Playwright passes a call's
arguments at well under 1 MB/s.

``--single-process`` (the build's renderer, GPU and WebNN service in one
process; without it the GPU process of this headless build does not start)
means a renderer crash takes the whole browser. A browser lost in a call, or
a call of several cases running past its time, ends the worker process
(``BROWSER_LOST``): the worker pool then runs the batch's cases one at a time
in a new worker, with a new browser, and the one at fault gets the ``crash``
record (or, hung alone, the run's ``timeout``) while the rest go on.
"""
from __future__ import annotations

import atexit
import os
import re
import sys
import threading
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from webnn_harness.backends.chromium.payload import served

# The flags the issue checked on a 2-core headless Linux machine without a GPU.
FLAGS = (
    "--no-sandbox", "--no-zygote", "--single-process", "--in-process-gpu",
    "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
    "--disable-dev-shm-usage", "--enable-features=WebMachineLearningNeuralNetwork",
)
# Playwright's words for a page, browser or driver gone (its state may not say so yet).
_LOST = re.compile(r"Target (page, context or browser has been closed|crashed)|Connection closed|has been closed")
BROWSER_LOST = 75  # the worker's exit status when its browser crashed or hung in a call of several cases


def page_html() -> str:
    script = resources.files("webnn_harness.backends.chromium").joinpath("page.js").read_text()
    return f"<!doctype html><meta charset=utf-8><title>webnn-harness</title><script>{script}</script>"


class LoopbackServer:
    """The page at ``/`` and, during a call, its large tensors at ``/tensor/<n>``."""

    def __init__(self, page: bytes):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.tensors: dict[str, bytes] = {}
        tensors, hosts = self.tensors, set()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # no line per request on the run's console
                pass

            def do_GET(self):
                if self.headers.get("Host") not in hosts:  # a page of another site, by DNS rebinding: answered nothing
                    self.send_error(421)
                    return
                body = page if self.path == "/" else tensors.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/html" if self.path == "/" else "application/octet-stream")
                # Cross-origin isolated: the page's performance.now() is
                # coarsened to 5 us rather than 100 us (the bench times in it).
                self.send_header("Cross-Origin-Opener-Policy", "same-origin")
                self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        hosts.add(f"127.0.0.1:{self._server.server_address[1]}")
        threading.Thread(target=self._server.serve_forever, daemon=True, name="chromium-page-server").start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"

    def serve(self, data: bytes) -> str:
        """Serve ``data`` until ``forget``: the path to fetch it at."""
        path = f"/tensor/{len(self.tensors)}"
        self.tensors[path] = data
        return path

    def forget(self) -> None:
        self.tensors.clear()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def end_process(why: str) -> None:
    """The browser is lost: say so in one line and end this (worker) process."""
    print(f"chromium backend: {why}; ending the worker so the pool isolates the case at fault", file=sys.stderr,
          flush=True)
    os._exit(BROWSER_LOST)


_PLAYWRIGHT: list = []  # this process's one Playwright driver: its sync API starts once per thread


def playwright():
    """The process's Playwright, started on first use and stopped at exit."""
    if not _PLAYWRIGHT:
        from playwright.sync_api import sync_playwright

        _PLAYWRIGHT.append(sync_playwright().start())
        atexit.register(_PLAYWRIGHT[0].stop)
    return _PLAYWRIGHT[0]


def stop_playwright() -> None:
    """Stop the process's Playwright (its browsers with it), for a process that
    goes on to use Playwright's sync API itself: a test process, whose thread
    can run one sync API at a time."""
    if _PLAYWRIGHT:
        driver = _PLAYWRIGHT.pop()
        atexit.unregister(driver.stop)
        driver.stop()


class Browser:
    """The browser and its page, started on first ``call``."""

    def __init__(self, executable: Path, flags: Sequence[str]):
        self.executable, self.flags = executable, tuple(flags)
        self._browser = self._page = self._server = None
        self._crashed = False

    def _start(self) -> None:
        driver = playwright()
        atexit.register(self.close)  # after the driver's stop: exit handlers run last registered first
        self._browser = driver.chromium.launch(
            executable_path=str(self.executable), headless=True, args=list(self.flags))
        page = self._browser.new_page()
        page.on("crash", lambda _: setattr(self, "_crashed", True))
        self._server = LoopbackServer(page_html().encode())
        page.goto(self._server.url)
        self._page = page

    def call(self, function: str, *args: Any, timeout: float | None = None, crash: bool = False) -> Any:
        """``window.webnnHarness[function](...args)`` in the page. ``timeout``:
        seconds after which the call counts as hung (the process ends);
        ``crash``: crash the renderer first (the test-only crash_on_op)."""
        from playwright.sync_api import Error

        if self._page is None:
            self._start()
        watchdog = threading.Timer(timeout, end_process, (f"a page call ran past {timeout:g} s",)) if timeout else None
        if watchdog is not None:
            watchdog.daemon = True
            watchdog.start()
        try:
            if crash:
                self._page.goto("chrome://crash")
            return self._page.evaluate(f"(args) => window.webnnHarness.{function}(...args)",
                                       served(list(args), self._server.serve))
        except Error as exc:
            message = ' '.join(str(exc).split())[:300]
            if self._crashed or not self._browser.is_connected() or self._page.is_closed() or _LOST.search(message):
                end_process(f"the browser was lost ({message})")
            raise RuntimeError(f"the page's {function} threw: {message}") from None
        finally:
            self._server.forget()
            if watchdog is not None:
                watchdog.cancel()

    def close(self) -> None:
        try:
            if self._browser is not None:
                self._browser.close()
            if self._server is not None:
                self._server.close()
        except Exception:  # noqa: BLE001 - at exit, a browser already gone is no error
            pass
        self._browser = self._page = self._server = None
