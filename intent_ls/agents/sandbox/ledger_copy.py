"""The ledger as git sees it in the sandbox: a private copy that git may rewrite, which
the after-tool event then judges (:mod:`intent_ls.agents.effects.ledger_copy`).

``git stash``, ``stash pop`` and ``reset --hard`` rewrite every tracked file they
touch, the ledger among them: it holds the records written since the last commit, so
it is modified in nearly every session. Bound read-only, it made ``git stash`` fail
half-done (the code stashed and reset, the ledger not, ``fatal: Could not reset index
file``) and ``git stash pop`` fail on the ledger. So ``.orchestration/`` is an overlay
in the sandbox: what a command writes there goes to a folder of its own (the overlay's
upper folder) and never to the workspace; every other existing entry of the sidecar
(the spec, ``.local/``) is bound read-only over it again, so only the ledger, its map
and new names can be written at all. Each command gets its own folder, locked
(``flock``) from its making by the launcher, then by everything the command starts for
as long as any of it lives.

Overlay mounts in a user namespace need Linux 5.11 and an upper folder on a file system
that takes one (not an overlay itself, as ``$HOME`` is in many containers): tried once
per machine, kernel and bubblewrap; where it fails, the sidecar stays read-only whole.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from intent_ls.agents.effects.protected_set import LEDGER, SIDECAR
from intent_ls.agents.sandbox.plan import LedgerCopy
from intent_ls.common.store_paths import state_home, store_dir

__all__ = ["SIDECAR", "LedgerCopy", "calls_dir", "prepare", "works"]

LEDGER_NAME = LEDGER.rsplit("/", 1)[1]
#: The map derived from the ledger, tracked beside it: git rewrites it with the ledger.
MAP_NAME = "intent_map.md"
#: What git may write in the copy; the sidecar's other entries stay read-only.
COPIED = frozenset({LEDGER_NAME, MAP_NAME})
_PROBE_FILE = "ledger-copy-probe"


def calls_dir(root: Path) -> Path:
    """Where the workspace's commands keep their copies until the after-tool event."""
    return store_dir(root) / "ledger-copies"


def prepare(root: Path, bwrap: str) -> LedgerCopy | None:
    """A fresh copy folder for one command, locked from the start (a copy folder found
    unlocked is one whose command has ended); None without a sidecar folder or where
    no overlay can be mounted (the sidecar then stays read-only whole)."""
    sidecar = root / SIDECAR
    if not sidecar.is_dir() or sidecar.is_symlink() or not works(bwrap):
        return None
    import tempfile

    base = calls_dir(root)
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    call = Path(tempfile.mkdtemp(prefix="call-", dir=base))
    fd = os.open(call / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    (call / "upper").mkdir()
    (call / "work").mkdir()
    with os.scandir(sidecar) as entries:
        # A symlink is not bound (a dangling one would stop bubblewrap): replaced, it
        # is replaced in the copy; written through, its target is judged as any path.
        kept = tuple(sorted(e.path for e in entries if e.name not in COPIED and not e.is_symlink()))
    return LedgerCopy(str(sidecar), str(call / "upper"), str(call / "work"), kept, fd)


def works(bwrap: str, keep: bool = True) -> bool:
    """Whether bubblewrap can mount an overlay with its upper folder where the copies
    go; kept per bubblewrap and kernel, so it is tried once (~10 ms). Without ``keep``
    (``doctor``, which writes nothing) an answer not kept yet is tried in the system's
    temporary folder and not kept."""
    home = state_home()
    key = f"{bwrap}\0{os.uname().release}\0{home}\n"
    probe = home / _PROBE_FILE
    try:
        known = probe.read_text()
    except OSError:
        known = ""
    if known.startswith(key):
        return known[len(key) :].strip() == "yes"
    if not keep:
        import tempfile

        return _try(bwrap, Path(tempfile.gettempdir()))
    found = _try(bwrap, home)
    with contextlib.suppress(OSError):
        probe.write_text(key + ("yes" if found else "no") + "\n")
    return found


def _try(bwrap: str, home: Path) -> bool:
    import subprocess
    import tempfile

    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=home) as tmp:
            for name in ("lower", "upper", "work"):
                os.mkdir(os.path.join(tmp, name))
            lower = os.path.join(tmp, "lower")
            argv = [bwrap, "--ro-bind", "/", "/", "--overlay-src", lower, "--overlay"]
            argv += [os.path.join(tmp, "upper"), os.path.join(tmp, "work"), lower]
            argv += ["--unshare-user", "--cap-drop", "ALL", "--", "touch", lower + "/x"]
            done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
            return done.returncode == 0 and os.path.exists(os.path.join(tmp, "upper", "x"))
    except (OSError, subprocess.SubprocessError):
        return False
