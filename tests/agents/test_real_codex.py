"""The real Codex CLI, offline against a scripted Responses API, governed by intent-ls
(``intent-ls hooks install codex``). Codex ignores ``ask``, so what needs a human is
denied with the command that approves it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agents.conftest import APP
from tests.agents.scripted_model import ScriptedCodex, serve_codex
from tests.support import records

MODEL = "gpt-5.5"


def find_codex() -> str | None:
    folder = os.environ.get("INTENT_LS_AGENTS") or str(Path.home() / ".cache/intent-ls-agents")
    candidate = Path(folder) / "node_modules" / ".bin" / "codex"
    if candidate.exists():
        return str(candidate)
    return shutil.which("codex")


CODEX = find_codex()
if CODEX is None and os.environ.get("INTENT_LS_REQUIRE_AGENTS") == "1":
    raise RuntimeError("INTENT_LS_REQUIRE_AGENTS=1 but the Codex CLI is not installed")
pytestmark = pytest.mark.skipif(
    CODEX is None,
    reason="Codex CLI not installed (npm install @openai/codex into $INTENT_LS_AGENTS; "
    ".ci/run does)",
)


def patch(*lines: str) -> dict[str, str]:
    return {"patch": "\n".join(["*** Begin Patch", *lines, "*** End Patch", ""])}


def test_codex_cli_is_governed_end_to_end(governed: Path, tmp_path: Path, agent_path: str) -> None:
    assert CODEX is not None
    path = agent_path
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "hooks", "install", "codex", "--workspace",
         str(governed)],
        capture_output=True, text=True, env={**os.environ, "PATH": path}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    add = patch("*** Add File: src/new.py", "+x = 1")
    mixed = patch(
        "*** Update File: src/app.py", "@@", "-    return 1", "+    return 9",
        "*** Add File: docs/new.md", "+x",
    )  # fmt: skip
    select = {"intent_id": "INT-APP"}
    model = ScriptedCodex(
        [
            {"id": "call_01", "name": "apply_patch", "input": add},
            # Codex defers MCP tools: the scripted model searches for them first.
            {
                "id": "call_02",
                "name": "select_active_intent",
                "namespace": "mcp__intent_ls",
                "input": select,
            },
            {"id": "call_03", "name": "apply_patch", "input": add},
            {"id": "call_04", "name": "apply_patch", "input": mixed},
            {"id": "call_05", "name": "exec_command", "input": {"cmd": "rm -rf src"}},
            "finished",
        ]
    )
    home, codex_home = tmp_path / "home", tmp_path / "codex"
    home.mkdir()
    codex_home.mkdir()
    with serve_codex(model) as url:
        (codex_home / "config.toml").write_text(
            f'model = "{MODEL}"\nmodel_provider = "mock"\napproval_policy = "never"\n'
            'sandbox_mode = "danger-full-access"\n'
            f'[model_providers.mock]\nname = "mock"\nbase_url = "{url}/v1"\n'
            'wire_api = "responses"\nenv_key = "MOCK_API_KEY"\nrequest_max_retries = 0\n'
            "stream_max_retries = 0\n"
            "[features]\nplugins = false\nremote_plugin = false\napps = false\n"
            "tool_suggest = false\nhooks = true\n"
            f'[projects."{governed}"]\ntrust_level = "trusted"\n'
        )
        env = {"PATH": path, "HOME": str(home), "CODEX_HOME": str(codex_home)}
        env["MOCK_API_KEY"] = "x"
        run = subprocess.run(
            [CODEX, "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust",
             "do the task"],
            cwd=governed, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:] + run.stdout[-3000:]
    results = {r["call_id"]: json.dumps(r.get("output")) for r in model.tool_results()}
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
    assert contributor == {"type": "ai", "model_id": MODEL}
