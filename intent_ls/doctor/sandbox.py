"""The ``agents sandbox`` check: which environment applies here
(:mod:`intent_ls.agents.sandbox.environment`), with bubblewrap's binary and version,
the kernel's Landlock ABI and what does not hold (what holds too, in the JSON report).
Without a sandbox it is a warning with the fix, not a failure: verification after each
call still governs."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents.sandbox.environment import Environment, Kind, decide, probe
from intent_ls.doctor.report import Check, note, ok

AREA = "agents"
NAME = "sandbox"


def check_sandbox(root: Path) -> list[Check]:
    return [sandbox_check(decide(probe()))]


def sandbox_check(env: Environment) -> Check:
    detail = f"{env.title}; {_binary(env)}. Does not hold: {'; '.join(env.does_not)}."
    detail += " What holds: docs/security.md, or `--format json`."
    if env.kind is not Kind.VERIFICATION_ONLY:
        return ok(AREA, NAME, detail, data=env.to_dict())
    said = env.facts.refusal if env.facts is not None else ""
    warning = "WARNING: agents' shell commands run unconfined here"
    warning += f" ({said}): " if said else ": "
    return note(AREA, NAME, warning + detail, env.fix, data=env.to_dict())


def _binary(env: Environment) -> str:
    facts = env.facts
    if facts is None or facts.bwrap is None:
        found = "no bubblewrap"
    else:
        found = f"{facts.bwrap_version or 'bubblewrap (version unknown)'} at {facts.bwrap}"
    abi = facts.landlock_abi if facts is not None else 0
    return f"{found}, Landlock ABI {abi or 'none'}"
