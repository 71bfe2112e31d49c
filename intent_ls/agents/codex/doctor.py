"""Codex CLI's side of ``intent-ls doctor``: the ``[features] hooks`` switch, where its
MCP server is configured, and the probe's write as a patch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents.codex.profile import CONFIG
from intent_ls.agents.doctor_facts import DoctorFacts, Finding
from intent_ls.agents.settings_files import load_toml, server_in, user_file


def invocation(
    hook: dict[str, Any], project: Path, session: str
) -> tuple[str | list[str], dict[str, str]]:
    """Through ``bash -c`` in the project folder, nothing set."""
    line = hook.get("command") if isinstance(hook.get("command"), str) else ""
    return line, {}


def switches(root: Path, settings: dict[str, Any], hook: Any) -> list[Finding]:
    project = load_toml(root / CONFIG)
    if isinstance(project, str):
        return [Finding("fail", project, f"fix {CONFIG}.")]
    user = load_toml(user_file("CODEX_HOME", "~/.codex", "config.toml"))
    values = [
        t.get("features", {}).get("hooks")
        for t in (project, user)
        if isinstance(t, dict) and isinstance(t.get("features"), dict)
    ]
    if not values or values[0] is not True:
        return [
            Finding(
                "fail",
                f"{CONFIG} does not set `[features] hooks = true`: Codex runs no hooks.",
                "run `intent-ls hooks install codex`.",
            )
        ]
    return [Finding("ok", f"{CONFIG}: `[features] hooks = true`.")]


def mcp_entry(root: Path, settings: dict[str, Any]) -> tuple[str, Any]:
    return server_in(CONFIG, load_toml(root / CONFIG), "mcp_servers")


def write_args(project: Path, rel: str, text: str) -> dict[str, Any]:
    return {"command": f"*** Begin Patch\n*** Add File: {rel}\n+{text}*** End Patch\n"}


FACTS = DoctorFacts(
    tools={
        "PreToolUse": ("apply_patch", "Bash", "mcp__intent_ls__select_active_intent"),
        "PostToolUse": ("apply_patch", "Bash"),
    },
    write_tool="apply_patch",
    shell_tool="Bash",
    held="deny",
    used_here=(".codex",),
    trust=(
        (
            "hook trust",
            "Codex skips project hooks it was not told to trust, silently: review and "
            "trust them once with /hooks in the Codex TUI (again after they change).",
        ),
        (
            "project trust",
            "Codex reads .codex/config.toml only in a trusted project: trust it when "
            'Codex asks, or set [projects."<this folder>"] trust_level = "trusted" in '
            "~/.codex/config.toml.",
        ),
    ),
    invocation=invocation,
    switches=switches,
    mcp_entry=mcp_entry,
    write_args=write_args,
    payload_extra={"model": "intent-ls-doctor"},
)
