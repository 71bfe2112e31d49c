"""Ready-made editor clients configured where the workspace shows it: VS Code's
``intentLs.serverCommand`` in ``.vscode/settings.json``. Editors configured in the
user's home (Neovim, Emacs, Helix) are not seen, and nothing is said about them."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from intent_ls.doctor.commands import resolve
from intent_ls.doctor.report import Check, fail, ok

AREA = "editors"
SETTINGS = ".vscode/settings.json"
KEY = "intentLs.serverCommand"
_JSONC = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def check_editors(root: Path) -> list[Check]:
    path = root / SETTINGS
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    try:
        settings = json.loads(_strip_jsonc(text) or "{}")
    except ValueError as exc:
        return [fail(AREA, "VS Code", f"{SETTINGS} is not valid JSON ({exc}).", f"fix {SETTINGS}.")]
    value: Any = settings.get(KEY) if isinstance(settings, dict) else None
    if value is None:
        return []
    command = value if isinstance(value, str) else value[0] if _strings(value) else None
    if not isinstance(command, str) or not command.strip():
        return [fail(AREA, "VS Code", f"{SETTINGS}: {KEY} is not a program.", _FIX)]
    program = command.strip().replace("${workspaceFolder}", str(root))
    found = resolve(program, root, os.environ)
    if found is None:
        return [
            fail(
                AREA,
                "VS Code",
                f"{SETTINGS}: {KEY} names `{program}`, which is not an executable here.",
                _FIX,
            )
        ]
    return [ok(AREA, "VS Code", f"{SETTINGS}: {KEY} runs {found}.")]


_FIX = f"point {KEY} at an intent-ls (or a Python with intent-ls) that exists."


def _strings(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _strip_jsonc(text: str) -> str:
    """VS Code's settings are JSON with comments and trailing commas."""
    bare = _JSONC.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    return _TRAILING_COMMA.sub(r"\1", bare)
