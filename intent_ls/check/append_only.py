"""``check``'s external anchor for the ledger: every line committed at the base is still
there (see :func:`rewritten_since_base`)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from intent_ls.check.findings import LEDGER_INVALID, Finding
from intent_ls.check.git import Base, Repo
from intent_ls.common.safe_io import open_sidecar_reader
from intent_ls.ledger.store import LEDGER_RELPATH

_CHUNK = 1 << 20


def rewritten_since_base(repo: Repo, base: Base, ledger: Path) -> Finding | None:
    """The ledger is append-only, so every line of the committed ledger at base must still
    be in the current one. This is the external anchor ``trace verify`` lacks: it also
    catches records removed from the end, which leave a perfectly valid chain. A merge
    keeps every line but may put the other side's lines first (a rebase does), so the
    lines are compared as a set once the cheap prefix test fails.

    Neither ledger is held in memory (at 1M records each is over 1 GB): the prefix test
    hashes the current file's first bytes as git hashes a blob and compares the result
    with the committed object's id, so the committed ledger is not even read; the set
    comparison keeps a 16-byte digest per current line and streams the committed one."""
    committed = repo.object_at(base, LEDGER_RELPATH.as_posix())
    if committed is None or committed[2] == 0:
        return None
    sha, kind, size = committed
    if _holds_object(ledger, sha, kind, size):
        return None
    kept = _line_digests(ledger)
    with repo.open_object(sha, kind) as old:
        for line, raw in enumerate(old, start=1):
            if raw.endswith(b"\n") and _line_digest(raw[:-1]) not in kept:
                return Finding(
                    LEDGER_INVALID,
                    LEDGER_RELPATH.as_posix(),
                    line,
                    line,
                    f"the ledger was rewritten since {base.label}: line {line} of its "
                    "committed content is gone; it is append-only (merges keep every line)",
                )
    return None


def _holds_object(ledger: Path, sha: str, kind: str, size: int) -> bool:
    """Whether the first ``size`` bytes of ``ledger`` are the content of object ``sha``:
    its git object id (SHA-1, or SHA-256 in a repository of that format) over them."""
    algorithm = {40: "sha1", 64: "sha256"}.get(len(sha))
    if algorithm is None:
        return False
    h = hashlib.new(algorithm, b"%s %d\0" % (kind.encode(), size))
    left = size
    try:
        with open_sidecar_reader(ledger) as f:
            while left:
                chunk = f.read(min(left, _CHUNK))
                if not chunk:
                    return False
                h.update(chunk)
                left -= len(chunk)
    except FileNotFoundError:
        return False
    return h.hexdigest() == sha


def _line_digests(ledger: Path) -> set[bytes]:
    """Digests of the pieces ``ledger.split(b"\n")`` would give, the last one included
    (empty when the file ends with a newline or is missing)."""
    kept: set[bytes] = set()
    last = b""
    try:
        with open_sidecar_reader(ledger) as f:
            for raw in f:
                last = raw
                kept.add(_line_digest(raw[:-1] if raw.endswith(b"\n") else raw))
    except FileNotFoundError:
        pass
    if not last or last.endswith(b"\n"):
        kept.add(_line_digest(b""))
    return kept


def _line_digest(line: bytes) -> bytes:
    return hashlib.blake2b(line, digest_size=16).digest()
