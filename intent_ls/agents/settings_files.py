"""Reading an agent's settings files the way a check must: an absent file is empty
settings, and one that cannot be read says why, never raises. Shared by the agents'
doctor checks (``agents/<name>/doctor.py``) and the ``doctor`` package that drives them.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any


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


def server_entry(servers: Any) -> Any:
    """intent-ls's entry in an agent's table of MCP servers (None when it has none)."""
    from intent_ls.agents import MCP_SERVER

    return servers.get(MCP_SERVER) if isinstance(servers, dict) else None


def server_in(where: str, loaded: dict[str, Any] | str, key: str) -> tuple[str, Any]:
    """(where, intent-ls's MCP server entry under ``key`` of loaded settings, or why the
    settings cannot be read)."""
    if isinstance(loaded, str):
        return where, loaded
    return where, server_entry(loaded.get(key))
