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
