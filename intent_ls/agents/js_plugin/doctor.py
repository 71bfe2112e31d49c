"""What ``intent-ls doctor`` checks of an agent that loads the shipped plugin.

The plugin is code inside the agent, so doctor proves two things instead of one: the
file in the agent's plugin folder is exactly the plugin intent-ls ships (with the
command ``hooks install`` wrote into it), and that command — ``intent-ls hook NAME``,
the door every agent's hooks use — fires: run as the plugin runs it (no shell), it
refuses a synthetic write and holds a destructive command. The plugin's hooks are
handed to doctor as the command-hook entries they amount to (:func:`installed_hooks`).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intent_ls.agents.doctor_facts import DoctorFacts, Finding
from intent_ls.agents.install import TIMEOUT_S
from intent_ls.agents.js_plugin.install import command_in, plugin_text
from intent_ls.agents.settings_files import load_json, server_in

if TYPE_CHECKING:
    from intent_ls.agents.profile import AgentProfile


def installed_hooks(profile: AgentProfile, root: Path) -> dict[str, Any] | str:
    """The plugin's hooks as settings with ``hooks`` (one command hook per event; none
    when the plugin is missing), or why they cannot be trusted: the plugin is unreadable,
    or not the one intent-ls ships."""
    where = profile.hooks_file
    try:
        text = (root / where).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}  # no hooks: doctor names the missing plugin
    except (OSError, UnicodeDecodeError) as exc:
        return f"{where} cannot be read ({exc})."
    command = command_in(text)
    if command is None or text != plugin_text(command):
        return (
            f"{where} is not the plugin this intent-ls ships (changed since `intent-ls hooks "
            f"install {profile.name}`, or written by another version): what it does with "
            "a tool call is unknown."
        )
    hook = {"type": "command", "command": shlex.join(command), "timeout": TIMEOUT_S}
    return {"hooks": {event: [{"hooks": [hook]}] for event in profile.events}}


def invocation(
    hook: dict[str, Any], project: Path, session: str
) -> tuple[str | list[str], dict[str, str]]:
    """Without a shell, in the project folder, as the plugin spawns it."""
    line = hook.get("command")
    return (shlex.split(line) if isinstance(line, str) else []), {}


def mcp_entry(config: str, root: Path) -> tuple[str, Any]:
    """intent-ls's ``mcp`` entry in the agent's project config, as a command and its
    arguments."""
    where, entry = server_in(config, load_json(root / config), "mcp")
    if not isinstance(entry, dict):
        return where, entry
    if entry.get("enabled") is False:
        return where, f"{config} disables the MCP server intent-ls (`enabled: false`)."
    command = entry.get("command")
    if not isinstance(command, list) or not command or entry.get("type") != "local":
        return where, None
    found = {"command": command[0], "args": command[1:]}
    if entry.get("environment"):
        found["env"] = entry["environment"]
    return where, found


Switches = Callable[[Path, dict[str, Any], Any], list[Finding]]


def env_switches(variables: tuple[str, ...]) -> Switches:
    """Variables that make the agent load no project plugin, when this shell sets them."""

    def switches(root: Path, settings: dict[str, Any], hook: Any) -> list[Finding]:
        found = [v for v in variables if os.environ.get(v) not in (None, "", "0", "false")]
        if not found:
            return []
        return [
            Finding(
                "fail",
                f"{', '.join(found)} is set here: the agent loads no project plugin, so "
                "runs without intent-ls.",
                f"unset {', '.join(found)}.",
            )
        ]

    return switches


def write_args(project: Path, rel: str, text: str) -> dict[str, Any]:
    return {"filePath": str(project / rel), "content": text}


def facts(
    profile: AgentProfile,
    config: str,
    switches: tuple[str, ...],
    trust: tuple[tuple[str, str], ...],
) -> DoctorFacts:
    """An agent's doctor facts: its plugin in ``profile.hooks_file``, its MCP server in
    ``config``, the variables that switch its project plugins off."""
    every = ("write", "edit", "bash", "apply_patch")
    return DoctorFacts(
        tools={"PreToolUse": every, "PostToolUse": every},
        write_tool="write",
        shell_tool="bash",
        held="deny",
        used_here=(os.path.dirname(profile.hooks_file).split("/")[0], config),
        trust=trust,
        invocation=invocation,
        switches=env_switches(switches),
        mcp_entry=lambda root, settings: mcp_entry(config, root),
        write_args=write_args,
        settings=lambda root: installed_hooks(profile, root),
    )
