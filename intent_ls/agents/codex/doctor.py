"""Codex CLI's side of ``intent-ls doctor``: the ``[features] hooks`` switch, where its
MCP server is configured, and the probe's write as a patch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.codex.profile import CONFIG
from intent_ls.agents.profile import Finding
from intent_ls.agents.settings_files import load_toml, user_file


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
    config = load_toml(root / CONFIG)
    if isinstance(config, str):
        return CONFIG, config
    servers = config.get("mcp_servers")
    return CONFIG, servers.get(MCP_SERVER) if isinstance(servers, dict) else None


def write_args(project: Path, rel: str, text: str) -> dict[str, Any]:
    return {"command": f"*** Begin Patch\n*** Add File: {rel}\n+{text}*** End Patch\n"}
