"""Who wrote a file's content: the save in the ledger that produced a given hash.

A stale-file verdict names who changed the file underneath the reader (an agent, a
colleague's editor); the ledger knows, because every save records its ``after_hash``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from intent_ls.ledger.records import intent_meta
from intent_ls.policy.stale import Changer

if TYPE_CHECKING:
    from intent_ls.ledger.index import TraceIndex


def _changer(record: dict[str, Any], rel: str, disk_hash: str) -> Changer | None:
    """The writer of ``disk_hash`` if ``record`` is the save that produced it."""
    meta = intent_meta(record) if isinstance(record, dict) else {}
    if meta.get("after_hash") != disk_hash:
        return None
    for file in record.get("files") or ():
        if isinstance(file, dict) and file.get("path") == rel:
            conversations = file.get("conversations") or [{}]
            contributor = conversations[0].get("contributor") or {}
            return Changer(
                contributor.get("type"),
                contributor.get("model_id"),
                meta.get("intent_id"),
                record.get("timestamp"),
            )
    return None


def changer_from_records(
    records: Iterable[dict[str, Any]], rel: str, disk_hash: str
) -> Changer | None:
    """Who wrote ``disk_hash`` to ``rel``: the newest matching save among ``records``
    (given in ledger order, oldest first)."""
    found = None
    for record in records:
        found = _changer(record, rel, disk_hash) or found
    return found


def changer_from_index(
    index: TraceIndex, rel: str, disk_hash: str, *, limit: int = 20
) -> Changer | None:
    """Like :func:`changer_from_records`, through the index: only the newest ``limit``
    records of ``rel`` are read, since the writer of what is on disk now is recent."""
    for ref in index.records_for_path(rel, limit):
        found = _changer(index.load_record(ref), rel, disk_hash)
        if found is not None:
            return found
    return None
