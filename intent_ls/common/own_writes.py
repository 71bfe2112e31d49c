"""intent-ls's own writes to files no agent tool call may change, noted where no
sandboxed command can write (the effects' state, outside the workspace).

Calls overlap: two agent sessions on one workspace, one session's parallel calls, an
editor saving while an agent's command runs. Each writer of intent-ls's own state (a
hook recording a change or keeping a session's state, the language server, ``intent-ls
record``) writes the sidecar while another call is under way, and that call's after-tool
event, which puts back every protected path its call changed, would take the write for
its call's and undo it: a record removed, a session's state rolled back. So each such
write is noted first, by the digest of what is written (a whole file, or a ledger line),
and the after-tool event keeps what a note vouches for. A command in the sandbox can
neither write the sidecar nor the notes. Without the sandbox it could write both, as it
could the state the effects keep before each call: verification alone there.
"""

from __future__ import annotations

import contextlib
import hashlib
import os

from intent_ls.common.store_paths import state_home

#: Digests kept per file: enough for the writes of the calls that overlap one call.
KEEP = 256
_LINE = 65  # a hex digest and its newline


def _journal(path: str | os.PathLike[str]) -> str:
    key = hashlib.sha256(os.fsencode(os.path.realpath(path))).hexdigest()[:32]
    return os.path.join(state_home(), "own-writes", key)


def note(path: str | os.PathLike[str], data: bytes) -> None:
    """Before ``data`` is written to ``path`` (a whole file, or one line appended to it,
    without its newline). A note that cannot be written is skipped: the write may then
    be undone by an overlapping call, as without notes."""
    journal = _journal(path)
    line = hashlib.sha256(data).hexdigest().encode() + b"\n"
    with contextlib.suppress(OSError):
        try:
            fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except FileNotFoundError:
            os.makedirs(os.path.dirname(journal), mode=0o700, exist_ok=True)
            fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, line)
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > 2 * KEEP * _LINE:
            _trim(journal)


def _trim(journal: str) -> None:
    with open(journal, "rb") as fh:
        kept = fh.read().splitlines()[-KEEP:]
    tmp = f"{journal}.{os.urandom(6).hex()}"
    with open(tmp, "wb") as fh:
        fh.write(b"".join(line + b"\n" for line in kept))
    os.replace(tmp, journal)


def noted(path: str | os.PathLike[str]) -> frozenset[str]:
    """The digests noted for ``path``."""
    try:
        with open(_journal(path), "rb") as fh:
            return frozenset(line.decode() for line in fh.read().split() if len(line) == 64)
    except OSError:
        return frozenset()


def vouched(path: str | os.PathLike[str], data: bytes) -> bool:
    return hashlib.sha256(data).hexdigest() in noted(path)
