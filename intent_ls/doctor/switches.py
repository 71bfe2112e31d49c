"""Settings that keep an agent from running any hook, or intent-ls's, where the
workspace and the user's home show them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.doctor.agent_settings import (
    CLAUDE,
    CODEX_CONFIG,
    GEMINI,
    Agent,
    load_json,
    load_toml,
    user_file,
)
from intent_ls.doctor.report import Check, fail, ok


def switched_off(agent: Agent, root: Path, settings: dict[str, Any], hook: Any) -> list[Check]:
    """Settings that keep the agent from running any hook, or this one, where the
    workspace and the user's home show them."""
    area, name = agent.name, "enabled"
    if agent is CLAUDE:
        for path in (
            root / ".claude/settings.json",
            root / ".claude/settings.local.json",
            user_file("CLAUDE_CONFIG_DIR", "~/.claude", "settings.json"),
        ):
            loaded = load_json(path)
            if isinstance(loaded, dict) and loaded.get("disableAllHooks") is True:
                return [
                    fail(
                        area,
                        name,
                        f"{path} sets `disableAllHooks`: Claude Code runs no hook.",
                        f"remove `disableAllHooks` from {path}.",
                    )
                ]
        return []
    if agent is GEMINI:
        hook_name = hook.get("name") or hook.get("command") if isinstance(hook, dict) else None
        user = user_file("GEMINI_CLI_HOME", "~", ".gemini", "settings.json")
        for path, loaded in ((root / agent.hooks_file, settings), (user, load_json(user))):
            config = loaded.get("hooksConfig") if isinstance(loaded, dict) else None
            if not isinstance(config, dict):
                continue
            if config.get("enabled") is False:
                return [
                    fail(
                        area,
                        name,
                        f"{path} sets `hooksConfig.enabled` to false: Gemini CLI runs no hook.",
                        f"remove it from {path}.",
                    )
                ]
            disabled = config.get("disabled")
            if hook_name and isinstance(disabled, list) and hook_name in disabled:
                return [
                    fail(
                        area,
                        name,
                        f"{path} lists the intent-ls hook in `hooksConfig.disabled`.",
                        f"remove it from that list in {path}.",
                    )
                ]
        return []
    project = load_toml(root / CODEX_CONFIG)
    if isinstance(project, str):
        return [fail(area, name, project, f"fix {CODEX_CONFIG}.")]
    user = load_toml(user_file("CODEX_HOME", "~/.codex", "config.toml"))
    values = [
        t.get("features", {}).get("hooks")
        for t in (project, user)
        if isinstance(t, dict) and isinstance(t.get("features"), dict)
    ]
    if not values or values[0] is not True:
        return [
            fail(
                area,
                name,
                f"{CODEX_CONFIG} does not set `[features] hooks = true`: Codex runs no hooks.",
                f"run `intent-ls hooks install {agent.name}`.",
            )
        ]
    return [ok(area, name, f"{CODEX_CONFIG}: `[features] hooks = true`.")]
