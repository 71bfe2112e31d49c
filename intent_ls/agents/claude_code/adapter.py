"""Claude Code's hook JSON ⇄ the event model: the format of :mod:`intent_ls.agents.hook_json`
with the tools it was made for. ``ANTHROPIC_MODEL`` or the transcript names the model.
"""

from __future__ import annotations

from typing import Any

from intent_ls.agents import hook_json
from intent_ls.agents.events import HookEvent, Outcome

AGENT = "claude-code"


def parse(payload: dict[str, Any]) -> HookEvent:
    return hook_json.parse(payload, AGENT)


def render(event_name: str, outcome: Outcome) -> dict[str, Any]:
    return hook_json.render(event_name, outcome)
