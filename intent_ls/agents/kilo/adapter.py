"""Kilo Code CLI's plugin payloads (:mod:`intent_ls.agents.js_plugin.adapter`), as its events."""

from __future__ import annotations

from typing import Any

from intent_ls.agents.events import HookEvent
from intent_ls.agents.js_plugin import adapter

AGENT = "kilo"


def parse(payload: dict[str, Any]) -> HookEvent:
    return adapter.parse(payload, AGENT)
