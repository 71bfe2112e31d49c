"""Saves not yet on the ledger, kept on disk so a crash cannot lose their records.

Building a save's record (diff, syntax tree, policy) and appending it takes a worker job
of a few milliseconds to much longer when the ledger is unwritable. Until the record is
appended, the only trace of the save would be in the server's memory, and a ``kill -9``
(or a crash) in that window would lose it for good: on restart the disk simply becomes
the new baseline. So the inputs of the record are written here first, synchronously,
when the save arrives; the entry is removed once the record is appended; and a server
starting on the workspace replays the entries of processes that are gone.

An entry is one small JSON file ``.orchestration/.local/saves/<pid>-<record id>.json``
(never committed: ``.local`` ignores itself). The pid says whose it is: a live process's
entries are its in-flight saves, not orphans. Replaying claims an entry by renaming it,
(adopting it under the replaying process's pid), so two servers starting together
never both replay one; the record id, fixed when the
save arrived, is looked up in the ledger first, so a record appended just before the
crash is not appended twice.

Entries are written without ``fsync``: they protect against the process dying, which
leaves the page cache intact; power-loss durability is the ledger's own ``fsync``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from intent_ls.common.local_state import local_dir
from intent_ls.common.safe_io import write_new

logger = logging.getLogger(__name__)

JOURNAL_DIR = "saves"
_SUFFIX = ".json"
_BROKEN = ".broken"
#: Bytes read at a time when looking for a record id in the ledger.
_CHUNK = 1 << 20


def journal_dir(root: Path) -> Path:
    return local_dir(root) / JOURNAL_DIR


def write_entry(root: Path, record_id: str, entry: dict[str, Any]) -> Path:
    """Writes ``entry`` for the save whose record will have ``record_id``; returns its
    path (pass it to :func:`remove_entry` once the record is on the ledger)."""
    folder = local_dir(root, create=True) / JOURNAL_DIR
    if folder.is_symlink():
        raise OSError(f"{folder} is a symlink; refusing to write save journal entries there")
    folder.mkdir(exist_ok=True)
    path = folder / f"{os.getpid()}-{record_id}{_SUFFIX}"
    data = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    write_new(path, data)
    return path


def remove_entry(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def orphans(root: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Claims the entries of processes that are gone, oldest first: yields each claimed
    path with its content (an unreadable one is set aside as ``.broken``, with a log
    line). The caller replays the entry, then removes the claimed path."""
    folder = journal_dir(root)
    try:
        names = sorted(
            (p for p in folder.iterdir() if p.name.endswith(_SUFFIX)),
            key=lambda p: p.stat().st_mtime_ns,
        )
    except OSError:
        return
    for path in names:
        pid_text = path.name.split("-", 1)[0]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        # Adopted under this process's pid: if it dies too, the next server replays it.
        claimed = path.with_name(f"{os.getpid()}-{path.name.split('-', 1)[1]}")
        try:
            os.rename(path, claimed)
        except OSError:
            continue  # another server claimed it first
        try:
            entry = json.loads(claimed.read_bytes())
        except (OSError, ValueError):
            entry = None
        if not isinstance(entry, dict):
            logger.warning("unreadable save journal entry %s set aside", path.name)
            os.replace(claimed, path.with_name(path.name + _BROKEN))
            continue
        yield claimed, entry


def ledger_has(ledger: Path, record_id: str) -> bool:
    """True when a record with ``record_id`` is on the ledger (read in bounded chunks)."""
    needle = record_id.encode("ascii")
    try:
        with ledger.open("rb") as fh:
            tail = b""
            while chunk := fh.read(_CHUNK):
                if needle in tail + chunk:
                    return True
                tail = chunk[-len(needle) :]
    except (FileNotFoundError, IsADirectoryError):
        return False
    return False
