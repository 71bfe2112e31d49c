"""A human's approval of a held shell command lets it run once.

``intent-ls approve destructive-command --command CMD`` appends one approval record;
each run of the exact command the hooks let through uses one up. What was used is
counted in ``.orchestration/.local/used-command-approvals.json`` (per command hash),
local state no agent tool call can change (:mod:`.effects` puts it back), so a second
``git push --force`` needs a second approval.
"""

from __future__ import annotations

import json
from pathlib import Path

from intent_ls.common.hashing import text_hash
from intent_ls.common.local_state import local_dir
from intent_ls.common.safe_io import read_sidecar, write_atomic
from intent_ls.policy.approvals import COMMAND_PATH

USED_FILE = "used-command-approvals.json"


def _recorded(root: Path, code: str, digest: str) -> int:
    from intent_ls.ledger.index import TraceIndex
    from intent_ls.ledger.records import approvals_from_records

    index = TraceIndex.for_workspace(root)
    try:
        index.refresh()
        records = [index.load_record(ref) for ref in index.records_for_path(COMMAND_PATH)]
    finally:
        index.close()
    return sum(
        1
        for a in approvals_from_records(records)
        if a.verdict_code == code and a.path == COMMAND_PATH and a.content_hash == digest
    )


def _used(root: Path) -> dict[str, int]:
    try:
        data = json.loads(read_sidecar(local_dir(root) / USED_FILE, 1 << 20))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, int)} if isinstance(data, dict) else {}


def use_approval(root: Path, code: str, command: str) -> bool:
    """True (and one approval used up) when a human approved ``command`` more times than
    it has run since."""
    if not (root / ".orchestration" / "agent_trace.jsonl").exists():
        return False
    digest = text_hash(command)
    used = _used(root)
    key = f"{code}:{digest}"
    if _recorded(root, code, digest) <= used.get(key, 0):
        return False
    used[key] = used.get(key, 0) + 1
    local_dir(root, create=True)
    write_atomic(local_dir(root) / USED_FILE, json.dumps(used).encode("utf-8"))
    return True
