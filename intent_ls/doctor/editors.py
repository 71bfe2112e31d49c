"""Ready-made editor clients configured where the workspace shows it: VS Code's
``intentLs.serverCommand`` in ``.vscode/settings.json`` and Helix's workspace
``.helix/languages.toml``. Editors configured only in the user's home (Neovim, Emacs)
are not seen, and nothing is said about them."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from intent_ls.doctor.commands import resolve
from intent_ls.doctor.report import Check, fail, ok

AREA = "editors"
VSCODE = ".vscode/settings.json"
VSCODE_KEY = "intentLs.serverCommand"
HELIX = ".helix/languages.toml"
_JSONC = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def check_editors(root: Path) -> list[Check]:
    return _vscode(root) + _helix(root)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _vscode(root: Path) -> list[Check]:
    text = _read(root / VSCODE)
    if text is None:
        return []
    try:
        settings = json.loads(_strip_jsonc(text) or "{}")
    except ValueError as exc:
        return [fail(AREA, "VS Code", f"{VSCODE} is not valid JSON ({exc}).", f"fix {VSCODE}.")]
    value: Any = settings.get(VSCODE_KEY) if isinstance(settings, dict) else None
    if value is None:
        return []
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        value = value[0]
    program = (
        value.strip().replace("${workspaceFolder}", str(root)) if isinstance(value, str) else ""
    )
    return [_resolved("VS Code", f"{VSCODE}: {VSCODE_KEY}", program, root)]


def _helix(root: Path) -> list[Check]:
    text = _read(root / HELIX)
    if text is None:
        return []
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [fail(AREA, "Helix", f"{HELIX} is not valid TOML ({exc}).", f"fix {HELIX}.")]
    servers = config.get("language-server")
    server = servers.get("intent-ls") if isinstance(servers, dict) else None
    if not isinstance(server, dict):
        return []
    command = server.get("command")
    return [
        _resolved(
            "Helix",
            f"{HELIX}: [language-server.intent-ls]",
            command if isinstance(command, str) else "",
            root,
        )
    ]


def _resolved(editor: str, where: str, program: str, root: Path) -> Check:
    fix = "point it at an intent-ls (or a Python with intent-ls) that exists."
    if not program:
        return fail(AREA, editor, f"{where} names no program.", fix)
    found = resolve(program, root, os.environ)
    if found is None:
        return fail(
            AREA, editor, f"{where} names `{program}`, which is not an executable here.", fix
        )
    return ok(AREA, editor, f"{where} runs {found}.")


def _strip_jsonc(text: str) -> str:
    """VS Code's settings are JSON with comments and trailing commas."""
    bare = _JSONC.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    return _TRAILING_COMMA.sub(r"\1", bare)
