"""The real Qwen Code CLI, offline against a scripted OpenAI-compatible model, governed by
intent-ls (``intent-ls hooks install qwen``: PreToolUse/PostToolUse hooks + the trusted
MCP server in ``.qwen/settings.json``).

Headless in its default mode Qwen Code offers the model no tool that needs an approval
(no write, edit or shell tool): the handshake runs there. Everything else runs in
``yolo``, where every tool runs unasked and only intent-ls stands in the way.
"""

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
from tests.agents.qwen.real_qwen import MODEL, PACKAGE, QWEN, SELECT, chat, run_qwen, wrapped
from tests.agents.real_cli import install_hooks, missing, spec_text
from tests.agents.scripted_model import tool
from tests.support import records

pytestmark = pytest.mark.skipif(QWEN is None, reason=missing(PACKAGE))

#: A script in the agent's own scope, run as a prompt-injected agent would: it widens
#: the spec, switches Qwen's hooks off, and leaves a child to try again after the call.
SNEAK = (
    "import os, pathlib, subprocess\n"
    "spec = pathlib.Path('.orchestration') / 'active_intents.yaml'\n"
    "for path, text in ((spec, 'active_intents: [{id: X, status: IN_PROGRESS, "
    "owned_scope: [\"**\"]}]'), (pathlib.Path('.qwen/settings.json'), "
    "'{\"disableAllHooks\": true}')):\n"
    "    try:\n"
    "        path.write_text(text)\n"
    "    except OSError as exc:\n"
    "        print('refused:', path, exc)\n"
    "subprocess.Popen(['sh', '-c', 'sleep 1; echo x > .orchestration/active_intents.yaml'],"
    " start_new_session=True)\n"
)
NPM_PACKAGE = {
    "name": "demo",
    "version": "1.0.0",
    "scripts": {"test": "node -e \"require('fs').writeFileSync('src/tested.txt', 'ok')\""},
}


def test_qwen_default_mode_handshake(governed: Path, tmp_path: Path, agent_path: str) -> None:
    install_hooks("qwen", governed, agent_path)
    model = chat(
        [
            tool(1, "write_file", file_path=str(governed / "src/new.py"), content="x = 1\n"),
            tool(2, SELECT, intent_id="INT-APP"),
            "finished",
        ],
        "read_file",
    )
    results = run_qwen(governed, tmp_path, model, agent_path, "default")
    assert "requires permission" in results["toolu_01"], results
    assert not (governed / "src" / "new.py").exists()
    assert "<intent_context" in results["toolu_02"], results


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm not installed")
def test_qwen_is_governed_end_to_end(governed: Path, tmp_path: Path, agent_path: str) -> None:
    (governed / "package.json").write_text(json.dumps(NPM_PACKAGE))
    install_hooks("qwen", governed, agent_path)
    ws = git_workspace(governed)
    settings = (ws / ".qwen" / "settings.json").read_text()
    model = chat(
        [
            tool(1, "write_file", file_path=str(ws / "src/new.py"), content="x = 1\n"),
            tool(2, SELECT, intent_id="INT-APP"),
            tool(3, "write_file", file_path=str(ws / "docs/new.md"), content="# x\n"),
            tool(4, "write_file", file_path=str(ws / ".orchestration/active_intents.yaml"),
                 content="active_intents: []\n"),
            tool(5, "write_file", file_path=str(ws / "src/tool.py"), content=SNEAK),
            tool(6, "run_shell_command", command=f"{sys.executable} src/tool.py"),
            tool(7, "run_shell_command", command=wrapped(ws, f"{sys.executable} src/tool.py")),
            tool(8, "run_shell_command",
                 command=wrapped(ws, "sed -i 's/return 2/return 3/' src/app.py")),
            tool(9, "run_shell_command", command=wrapped(ws, "rm -rf src")),
            tool(10, "run_shell_command", command=wrapped(ws, "npm test")),
            # Qwen runs PostToolUseFailure, not PostToolUse, after a non-zero exit.
            tool(11, "run_shell_command", command=wrapped(ws, f"{sys.executable} -c \"open("
                 "'docs/sneak.md', 'w').write('x')\"; exit 3")),
            "finished",
        ]
    )  # fmt: skip
    results = run_qwen(ws, tmp_path, model, agent_path)
    assert len(results) == 11, results
    # The context comes with the prompt, not again before each of the 11 model calls.
    sent = json.dumps(model.main_requests[-1]["messages"])
    assert sent.count("</qwen:user-prompt-submit-context>") == 1, sent[-3000:]
    assert "no-active-intent" in results["toolu_01"] and not (ws / "src/new.py").exists()
    assert "<intent_context" in results["toolu_02"]
    assert "out-of-scope" in results["toolu_03"] and not (ws / "docs/new.md").exists()
    assert "protected-path" in results["toolu_04"]
    # A command not in its sandboxed form does not run; the refusal names that form.
    if available():
        assert "sandbox-required" in results["toolu_06"]
        assert wrapped(ws, f"{sys.executable} src/tool.py") in results["toolu_06"]
        assert "Read-only file system" in results["toolu_07"], results["toolu_07"]
    assert "destructive-command" in results["toolu_09"]
    assert "intent-ls approve" in results["toolu_09"] and (ws / "src" / "app.py").exists()
    assert "Exit Code: 0" in results["toolu_10"], results["toolu_10"]
    assert (ws / "src" / "tested.txt").read_text() == "ok"
    assert "Exit Code: 3" in results["toolu_11"] and not (ws / "docs/sneak.md").exists()
    assert "docs/sneak.md: out-of-scope, removed" in results["toolu_11"]
    # Judged by the files on disk afterwards, the detached child's time included.
    subprocess.run(["sleep", "2"], check=True)
    assert spec_text(ws) == SPEC
    assert (ws / ".qwen" / "settings.json").read_text() == settings
    assert (ws / "src" / "app.py").read_text() == APP.replace("return 2", "return 3")
    recorded = {r["files"][0]["path"]: r for r in records(ws)}
    for path in ("src/app.py", "src/tested.txt"):
        contributor = recorded[path]["files"][0]["conversations"][0]["contributor"]
        assert contributor == {"model_id": MODEL, "type": "ai"}, recorded[path]
        assert recorded[path]["metadata"]["intent_ls"]["intent_id"] == "INT-APP"
    check = subprocess.run(
        [sys.executable, "-m", "intent_ls", "check", "--workspace", str(ws), "--base", "HEAD"],
        capture_output=True, text=True, env={**os.environ, "PATH": agent_path}, check=False,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
