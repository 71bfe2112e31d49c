"""The real Codex CLI, offline against a scripted Responses API, governed by intent-ls
(``intent-ls hooks install codex``). Codex ignores ``ask``, so what needs a human is
denied with the command that approves it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.conftest import APP
from tests.agents.real_cli import CODEX, CODEX_MODEL, install_hooks, missing, run_codex
from tests.agents.scripted_model import ScriptedCodex, codex_mcp, codex_patch, codex_shell
from tests.support import records

pytestmark = pytest.mark.skipif(CODEX is None, reason=missing("the Codex CLI"))


def test_codex_cli_is_governed_end_to_end(governed: Path, tmp_path: Path, agent_path: str) -> None:
    assert CODEX is not None
    install_hooks("codex", governed, agent_path)
    add = ("*** Add File: src/new.py", "+x = 1")
    mixed = (
        "*** Update File: src/app.py", "@@", "-    return 1", "+    return 9",
        "*** Add File: docs/new.md", "+x",
    )  # fmt: skip
    model = ScriptedCodex(
        [
            codex_patch(1, *add),
            # Codex defers MCP tools: the scripted model searches for them first.
            codex_mcp(2, "select_active_intent", intent_id="INT-APP"),
            codex_patch(3, *add),
            codex_patch(4, *mixed),
            codex_shell(5, "rm -rf src"),
            "finished",
        ]
    )
    results = run_codex(governed, tmp_path, model, agent_path)
    assert {"call_01", "call_02", "call_03", "call_04", "call_05"} <= set(results), results
    assert "no-active-intent" in results["call_01"]
    assert "intent_context" in results["call_02"]
    assert (governed / "src" / "new.py").read_text() == "x = 1\n"
    assert "out-of-scope" in results["call_04"] and "docs/new.md" in results["call_04"]
    assert (governed / "src" / "app.py").read_text() == APP  # the whole patch was refused
    assert "destructive-command" in results["call_05"]
    assert "intent-ls approve" in results["call_05"]
    assert (governed / "src" / "app.py").exists()
    [record] = records(governed)
    assert record["files"][0]["path"] == "src/new.py"
    contributor = record["files"][0]["conversations"][0]["contributor"]
    assert contributor == {"type": "ai", "model_id": CODEX_MODEL}
