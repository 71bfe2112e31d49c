"""The trace index brought up to date in a process of its own, for a long-running server.

A cold build of a big ledger (a fresh clone: a million records) is seconds of parsing.
Run on one of the server's threads it would hold the interpreter's GIL the whole time,
and every keystroke would wait a switch interval behind it; run in a child process it
costs the server nothing but a thread blocked on a pipe. The child is
:meth:`TraceIndex.refresh` itself (a cold build, or a large catch-up or realignment), so
the cache it leaves is exactly the one an in-process refresh would: the server then
opens it and catches up the few records appended meanwhile. It runs at a lower priority
(:data:`NICE`): it is background work, and keystrokes should not queue behind it.

The child reports ``done total`` (bytes of the ledger indexed, ledger size) after each
block it reads; :attr:`BackgroundBuild.done` and :attr:`~BackgroundBuild.total` follow.

``INTENT_LS_INDEX_BUILD_GATE`` (tests only): once the child has indexed its first
block, it waits until the file this names exists, so a test can act during a build
and end it when it chooses, without timing guesses.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path

from intent_ls.common.child import python_child
from intent_ls.ledger.index import TraceIndex

logger = logging.getLogger(__name__)

GATE_ENV = "INTENT_LS_INDEX_BUILD_GATE"
#: How much the child (and the second parsing process it starts) yields the CPU.
NICE = 10
_CODE = "from intent_ls.ledger.background import _child_main; _child_main()"


class BackgroundBuild:
    """One refresh of ``cache`` from ``ledger`` in a child process. :attr:`finished`
    resolves to True when the child indexed everything, False when it failed (the
    reason is logged): the caller may then refresh in-process as before."""

    def __init__(self, ledger: Path, cache: Path) -> None:
        self.ledger = ledger
        self.cache = cache
        self.done = 0
        try:
            self.total = ledger.stat().st_size
        except FileNotFoundError:
            self.total = 0
        self.finished: Future[bool] = Future()
        self._proc = python_child(_CODE, str(ledger), str(cache))
        self._thread = threading.Thread(
            target=self._follow, name="intent-ls-index-build", daemon=True
        )
        self._thread.start()

    @property
    def percent(self) -> int:
        """Bytes of the ledger read so far, in percent (100 only once finished: what
        follows the reading, the merge and the B-trees, still takes a while)."""
        if self.finished.done():
            return 100
        return min(99, self.done * 100 // self.total) if self.total else 0

    def _follow(self) -> None:
        proc = self._proc
        assert proc.stdout is not None
        for line in proc.stdout:
            done, _, total = line.partition(b" ")
            try:
                self.done, self.total = int(done), int(total)
            except ValueError:
                continue
        code = proc.wait()
        if code != 0:
            logger.warning("indexing %s in a child process failed (exit %s)", self.ledger, code)
        self.finished.set_result(code == 0)

    def stop(self) -> None:
        """Ends the child (it removes its temporary files) and waits for it."""
        if self._proc.poll() is None:
            self._proc.terminate()
        self._thread.join()


def _child_main() -> None:
    """Child entry point: ``ledger cache``."""
    ledger, cache = Path(sys.argv[1]), Path(sys.argv[2])
    # The parent ends a build it no longer needs with SIGTERM: unwind, so the temporary
    # files of the build and the second parsing process go too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    # Background work: the editor, the server and the agents' hooks come first on a
    # machine with two cores and a build that would take both.
    with contextlib.suppress(OSError):
        os.nice(NICE)
    gate = os.environ.get(GATE_ENV)

    def progress(done: int, total: int) -> None:
        nonlocal gate
        print(done, total, flush=True)
        while gate and done and not os.path.exists(gate):
            time.sleep(0.02)
        if done:
            gate = None

    index = TraceIndex(ledger, cache, progress=progress)
    try:
        index.refresh()
    finally:
        index.close()
