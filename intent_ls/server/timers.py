"""Calls the event loop makes later, at most one per key: arming a key again replaces
the call still pending (the debounce of analyses, the map, retries of failed appends)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


class Timers:
    def __init__(self) -> None:
        self._pending: dict[str, asyncio.TimerHandle] = {}

    def arm(self, key: str, delay: float, callback: Callable[..., Any], *args: Any) -> None:
        self.cancel(key)
        self._pending[key] = asyncio.get_running_loop().call_later(delay, callback, *args)

    def cancel(self, key: str) -> None:
        timer = self._pending.pop(key, None)
        if timer is not None:
            timer.cancel()

    def ran(self, key: str) -> None:
        """The call of ``key`` has started: it is no longer pending."""
        self._pending.pop(key, None)

    def cancel_all(self) -> list[str]:
        """Cancels every pending call; returns their keys."""
        keys = list(self._pending)
        for key in keys:
            self.cancel(key)
        return keys
