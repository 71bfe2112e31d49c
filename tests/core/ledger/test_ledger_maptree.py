"""intent_tree: the intent map as data for editors' tree views."""

from __future__ import annotations

from intent_ls.ledger.index import SummaryRow
from intent_ls.ledger.intentmap import IntentInfo
from intent_ls.ledger.maptree import intent_tree

INTENTS = {
    "INT-002": IntentInfo("Second", "IN_PROGRESS", ("b/**",)),
    "INT-001": IntentInfo("First", "DRAFT", ("a/**",)),
}


def row(intent: str, path: str, name: str | None, changes: int, last: str) -> SummaryRow:
    return SummaryRow(intent, path, name, "function" if name else None, changes, last, ("human",))


def test_spec_order_then_unknown_ids_with_files_and_nodes() -> None:
    rows = [
        row("INT-001", "a/x.py", None, 3, "2026-01-03"),
        row("INT-001", "a/x.py", "zeta", 1, "2026-01-01"),
        row("INT-001", "a/x.py", "alpha", 2, "2026-01-03"),
        row("INT-000", "old.py", None, 1, "2025-12-31"),
    ]
    tree = intent_tree(rows, INTENTS)
    assert [(i["id"], i["inSpec"]) for i in tree] == [
        ("INT-002", True),
        ("INT-001", True),
        ("INT-000", False),
    ]
    assert tree[0]["files"] == []
    [entry] = tree[1]["files"]
    assert entry["path"] == "a/x.py"
    assert (entry["changes"], entry["last"], entry["contributors"]) == (3, "2026-01-03", ["human"])
    assert [n["name"] for n in entry["nodes"]] == ["alpha", "zeta"]
    assert tree[2]["name"] is None and tree[2]["status"] is None


def test_a_file_without_its_file_level_row_sums_its_nodes() -> None:
    rows = [
        row("INT-001", "a/y.py", "f", 2, "2026-01-02"),
        row("INT-001", "a/y.py", "g", 1, "2026-01-05"),
    ]
    [entry] = intent_tree(rows, INTENTS)[1]["files"]
    assert (entry["changes"], entry["last"]) == (3, "2026-01-05")
