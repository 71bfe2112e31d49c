"""Paths and definition names as integers: the ``strings`` table of a cache file.

A ``touches`` row holds the ids of its path and name, not the text: three million rows
of small integers insert and index in about half the time of the same rows as text, and
the ``(path, name)`` index is a third of the size. Queries look a text up by its id, or
its id up by the text. Ids are those of one file: a shard (:mod:`.schema`) numbers its
own, so answers from several files are put together by text, never by id.
"""

from __future__ import annotations

import sqlite3


class Strings:
    """The ids of one cache file's strings, remembered while rows are written to it.
    :meth:`miss` gives a text its id the first time it is seen; new ids are written with
    the rows (:meth:`flush`)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        top = db.execute("SELECT max(id) FROM strings").fetchone()[0]
        #: A new file has no string to look up: every text missing here is new.
        self.fresh = top is None
        self._next = (top or 0) + 1
        self.ids: dict[str, int] = {}
        self._new: list[tuple[int, str]] = []

    def miss(self, text: str | None) -> int | None:
        """The id of ``text``, which :attr:`ids` does not have yet; None for no text (the
        fast path asks after any lookup that found nothing, without a test of its own)."""
        if text is None:
            return None
        if not self.fresh:
            row = self._db.execute(
                "SELECT id FROM strings WHERE text = ? LIMIT 1", (text,)
            ).fetchone()
            if row is not None:
                self.ids[text] = row[0]
                return int(row[0])
        new = self._next
        self._next += 1
        self.ids[text] = new
        self._new.append((new, text))
        return new

    def flush(self) -> None:
        """Writes the ids given since the last flush."""
        self._db.executemany("INSERT INTO strings VALUES (?, ?)", self._new)
        self._new.clear()
