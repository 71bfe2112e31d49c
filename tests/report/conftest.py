"""A workspace with a varied, partly hostile ledger for the report tests.

Records are made by the real record builder and appended by the real ``Ledger``; the
hostile strings are what any committer can put in a spec, a path, a model id or a verdict
message: they must come out as text on the page, never as markup.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from intent_ls.common.hashing import content_hash
from intent_ls.ledger.records import RecordedVerdict, build_approval_record
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.policy.approvals import Approval, Contributor
from tests.support import recorded_save

SCRIPT = "<script>document.title='pwned'</script>"
IMG = "<img src=x onerror=alert(document.domain)>"

SPEC = f"""\
# The team's intents (this comment must survive imports)
active_intents:
  - id: INT-AUTH
    name: "Auth {SCRIPT}"
    status: IN_PROGRESS
    owned_scope:
      - src/auth/**
    acceptance_criteria:
      - "Login works {IMG}"
  - id: INT-DOCS
    name: Documentation
    status: COMPLETED
    owned_scope:
      - docs/**
  - id: INT-IDLE
    name: Nothing yet
    status: DRAFT
    owned_scope:
      - idle/**
"""

BRAIN = f"""\
# Shared brain

## Lessons: INT-AUTH

- 2026-01-03: Tokens expire after an hour {SCRIPT}
- 2026-01-04: Keep Basic Auth until v3
"""


def _clock(start: datetime) -> Iterator[datetime]:
    t = start
    while True:
        yield t
        t += timedelta(hours=7)


class LedgerWorkspace:
    def __init__(self, root: Path) -> None:
        self.root = root
        (root / ".orchestration").mkdir(parents=True)
        (root / ".orchestration" / "active_intents.yaml").write_text(SPEC)
        (root / ".orchestration" / "CLAUDE.md").write_text(BRAIN)
        self.ledger = Ledger(ledger_path(root), fsync=False)
        self.times = _clock(datetime(2026, 1, 1, 9, 0, tzinfo=UTC))
        self.ids = iter(range(1, 10_000))

    def _new_id(self) -> uuid.UUID:
        return uuid.UUID(int=next(self.ids), version=4)

    def read(self, rel: str) -> str:
        path = self.root / rel
        return path.read_text() if path.exists() else ""

    def save(
        self,
        rel: str,
        text: str,
        intent: str | None,
        contributor: Contributor,
        verdicts: tuple[RecordedVerdict, ...] = (),
    ) -> dict:
        return recorded_save(
            self.ledger,
            self.root,
            rel,
            text,
            intent_id=intent,
            session_id="s1",
            contributor=contributor,
            verdicts=verdicts,
            clock=lambda: next(self.times),
            new_id=self._new_id,
            revision=None,
        )

    def approve(self, rel: str, code: str, start: int, end: int, intent: str) -> dict:
        lines = self.read(rel).splitlines()
        approval = Approval(
            code, rel, start, end, content_hash(lines[start - 1 : end]), reason=f"reviewed {SCRIPT}"
        )
        record = build_approval_record(
            self.root,
            approval,
            intent_id=intent,
            session_id="s1",
            clock=lambda: next(self.times),
            new_id=self._new_id,
            revision=None,
        )
        return self.ledger.append(record)


def build_ledger_workspace(root: Path) -> LedgerWorkspace:
    ws = LedgerWorkspace(root)
    claude = Contributor("ai", "anthropic/claude-test")
    gpt = Contributor("ai", f"openai/{SCRIPT}")
    human = Contributor("human")
    mixed = Contributor("mixed", "anthropic/claude-test")
    ws.save("src/auth/login.py", "def login():\n    return 1\n", "INT-AUTH", claude)
    ws.save(
        "src/auth/login.py",
        "def login():\n    return 2\n\n\ndef out():\n    pass\n",
        "INT-AUTH",
        gpt,
    )
    ws.save(f"src/auth/{IMG}.py", "x = 1\ny = 2\nz = 3\n", "INT-AUTH", human)
    ws.save("docs/guide.md", "# Guide\n\nHello\n", "INT-DOCS", mixed)
    out_of_scope = RecordedVerdict("out-of-scope", f"src/auth owned elsewhere {SCRIPT}")
    ws.save("lib/util.py", "def util():\n    return 0\n", "INT-AUTH", claude, (out_of_scope,))
    ws.approve("lib/util.py", "out-of-scope", 1, 2, "INT-AUTH")
    stale = RecordedVerdict("stale-file", "changed on disk")
    ws.save("lib/other.py", "a = 1\n", "INT-AUTH", claude, (stale,))
    ws.save("scratch.py", "print(1)\n", None, human)
    return ws


@pytest.fixture
def ledger_ws(tmp_path: Path) -> LedgerWorkspace:
    return build_ledger_workspace(tmp_path / "ws")
