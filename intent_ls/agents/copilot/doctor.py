"""GitHub Copilot CLI's side of ``intent-ls doctor``: how it runs a hook, the settings that
switch hooks off, where its MCP server is configured, and what its hooks cannot hold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.copilot.profile import MCP_FILE
from intent_ls.agents.doctor_facts import DoctorFacts, Finding
from intent_ls.agents.settings_files import load_json, server_in, user_file

#: Set to the project folder in every hook's environment.
PROJECT_VARS = ("COPILOT_PROJECT_DIR", "CLAUDE_PROJECT_DIR")


def invocation(
    hook: dict[str, Any], project: Path, session: str
) -> tuple[str | list[str], dict[str, str]]:
    """Through ``bash -c`` in the project folder, with its project variables set and
    ``COPILOT_CLI=1``."""
    line = hook.get("command") if isinstance(hook.get("command"), str) else ""
    return line, {**dict.fromkeys(PROJECT_VARS, str(project)), "COPILOT_CLI": "1"}


def _settings_files(root: Path) -> list[Path]:
    """The files whose ``disableAllHooks`` turns hooks off: the repository's hook files
    and settings, and the user's."""
    hooks = sorted((root / ".github/hooks").glob("*.json"))
    user = user_file("COPILOT_HOME", "~/.copilot")
    return [
        *hooks,
        root / ".github/copilot/settings.json",
        root / ".github/copilot/settings.local.json",
        user / "settings.json",
        user / "config.json",
    ]


def _switched_off(root: Path) -> list[Finding]:
    for path in _settings_files(root):
        loaded = load_json(path)
        if isinstance(loaded, dict) and loaded.get("disableAllHooks") is True:
            return [
                Finding(
                    "fail",
                    f"{path} sets `disableAllHooks`: Copilot CLI runs no hook from it.",
                    f"remove `disableAllHooks` from {path}.",
                )
            ]
    return []


#: What Copilot CLI's hooks cannot hold, stated on every doctor run that finds them.
FAILS_OPEN = Finding(
    "note",
    "Copilot CLI lets the tool run when a hook times out or prints something that is not "
    "JSON (a hook that exits non-zero or cannot start denies it): intent-ls's hook "
    "answers before its timeout and prints only JSON, and every shell command runs in "
    "the sandbox, verified after it ran.",
)


def switches(root: Path, settings: dict[str, Any], hook: Any) -> list[Finding]:
    return _switched_off(root) or [FAILS_OPEN]


def mcp_entry(root: Path, settings: dict[str, Any]) -> tuple[str, Any]:
    return server_in(MCP_FILE, load_json(root / MCP_FILE), "mcpServers")


def write_args(project: Path, rel: str, text: str) -> dict[str, Any]:
    """Its ``create`` tool names the file ``path`` and the text ``file_text``."""
    return {"path": str(project / rel), "file_text": text}


#: Tools standing for "every tool": effects are judged after each (issue 28).
EVERY_TOOL = ("task", "github-mcp-server-create_or_update_file")

FACTS = DoctorFacts(
    tools={
        "PreToolUse": ("Write", "Edit", "Bash", f"{MCP_SERVER}-select_active_intent", *EVERY_TOOL),
        "PostToolUse": ("Write", "Edit", "Bash", "Read", *EVERY_TOOL),
        "PostToolUseFailure": ("Write", "Edit", "Bash", *EVERY_TOOL),
    },
    write_tool="Write",
    shell_tool="Bash",
    held="ask",
    used_here=(".github/hooks", ".github/copilot", MCP_FILE),
    trust=(
        (
            "folder trust",
            "Copilot CLI loads a repository's hooks (.github/hooks) and MCP servers only in "
            "a folder you trusted: interactively it asks at the first start here; `copilot "
            "-p` needs the folder trusted before, or `--trust-folder` for one run "
            "(COPILOT_ALLOW_ALL=true trusts it too). An untrusted folder runs no intent-ls "
            "hook at all.",
        ),
        (
            "headless permissions",
            "in `copilot -p` a tool runs only if `--allow-tool`/`--allow-all` allows it, and "
            "Copilot checks a shell command as the hook rewrote it into the sandbox (it "
            "names intent-ls's interpreter, outside the folder): under narrow "
            "`--allow-tool='shell(…)'` rules or `--allow-all-tools` alone shell commands are "
            "refused; run it with `--allow-all` (the hooks still deny, hold and sandbox).",
        ),
    ),
    invocation=invocation,
    switches=switches,
    mcp_entry=mcp_entry,
    write_args=write_args,
)
