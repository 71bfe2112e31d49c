"""Real git repositories for the ``intent-ls check`` tests.

Records are made exactly as the editor makes them (the real record builder + the real
``Ledger.append``), so the gate is tested against what production writes, not against
hand-written JSON.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from intent_ls.cli.main import main
from intent_ls.common.hashing import content_hash
from intent_ls.ledger.records import RecordedVerdict, build_approval_record
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.policy.approvals import Approval, Contributor
from tests.support import SPEC, recorded_save


class GitRepo:
    """A repository with the spec above committed; ``save`` is an editor save under an
    intent, ``write`` an edit nobody recorded."""

    def __init__(self, top: Path, capsys: pytest.CaptureFixture[str], workspace: str = "") -> None:
        self.top = top
        self.root = top / workspace  # the intent-ls workspace, maybe inside the repository
        self.capsys = capsys
        self.ledger = Ledger(ledger_path(self.root), fsync=False)
        self.root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.write(".orchestration/active_intents.yaml", SPEC)

    def git(self, *args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=self.top, check=True, capture_output=True, text=True
        ).stdout

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def read(self, rel: str) -> str:
        path = self.root / rel
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def commit(self, message: str = "commit") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def save(
        self,
        rel: str,
        new_text: str,
        *,
        intent: str | None = "INT-APP",
        verdicts: Sequence[RecordedVerdict] = (),
        approvals: Sequence[Approval] = (),
    ) -> dict[str, Any]:
        """Saves ``new_text`` over the file's current content and records it."""
        return recorded_save(
            self.ledger,
            self.root,
            rel,
            new_text,
            intent_id=intent,
            session_id="test-session",
            contributor=Contributor("ai", "anthropic/claude-test"),
            verdicts=verdicts,
            approvals=approvals,
        )

    def approve(self, rel: str, code: str, start: int, end: int) -> dict[str, Any]:
        """A human approval of ``code`` for lines ``start..end`` as the file is now."""
        lines = self.read(rel).splitlines()
        approval = Approval(code, rel, start, end, content_hash(lines[start - 1 : end]))
        record = build_approval_record(
            self.root, approval, intent_id="INT-APP", session_id="test-session"
        )
        return self.ledger.append(record)

    def check(self, *args: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        rc = main(["check", "--workspace", str(self.root), *args])
        out, err = self.capsys.readouterr()
        return rc, out, err

    def findings(self, *args: str) -> list[dict[str, Any]]:
        rc, out, _ = self.check("--format", "json", *args)
        data = json.loads(out)
        assert rc == (0 if data["ok"] else 1)
        return data["findings"]


@pytest.fixture(autouse=True)
def _git(git_identity: None) -> None:
    """Every test here runs git (``git_identity``: tests/conftest.py)."""


@pytest.fixture
def repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> GitRepo:
    return GitRepo(tmp_path / "repo", capsys)
