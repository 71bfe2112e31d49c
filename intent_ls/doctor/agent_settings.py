"""The three agents as doctor sees them: which files set each up in a workspace, the
hook events and tools intent-ls needs there, the answers its hooks must give, and the
switches on the agent's side that intent-ls cannot flip."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.install import CLAUDE_EVENTS, CODEX_EVENTS, GEMINI_EVENTS

#: A destructive command that writes no file: every agent's hook holds it for a human.
HELD_COMMAND = "git reset --hard"
#: Seconds an agent gives a hook whose entry names no timeout.
DEFAULT_TIMEOUT_S = 60.0


@attrs.frozen
class Agent:
    name: str
    label: str
    hooks_file: str
    #: Hook event -> the matcher ``hooks install`` writes (None: every tool).
    events: Mapping[str, str | None]
    #: Hook event -> the tools its matcher must reach for intent-ls to see them.
    tools: Mapping[str, tuple[str, ...]]
    gate: str
    write_tool: str
    shell_tool: str
    #: The answer its hook gives a destructive command (Codex ignores ``ask``).
    held: str
    #: A hook entry's ``timeout`` in seconds per unit.
    timeout_unit: float
    #: Files whose presence shows the agent is used in this workspace.
    used_here: tuple[str, ...]
    #: The agent-side switches intent-ls cannot flip, as what to check.
    trust: tuple[tuple[str, str], ...]


CLAUDE = Agent(
    "claude-code",
    "Claude Code",
    ".claude/settings.json",
    CLAUDE_EVENTS,
    {
        "PreToolUse": (
            "Write",
            "Edit",
            "NotebookEdit",
            "Bash",
            f"mcp__{MCP_SERVER}__select_active_intent",
        ),
        "PostToolUse": ("Write", "Edit", "NotebookEdit", "Bash", "Read"),
    },
    "PreToolUse",
    "Write",
    "Bash",
    "ask",
    1.0,
    (".claude", ".mcp.json"),
    (
        (
            "folder trust",
            "an interactive session runs this folder's hooks only once you trust the folder "
            "(Claude Code asks at the first start here); `claude -p` runs them regardless.",
        ),
        (
            "MCP approval",
            "approve the project MCP server intent-ls from .mcp.json once when Claude Code "
            "asks; `/mcp` then shows it connected and `/hooks` lists the intent-ls hooks.",
        ),
    ),
)
CODEX = Agent(
    "codex",
    "Codex CLI",
    ".codex/hooks.json",
    CODEX_EVENTS,
    {
        "PreToolUse": ("apply_patch", "Bash", "mcp__intent_ls__select_active_intent"),
        "PostToolUse": ("apply_patch", "Bash"),
    },
    "PreToolUse",
    "apply_patch",
    "Bash",
    "deny",
    1.0,
    (".codex",),
    (
        (
            "hook trust",
            "Codex skips project hooks it was not told to trust, silently: review and trust "
            "them once with /hooks in the Codex TUI (again after they change).",
        ),
        (
            "project trust",
            "Codex reads .codex/config.toml only in a trusted project: trust it when Codex "
            'asks, or set [projects."<this folder>"] trust_level = "trusted" in '
            "~/.codex/config.toml.",
        ),
    ),
)
GEMINI = Agent(
    "gemini",
    "Gemini CLI",
    ".gemini/settings.json",
    GEMINI_EVENTS,
    {
        "BeforeTool": (
            "write_file",
            "replace",
            "run_shell_command",
            f"mcp_{MCP_SERVER}_select_active_intent",
        ),
        "AfterTool": ("write_file", "replace", "run_shell_command", "read_file"),
    },
    "BeforeTool",
    "write_file",
    "run_shell_command",
    "ask",
    0.001,
    (".gemini",),
    (
        (
            "folder trust",
            "Gemini CLI runs project hooks only in a trusted folder: trust this folder when "
            "it asks (/permissions), and accept its warning listing the project hooks.",
        ),
    ),
)
AGENTS = (CLAUDE, CODEX, GEMINI)
CODEX_CONFIG = ".codex/config.toml"


def used_here(agent: Agent, root: Path) -> bool:
    return any((root / rel).exists() for rel in agent.used_here)


def load_json(path: Path) -> dict[str, Any] | str:
    """The settings object, {} when the file is absent, or why it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        return f"{path.name} cannot be read ({exc})."
    try:
        data = json.loads(text or "{}")
    except ValueError as exc:
        return f"{path.name} is not valid JSON ({exc}): the agent ignores it."
    return data if isinstance(data, dict) else f"{path.name} does not hold a JSON object."


def load_toml(path: Path) -> dict[str, Any] | str:
    """The TOML table, {} when the file is absent, or why it cannot be read."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return f"{path} cannot be read ({exc})."


def user_file(variable: str, default: str, *parts: str) -> Path:
    """An agent's user-level file: under the folder ``variable`` names, else ``default``
    in the home folder."""
    return Path(os.environ.get(variable) or os.path.expanduser(default), *parts)


def own_env(entry: dict[str, Any]) -> list[str]:
    """The variables an entry sets for its command: a way to run other code in an
    intent-ls process (``PYTHONSTARTUP``, ``LD_PRELOAD``), so doctor runs none of them."""
    extra = entry.get("env")
    return sorted(str(k) for k in extra) if isinstance(extra, dict) else []
