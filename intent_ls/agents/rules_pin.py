"""The agents' own rule files, pinned when the session starts: changed since, they decide
nothing for a command.

A profile's ``own_rule`` and ``user_rules`` leave a command as written (outside the
write barrier) or allow it because a rule file of the agent's says so: Codex's
``rules/*.rules``, Gemini CLI's policy files and the settings that name them
(``policyPaths``), Claude Code's settings. The agent's own commands can write most of
them (``~/.codex/rules/dev.rules`` is the user's, not the workspace's), so a rule added
during the session would be one the agent wrote for itself. The digest of every file a
profile's ``rule_files`` names (absent ones included: a new file is a change) is kept
in the session's state at its first event, a protected path; a later event whose digest
differs treats the command as no rule allowed it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from intent_ls.agents import sessions

if TYPE_CHECKING:
    from intent_ls.agents.events import HookEvent
    from intent_ls.agents.profile import AgentProfile

#: Session-state key: the digest of the agent's rule files at the session's start.
PINNED = "ruleFiles"
_MAX_FILE = 1024 * 1024


def digest(paths: Iterable[Path]) -> str:
    """One digest of the files' names and contents, an absent or unreadable file as such."""
    from intent_ls.common.safe_io import read_regular

    whole = hashlib.sha256()
    for path in paths:
        try:
            content = hashlib.sha256(read_regular(path, _MAX_FILE, follow=True)).hexdigest()
        except (OSError, ValueError):
            content = "-"
        whole.update(f"{path}\0{content}\n".encode("utf-8", "surrogateescape"))
    return whole.hexdigest()


def unchanged(root: Path, event: HookEvent, profile: AgentProfile, project: Path) -> bool:
    """Whether the agent's rule files are as this session first saw them (pinned now
    when this is the session's first look)."""
    if profile.rule_files is None:
        return True
    now = digest(profile.rule_files(project))
    known = sessions.read_state(root, event.agent, event.session_id).get(PINNED)
    if isinstance(known, str):
        return known == now
    with sessions.updating(root, event.agent, event.session_id) as state:
        pinned = state.setdefault(PINNED, now)
    return pinned == now


def changed_note(profile: AgentProfile, command: str) -> str:
    """What the human (or, where the agent cannot ask, the model) is told when a rule file
    changed since the session started and a rule in it would have decided ``command``."""
    return (
        f"[intent-ls] {profile.label}'s own rule files changed since this session started, "
        "so none of them decides for this session (an agent may have written them). "
        f"Without them the agent would ask before: {command}"
    )
