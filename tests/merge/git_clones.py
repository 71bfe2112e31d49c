"""Real git repositories and clones for the merge-safe ledger tests.

Records are made as production makes them (the real record builder and
``Ledger.append``); every intent-ls call is a real ``intent-ls`` process, and git runs
the merge driver that ``intent-ls init`` configured, so what is tested is what a user
gets.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.policy.approvals import Contributor
from tests.support import SPEC, intent_ls, recorded_save


class Clone:
    """One clone (or the origin) of a test repository."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ledger = Ledger(ledger_path(root), fsync=False)

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", *args], cwd=self.root, check=check, capture_output=True, text=True
        )

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return intent_ls(*args, "--workspace", str(self.root), cwd=self.root)

    def read(self, rel: str) -> str:
        path = self.root / rel
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def save(self, rel: str, text: str, intent: str = "INT-APP") -> bytes:
        """A recorded editor save; returns the ledger line it appended."""
        before = self.ledger_lines()
        recorded_save(
            self.ledger,
            self.root,
            rel,
            text,
            intent_id=intent,
            session_id="test-session",
            contributor=Contributor("ai", "anthropic/claude-test"),
        )
        after = self.ledger_lines()
        assert after[: len(before)] == before
        return after[-1]

    def commit(self, message: str) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)

    def ledger_lines(self) -> list[bytes]:
        path = ledger_path(self.root)
        return path.read_bytes().splitlines() if path.exists() else []

    def verify(self) -> subprocess.CompletedProcess[str]:
        return self.cli("trace", "verify")


def make_origin(root: Path, *, init: bool = True) -> Clone:
    """A repository on ``main`` with the spec, one recorded save, committed."""
    root.mkdir(parents=True)
    origin = Clone(root)
    origin.git("init", "-q", "-b", "main")
    (root / ".orchestration").mkdir()
    (root / ".orchestration" / "active_intents.yaml").write_text(SPEC, encoding="utf-8")
    (root / ".intentignore").write_text("*.lock\n", encoding="utf-8")
    if init:
        assert origin.cli("init").returncode == 0
    origin.save("src/app.py", "def main():\n    return 0\n")
    origin.commit("start")
    return origin
