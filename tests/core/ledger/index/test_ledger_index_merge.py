"""The index after a merge or rebase rewrote the ledger: lines inserted in the middle,
the other side's lines first, lines replaced. It catches up without a rebuild, and what
it answers is what a cold build of the same file answers."""

from __future__ import annotations

from pathlib import Path

from intent_ls.ledger.index import TraceIndex
from intent_ls.ledger.merge import join_lines, merge_versions, split_lines
from intent_ls.ledger.store import Ledger, ledger_path
from tests.core.ledger.ledger_helpers import mutation


def _lines(tmp_path: Path, name: str, count: int, intent: str) -> list[bytes]:
    (tmp_path / name).mkdir()
    ledger = Ledger(tmp_path / name / "t.jsonl", fsync=False)
    for i in range(count):
        ledger.append(mutation(tmp_path, i, intent=intent, path=f"{intent}.py"))
    return split_lines(ledger.path.read_bytes())


def _answers(index: TraceIndex) -> list[tuple]:
    """What the index knows, in file order, without the ``seq`` it assigned."""
    refs = sorted(index.all_records(), key=lambda r: r.offset)
    out = []
    for ref in refs:
        record = index.load_record(ref)
        out.append((ref.offset, record["id"], ref.intent_id, ref.timestamp))
    return out


def _check_catches_up(root: Path, before: bytes, after: bytes) -> None:
    path = ledger_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(before)
    index = TraceIndex.for_workspace(root)
    assert index.record_count == len(split_lines(before))
    inode = index.cache.stat().st_ino
    seen = max(r.seq for r in index.all_records()) if split_lines(before) else 0
    path.write_bytes(after)
    cold = TraceIndex(path, root / "cold.sqlite")
    try:
        assert _answers(index) == _answers(cold)
        assert index.cache.stat().st_ino == inode  # caught up in place, not rebuilt
        # Records that were not indexed before all come after what a reader saw.
        old_ids = {line for line in split_lines(before)}
        for ref in index.all_records():
            line = path.read_bytes()[ref.offset :].split(b"\n", 1)[0]
            assert (line in old_ids) or ref.seq > seen
        with_hash = index.records_for_intent("INT-B")
        assert {index.load_record(r)["metadata"]["intent_ls"]["intent_id"] for r in with_hash} <= {
            "INT-B"
        }
    finally:
        index.close()
        cold.close()


def test_rebase_puts_the_other_side_first(tmp_path: Path) -> None:
    base = _lines(tmp_path, "base", 20, "INT-A")
    ours = base + _lines(tmp_path, "ours", 5, "INT-B")
    theirs = base + _lines(tmp_path, "theirs", 7, "INT-C")
    rebased = merge_versions(join_lines(base), join_lines(theirs), join_lines(ours))
    _check_catches_up(tmp_path / "ws1", join_lines(ours), rebased)


def test_lines_inserted_in_the_middle(tmp_path: Path) -> None:
    lines = _lines(tmp_path, "main", 40, "INT-A")
    inserted = _lines(tmp_path, "other", 9, "INT-B")
    _check_catches_up(
        tmp_path / "ws2", join_lines(lines), join_lines(lines[:17] + inserted + lines[17:])
    )


def test_lines_replaced_and_removed(tmp_path: Path) -> None:
    lines = _lines(tmp_path, "main", 30, "INT-A")
    other = _lines(tmp_path, "other", 3, "INT-B")
    _check_catches_up(
        tmp_path / "ws3", join_lines(lines), join_lines(lines[:10] + other + lines[15:])
    )
    _check_catches_up(tmp_path / "ws4", join_lines(lines), join_lines(lines[:12]))
    _check_catches_up(tmp_path / "ws5", join_lines(lines), join_lines(lines[5:]))
