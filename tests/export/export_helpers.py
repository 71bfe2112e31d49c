"""Workspaces with ledgers written by the real record path, the real CLI, and DuckDB
reading an export directly."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from intent_ls.ledger.records import RecordedVerdict, build_approval_record
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.policy.approvals import Approval, Contributor
from tests.support import intent_ls, recorded_save

AI = Contributor("ai", "anthropic/claude-test")
SPEC = """\
active_intents:
  - id: INT-001
    name: Billing
    status: IN_PROGRESS
    owned_scope: [src/billing/]
  - id: INT-002
    name: Auth
    status: IN_PROGRESS
    owned_scope: [src/auth/]
"""


class Workspace:
    """A governed folder whose saves go through ``build_mutation_record`` and
    ``Ledger.append``, as the editor's and the hooks' do."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / ".orchestration").mkdir(parents=True)
        (root / ".orchestration" / "active_intents.yaml").write_text(SPEC, encoding="utf-8")
        self.ledger = Ledger(ledger_path(root), fsync=False)

    def save(
        self,
        rel: str,
        text: str,
        *,
        intent: str = "INT-001",
        contributor: Contributor = AI,
        verdicts: tuple[RecordedVerdict, ...] = (),
    ) -> dict[str, Any]:
        return recorded_save(
            self.ledger,
            self.root,
            rel,
            text,
            intent_id=intent,
            session_id="sess-1",
            contributor=contributor,
            verdicts=verdicts,
            revision=None,
        )

    def approve(self, code: str, rel: str, lines: tuple[int, int], content_hash: str) -> dict:
        approval = Approval(code, rel, lines[0], lines[1], content_hash, reason="reviewed")
        record = build_approval_record(
            self.root, approval, intent_id="INT-001", session_id="sess-1", revision=None
        )
        return self.ledger.append(record)

    def lines(self) -> list[bytes]:
        return self.ledger.path.read_bytes().splitlines()

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return intent_ls(*args, "--workspace", str(self.root), cwd=self.root)


def sample_saves(ws: Workspace) -> Workspace:
    """Saves by AI and by a human under two intents, an out-of-scope verdict left open,
    another one approved."""
    ws.save("src/billing/invoice.py", "def total(items):\n    return sum(items)\n")
    ws.save(
        "src/billing/invoice.py",
        "def total(items):\n    return sum(items)\n\n\nclass Invoice:\n    def pay(self):\n"
        "        return True\n",
    )
    ws.save("src/auth/tokens.py", "def issue():\n    return 'x'\n", intent="INT-002")
    ws.save(
        "src/auth/tokens.py",
        "def issue():\n    return 'y'\n",
        intent="INT-002",
        contributor=Contributor("human"),
    )
    ws.save("docs/notes.md", "notes\n", verdicts=(out_of_scope("docs/notes.md"),))
    approved = ws.save("README.md", "hello\n", verdicts=(out_of_scope("README.md"),))
    rng = approved["files"][0]["conversations"][0]["ranges"][0]
    ws.approve("out-of-scope", "README.md", (1, 1), rng["content_hash"])
    return ws


def out_of_scope(rel: str) -> RecordedVerdict:
    return RecordedVerdict("out-of-scope", f"{rel} is outside INT-001's scope", {"path": rel})


def query(out: Path, sql: str) -> list[tuple[Any, ...]]:
    """SQL over an export, read by DuckDB directly (not through intent-ls)."""
    import duckdb

    db = duckdb.connect()
    db.execute("SET TimeZone = 'UTC'")
    for table in ("records", "touches"):
        db.execute(
            f"CREATE VIEW {table} AS SELECT * FROM read_parquet("
            f"'{out}/{table}/*/*.parquet', hive_partitioning = true)"
        )
    return db.execute(sql).fetchall()
