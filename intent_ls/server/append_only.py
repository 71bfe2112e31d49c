"""The ledger is append-only: an edit of ``agent_trace.jsonl`` in the editor is an Error.

Only intent-ls appends to ``.orchestration/agent_trace.jsonl`` (each line chained to the
previous one). When the file is open and its buffer changes, the changed lines get a
``ledger-edited`` diagnostic until the buffer is back to what it was. A buffer that only
grew at the end with lines that are on disk (the editor reloaded the file after an
append) is not an edit: it becomes the new reference.
"""

from __future__ import annotations

from lsprotocol import types

from intent_ls.server.diagnostics import SOURCE, region_range, severity
from intent_ls.server.disk import path_of, read_text
from intent_ls.server.documents import TrackedDocument
from intent_ls.server.hub import Hub
from intent_ls.spec.model import Severity

LEDGER_EDITED = "ledger-edited"
MESSAGE = (
    "agent_trace.jsonl is append-only: only intent-ls appends records, each chained to the "
    "line before it. This edit breaks the chain (`intent-ls trace verify` reports it); undo it."
)


def _reloaded(ls: Hub, doc: TrackedDocument) -> bool:
    """Every change is lines appended after the old end, and the file starts with the
    buffer: the editor shows appends made on disk."""
    if doc.untracked:
        return False
    end = len(doc.baseline)
    hunks = doc.hunks()
    if not hunks or any(h.old_start != end or h.deleted for h in hunks):
        return False
    path = path_of(doc.uri)
    disk = read_text(path) if path is not None else None
    return disk is not None and disk.startswith(ls.workspace.get_text_document(doc.uri).source)


def diagnostics(ls: Hub, doc: TrackedDocument) -> list[types.Diagnostic]:
    if not doc.edited:
        return []
    if _reloaded(ls, doc):
        doc.rebase()
        return []
    level = severity(LEDGER_EDITED, Severity.ERROR, ls.config)
    if level is None:
        return []
    return [
        types.Diagnostic(
            range=region_range(doc, region, ls.codec),
            message=MESSAGE,
            severity=level,
            code=LEDGER_EDITED,
            source=SOURCE,
        )
        for region in doc.regions()
    ]
