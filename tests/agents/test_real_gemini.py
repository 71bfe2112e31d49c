"""The real Gemini CLI, offline against a scripted Gemini API, governed by intent-ls
(``intent-ls hooks install gemini``: BeforeTool/AfterTool hooks + the trusted MCP server).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.real_cli import GEMINI, GEMINI_SELECT, install_hooks, missing, run_gemini
from tests.agents.scripted_model import ScriptedGemini, tool
from tests.support import records

pytestmark = pytest.mark.skipif(GEMINI is None, reason=missing("the Gemini CLI"))


def test_gemini_cli_is_governed_end_to_end(governed: Path, tmp_path: Path, agent_path: str) -> None:
    assert GEMINI is not None
    install_hooks("gemini", governed, agent_path)
    spec = (governed / ".orchestration" / "active_intents.yaml").read_text()
    model = ScriptedGemini(
        [
            tool(1, "write_file", file_path=str(governed / "src/new.py"), content="x = 1\n"),
            tool(2, GEMINI_SELECT, intent_id="INT-APP"),
            tool(3, "write_file", file_path=str(governed / "src/new.py"), content="x = 1\n"),
            tool(4, "write_file", file_path=str(governed / "docs/new.md"), content="# x\n"),
            tool(
                5,
                "write_file",
                file_path=str(governed / ".orchestration/active_intents.yaml"),
                content="active_intents: []\n",
            ),
            "finished",
        ]
    )
    results = run_gemini(governed, tmp_path, model, agent_path, "auto_edit")
    assert len(results) == 5, model.tool_results()
    assert "no-active-intent" in results["toolu_01"] and "blocked" in results["toolu_01"]
    assert "intent_context" in results["toolu_02"]
    assert (governed / "src" / "new.py").read_text() == "x = 1\n"
    assert "out-of-scope" in results["toolu_04"] and not (governed / "docs/new.md").exists()
    assert "protected-path" in results["toolu_05"]
    assert (governed / ".orchestration" / "active_intents.yaml").read_text() == spec
    [record] = records(governed)
    contributor = record["files"][0]["conversations"][0]["contributor"]
    assert contributor["type"] == "ai"
    assert contributor["model_id"] == model.main_requests[-1]["model"]
