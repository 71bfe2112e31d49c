"""The rows one ledger line gives the index: a ``records`` row and its ``touches`` rows.

A file entry that gives no range row (a pure deletion in a file without definitions, a
file deleted or emptied) gives a *file row* instead, ``nkind`` :data:`FILE_ROW`: without
it :meth:`~intent_ls.ledger.index.queries.TraceIndex.records_for_path` would not name the
record, and the editor would never see its verdicts while ``check`` does. A file with
ranges needs none (its range rows carry the path), so ranged records cost nothing more.

Every way of reading a line (json.loads here, msgspec in :mod:`.fastpath`) yields exactly
what :func:`extract_rows` makes of the parsed record; tests compare them line by line.
Rows are written as flat lists of column values, paths and names as their ids
(:mod:`.strings`): a multi-row INSERT takes them as they are.
"""

from __future__ import annotations

import json
import re
from typing import Any

from intent_ls.common.hashing import hash_key
from intent_ls.ledger.index.strings import Strings
from intent_ls.ledger.records import METADATA_KEY, intent_urn

#: A ``records`` row and the ``touches`` rows of one line.
Rows = tuple[tuple[Any, ...], list[tuple[Any, ...]]]
URN = intent_urn("")
#: The ``nkind`` of a file row; queries that count content (the intent map, the paths
#: mutated) leave these rows out, so they answer as before file rows existed.
FILE_ROW = "file"
_DIGEST_FORM = re.compile(r"sha256:[0-9a-f]{16}.*").fullmatch


def extract_rows(seq: int, offset: int, record: dict[str, Any]) -> Rows:
    """The ``records`` row and ``touches`` rows of one parsed record (any shape: foreign
    and hand-edited records are indexed too, as far as they carry the fields)."""
    meta = record.get("metadata", {}).get(METADATA_KEY, {}) if isinstance(record, dict) else {}
    touches: list[tuple[Any, ...]] = []
    files = record.get("files") or ()
    ctype, model = _file_touches(files, seq, touches)
    intent = meta.get("intent_id")
    if intent is None:
        intent = _related_intent(files)
    for node in meta.get("ast_nodes") or ():
        digest = node.get("content_hash")
        touches.append(
            (
                seq,
                _text(node.get("path")),
                _text(node.get("name")),
                _text(node.get("kind")),
                hash_key(digest) if digest else None,
            )
        )
    digest = meta.get("digest")
    row = (
        seq,
        offset,
        _text(record.get("timestamp")),
        _text(intent),
        _text(ctype),
        _text(model),
        _text(meta.get("mutation_class")),
        _text(meta.get("kind")),
        digest_key(digest),
    )
    return row, touches


def _file_touches(files: Any, seq: int, touches: list[tuple[Any, ...]]) -> tuple[Any, Any]:
    """Adds the touches of the file entries: a row for each range, or a file row for a file
    without one; returns the contributor type and model the record is credited to (the
    first named)."""
    ctype = model = None
    for file in files:
        path = _text(file.get("path"))
        ranged = len(touches)
        for conv in file.get("conversations") or ():
            contributor = conv.get("contributor") or {}
            ctype = ctype or contributor.get("type")
            model = model or contributor.get("model_id")
            for rng in conv.get("ranges") or ():
                digest = rng.get("content_hash")
                touches.append((seq, path, None, None, hash_key(digest) if digest else None))
        if len(touches) == ranged and path is not None:
            touches.append((seq, path, None, FILE_ROW, None))
    return ctype, model


def _related_intent(files: Any) -> Any:
    """The intent of a record whose metadata names none: the first conversation with a
    specification link to one names it (its last such link)."""
    for file in files:
        for conv in file.get("conversations") or ():
            intent = None
            for rel in conv.get("related") or ():
                url = rel.get("url", "")
                if rel.get("type") == "specification" and url.startswith(URN):
                    intent = url[len(URN) :]
            if intent is not None:
                return intent
    return None


def _text(value: Any) -> str | None:
    """``value`` if SQLite can hold it as text, else None: a hand-edited line with a list,
    an object, a huge number or a lone surrogate in one of these fields would otherwise
    stop every build of the index. (The fast path's types only read strings, and only from
    lines without escapes: it never meets such a value.)"""
    if not isinstance(value, str):
        return None
    if not value.isascii():
        try:
            value.encode()
        except UnicodeEncodeError:
            return None
    return value


def digest_key(digest: Any) -> int | None:
    """The line key of a record: its own ``digest``, which already identifies it, so a
    cold build does not hash every line to be able to find it again after a merge."""
    if isinstance(digest, str) and _DIGEST_FORM(digest):
        return hash_key(digest)
    return None


def json_rows(seq: int, offset: int, line: bytes) -> Rows:
    """The rows of one line read by json.loads; "invalid" if it is not a JSON object (a
    damaged line still takes a ``seq`` so later records keep theirs)."""
    try:
        return extract_rows(seq, offset, json.loads(line))
    except (ValueError, AttributeError, TypeError, RecursionError):  # nested too deep
        return (seq, offset, None, None, None, None, None, "invalid", None), []


def json_block(
    block: bytes, base: int, seq: int, strings: Strings, records: list[Any], touches: list[Any]
) -> int:
    """Adds the rows of each line of ``block`` (complete lines, at byte ``base`` of the
    ledger) read by json.loads, numbered after ``seq``; returns the last number."""
    pos, size = 0, len(block)
    while pos < size:
        end = block.index(b"\n", pos)
        seq += 1
        add_json_line(seq, base + pos, block[pos:end], strings, records, touches)
        pos = end + 1
    return seq


def add_json_line(
    seq: int, offset: int, line: bytes, strings: Strings, records: list[Any], touches: list[Any]
) -> None:
    """Adds the rows of one line read by json.loads, its texts as their ids."""
    row, rows = json_rows(seq, offset, line)
    records.extend(row)
    ids, miss = strings.ids, strings.miss
    for at, path, name, nkind, key in rows:
        pid = None if path is None else ids.get(path) or miss(path)
        nid = None if name is None else ids.get(name) or miss(name)
        touches.extend((at, pid, nid, nkind, key))
