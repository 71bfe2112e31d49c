"""Where the agents' effects keep their state for a workspace (outside it, read-only to
every sandboxed command), apart from the effects' store: the shell prefix works these
paths out before every command and imports nothing else of it, and the ledger notes its
own writes there (:mod:`.own_writes`)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def state_home() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "intent-ls" / "effects"


def store_dir(root: Path) -> Path:
    digest = hashlib.sha256(os.fsencode(str(root))).hexdigest()[:20]
    return state_home() / digest
