"""Merging two versions of the ledger without losing or altering a record.

The ledger is a set of immutable lines, each naming earlier lines by hash, so merging
two versions is a union: every line of ours in our order, then every line theirs added,
in their order (a line references only lines before it in its own version, so it still
does in the union). The union may leave several *tips* — lines no record names,
e.g. the last record of each side — and records whose ``prev`` was left behind by a
cherry-pick or rebase. One *merge record* appended at the end joins them: its ``prev`` is
the last line, its ``parents`` the other tips, its ``absent`` the left-behind lines.
After it, every line but the last is again vouched for by a later one, which is what
lets ``trace verify`` catch a removed or inserted line (see ``docs/ledger.md``).

The merge record is a pure function of the lines it joins (its id and timestamp are
derived from them), so two clones making the same merge write the same bytes and a later
merge of their results stays clean. Used by ``intent-ls merge-driver`` (git) and
``intent-ls trace repair``; no pygls, no parsing of lines that do not need it.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Sequence
from typing import Any

from intent_ls import __version__
from intent_ls.common.hashing import bytes_hash
from intent_ls.ledger.conformance import date_time_conforms
from intent_ls.ledger.links import MERGE_KIND, line_links
from intent_ls.ledger.records import METADATA_KEY, SPEC_VERSION, TOOL_NAME
from intent_ls.ledger.store import GENESIS, seal

_TIMESTAMP = re.compile(rb'"timestamp":"([^"]*Z)"')
_PREV_VALUE = re.compile(rb'"prev":"([^"]*)"')
#: What git writes around a conflict: ``<<<<<<< ours``, ``||||||| base`` (diff3),
#: ``=======``, ``>>>>>>> theirs`` — at the start of a line, never inside JSON.
CONFLICT_MARKERS = (b"<<<<<<<", b"|||||||", b"=======", b">>>>>>>")


def split_lines(data: bytes) -> list[bytes]:
    """Lines without their newline; a torn last line (no newline) is kept as a line."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def join_lines(lines: Sequence[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n" if lines else b""


def union(base: Sequence[bytes], ours: Sequence[bytes], theirs: Sequence[bytes]) -> list[bytes]:
    """Ours in order, then the lines theirs added since ``base``, each line once.

    A line of the base that ours lacks stays out, as in any three-way merge: that is how
    a cherry-pick brings only the picked commit's records (their ``prev`` then names a
    line left behind, which :func:`join_tips` acknowledges). Returns one side unchanged
    when the other adds nothing to it (no merge point needed)."""
    ours_set = set(ours)
    base_set = set(base)
    added = [line for line in theirs if line not in ours_set and line not in base_set]
    if not added:
        return list(ours)
    if ours_set <= set(theirs):
        return list(theirs)
    merged = list(ours)
    seen = set(ours_set)
    for line in added:
        if line not in seen:
            seen.add(line)
            merged.append(line)
    return merged


def join_tips(lines: list[bytes], left_behind: frozenset[str] = frozenset()) -> list[bytes]:
    """``lines`` plus, if needed, the merge record that vouches for every tip. A reference
    to a line not in ``lines`` is acknowledged as ``absent`` only if it is in
    ``left_behind`` (the hashes of the merge base's lines): a record deleted on one
    side is then still reported by ``trace verify``, not laundered by the merge."""
    if not lines:
        return lines
    hashes = [bytes_hash(line) for line in lines]
    present = set(hashes)
    referenced, acknowledged = _references(lines)
    tips = [h for h in hashes[:-1] if h not in referenced]
    absent = sorted(
        h for h in referenced - present - acknowledged if h != GENESIS and h in left_behind
    )
    if not tips and not absent:
        return lines
    joined = [*tips, hashes[-1]]
    record = merge_record(joined, absent, _latest_timestamp(lines, joined, hashes))
    return [*lines, seal(record, hashes[-1])]


