"""Runs every check family against one workspace, and proves the probes changed nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from intent_ls.agents import registry
from intent_ls.doctor import probe
from intent_ls.doctor.agent_settings import used_here
from intent_ls.doctor.agents import check_agent
from intent_ls.doctor.background import check_background
from intent_ls.doctor.editors import check_editors
from intent_ls.doctor.ledger import check_ledger
from intent_ls.doctor.report import Check, fail, note
from intent_ls.doctor.sandbox import check_sandbox
from intent_ls.doctor.spec import check_spec


def run_doctor(root: Path) -> list[Check]:
    before = probe.fingerprint(root)
    checks = _guarded("spec", check_spec, root) + _guarded("ledger", check_ledger, root)
    agents = [a for a in registry.profiles() if used_here(a, root)]
    if agents:
        # One agent after the other: each probe's time is reported (and held against the
        # agent's timeout), and probes run side by side would slow each other down.
        with probe.mirror(root) as mirror:
            for agent in agents:
                checks += _guarded(agent.name, lambda r, a=agent: check_agent(a, r, mirror), root)
    else:
        checks.append(_no_agent())
    checks += _guarded("editors", check_editors, root)
    checks += _guarded("agents", _installation, root)
    checks += _guarded("agents", check_sandbox, root)
    checks += _guarded("agents", check_background, root)
    touched = probe.changed(before, probe.fingerprint(root))
    if touched:
        checks.append(
            fail(
                "doctor",
                "read-only",
                "the workspace changed while doctor ran: " + ", ".join(touched[:5]),
                "if nothing else was running here, report this as an intent-ls bug.",
            )
        )
    return checks


def _installation(root: Path) -> list[Check]:
    """Said only when the installation the hooks run changed since ``hooks install``."""
    from intent_ls.agents.install_record import changed

    found = changed()
    if found is None:
        return []
    return [
        fail(
            "agents",
            "installation",
            f"the intent-ls the hooks run changed since `hooks install` recorded it: {found}.",
            "if you did not upgrade it, something else wrote there: check it, then run "
            "`intent-ls hooks install` again to record it.",
        )
    ]


def _no_agent() -> Check:
    profiles = registry.profiles()
    folders = ", ".join(f"{p.doctor.used_here[0]}/" for p in profiles)
    return note(
        "agents",
        "hooks",
        f"no coding agent is set up in this workspace ({folders}).",
        f"to govern one: `intent-ls hooks install {'|'.join(p.name for p in profiles)}`.",
    )


def _guarded(area: str, check: Callable[[Path], list[Check]], root: Path) -> list[Check]:
    """A check that breaks on something unforeseen is a failed check, never a traceback."""
    try:
        return check(root)
    except Exception as exc:
        return [
            fail(
                area,
                "doctor",
                f"could not be checked ({type(exc).__name__}: {exc}).",
                "report this as an intent-ls bug, with the workspace's settings.",
            )
        ]
