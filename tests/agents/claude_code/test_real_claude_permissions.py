"""Claude Code's own permissions, with and without intent-ls (the real CLI, offline).

intent-ls confines Claude Code's shell commands through ``CLAUDE_CODE_SHELL_PREFIX``
instead of rewriting them, so Claude Code checks its permissions on the command the
model wrote: in its default and ``acceptEdits`` modes, the same commands run without
asking and the same are refused (``-p`` cannot ask), showing the agent's own command,
as in the same workspace before ``intent-ls hooks install claude-code`` (where
intent-ls refuses first, the refusal says its own reason).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.agents.real_cli import (
    CLAUDE,
    CLAUDES,
    DEV_COMMANDS,
    claude_env,
    developer_workspace,
    install_hooks,
    missing,
    run_claude,
)
from tests.agents.scripted_model import ScriptedModel, result_text, serve, tool

pytestmark = pytest.mark.skipif(CLAUDE is None, reason=missing("Claude Code"))

#: What a developer's session runs: reads and an allowed ``npm test`` (no prompt), and
#: commands Claude Code asks about (refused in ``-p``).
COMMANDS = (
    *DEV_COMMANDS,
    "curl -s http://127.0.0.1:9/",
    "cd src && pwd",
    "pwd",
)


def _workspace(tmp_path: Path, name: str, governed: Path) -> Path:
    root = developer_workspace(tmp_path, name, governed)
    (root / ".claude").mkdir(exist_ok=True)
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(npm test:*)"]}})
    )
    return root


def _session(
    claude: str, root: Path, tmp_path: Path, path: str, mode: str
) -> list[tuple[bool, str]]:
    """Each command's (refused, output) in one ``claude -p`` session in ``mode``."""
    home = tmp_path / f"home-{root.name}"
    home.mkdir()
    trusted = {"projects": {str(root): {"hasTrustDialogAccepted": True}}}
    (home / ".claude.json").write_text(json.dumps(trusted))
    model = ScriptedModel([tool(n, "Bash", command=c) for n, c in enumerate(COMMANDS)])
    with serve(model) as url:
        flags = [] if mode == "default" else ["--permission-mode", mode]
        done = subprocess.run(
            [claude, "-p", "do the task", *flags, "--output-format", "json"],
            cwd=root, env=claude_env(home, url, path), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    denials: list[dict[str, Any]] = json.loads(done.stdout).get("permission_denials", [])
    for denial in denials:  # the human is shown the agent's own command, no wrapper
        assert denial["tool_input"]["command"] in COMMANDS, denial
    refused = {d["tool_use_id"] for d in denials}
    out = []
    for block in model.tool_results():
        text = result_text(block).replace(str(root), "ROOT")
        out.append((block["tool_use_id"] in refused, text))
    return out


@pytest.mark.parametrize("claude", CLAUDES)
@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
def test_the_agents_permissions_are_as_without_intent_ls(
    governed: Path, tmp_path: Path, agent_path: str, mode: str, claude: str
) -> None:
    plain = _workspace(tmp_path, "plain", governed)
    ours = _workspace(tmp_path, "ours", governed)
    install_hooks("claude-code", ours, agent_path)
    settings = json.loads((ours / ".claude" / "settings.json").read_text())
    assert "intent-ls-sandbox" in settings["env"]["CLAUDE_CODE_SHELL_PREFIX"]
    assert settings["permissions"] == {"allow": ["Bash(npm test:*)"]}  # kept

    before = _session(claude, plain, tmp_path, agent_path, mode)
    after = _session(claude, ours, tmp_path, agent_path, mode)
    assert len(before) == len(after) == len(COMMANDS)
    by_command = dict(zip(COMMANDS, after, strict=True))
    for command in ("ls src", "git diff", "npm test", "cd src && pwd", "pwd"):
        assert not by_command[command][0], (command, by_command[command])
    assert "app.py" in by_command["ls src"][1]
    assert "npm-tested" in by_command["npm test"][1]
    assert by_command["pwd"][1].strip() == "ROOT/src"  # a cd carries over
    # Claude Code refuses the same commands; intent-ls adds its own refusals (a write
    # with no intent selected, decided before Claude Code asks), each saying so (the
    # newest release shows it after "PreToolUse:Bash hook error: ").
    ours_only = {c for c, (_, t) in zip(COMMANDS, after, strict=True) if "[intent-ls]" in t}
    assert ours_only <= {"touch src/new.py"}, ours_only
    for command, (was, _), (now, _) in zip(COMMANDS, before, after, strict=True):
        if command not in ours_only:
            assert was == now, (command, after)
    # The same output (``git status`` lists the files the install added).
    for (refused, was), (_, now), command in zip(before, after, COMMANDS, strict=True):
        if not refused and command not in ours_only | {"git status --short"}:
            assert was == now, (command, after)


@pytest.mark.parametrize("claude", CLAUDES)
def test_a_hook_that_cannot_start_blocks_where_claude_code_can(
    governed: Path, tmp_path: Path, agent_path: str, claude: str
) -> None:
    """``onFailure: "block"`` on each hook: from 2.1.295 on, a hook that cannot start
    blocks the tool call; before it, the field is ignored and the call goes ahead (the
    limit docs/agents.md names; the shell command still runs in the sandbox)."""
    install_hooks("claude-code", governed, agent_path)
    settings_path = governed / ".claude" / "settings.json"
    settings = json.loads(settings_path.read_text())
    for entries in settings["hooks"].values():
        for entry in entries:
            for hook in entry["hooks"]:
                assert hook["onFailure"] == "block"
                hook["command"] = "intent-ls-missing hook claude-code"
    settings_path.write_text(json.dumps(settings))
    model = ScriptedModel(
        [tool(1, "Write", file_path=str(governed / "src/fresh.py"), content="x\n"), "finished"]
    )
    run_claude(governed, tmp_path, model, agent_path, claude=claude)
    results = model.tool_results()
    version = subprocess.run([claude, "--version"], capture_output=True, text=True, check=False)
    numbers = tuple(int(n) for n in version.stdout.split()[0].split("."))
    if numbers >= (2, 1, 295):  # the write is refused, or the session stops before it
        assert all(r.get("is_error") for r in results), results
        assert not (governed / "src" / "fresh.py").exists()
    else:
        assert (governed / "src" / "fresh.py").exists()
