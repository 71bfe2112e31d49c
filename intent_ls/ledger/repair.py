"""``intent-ls trace repair``: undo what a merge without the merge driver did.

Git, not knowing the ledger, leaves conflict markers around the two sides' new records
(or a person keeps both sides by hand, leaving the chain without a merge point). Repair
keeps every line of every side, drops the markers and exact duplicate lines, and appends
the merge record the driver would have written. It never vouches for a missing record:
a reference to a line that is nowhere in the file stays a ``trace verify`` failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from intent_ls.ledger.merge import (
    CONFLICT_MARKERS,
    join_lines,
    join_tips,
    resolve_conflicts,
    split_lines,
)
from intent_ls.ledger.store import Ledger
from intent_ls.ledger.verify import verify_ledger


@attrs.frozen
class RepairOutcome:
    changed: bool
    verified: bool
    message: str


def repair_ledger(path: Path) -> RepairOutcome:
    ledger = Ledger(path)
    with ledger.locked():
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return RepairOutcome(False, True, "nothing to repair: there is no ledger")
        lines = split_lines(data)
        markers = sum(1 for line in lines if line.startswith(CONFLICT_MARKERS))
        kept = resolve_conflicts(lines)
        duplicates = len(lines) - markers - len(kept)
        repaired = join_tips(kept)
        out = join_lines(repaired)
        changed = out != data
        if changed:
            tmp = path.with_name(f".{path.name}.{os.getpid()}.repair")
            with tmp.open("wb") as f:
                f.write(out)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
    result = verify_ledger(path)
    done = (
        f"repaired: {markers} conflict marker line(s) and {duplicates} duplicate line(s) "
        f"removed, {len(kept)} record line(s) kept"
        + (", merge record added" if len(repaired) > len(kept) else "")
        if changed
        else "nothing to repair"
    )
    if result.ok:
        return RepairOutcome(changed, True, f"{done}; ok: {result.records} records, chain intact")
    assert result.problem is not None
    return RepairOutcome(
        changed,
        False,
        f"{done}; trace verify still fails at line {result.problem.line}: {result.problem.reason}",
    )
