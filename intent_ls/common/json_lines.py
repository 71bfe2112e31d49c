"""JSON-lines logs as intent-ls reads them: the ledger and the effects log are appended
to by several writers at once, and a torn or foreign line must cost that line only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def objects(data: bytes) -> Iterator[dict[str, Any]]:
    """Each line of ``data`` that is a JSON object; others are passed over."""
    for line in data.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            yield item
