"""Each coding agent set up in the workspace, checked in turn: its hooks
(:mod:`~intent_ls.doctor.hooks`), the settings that could switch them off
(:mod:`~intent_ls.doctor.switches`), its MCP server (:mod:`~intent_ls.doctor.mcp`), and
the switches on its side intent-ls cannot see, stated as what to check."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents.profile import AgentProfile
from intent_ls.agents.settings_files import load_json
from intent_ls.doctor import mcp
from intent_ls.doctor.hooks import events_check, fire_checks, our_hooks, vet_hook
from intent_ls.doctor.report import Check, fail, note
from intent_ls.doctor.switches import switched_off


def check_agent(agent: AgentProfile, root: Path, mirror: Path) -> list[Check]:
    area = agent.name
    install = f"run `intent-ls hooks install {agent.name}`."
    own = agent.doctor.settings
    settings = own(root) if own is not None else load_json(root / agent.hooks_file)
    if isinstance(settings, str):
        return [fail(area, "settings", settings, f"fix {agent.hooks_file}, then {install}")]
    hooks = settings.get("hooks")
    hooks = hooks if isinstance(hooks, dict) else {}
    ours = {event: our_hooks(agent, hooks.get(event)) for event in agent.events}
    checks = [events_check(agent, ours)]
    gate = [hook for _, hook in ours[agent.gate_event]]
    if any(ours.values()):
        checks += switched_off(agent, root, settings, gate[0] if gate else None)
    if gate:
        vetted, runnable = vet_hook(agent, gate[0], root)
        checks.append(vetted)
        if runnable:
            checks += fire_checks(agent, gate[0], mirror)
    checks += mcp.check_server(agent, root, settings, mirror)
    if any(ours.values()):
        checks += [note(area, name, text) for name, text in agent.doctor.trust]
    return checks
