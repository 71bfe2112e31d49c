"""The links between ledger lines: which earlier lines a record vouches for.

A record's ``prev`` names the hash of a line that was in the ledger when it was written;
a merge record (``kind: "merge"``) also names ``parents``, the other lines it joins, and
``absent``, lines a cherry-pick or rebase left behind on another branch. Verification,
the merge driver and ``trace repair`` all read the same links, from here.

Reading them must stay cheap on a million lines, so a line that our writer produced is
read with one search: in canonical JSON every ``"`` inside a string is escaped, so the
bytes ``"prev":"`` occur only where an object has a ``prev`` key. A line with another
such key, or with merge fields, is parsed.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from intent_ls.ledger.records import METADATA_KEY

MERGE_KIND = "merge"
_PREV = re.compile(rb'"prev":"([^"]*)"')
_MERGE_FIELDS = (b'"parents":', b'"absent":')


class Links(NamedTuple):
    prev: str | None
    parents: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()


NO_LINKS = Links(None)


def line_links(body: bytes) -> Links:
    """The links of one ledger line (without its newline); no links if it is no record."""
    found = _PREV.findall(body)
    if len(found) == 1 and not any(field in body for field in _MERGE_FIELDS):
        try:
            return Links(found[0].decode())
        except UnicodeDecodeError:
            return NO_LINKS
    try:
        record = json.loads(body)
    except ValueError:
        return NO_LINKS
    return record_links(record)


def record_links(record: Any) -> Links:
    meta = record.get("metadata", {}) if isinstance(record, dict) else {}
    meta = meta.get(METADATA_KEY) if isinstance(meta, dict) else None
    if not isinstance(meta, dict):
        return NO_LINKS
    prev = meta.get("prev")
    return Links(
        prev if isinstance(prev, str) else None,
        _strings(meta.get("parents")),
        _strings(meta.get("absent")),
    )


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, str))
