"""The newest value a JSON-lines log names, read from its tail: agents keep their
sessions in such logs (Claude Code's transcript, Copilot CLI's session events), which
grow for as long as the session lasts, while a hook runs on every tool call."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

#: How much of a log's end is read: the newest model named is near it.
TAIL_BYTES = 256 * 1024


def newest(path: str, key: bytes, pick: Callable[[Any], str | None]) -> str | None:
    """What ``pick`` finds in the newest line holding ``key`` that it finds anything in;
    None when the log cannot be read or names nothing."""
    import json

    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - TAIL_BYTES))
            tail = fh.read()
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        if key not in line:
            continue
        try:
            found = pick(json.loads(line))
        except ValueError:
            continue
        if found:
            return found
    return None
