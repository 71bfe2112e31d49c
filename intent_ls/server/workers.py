"""The two threads heavy work runs on, so the event loop only parses params and renders.

- ``worker``: tree-sitter (flushing the edits of open documents into their trees), the
  policy's change analysis (destructive edits, stale files, unresolved verdicts),
  building trace records and appending them (fsync).
- ``index``: the trace index (SQLite) and what is derived from it: hover, code lens, who
  changed a file on disk, the histories of open files, ``intent_map.md``. A long build
  or catch-up of the index is not done here but in a child process
  (:mod:`intent_ls.ledger.background`): this thread only ever does short work.

One thread each: jobs run in submission order (a record is built from the tree exactly
as it was when the save arrived, appends keep their order) and objects that are not
thread-safe (trees, the SQLite connection) are only ever touched by their thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class Workers:
    def __init__(self) -> None:
        self.closed = False
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="intent-ls-worker")
        self._index = ThreadPoolExecutor(1, thread_name_prefix="intent-ls-index")

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Queues ``fn`` on the worker now (its place in the order is taken at once)."""
        return self._worker.submit(fn, *args)

    def submit_query(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        return self._index.submit(fn, *args)

    async def work(self, fn: Callable[..., T], *args: Any) -> T:
        self._check()
        return await asyncio.wrap_future(self._worker.submit(fn, *args))

    async def query(self, fn: Callable[..., T], *args: Any) -> T:
        self._check()
        return await asyncio.wrap_future(self._index.submit(fn, *args))

    def _check(self) -> None:
        """Work asked for after shutdown is dropped like a cancelled task (not an error)."""
        if self.closed:
            raise asyncio.CancelledError("the server is shutting down")

    def shutdown(self) -> None:
        """Drops queued queries, but lets the worker finish: a save's record may still
        be waiting to be appended, and a record is never given up. Both threads are
        joined: a query still running in native code (SQLite, tree-sitter) while its
        connection is closed or the interpreter exits can crash the process."""
        self.closed = True
        self._index.shutdown(wait=True, cancel_futures=True)
        self._worker.shutdown(wait=True)
