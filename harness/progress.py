"""Progress for long commands: tqdm's bar on a terminal; in CI (no terminal) a
line now and then in the same words (tqdm's own meter text), since a redrawn
bar turns into one endless line in a log."""
from __future__ import annotations

import sys
import time
from typing import TextIO

from tqdm import tqdm


class Progress:
    """``start(label, total)`` for each phase (a backend), ``update(n)`` per item."""

    def __init__(self, unit: str, file: TextIO | None = None, enabled: bool = True,
                 interactive: bool | None = None, every: float = 30.0):
        file = file or sys.stderr
        self.unit, self.file, self.enabled, self.every = unit, file, enabled, every
        self.interactive = enabled and (file.isatty() if interactive is None else interactive)
        self._bar: tqdm | None = None
        self._label, self._total, self._n, self._t0, self._last = "", None, 0, 0.0, 0.0

    def start(self, label: str, total: int | None) -> None:
        self.close()
        self._label, self._total, self._n = label, total, 0
        self._t0 = self._last = time.monotonic()
        if self.enabled and self.interactive:
            self._bar = tqdm(total=total, desc=label, unit=self.unit, file=self.file, dynamic_ncols=True)

    def set_total(self, total: int) -> None:
        """The phase's total, once known (``start`` said None: the cases were still loading)."""
        self._total = total
        if self._bar is not None:
            self._bar.total = total
            self._bar.refresh()

    def update(self, n: int = 1) -> None:
        self._n += n
        if self._bar is not None:
            self._bar.update(n)
        elif self.enabled and (time.monotonic() - self._last >= self.every):
            self._line()

    def _line(self) -> None:
        self._last = time.monotonic()
        meter = tqdm.format_meter(self._n, self._total, self._last - self._t0, ncols=0, prefix=self._label,
                                  unit=self.unit)
        print(meter, file=self.file, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self.enabled and self._label and self._n:
            self._line()  # the final count, so a CI log ends with where it got to
        self._label, self._n = "", 0
