"""A hook run by another agent than the one it was installed for.

Some agents read other agents' project settings and run their hooks (a profile's
``runs_hooks_of``): the payload is then the host's, in the format both share, with the
host's tools and arguments, which the installed agent's adapter would misread (a write
tool whose path is under another key is refused, a shell command it would not confine
runs unconfined). So such a hook answers as the host: when the host's own intent-ls hook
is installed in the workspace too, that one has judged the call and this one stays out
of it (no second judgement, no second record); else it judges the call as the host's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intent_ls.agents import registry

if TYPE_CHECKING:
    from intent_ls.agents.profile import AgentProfile


def host_of(profile: AgentProfile, environ: Mapping[str, str]) -> AgentProfile | None:
    """The agent running this hook, when it is another one that runs ``profile``'s
    hooks (its marker is in the hook's environment)."""
    for other in registry.profiles():
        marker = other.hook_marker
        if profile.name in other.runs_hooks_of and marker and environ.get(marker):
            return other
    return None


def governed_by_own_hook(host: AgentProfile, payload: dict[str, Any]) -> bool:
    """Whether the host's own intent-ls hook is installed on its gate event in the
    project it runs in."""
    from intent_ls.agents.install import is_ours

    cwd = payload.get("cwd")
    project = host.project_dir(os.environ) or (cwd if isinstance(cwd, str) else "")
    if not project:
        return False
    try:
        settings = json.loads((Path(project) / host.hooks_file).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    entries = hooks.get(host.gate_event) if isinstance(hooks, dict) else None
    return isinstance(entries, list) and any(is_ours(entry) for entry in entries)
