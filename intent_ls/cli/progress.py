"""A progress bar on the terminal for the CLI's long reads of the ledger.

Only when stderr is a terminal (never in a pipe, a CI log or a hook's output) and only
for work that has already taken :data:`DELAY` seconds: a small ledger never flickers a
bar. It is drawn on one line, at most every :data:`EVERY` seconds, and erased when the
work is done, so the command's own output follows on a clean line.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

#: Work shorter than this shows no bar.
DELAY = 1.0
#: Seconds between two redraws.
EVERY = 0.1
WIDTH = 30


class TerminalProgress:
    """A ``progress(done, total)`` callback (bytes) that draws ``label [####   ] 40 %``."""

    def __init__(
        self,
        label: str,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.clock = clock
        self.start = clock()
        self.drawn = 0.0
        self.shown = False
        try:
            self.tty = self.stream.isatty()
        except ValueError:  # a closed stream
            self.tty = False

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if not self.tty or now - self.start < DELAY or now - self.drawn < EVERY:
            return
        self.drawn = now
        pct = min(100, done * 100 // total) if total else 100
        filled = WIDTH * pct // 100
        self.stream.write(f"\r{self.label} [{'#' * filled}{' ' * (WIDTH - filled)}] {pct:3d} %")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """Erases the bar (if it was drawn)."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