def _references(lines: list[bytes]) -> tuple[set[str], set[str]]:
    """(every hash a line names, every hash a merge record declares absent). ``prev``
    values are read in one pass over the whole text (canonical JSON spells the key
    ``"prev":"`` only as a key); only lines with merge fields are parsed. A foreign line
    with a nested ``prev`` key can only add a name, which at worst leaves a tip to
    ``trace verify`` — never a record out."""
    data = b"\n".join(lines)
    referenced = {m.decode("utf-8", "replace") for m in _PREV_VALUE.findall(data)}
    acknowledged: set[str] = set()
    for key in (b'"parents":', b'"absent":'):
        at = data.find(key)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            end = len(data) if end < 0 else end
            links = line_links(data[start:end])
            referenced.update(links.parents)
            acknowledged.update(links.absent)
            at = data.find(key, end)
    return referenced, acknowledged


def merge_record(joined: Sequence[str], absent: Sequence[str], timestamp: str) -> dict[str, Any]:
    """The merge record joining ``joined`` (the last one becomes ``prev`` when sealed).
    Its id is derived from what it joins, so the same merge gives the same bytes."""
    seed = hashlib.sha256("\n".join([*joined, "|", *absent]).encode()).digest()
    meta: dict[str, Any] = {"kind": MERGE_KIND, "parents": list(joined[:-1])}
    if absent:
        meta["absent"] = list(absent)
    return {
        "version": SPEC_VERSION,
        "id": str(uuid.UUID(bytes=seed[:16], version=4)),
        "timestamp": timestamp,
        "tool": {"name": TOOL_NAME, "version": __version__},
        "files": [],
        "metadata": {METADATA_KEY: meta},
    }


def _latest_timestamp(lines: list[bytes], joined: Sequence[str], hashes: list[str]) -> str:
    by_hash = dict(zip(hashes, lines, strict=True))
    stamps = []
    for h in joined:
        match = _TIMESTAMP.search(by_hash[h])
        stamp = match.group(1).decode("utf-8", "replace") if match is not None else ""
        if date_time_conforms(stamp):
            stamps.append(stamp)
    return max(stamps, default="1970-01-01T00:00:00.000000Z")


def merge_versions(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """The merge driver's result for three versions of the ledger. When one side already
    holds the other (it merged it before), that side is the result, bytes untouched."""
    base_lines, ours_lines, theirs_lines = split_lines(base), split_lines(ours), split_lines(theirs)
    merged = union(base_lines, ours_lines, theirs_lines)
    for side, lines in ((ours, ours_lines), (theirs, theirs_lines)):
        if merged == lines and side.endswith(b"\n"):
            return side
    left_behind = frozenset(bytes_hash(line) for line in base_lines)
    return join_lines(join_tips(merged, left_behind))


def resolve_conflicts(lines: Sequence[bytes]) -> list[bytes]:
    """The lines of every side of every conflict git left in the file, markers removed,
    each line once: the base section (diff3 style) first, as it is older, then ours,
    then theirs."""
    out: list[bytes] = []
    sections: dict[bytes, list[bytes]] = {}
    current: bytes | None = None
    for line in lines:
        if line.startswith(b"<<<<<<<"):
            current, sections = b"<", {b"<": [], b"|": [], b"=": []}
        elif current is not None and line.startswith(b"|||||||"):
            current = b"|"
        elif current is not None and line.startswith(b"======="):
            current = b"="
        elif current is not None and line.startswith(b">>>>>>>"):
            out += sections[b"|"] + sections[b"<"] + sections[b"="]
            current = None
        elif current is not None:
            sections[current].append(line)
        else:
            out.append(line)
    if current is not None:  # an unterminated conflict: keep what it holds
        out += sections[b"|"] + sections[b"<"] + sections[b"="]
    unique: list[bytes] = []
    seen: set[bytes] = set()
    for line in out:
        if line not in seen and not line.startswith(CONFLICT_MARKERS):
            seen.add(line)
            unique.append(line)
    return unique
