"""The real Qwen Code CLI, found, set up and run offline against the scripted OpenAI
Chat Completions endpoint (:func:`tests.agents.scripted_model.serve_chat`).

Qwen Code >= 0.21 asks for Node >= 22 (its ``engines``; 0.24.4 ran these tests on Node
20.20 too): the ``node`` npm package installed beside it (``npm install --prefix
$INTENT_LS_AGENTS @qwen-code/qwen-code@VERSION node@22``) puts a Node 22 binary next to
``qwen`` in ``node_modules/.bin``, which runs it here when it is there.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.agents.real_cli import find_agent
from tests.agents.scripted_model import ScriptedChat, serve_chat

PACKAGE = "@qwen-code/qwen-code"
QWEN = find_agent("qwen", PACKAGE)
#: intent-ls's ``select_active_intent`` as Qwen Code names it.
SELECT = "mcp__intent-ls__select_active_intent"
MODEL = "scripted-qwen"


def chat(turns: list[dict[str, Any] | str], main_tool: str = "write_file") -> ScriptedChat:
    """A scripted model whose main loop is the request offering ``main_tool``: headless
    in its default mode Qwen Code offers no tool that needs an approval (no
    ``write_file``, ``edit``, ``run_shell_command``), ``read_file`` still."""
    return ScriptedChat(turns, main_tool)


def wrapped(root: Path, command: str) -> str:
    """A shell command in the sandboxed form the hook asks Qwen's model to run: under
    the interpreter that runs the hook (the ``intent-ls`` script's own)."""
    from intent_ls.agents import barrier

    script = Path(sys.executable).parent / "intent-ls"
    python = script.read_text().splitlines()[0].removeprefix("#!")
    return barrier.wrap(python, root, command)


def _environment(home: Path, url: str, path: str) -> dict[str, str]:
    """Qwen Code offline: its home, the scripted model as an OpenAI-compatible
    provider, Node 22 from beside the binary first on PATH."""
    assert QWEN is not None
    return {
        "PATH": os.pathsep.join([str(Path(QWEN).parent), path]),
        "HOME": str(home),
        "OPENAI_BASE_URL": f"{url}/v1",
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_MODEL": MODEL,
        "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
        "QWEN_TELEMETRY_ENABLED": "false",
    }


def approve_mcp_server(home: Path, root: Path) -> None:
    """What approving the project's intent-ls server once with ``/mcp`` stores: the
    approval, bound to a hash of the server's entry (Qwen Code's ``mcpApprovals.json``,
    ``hashMcpServerConfig``). Outside ``yolo`` a project's MCP server is not started
    without it."""
    settings = json.loads((root / ".qwen" / "settings.json").read_text())
    entry = settings["mcpServers"]["intent-ls"]
    stable = json.dumps(entry, sort_keys=True, separators=(",", ":"))
    record = {"hash": hashlib.sha256(stable.encode()).hexdigest(), "status": "approved"}
    path = home / ".qwen" / "mcpApprovals.json"
    path.write_text(json.dumps({str(root): {"intent-ls": record}}))


def run_qwen(
    root: Path, tmp_path: Path, model: ScriptedChat, path: str, approval_mode: str = "yolo"
) -> dict[str, str]:
    """``qwen -p`` in ``approval_mode`` (the MCP server approved once); each call's
    result text by call id."""
    assert QWEN is not None
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True)
    approve_mcp_server(home, root)
    user = {
        "security": {"auth": {"selectedType": "openai"}},
        "model": {"name": MODEL},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False},
        # Its background memory agent also offers write_file: no second conversation.
        "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
    }
    (home / ".qwen" / "settings.json").write_text(json.dumps(user))
    with serve_chat(model) as url:
        done = subprocess.run(
            [QWEN, "-p", "do the task", "--approval-mode", approval_mode, "--output-format",
             "json"],
            cwd=root, env=_environment(home, url, path), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    return {str(r.get("tool_call_id")): _text(r.get("content")) for r in model.tool_results()}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(c.get("text", "") for c in content or () if isinstance(c, dict))
