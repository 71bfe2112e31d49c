"""The agents as doctor sees them: their profiles (:mod:`intent_ls.agents.registry`),
whether each is set up in a workspace, and what doctor runs nothing of."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents.doctor_facts import Finding
from intent_ls.agents.profile import AgentProfile
from intent_ls.doctor.report import Check, fail, note, ok

#: A destructive command that writes no file: every agent's hook holds it for a human.
HELD_COMMAND = "git reset --hard"
#: Seconds an agent gives a hook whose entry names no timeout.
DEFAULT_TIMEOUT_S = 60.0


def used_here(agent: AgentProfile, root: Path) -> bool:
    return any((root / rel).exists() for rel in agent.doctor.used_here)


def own_env(entry: dict[str, Any]) -> list[str]:
    """The variables an entry sets for its command: a way to run other code in an
    intent-ls process (``PYTHONSTARTUP``, ``LD_PRELOAD``), so doctor runs none of them."""
    extra = entry.get("env")
    return sorted(str(k) for k in extra) if isinstance(extra, dict) else []


def as_checks(area: str, name: str, findings: list[Finding]) -> list[Check]:
    """An agent's own findings (plain data from its folder) as report lines."""
    made = {
        "ok": lambda f: ok(area, name, f.text),
        "fail": lambda f: fail(area, name, f.text, f.fix),
        "note": lambda f: note(area, name, f.text, f.fix),
    }
    return [made[f.status](f) for f in findings]
