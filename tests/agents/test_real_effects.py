"""Effects verified in the real agent CLIs (offline, scripted model): a command no
classifier knows writes the spec and is put back, the agent being told why; an in-scope
``sed -i`` is recorded as the session's; ``npm test`` runs without a prompt."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import APP, SPEC, records
from tests.agents.effects_helpers import git_workspace
from tests.agents.scripted_model import ScriptedModel, result_text, serve, tool
from tests.agents.test_real_claude import CLAUDE, install_hooks

SELECT = "mcp__intent-ls__select_active_intent"
#: A script the agent writes in its own scope, then runs: it rewrites the spec.
SNEAK = (
    "import pathlib\n"
    "spec = pathlib.Path('.orchestration') / 'active_intents.yaml'\n"
    "spec.write_text('active_intents: [{id: INT-APP, name: Mine, status: IN_PROGRESS, "
    "owned_scope: [x]}]')\n"
)
PACKAGE = {
    "name": "demo",
    "version": "1.0.0",
    "scripts": {"test": "node -e \"console.log('tests ok')\""},
}


def run_claude_with_bash(root: Path, home: Path, model: ScriptedModel, path: str) -> dict[str, Any]:
    """As many users run it: edits accepted and Bash allowed without a prompt."""
    assert CLAUDE is not None
    with serve(model) as url:
        env = {
            "PATH": path,
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "sk-ant-test",
            "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        done = subprocess.run(
            [CLAUDE, "-p", "do the task", "--permission-mode", "acceptEdits",
             "--allowedTools", "Bash", "--output-format", "json"],
            cwd=root, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout)


@pytest.mark.skipif(CLAUDE is None, reason="Claude Code CLI not installed")
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm not installed")
def test_claude_code_effects(governed: Path, tmp_path: Path, agent_path: str) -> None:
    (governed / "package.json").write_text(json.dumps(PACKAGE))
    install_hooks(governed, agent_path)
    ws = git_workspace(governed)  # the human's setup is the base
    home = tmp_path / "home"
    home.mkdir()
    model = ScriptedModel(
        [
            tool(0, "WaitForMcpServers"),
            tool(1, SELECT, intent_id="INT-APP"),
            tool(2, "Write", file_path=str(ws / "src/tool.py"), content=SNEAK),
            tool(3, "Bash", command=f"{sys.executable} src/tool.py", description="run it"),
            tool(4, "Bash", command="sed -i 's/return 2/return 3/' src/app.py", description="s"),
            tool(5, "Bash", command="npm test", description="test"),
            "finished",
        ]
    )
    result = run_claude_with_bash(ws, home, model, agent_path)
    results = {r["tool_use_id"]: r for r in model.tool_results()}
    assert len(results) == 6, model.tool_results()
    assert not results["toolu_01"].get("is_error"), result_text(results["toolu_01"])
    assert (ws / ".orchestration" / "active_intents.yaml").read_text() == SPEC
    told = json.dumps(model.main_requests[-1])
    assert "put them back" in told, [json.dumps(r)[-3000:] for r in model.main_requests[2:4]]
    assert ".orchestration/active_intents.yaml" in told
    assert (ws / "src" / "app.py").read_text() == APP.replace("return 2", "return 3")
    recorded = {r["files"][0]["path"]: r for r in records(ws)}
    sed = recorded["src/app.py"]
    assert sed["files"][0]["conversations"][0]["contributor"]["type"] == "ai"
    assert sed["metadata"]["intent_ls"]["intent_id"] == "INT-APP"
    assert sed["metadata"]["intent_ls"]["session_id"] == result["session_id"]
    npm = results["toolu_05"]
    assert not npm.get("is_error") and "tests ok" in result_text(npm), result_text(npm)
    assert not result.get("permission_denials"), result.get("permission_denials")
    check = subprocess.run(
        [sys.executable, "-m", "intent_ls", "check", "--workspace", str(ws), "--base", "HEAD"],
        capture_output=True, text=True, env={**os.environ, "PATH": agent_path}, check=False,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
