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

import pytest

from intent_ls.agents.barrier import available
from tests.agents.conftest import APP, SPEC
from tests.agents.effects_helpers import git_workspace
from tests.agents.real_cli import (
    CLAUDE,
    CLAUDE_SELECT,
    CODEX,
    GEMINI,
    GEMINI_SELECT,
    install_hooks,
    missing,
    run_claude,
    run_codex,
    run_gemini,
    spec_text,
)
from tests.agents.scripted_model import (
    ScriptedCodex,
    ScriptedGemini,
    ScriptedModel,
    codex_mcp,
    codex_patch,
    codex_shell,
    result_text,
    tool,
)
from tests.support import records

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


@pytest.mark.skipif(CLAUDE is None, reason=missing("Claude Code"))
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm not installed")
def test_claude_code_effects(governed: Path, tmp_path: Path, agent_path: str) -> None:
    (governed / "package.json").write_text(json.dumps(PACKAGE))
    install_hooks("claude-code", governed, agent_path)
    ws = git_workspace(governed)  # the human's setup is the base
    model = ScriptedModel(
        [
            tool(0, "WaitForMcpServers"),
            tool(1, CLAUDE_SELECT, intent_id="INT-APP"),
            tool(2, "Write", file_path=str(ws / "src/tool.py"), content=SNEAK),
            tool(3, "Bash", command=f"{sys.executable} src/tool.py", description="run it"),
            tool(4, "Bash", command="sed -i 's/return 2/return 3/' src/app.py", description="s"),
            tool(5, "Bash", command="npm test", description="test"),
            "finished",
        ]
    )
    result = run_claude(ws, tmp_path, model, agent_path, "--allowedTools", "Bash")
    results = {r["tool_use_id"]: r for r in model.tool_results()}
    assert len(results) == 6, model.tool_results()
    assert not results["toolu_01"].get("is_error"), result_text(results["toolu_01"])
    assert spec_text(ws) == SPEC
    # Claude Code runs the command through the sandbox's prefix, so the write itself
    # failed, and the session was told why at its start.
    ran = result_text(results["toolu_03"])
    assert "Read-only file system" in ran and "active_intents.yaml" in ran, ran
    assert "runs your shell commands in a sandbox" in json.dumps(model.main_requests[0])
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


def _outcome(ws: Path, ran: str, told: str) -> None:
    """What every agent's run must leave: the spec as it was, the agent told why (the
    barrier's refusal in the script's output, else the files put back after the call),
    the ``sed -i`` recorded as the agent's."""
    assert spec_text(ws) == SPEC
    if available():
        assert "Read-only file system" in ran and "active_intents.yaml" in ran, ran
        assert "runs your shell commands in a sandbox" in told
    else:
        assert "put them back" in told and ".orchestration/active_intents.yaml" in told
    assert (ws / "src" / "app.py").read_text() == APP.replace("return 2", "return 3")
    recorded = {r["files"][0]["path"]: r for r in records(ws)}
    sed = recorded["src/app.py"]
    assert sed["files"][0]["conversations"][0]["contributor"]["type"] == "ai"
    assert sed["metadata"]["intent_ls"]["intent_id"] == "INT-APP"


@pytest.mark.skipif(CODEX is None, reason=missing("the Codex CLI"))
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm not installed")
def test_codex_effects(governed: Path, tmp_path: Path, agent_path: str) -> None:
    assert CODEX is not None
    (governed / "package.json").write_text(json.dumps(PACKAGE))
    install_hooks("codex", governed, agent_path)
    ws = git_workspace(governed)
    model = ScriptedCodex(
        [
            codex_mcp(1, "select_active_intent", intent_id="INT-APP"),
            codex_patch(2, "*** Add File: src/tool.py", *(f"+{x}" for x in SNEAK.splitlines())),
            codex_shell(3, f"{sys.executable} src/tool.py"),
            codex_shell(4, "sed -i 's/return 2/return 3/' src/app.py"),
            codex_shell(5, "npm test"),
            "finished",
        ]
    )
    results = run_codex(ws, tmp_path, model, agent_path)
    _outcome(ws, results["call_03"], json.dumps(model.main_requests[-1]))
    assert "tests ok" in results["call_05"], results["call_05"]


@pytest.mark.skipif(GEMINI is None, reason=missing("the Gemini CLI"))
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm not installed")
def test_gemini_effects(governed: Path, tmp_path: Path, agent_path: str) -> None:
    assert GEMINI is not None
    (governed / "package.json").write_text(json.dumps(PACKAGE))
    install_hooks("gemini", governed, agent_path)
    ws = git_workspace(governed)
    model = ScriptedGemini(
        [
            tool(1, GEMINI_SELECT, intent_id="INT-APP"),
            tool(2, "write_file", file_path=str(ws / "src/tool.py"), content=SNEAK),
            tool(3, "run_shell_command", command=f"{sys.executable} src/tool.py"),
            tool(4, "run_shell_command", command="sed -i 's/return 2/return 3/' src/app.py"),
            tool(5, "run_shell_command", command="npm test"),
            "finished",
        ]
    )
    results = run_gemini(ws, tmp_path, model, agent_path, "yolo")
    _outcome(ws, results["toolu_03"], json.dumps(model.main_requests[-1]))
    assert "tests ok" in results["toolu_05"], results["toolu_05"]
