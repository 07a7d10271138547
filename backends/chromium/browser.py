"""One headless Chromium driven through Playwright, with the backend's page
loaded: started on first use, ended with the process.

The page is served from an https URL that Playwright answers itself (no
server, no network): ``navigator.ml`` exists only in a secure context, and
``about:blank`` is not one.

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
import sys
import threading
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

# The flags the issue checked on a 2-core headless Linux machine without a GPU.
FLAGS = (
    "--no-sandbox", "--no-zygote", "--single-process", "--in-process-gpu",
    "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
    "--disable-dev-shm-usage", "--enable-features=WebMachineLearningNeuralNetwork",
)
PAGE_URL = "https://webnn-harness.invalid/"
BROWSER_LOST = 75  # the worker's exit status when its browser crashed or hung in a call of several cases


def page_html() -> str:
    script = resources.files("webnn_harness.backends.chromium").joinpath("page.js").read_text()
    return f"<!doctype html><meta charset=utf-8><title>webnn-harness</title><script>{script}</script>"


def end_process(why: str) -> None:
    """The browser is lost: say so in one line and end this (worker) process."""
    print(f"chromium backend: {why}; ending the worker so the pool isolates the case at fault", file=sys.stderr,
          flush=True)
    os._exit(BROWSER_LOST)


class Browser:
    """The browser and its page, started on first ``call``."""

    def __init__(self, executable: Path, flags: Sequence[str]):
        self.executable, self.flags = executable, tuple(flags)
        self._playwright = self._browser = self._page = None
        self._crashed = False

    def _start(self) -> None:
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        atexit.register(self.close)
        self._browser = self._playwright.chromium.launch(
            executable_path=str(self.executable), headless=True, args=list(self.flags))
        page = self._browser.new_page()
        page.on("crash", lambda _: setattr(self, "_crashed", True))
        page.route(PAGE_URL, lambda route: route.fulfill(body=page_html(), content_type="text/html"))
        page.goto(PAGE_URL)
        page.unroute(PAGE_URL)
        self._page = page

    @property
    def version(self) -> str:
        if self._browser is None:
            self._start()
        return self._browser.version

    def call(self, function: str, *args: Any, timeout: float | None = None, crash: bool = False) -> Any:
        """``window.webnnHarness[function](...args)`` in the page. ``timeout``:
        seconds after which the call counts as hung (the process ends);
        ``crash``: crash the renderer instead (the test-only crash_case)."""
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
            return self._page.evaluate(f"(args) => window.webnnHarness.{function}(...args)", list(args))
        except Error as exc:
            message = ' '.join(str(exc).split())[:300]
            if self._crashed or not self._browser.is_connected() or self._page.is_closed():
                end_process(f"the browser was lost ({message})")
            raise RuntimeError(f"the page's {function} threw: {message}") from None
        finally:
            if watchdog is not None:
                watchdog.cancel()

    def close(self) -> None:
        try:
            if self._browser is not None:
                self._browser.close()
            if self._playwright is not None:
                self._playwright.stop()
        except Exception:  # noqa: BLE001 - at exit, a browser already gone is no error
            pass
        self._playwright = self._browser = self._page = None
