"""Fixtures for the export tests; the helpers are in export_helpers.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from export_helpers import Workspace, out_of_scope

from intent_ls.policy.approvals import Contributor


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "ws")


@pytest.fixture
def recorded(ws: Workspace) -> Workspace:
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
