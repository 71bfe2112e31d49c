"""Each gitignore line's translation, kept per workspace so a hook need not import pathspec.

Importing pathspec probes its optional regex backends and costs about 12 ms, a tenth of
an agent hook's whole run, yet :class:`intent_ls.scope.index.GitMatcher` only needs each
line's ``include`` flag and regex source. ``GitIgnoreSpec`` translates every line on its
own (a test proves it on a corpus), so a line's translation holds next to any other
lines: it is memoised per process and, for short-lived processes, kept in
``.orchestration/.local/glob-cache.json``.

That file is believed only when it is provably this machine's own and intact, because a
wrong regex would silently widen or narrow a scope:

- its header holds the sha256 of its entries (a torn or hand-edited file is ignored);
- its header names the pathspec installation that translated them (an upgrade may
  translate differently);
- its header holds the identity (device, inode, mtime) of ``.local/.gitignore``, which a
  clone cannot reproduce, so a cache committed into a repository is never believed.

Anything else (unreadable, corrupt, another shape) falls back to pathspec, and the next
save replaces the file. Saving is best-effort: a read-only sidecar only costs speed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from intent_ls.common.local_state import local_dir
from intent_ls.common.safe_io import read_sidecar, write_atomic

CACHE_FILE = "glob-cache.json"
_FORMAT = 1
_MAX_BYTES = 8 * 1024 * 1024
#: Above this many entries a save keeps only the lines this process used.
MAX_ENTRIES = 20_000
#: A long-lived process (the language server, re-validating as a spec is typed) starts
#: its memo afresh past this many lines rather than growing without bound.
_MEMO_LIMIT = 5 * MAX_ENTRIES

#: (include, regex source): ``(None, None)`` for a comment, which matches nothing.
Translation = tuple[bool | None, str | None]

_known: dict[str, Translation] = {}
_used: set[str] = set()
_unsaved = False


def translate(lines: Sequence[str]) -> list[Translation]:
    """The translation of every non-empty line, in order, as ``GitIgnoreSpec.from_lines``
    would compile them; only lines never seen before go through pathspec."""
    global _unsaved
    wanted = [line for line in lines if line]
    if len(_known) > _MEMO_LIMIT:
        _known.clear()
        _used.clear()
    found: list[Translation] = []
    for line in wanted:
        known = _known.get(line)
        if known is None:
            import pathspec

            [pattern] = pathspec.GitIgnoreSpec.from_lines([line]).patterns
            regex = pattern.regex
            known = _known[line] = (pattern.include, None if regex is None else regex.pattern)
            _unsaved = True
        found.append(known)
    _used.update(wanted)
    return found


def _pathspec_identity() -> list[object] | None:
    """Where pathspec is installed and when it was written, found without importing it."""
    from importlib.machinery import PathFinder

    found = PathFinder.find_spec("pathspec")
    if found is None or not found.origin:
        return None
    try:
        st = os.stat(found.origin)
    except OSError:
        return None
    return [found.origin, st.st_mtime_ns, st.st_size]


def _stamp(root: Path) -> list[int] | None:
    try:
        st = os.stat(local_dir(root) / ".gitignore", follow_symlinks=False)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_mtime_ns]


def _header(root: Path, body: bytes) -> dict[str, object] | None:
    identity = _pathspec_identity()
    stamp = _stamp(root)
    if identity is None or stamp is None:
        return None
    return {
        "format": _FORMAT,
        "pathspec": identity,
        "stamp": stamp,
        "sha256": hashlib.sha256(body).hexdigest(),
    }


def _valid(entry: object) -> bool:
    if not isinstance(entry, list) or len(entry) != 2:
        return False
    include, source = entry
    if include is None:
        return source is None
    return isinstance(include, bool) and isinstance(source, str)


def load(root: Path) -> int:
    """Adds the workspace's saved translations to this process's; returns how many were
    believed (0 when the file is missing, unreadable, or not provably intact)."""
    try:
        raw = read_sidecar(local_dir(root) / CACHE_FILE, _MAX_BYTES)
    except OSError:
        return 0
    head, _, body = raw.partition(b"\n")
    try:
        header = json.loads(head)
        if header != _header(root, body):
            return 0
        entries = json.loads(body)
    except ValueError:
        return 0
    if not isinstance(entries, dict) or not all(_valid(e) for e in entries.values()):
        return 0
    for line, (include, source) in entries.items():
        _known.setdefault(line, (include, source))
    return len(entries)


def save(root: Path) -> None:
    """Writes this process's translations if pathspec made any new ones."""
    global _unsaved
    if not _unsaved:
        return
    keep = _known
    if len(keep) > MAX_ENTRIES:
        keep = {line: t for line, t in _known.items() if line in _used}
    body = json.dumps(keep, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    try:
        directory = local_dir(root, create=True)
        header = _header(root, body)
        if header is None:
            return
        write_atomic(directory / CACHE_FILE, json.dumps(header).encode() + b"\n" + body)
    except OSError:
        return
    _unsaved = False
