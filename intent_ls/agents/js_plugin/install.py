"""``intent-ls hooks install NAME`` for an agent that loads the shipped plugin: the
plugin, with the command that runs ``intent-ls hook NAME`` written into it, in the
agent's project plugin folder (the profile's ``hooks_file``), and intent-ls's MCP
server in its project config (``mcp``: a local command).

The command is the absolute path of the ``intent-ls`` the agent's PATH finds now: the
plugin runs inside the agent, whose PATH may differ (a desktop launcher, another
shell), and a command that cannot start is a refusal of every tool.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intent_ls.agents import MCP_SERVER
from intent_ls.agents.install import (
    TIMEOUT_S,
    InstallError,
    load_json,
    program,
    save_json,
    set_server_in,
)

if TYPE_CHECKING:
    from intent_ls.agents.profile import AgentProfile

#: The first line of every plugin intent-ls writes: how uninstall knows the file is ours.
MARK = "// intent-ls: "
_COMMAND = re.compile(r"^const COMMAND = (.*)$", re.MULTILINE)


def template() -> str:
    return resources.files(__package__).joinpath("plugin.js").read_text(encoding="utf-8")


def plugin_text(command: list[str]) -> str:
    """The plugin as installed: the template with the hook's command and timeout."""
    text = template().replace("__TIMEOUT_MS__", str(TIMEOUT_S * 1000), 1)
    return text.replace("__COMMAND__", json.dumps(command), 1)


def command_in(text: str) -> list[str] | None:
    """The command an installed plugin runs; None when it names none that it could run."""
    found = _COMMAND.search(text)
    try:
        command = json.loads(found.group(1)) if found else None
    except ValueError:
        return None
    if not isinstance(command, list) or not command or not all(isinstance(w, str) for w in command):
        return None
    return command


def hook_program() -> str:
    """The ``intent-ls`` the agent should run, as an absolute path where one is found."""
    found = shutil.which("intent-ls")
    if found:
        return os.path.abspath(found)
    return program()


def _write_plugin(path: Path, text: str | None, changes: list[str]) -> None:
    """Writes (or, for None, removes) the plugin; a file there that intent-ls did not
    write is left alone."""
    old = path.read_text(encoding="utf-8") if path.is_file() else None
    if old is not None and not old.startswith(MARK):
        raise InstallError(f"{path} is not a plugin intent-ls wrote; move it away first")
    if old == text:
        return
    if text is None:
        path.unlink()
        changes.append(f"removed {path}")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    changes.append(f"{'updated' if old is not None else 'created'} {path}: the intent-ls plugin")


def server_entry(command: str) -> dict[str, Any]:
    return {"type": "local", "command": [command, "mcp"], "enabled": True}


def install(
    root: Path, profile: AgentProfile, config: str, schema: str, uninstall: bool
) -> list[str]:
    """The plugin in ``profile.hooks_file`` and the MCP server in ``config`` (both
    relative to the workspace); the changes made. A config that names no ``$schema``
    gets the agent's own (``schema``): the agent writes it into the file when it starts
    otherwise."""
    changes: list[str] = []
    command = hook_program()
    path = root / config
    settings = load_json(path)
    text = None if uninstall else plugin_text([command, "hook", profile.name])
    _write_plugin(root / profile.hooks_file, text, changes)
    if set_server_in(settings, "mcp", path, server_entry(command), uninstall):
        if not uninstall:
            settings = {"$schema": schema, **settings}
        save_json(path, settings, changes, f"MCP server {MCP_SERVER}")
    return changes
