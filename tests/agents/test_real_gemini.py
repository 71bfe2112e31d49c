"""The real Gemini CLI, offline against a scripted Gemini API, governed by intent-ls
(``intent-ls hooks install gemini``: BeforeTool/AfterTool hooks + the trusted MCP server).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agents.scripted_model import ScriptedGemini, serve_gemini, tool
from tests.support import records

SELECT = "mcp_intent-ls_select_active_intent"


def find_gemini() -> str | None:
    folder = os.environ.get("INTENT_LS_AGENTS") or str(Path.home() / ".cache/intent-ls-agents")
    candidate = Path(folder) / "node_modules" / ".bin" / "gemini"
    if candidate.exists():
        return str(candidate)
    return shutil.which("gemini")


GEMINI = find_gemini()
if GEMINI is None and os.environ.get("INTENT_LS_REQUIRE_AGENTS") == "1":
    raise RuntimeError("INTENT_LS_REQUIRE_AGENTS=1 but the Gemini CLI is not installed")
pytestmark = pytest.mark.skipif(
    GEMINI is None,
    reason="Gemini CLI not installed (npm install @google/gemini-cli into $INTENT_LS_AGENTS; "
    ".ci/run does)",
)


def test_gemini_cli_is_governed_end_to_end(governed: Path, tmp_path: Path, agent_path: str) -> None:
    assert GEMINI is not None
    path = agent_path
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "hooks", "install", "gemini", "--workspace",
         str(governed)],
        capture_output=True, text=True, env={**os.environ, "PATH": path}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(
        json.dumps(
            {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "telemetry": {"enabled": False},
                "general": {"enableAutoUpdate": False},
            }
        )
    )
    spec = (governed / ".orchestration" / "active_intents.yaml").read_text()
    model = ScriptedGemini(
        [
            tool(1, "write_file", file_path=str(governed / "src/new.py"), content="x = 1\n"),
            tool(2, SELECT, intent_id="INT-APP"),
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
    with serve_gemini(model) as url:
        env = {
            "PATH": path,
            "HOME": str(home),
            "GEMINI_CLI_HOME": str(home),
            "GOOGLE_GEMINI_BASE_URL": url,
            "GEMINI_API_KEY": "fake",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_TELEMETRY_ENABLED": "false",
        }
        run = subprocess.run(
            [GEMINI, "-p", "do the task", "--approval-mode", "auto_edit", "--output-format",
             "json"],
            cwd=governed, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    results = {r.get("id"): json.dumps(r.get("response")) for r in model.tool_results()}
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
