"""A tree-sitter tree kept in step with an open document, without costing a keystroke.

Every ``didChange`` is queued here as it arrives (a list append on the event loop). The
queue is flushed into the :class:`~intent_ls.syntax.document.DocumentSyntax` on the
worker thread when a tree is needed (the debounced analysis, a save, hover, code lens):
each change becomes a ``tree.edit`` (the server's trees get changes already converted to
code-point columns, ``utf-32``); a full-document change becomes the one edit that turns
the old text into the new. The tree is reparsed only when a question needs all of it:
the definitions on a few changed lines come from a parse of just the top-level nodes
around them (:mod:`intent_ls.syntax.region`), so a save does not wait for (nor hold the
GIL through) a whole-file parse.

Besides the live tree, two snapshots (``DocumentSyntax.copy()``, which shares the tree)
are kept with the exact text they belong to: ``record``, the content at the last trace
record (the old side of the next record), and ``governance``, the baseline the pending
change is judged against (the old side of the destructive-edit analysis). A snapshot is
only used while its text is the text asked for, so a save never reparses from scratch
and a mismatch can only cost a parse, never a wrong tree.

Thread affinity: :meth:`push` and :meth:`take` run on the event loop, everything else
on the worker thread only.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
from lsprotocol import types

from intent_ls.syntax.document import DocumentSyntax
from intent_ls.syntax.positions import Encoding

Edit = tuple[tuple[int, int], tuple[int, int], str]


@attrs.define
class Batch:
    """Changes taken from the queue: a full text (if any) first, then range edits."""

    full: str | None = None
    edits: list[Edit] = attrs.field(factory=list)


@attrs.frozen
class Snapshot:
    text: str
    syntax: DocumentSyntax | None


class LiveTree:
    def __init__(self, language: str, text: str, encoding: Encoding) -> None:
        self.language = language
        self.encoding = encoding
        self._queue = Batch(full=text)
        self.syntax: DocumentSyntax | None = None
        self.record: Snapshot | None = None
        self.governance: Snapshot | None = None
        #: How often the tree had to be rebuilt from the text (should stay 0).
        self.resyncs = 0

    # -- event loop -----------------------------------------------------------------

    def push(self, changes: Sequence[types.TextDocumentContentChangeEvent]) -> None:
        for change in changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                start, end = change.range.start, change.range.end
                self._queue.edits.append(
                    ((start.line, start.character), (end.line, end.character), change.text)
                )
            else:
                self._queue = Batch(full=change.text)

    def take(self) -> Batch:
        batch, self._queue = self._queue, Batch()
        return batch

    # -- worker thread --------------------------------------------------------------

    def apply(self, batch: Batch, text: str) -> DocumentSyntax:
        """Brings the tree to ``text`` (the buffer the batch ends at) and returns it."""
        if batch.full is not None:
            if self.syntax is None:
                self.syntax = DocumentSyntax.parse(batch.full, self.language)
            else:
                self.syntax.replace_all(batch.full)
        assert self.syntax is not None, "the first batch carries the text at open"
        if batch.edits:
            self.syntax.apply_changes(batch.edits, self.encoding)
        if self.syntax.source != text.encode("utf-8"):
            # Out of step (a line break tree-sitter does not count, a resync): start over.
            self.resyncs += 1
            self.syntax.replace_all(text)
        return self.syntax

    def settle(self, batch: Batch, text: str) -> None:
        """Brings the tree to ``text`` and reparses it whole (at a pause in editing)."""
        self.apply(batch, text).reparse()

    def current(self, text: str) -> Snapshot:
        """A snapshot of the live tree, which must be at ``text`` (after :meth:`apply`)."""
        syntax = self.syntax
        if syntax is None or syntax.source != text.encode("utf-8"):
            return Snapshot(text, None)
        return Snapshot(text, syntax.copy())

    def tree_for(self, snapshot: Snapshot | None, text: str) -> DocumentSyntax | None:
        """The snapshot's tree if it belongs to ``text``, else None (the caller parses)."""
        if snapshot is not None and snapshot.syntax is not None and snapshot.text == text:
            return snapshot.syntax
        return None
