"""The fast path: a ledger line read by msgspec into just the fields the index needs.

``json.loads`` builds every value of a 1.4 KB record to use a dozen; a msgspec decoder
typed with :class:`~intent_ls.ledger.index.fields.Record` skips what it does not name
(still checking that it is JSON) and builds the rest without a dict: several times faster
than json.loads, and ~20% less CPU than the anchored regular expression that was the fast
path before. The answer must be exactly what ``json.loads`` plus
:func:`~intent_ls.ledger.index.rows.extract_rows` makes of the line, so the decoder's
types are strict (a field of another type than our writer's fails the decode) and any
line msgspec might read differently takes json.loads instead: one that is not strict
UTF-8 (msgspec does not check skipped strings; json.loads rejects the line), and one with
a backslash (the two differ on escaped lone surrogates). A raw control character, a
number json.loads takes and msgspec does not (``NaN``), a byte-order mark: msgspec fails,
so json.loads decides. msgspec is imported on first use: an agent hook catching up with
a few records never pays for it.

A cold build reads the ledger a block at a time (:func:`fast_block`): the two checks are
made once for a block (almost always clean) instead of per line, each line is decoded
from a view of the block without copying it, and its rows are appended to flat lists of
column values with paths and names as ids (:mod:`.strings`), without building a tuple
per row. :func:`fast_rows` is the same reading of one line, with the texts left as they
are, for tests to compare with json.loads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from intent_ls.common.hashing import KEY_DIGITS
from intent_ls.ledger.index.rows import FILE_ROW, URN, Rows, add_json_line, json_rows
from intent_ls.ledger.index.strings import Strings

#: Below this many bytes to index, json.loads costs less than importing msgspec and
#: building the decoder (some 10 ms, which the fast path wins back after ~2,000 lines).
FAST_MIN = 4 * 1024 * 1024
_TOP, _WRAP = 1 << 63, 1 << 64
_URN_END = len(URN)
#: :func:`~intent_ls.ledger.index.rows.digest_key`'s test for a line the fast path reads:
#: no newline can be in its strings, so the rest of the digest needs no look.
_DIGEST_HEAD = re.compile(r"sha256:[0-9a-f]{16}").match


@cache
def _decoder() -> tuple[Callable[[Any], Any], type[BaseException]]:
    """The typed decoder and the error it raises, built on first use."""
    import msgspec

    from intent_ls.ledger.index.fields import Record

    return msgspec.json.Decoder(Record).decode, msgspec.MsgspecError


def _plain(data: bytes) -> bool:
    """No backslash and strict UTF-8: what msgspec reads exactly as json.loads does."""
    if b"\\" in data:
        return False
    if not data.isascii():
        try:
            data.decode()
        except UnicodeDecodeError:
            return False
    return True


def _same(text: Any) -> Any:
    return text


class _Nobody:
    """A null contributor, read as extract_rows reads it (as ``{}``): no type, no model."""

    type = model_id = None


_NOBODY = _Nobody()


def fast_rows(seq: int, offset: int, line: bytes) -> Rows | None:
    """What ``extract_rows(seq, offset, json.loads(line))`` returns, without building the
    record; None when msgspec might read the line otherwise than json.loads, or fails."""
    if not _plain(line):
        return None
    decode, error = _decoder()
    record: list[Any] = []
    touches: list[Any] = []
    try:
        _emit(decode(line), seq, offset, _same, _same, record.extend, touches.extend)
    except (error, ValueError, RecursionError):  # ValueError: a hash that is not hex
        return None
    return tuple(record), [tuple(touches[i : i + 5]) for i in range(0, len(touches), 5)]


def fast_block(
    block: bytes, base: int, seq: int, strings: Strings, records: list[Any], touches: list[Any]
) -> int:
    """Adds the rows of each line of ``block`` (complete lines, at byte ``base`` of the
    ledger), numbered after ``seq``, to the flat lists ``records`` and ``touches``; a
    line msgspec might read otherwise, or fails on, is read by json.loads. Returns the
    last number given."""
    decode, error = _decoder()
    plain = _plain(block)
    view = memoryview(block)
    find = block.find
    get, miss = strings.ids.get, strings.miss
    add_record, add_touches = records.extend, touches.extend
    pos, size = 0, len(block)
    while pos < size:
        end = find(b"\n", pos)
        seq += 1
        if plain or _plain(block[pos:end]):
            done_records, done_touches = len(records), len(touches)
            try:
                _emit(decode(view[pos:end]), seq, base + pos, get, miss, add_record, add_touches)
                pos = end + 1
                continue
            except (error, ValueError, RecursionError):
                del records[done_records:], touches[done_touches:]
        add_json_line(seq, base + pos, block[pos:end], strings, records, touches)
        pos = end + 1
    return seq


def _emit(
    record: Any,
    seq: int,
    offset: int,
    get: Callable[[str | None], Any],
    miss: Callable[[str | None], Any],
    add_record: Callable[[tuple[Any, ...]], None],
    add_touches: Callable[[tuple[Any, ...]], None],
) -> None:
    """:func:`~intent_ls.ledger.index.rows.extract_rows` over the decoded fields, with the
    same truthiness tests, writing the same rows in the same order; a text ``t`` is written
    as ``get(t)``, or ``miss(t)`` when that is None (``miss(None)`` is None)."""
    meta = record.metadata.intent_ls
    files = record.files or ()
    ctype, model = _file_touches(files, seq, get, miss, add_touches)
    intent = meta.intent_id
    if intent is None:
        intent = _related_intent(files)
    for node in meta.ast_nodes or ():
        path, name = node.path, node.name
        pid = get(path)
        if pid is None:
            pid = miss(path)
        nid = get(name)
        if nid is None:
            nid = miss(name)
        digest = node.content_hash
        if digest:
            key = int(digest[KEY_DIGITS], 16)
            add_touches((seq, pid, nid, node.kind, key - _WRAP if key >= _TOP else key))
        else:
            add_touches((seq, pid, nid, node.kind, None))
    digest = meta.digest
    if digest is not None and _DIGEST_HEAD(digest):
        key = int(digest[KEY_DIGITS], 16)
        lkey = key - _WRAP if key >= _TOP else key
    else:
        lkey = None
    add_record(
        (seq, offset, record.timestamp, intent, ctype, model, meta.mutation_class, meta.kind, lkey)
    )


def _file_touches(
    files: Any,
    seq: int,
    get: Callable[[str | None], Any],
    miss: Callable[[str | None], Any],
    add_touches: Callable[[tuple[Any, ...]], None],
) -> tuple[str | None, str | None]:
    """The touches of the file entries: a row for each range, or a file row for a file
    without one; returns the contributor type and model the record is credited to (the
    first named, as ``extract_rows`` reads them)."""
    ctype = model = None
    count = 0
    for file in files:
        path = file.path
        pid = get(path)
        if pid is None:
            pid = miss(path)
        ranged = count
        for conv in file.conversations or ():
            contributor = conv.contributor or _NOBODY
            ctype = ctype or contributor.type
            model = model or contributor.model_id
            for rng in conv.ranges or ():
                count += 1
                digest = rng.content_hash
                if digest:  # hash_key, spelled out: one call less per touch
                    key = int(digest[KEY_DIGITS], 16)
                    add_touches((seq, pid, None, None, key - _WRAP if key >= _TOP else key))
                else:
                    add_touches((seq, pid, None, None, None))
        if count == ranged and path is not None:
            add_touches((seq, pid, None, FILE_ROW, None))
    return ctype, model


def _related_intent(files: Any) -> str | None:
    """The intent of a record whose metadata names none: the first conversation with a
    specification link to one names it (its last such link)."""
    for file in files:
        for conv in file.conversations or ():
            intent = None
            for rel in conv.related or ():
                url = rel.url
                if rel.type == "specification" and url.startswith(URN):
                    intent = url[_URN_END:]
            if intent is not None:
                return intent
    return None


def line_rows(seq: int, offset: int, line: bytes) -> Rows:
    """The rows of one ledger line: the fast path, else json.loads; "invalid" if it is not
    a JSON object (a damaged line still takes a ``seq`` so later records keep theirs)."""
    rows = fast_rows(seq, offset, line)
    return json_rows(seq, offset, line) if rows is None else rows
