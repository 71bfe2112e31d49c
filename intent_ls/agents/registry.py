"""The one list of coding agents intent-ls governs: the only module outside an agent's
own folder that names one (tests/core/test_architecture.py holds every other to it).

Each built-in agent is a folder, ``intent_ls/agents/<folder>/``, whose ``profile``
module holds its :class:`~intent_ls.agents.profile.AgentProfile` as ``PROFILE``. Only
the names are read eagerly (``intent-ls hook`` checks its argument against them before
anything else); a profile module is imported the first time it is asked for.
:func:`register` adds an agent from outside the package (a test's toy agent).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from intent_ls.agents.profile import AgentProfile

#: Agent name (as the CLI spells it) -> its folder under intent_ls/agents/.
BUILT_IN = {
    "claude-code": "claude_code",
    "codex": "codex",
    "gemini": "gemini",
    "copilot": "copilot",
    "qwen": "qwen",
    "opencode": "opencode",
    "kilo": "kilo",
}
_loaded: dict[str, AgentProfile] = {}
_added: dict[str, AgentProfile] = {}


def names() -> tuple[str, ...]:
    """Every agent, as ``intent-ls hook`` and ``hooks install`` name them."""
    return (*BUILT_IN, *_added)


def get(name: str) -> AgentProfile:
    """The agent's profile; KeyError for a name no agent has."""
    if name in _added:
        return _added[name]
    if name not in _loaded:
        module = importlib.import_module(f"intent_ls.agents.{BUILT_IN[name]}.profile")
        _loaded[name] = module.PROFILE
    return _loaded[name]


def profiles() -> tuple[AgentProfile, ...]:
    return tuple(get(name) for name in names())


def register(profile: AgentProfile) -> None:
    """Adds (or replaces) an agent that lives outside this package."""
    if profile.name in BUILT_IN:
        raise ValueError(f"{profile.name} is a built-in agent")
    _added[profile.name] = profile


def unregister(name: str) -> None:
    _added.pop(name, None)


def env_markers() -> tuple[str, ...]:
    """Every agent's shell-environment markers, in registry order."""
    return tuple(marker for p in profiles() for marker in p.env_markers)
