"""What ``intent-ls export --otlp`` has delivered, per destination, in
``.orchestration/.local/otlp/<key>/`` (never committed).

``sent`` holds the digest of every record a collector acknowledged, 32 bytes each,
appended after each acknowledged request: a re-run sends exactly the records not in it,
wherever a git merge put them in the ledger. ``checkpoint.json`` is the Parquet export's
checkpoint (:mod:`~intent_ls.export.source`), written once everything up to it was
delivered (with how many digests ``sent`` held then), so a re-run verifies only the
appended lines.

The state decides what is verified and what is sent, so a repository must not be able to
bring its own: state that git tracks is refused.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs

from intent_ls.common.local_state import local_dir
from intent_ls.common.safe_io import (
    ensure_sidecar_dir,
    open_sidecar,
    read_sidecar,
    write_all,
    write_atomic,
)
from intent_ls.export import ExportError
from intent_ls.export.source import Checkpoint, parse_checkpoint

_DIGEST_PREFIX = "sha256:"
_DIGEST_BYTES = 32
_MAX_CHECKPOINT = 1024 * 1024
_SENT_KEY = "sent_entries"
_READ = 8 * 1024 * 1024


def digest_key(digest: str) -> bytes:
    """A record digest (``sha256:`` + 64 hex digits, as every verified line has) as the
    32 bytes the state stores."""
    return bytes.fromhex(digest.removeprefix(_DIGEST_PREFIX))


@attrs.define
class SendState:
    directory: Path
    fd: int
    sent: set[bytes]
    checkpoint: Checkpoint | None

    def record_sent(self, digests: Iterable[bytes]) -> None:
        """Durably adds acknowledged digests: written and fsynced before the next request,
        so a crash re-sends at most the request in flight."""
        data = b"".join(digests)
        write_all(self.fd, data)
        os.fsync(self.fd)
        self.sent.update(data[i : i + _DIGEST_BYTES] for i in range(0, len(data), _DIGEST_BYTES))

    def save_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Everything up to the checkpoint was delivered: true while ``sent`` still holds
        the digests it held now, so their number is kept with it."""
        data = {**checkpoint.to_json(), _SENT_KEY: len(self.sent)}
        write_atomic(self.directory / "checkpoint.json", json.dumps(data).encode(), fsync=True)


def state_key(endpoint: str, repo: str) -> str:
    """One state per destination and repository name: sending to a second collector, or
    under another name, starts from nothing."""
    return hashlib.sha256(f"{endpoint}\n{repo}".encode()).hexdigest()[:16]


@contextmanager
def locked_state(root: Path, endpoint: str, repo: str) -> Iterator[SendState]:
    """The destination's state, held under an exclusive lock for the run: two senders
    would both find the same records unsent."""
    base = local_dir(root, create=True) / "otlp"
    _refuse_tracked(root, base)
    directory = ensure_sidecar_dir(base / state_key(endpoint, repo))
    lock = open_sidecar(directory / "lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        fd = open_sidecar(directory / "sent", os.O_RDWR | os.O_CREAT | os.O_APPEND)
        try:
            sent = _read_sent(fd)
            yield SendState(directory, fd, sent, _read_checkpoint(directory, len(sent)))
        finally:
            os.close(fd)
    finally:
        os.close(lock)


def _read_sent(fd: int) -> set[bytes]:
    """The acknowledged digests. A torn last entry (a crash mid-write) is cut off, so
    the next append starts on a boundary."""
    size = os.fstat(fd).st_size
    whole = size - size % _DIGEST_BYTES
    if whole != size:
        os.ftruncate(fd, whole)
    sent: set[bytes] = set()
    at = 0
    while at < whole:
        data = os.pread(fd, min(_READ, whole - at), at)
        if not data:
            break
        sent.update(data[i : i + _DIGEST_BYTES] for i in range(0, len(data), _DIGEST_BYTES))
        at += len(data)
    return sent


def _read_checkpoint(directory: Path, sent: int) -> Checkpoint | None:
    """The checkpoint, unless ``sent`` lost entries since it was written (a hand-edited or
    removed file): then the whole ledger is verified and checked against ``sent`` again."""
    try:
        raw = read_sidecar(directory / "checkpoint.json", _MAX_CHECKPOINT)
        covered = json.loads(raw).get(_SENT_KEY)
    except (FileNotFoundError, ValueError, AttributeError, RecursionError):
        return None
    checkpoint = parse_checkpoint(raw)
    if checkpoint is None or checkpoint.parts or type(covered) is not int or covered > sent:
        return None
    return checkpoint


def _refuse_tracked(root: Path, base: Path) -> None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--", str(base)],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return  # no git: nothing can be committed either
    if done.returncode == 0 and done.stdout:
        raise ExportError(
            f"{base} is tracked by git: delivery state must come from this machine, not "
            "from the repository; remove it from the index (git rm -r --cached) and run again"
        )
