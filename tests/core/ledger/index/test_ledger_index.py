from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from intent_ls.common.hashing import content_hash, hash_key
from intent_ls.ledger.index import CACHE_RELPATH, TraceIndex
from intent_ls.ledger.intentmap import IntentInfo, render, write_intent_map
from intent_ls.ledger.records import build_mutation_record
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.policy.approvals import Contributor
from intent_ls.syntax.document import definitions
from tests.core.ledger.ledger_helpers import mutation

OLD = "class Cart:\n    def total(self):\n        return 1\n"
NEW = "class Cart:\n    def total(self):\n        return 2\n"


def _save(root: Path, path: str, old: str, new: str, intent: str) -> dict:
    record = build_mutation_record(
        root,
        path,
        old,
        new,
        intent_id=intent,
        session_id="s",
        contributor=Contributor("human"),
        revision=None,
    )
    assert record is not None
    return Ledger(ledger_path(root), fsync=False).append(record)


def test_blame_by_definition_and_by_moved_content(tmp_path: Path) -> None:
    _save(tmp_path, "cart.py", OLD, NEW, "INT-001")
    index = TraceIndex.for_workspace(tmp_path)
    (cls, method) = definitions(NEW, "python")
    entries = index.blame("cart.py", definition=method)
    assert [(e.record.intent_id, e.via) for e in entries] == [("INT-001", "definition")]
    # the same class pasted into another file is still attributed through its hash
    moved = index.blame("shop/other.py", definition=cls)
    assert [(e.record.intent_id, e.path, e.via) for e in moved] == [
        ("INT-001", "cart.py", "content")
    ]
    assert index.blame("shop/other.py", definition=None) == []
    stats = index.definition_stats("cart.py", [cls, method])
    assert [(s.changes, s.intents) for s in stats] == [(1, ("INT-001",)), (1, ("INT-001",))]
    assert "*" in (tmp_path / ".orchestration/.local/.gitignore").read_text().splitlines()
    index.close()


_APPENDER = """
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from tests.core.ledger.ledger_helpers import mutation
from intent_ls.ledger.store import Ledger
ledger = Ledger(Path({path!r}), fsync=False)
for i in range(5):
    ledger.append(mutation(Path('.'), 100 + i, intent="INT-OTHER"))
"""


def test_index_picks_up_appends_from_another_process(tmp_path: Path) -> None:
    ledger = Ledger(ledger_path(tmp_path), fsync=False)
    for i in range(3):
        ledger.append(mutation(tmp_path, i))
    index = TraceIndex.for_workspace(tmp_path)
    assert index.record_count == 3
    code = _APPENDER.format(tests=str(Path(__file__).resolve().parents[4]), path=str(ledger.path))
    subprocess.run([sys.executable, "-c", code], check=True)
    assert len(index.records_for_intent("INT-OTHER")) == 5  # picked up by the query itself
    assert index.record_count == 8
    assert index.refresh() == 0
    # a second index on the same cache starts warm: nothing to re-read
    other = TraceIndex.for_workspace(tmp_path)
    assert other.refresh() == 0 and other.record_count == 8
    index.close()
    other.close()


def test_rewritten_ledger_triggers_rebuild(tmp_path: Path) -> None:
    ledger = Ledger(ledger_path(tmp_path), fsync=False)
    for i in range(4):
        ledger.append(mutation(tmp_path, i))
    index = TraceIndex.for_workspace(tmp_path)
    assert index.record_count == 4
    ledger.path.unlink()
    for i in range(2):
        ledger.append(mutation(tmp_path, i, intent="INT-NEW"))
    assert index.record_count == 2
    assert {r.intent_id for r in index.all_records()} == {"INT-NEW"}
    assert index.load_record(index.all_records()[0])["metadata"]["intent_ls"]["intent_id"] == (
        "INT-NEW"
    )
    index.close()


def test_progress_is_reported_on_build(tmp_path: Path) -> None:
    ledger = Ledger(ledger_path(tmp_path), fsync=False)
    ledger.append(mutation(tmp_path, 1))
    seen: list[tuple[int, int]] = []
    index = TraceIndex.for_workspace(
        tmp_path, progress=lambda done, total: seen.append((done, total))
    )
    index.refresh()
    size = ledger.path.stat().st_size
    assert seen and seen[-1] == (size, size)
    index.close()


def test_intent_map_is_deterministic(tmp_path: Path) -> None:
    _save(tmp_path, "cart.py", OLD, NEW, "INT-002")
    _save(tmp_path, "a/b.py", "x = 1\n", "x = 2\n", "INT-001")
    intents = {
        "INT-001": IntentInfo("Alpha", "IN_PROGRESS", ("a/**",)),
        "INT-003": IntentInfo("Unused", "DRAFT"),
    }
    index = TraceIndex.for_workspace(tmp_path)
    path, changed = write_intent_map(tmp_path, index, intents)
    first = path.read_bytes()
    assert changed
    assert write_intent_map(tmp_path, index, intents) == (path, False)
    # a fresh index from a deleted cache renders the same bytes
    index.close()
    (tmp_path / ".orchestration/.local/trace-index.sqlite").unlink()
    again = TraceIndex.for_workspace(tmp_path)
    assert render(again.summary(), intents).encode() == first
    text = first.decode()
    assert "## INT-001: Alpha" in text and "`a/**`" in text
    assert "## INT-002 (not in the spec)" in text
    assert "| `cart.py` | `Cart.total` | method |" in text
    assert "No recorded changes." in text  # INT-003
    assert "i_INT_002 --> f_cart_py" in text
    assert "generated at" not in text.lower()
    again.close()


