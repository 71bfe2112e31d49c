"""Where the state taken before a tool call waits for the call's after-tool event.

It lives outside the workspace, under ``$XDG_STATE_HOME/intent-ls/effects/<workspace
digest>/`` (default ``~/.local/state``): a command that deletes ``.orchestration/`` (a
test runner's ``--basetemp=.orchestration``) must not take the copies needed to put it
back with it. File contents are kept once each, named by their SHA-256 (``blobs/``),
and read back only when their bytes still hash to their name.

A stat cache (``stat-cache.json``: path → size, mtime, ctime, inode, mode, digest) spares
re-reading a file whose identity has not changed since the last call: steady state costs
one ``lstat`` per file kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from intent_ls.common.safe_io import write_new
from intent_ls.common.store_paths import state_home, store_dir

__all__ = ["Store", "signature", "state_home", "store_dir"]

#: Above this size a file is not copied: a change to it can be detected, not undone.
MAX_COPY = 8 * 1024 * 1024
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_STAT_CACHE = "stat-cache.json"
#: Blobs kept before unreferenced ones are collected.
_GC_AFTER = 512


def signature(st: os.stat_result) -> list[int]:
    """A file's identity: any write changes its ctime, which no user can set back."""
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode]


def snapshot_name(agent: str, session: str, tool_id: str | None) -> str:
    name = f"{agent}-{session}-{tool_id or 'call'}"
    safe = _UNSAFE.sub("_", name)[:120]
    if safe != name:
        safe += "-" + hashlib.sha256(name.encode()).hexdigest()[:12]
    return safe + ".json"


def _private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.is_symlink() or not path.is_dir():
        raise OSError(f"refusing to use {path}: not a real directory")
    return path


class Store:
    """One workspace's copies, stat cache and pending snapshots."""

    def __init__(self, root: Path) -> None:
        self.dir = store_dir(root)
        self._cache: dict[str, list[Any]] | None = None
        self._cache_changed = False

    # -- blobs ---------------------------------------------------------------------------

    def put(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        path = _private_dir(self.dir / "blobs") / digest
        if not path.exists():
            _write(path, data)
        return digest

    def keep_held(self, data: bytes) -> Path:
        """A file's former bytes for a human to put back (``held/``, never collected)."""
        path = _private_dir(self.dir / "held") / hashlib.sha256(data).hexdigest()
        if not path.exists():
            _write(path, data)
        return path

    def get(self, digest: str) -> bytes | None:
        """The blob's bytes, or None when it is missing or no longer hashes to its name."""
        try:
            data = (self.dir / "blobs" / digest).read_bytes()
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == digest else None

    # -- the stat cache ------------------------------------------------------------------

    def cached_digest(self, key: str, sig: list[int]) -> str | None:
        if self._cache is None:
            self._cache = _load_json(self.dir / _STAT_CACHE)
        entry = self._cache.get(key)
        if isinstance(entry, list) and len(entry) == 2 and entry[0] == sig:
            return str(entry[1])
        return None

    def remember(self, key: str, sig: list[int], digest: str) -> None:
        if self._cache is None:
            self._cache = _load_json(self.dir / _STAT_CACHE)
        if self._cache.get(key) != [sig, digest]:
            self._cache[key] = [sig, digest]
            self._cache_changed = True

    def read_state(self, name: str) -> dict[str, Any]:
        """A small JSON file of derived state kept beside the copies ({} when unreadable)."""
        return _load_json(self.dir / name)

    def write_state(self, name: str, data: dict[str, Any]) -> None:
        _write(_private_dir(self.dir) / name, json.dumps(data).encode())

    def save_cache(self) -> None:
        if self._cache is not None and self._cache_changed:
            _write(_private_dir(self.dir) / _STAT_CACHE, json.dumps(self._cache).encode())
            self._cache_changed = False

    def copy_of(self, key: str, path: str, st: os.stat_result) -> str | None:
        """The digest of the regular file at ``path`` (kept as a blob), or None when it
        is too large or cannot be read as it was stat'ed."""
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_COPY:
            return None
        sig = signature(st)
        known = self.cached_digest(key, sig)
        if known is not None and (self.dir / "blobs" / known).exists():
            return known
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            data = _read_all(fd, MAX_COPY)
        finally:
            os.close(fd)
        if data is None:
            return None
        digest = self.put(data)
        self.remember(key, sig, digest)
        return digest

    # -- snapshots -----------------------------------------------------------------------

    def save_snapshot(self, name: str, snapshot: dict[str, Any]) -> None:
        _write(_private_dir(self.dir / "calls") / name, json.dumps(snapshot).encode())

    def take_snapshot(self, name: str) -> dict[str, Any] | None:
        """The snapshot saved under ``name``, removed (each is used by one after-tool)."""
        path = self.dir / "calls" / name
        data = _load_json(path)
        with contextlib.suppress(OSError):
            path.unlink()
        return data or None

    def collect(self, keep: set[str]) -> None:
        """Drops blobs neither the stat cache nor a pending snapshot refers to."""
        blobs = self.dir / "blobs"
        try:
            names = os.listdir(blobs)
        except OSError:
            return
        if len(names) < _GC_AFTER:
            return
        live = set(keep)
        live.update(str(e[1]) for e in (self._cache or {}).values() if isinstance(e, list))
        for call in (self.dir / "calls").glob("*.json"):
            live.update(re.findall(r"[0-9a-f]{64}", call.read_text(errors="replace")))
        for name in names:
            if name not in live:
                with contextlib.suppress(OSError):
                    os.unlink(blobs / name)


def _read_all(fd: int, cap: int) -> bytes | None:
    chunks = []
    total = 0
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
        total += len(chunk)
        if total > cap:
            return None
    return b"".join(chunks)


def _load_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
    write_new(tmp, data)
    os.replace(tmp, path)