def test_a_rebuild_keeps_the_cache_file_other_servers_have_open(tmp_path: Path) -> None:
    """Every server on a workspace shares the cache: a rebuild copies into the file they
    have open instead of renaming a new one over it, so their connections (and any
    journal they write under its name) stay on the live index."""
    _save(tmp_path, "cart.py", OLD, NEW, "INT-001")
    other = TraceIndex.for_workspace(tmp_path)
    assert other.record_count == 1
    inode = other.cache.stat().st_ino
    _save(tmp_path, "cart.py", NEW, OLD, "INT-002")
    rebuilder = TraceIndex.for_workspace(tmp_path)
    assert rebuilder.rebuild() == 2
    assert other.cache.stat().st_ino == inode
    assert other._db is not None
    assert other._db.execute("SELECT count(*) FROM records").fetchone() == (2,)
    assert sorted(r.intent_id for r in other.all_records()) == ["INT-001", "INT-002"]
    assert [p.name for p in other.cache.parent.iterdir() if p.name.endswith(".tmp")] == []
    rebuilder.close()
    other.close()


def test_a_cache_that_is_not_a_database_is_rebuilt(tmp_path: Path) -> None:
    _save(tmp_path, "cart.py", OLD, NEW, "INT-001")
    cache = tmp_path / ".orchestration/.local/trace-index.sqlite"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(b"not sqlite at all\n" * 100)
    index = TraceIndex.for_workspace(tmp_path)
    assert [r.intent_id for r in index.all_records()] == ["INT-001"]
    assert [p.name for p in cache.parent.iterdir() if p.name.endswith(".tmp")] == []
    index.close()


NOTES = "".join(f"note {i}\n" for i in range(1, 11))


def test_a_record_without_ranges_is_found_by_its_path(tmp_path: Path) -> None:
    """A pure deletion in a file without definitions, and a file emptied, leave no range:
    the index still names those records by path (the editor finds their verdicts there,
    as check does), and every answer about content stays as it was without them."""
    _save(tmp_path, "cart.py", OLD, NEW, "INT-001")
    deletion = _save(tmp_path, "notes.txt", NOTES, NOTES.replace("note 5\n", ""), "INT-002")
    emptied = _save(tmp_path, "gone.txt", NOTES, "", "INT-002")
    for record in (deletion, emptied):
        [file] = record["files"]
        assert all(not conv["ranges"] for conv in file["conversations"])
    index = TraceIndex.for_workspace(tmp_path)
    assert [r.seq for r in index.records_for_path("notes.txt")] == [2]
    assert [r.seq for r in index.records_for_path("gone.txt")] == [3]
    assert [r.seq for r in index.records_for_path("cart.py")] == [1]
    assert index.mutated_paths() == {"cart.py"}
    assert {row.path for row in index.summary()} == {"cart.py"}
    assert index.blame("notes.txt", content_hash=content_hash(["note 4"])) == []
    index.close()


def test_a_cache_of_the_previous_format_is_rebuilt(tmp_path: Path) -> None:
    """A cache written before file rows existed cannot name a rangeless record: its
    version is not this one, so it is built again rather than trusted."""
    _save(tmp_path, "notes.txt", NOTES, NOTES.replace("note 5\n", ""), "INT-002")
    index = TraceIndex.for_workspace(tmp_path)
    assert len(index.records_for_path("notes.txt")) == 1
    index.close()
    with sqlite3.connect(tmp_path / CACHE_RELPATH) as db:
        db.execute("DELETE FROM touches")
        db.execute("UPDATE meta SET value = '3' WHERE key = 'version'")
    db.close()
    again = TraceIndex.for_workspace(tmp_path)
    assert len(again.records_for_path("notes.txt")) == 1
    again.close()


def test_known_keys_are_those_of_recorded_ranges_and_nodes(tmp_path: Path) -> None:
    record = _save(tmp_path, "cart.py", OLD, NEW, "INT-001")
    meta = record["metadata"]["intent_ls"]
    ranges = record["files"][0]["conversations"][0]["ranges"]
    recorded = {hash_key(r["content_hash"]) for r in ranges}
    recorded |= {hash_key(n["content_hash"]) for n in meta["ast_nodes"]}
    absent = hash_key(content_hash(["never saved"]))
    index = TraceIndex.for_workspace(tmp_path)
    many = [absent + n for n in range(1, 1200)]  # more than one query's worth of keys
    assert index.known_keys([*recorded, absent, *many]) == recorded
    assert index.known_keys([]) == set()
    index.close()
