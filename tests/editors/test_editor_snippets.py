"""editors/README.md's setup snippets, run as written (the placeholder path filled in) in
the real editors: each must start intent-ls for a file of a governed tree. (The
lazy.nvim spec is not run: lazy.nvim is not installable here.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from editor_harness import EDITORS, HERE, REPO, editor_env, require_binary

README = EDITORS / "README.md"
PLACEHOLDER = "/path/to/intent-ls"


def snippet(heading: str, language: str) -> str:
    """The first ``language`` code block after ``heading`` in editors/README.md."""
    text = README.read_text(encoding="utf-8")
    section = text.split(heading, 1)[1]
    match = re.search(rf"```{language}\n(.+?)\n```", section, flags=re.S)
    assert match, f"no {language} block under {heading}"
    return match.group(1).replace(PLACEHOLDER, str(REPO))


def env_for(tmp_path: Path, workspace: Path, result: Path) -> dict[str, str]:
    """The editors find `intent-ls` on PATH, as the snippets' defaults expect."""
    return {
        **os.environ,
        **editor_env(tmp_path),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "INTENT_LS_WS": str(workspace),
        "INTENT_LS_RESULT": str(result),
    }


def run(argv: list[str], env: dict[str, str], result: Path, cwd: Path) -> dict:
    proc = subprocess.run(
        argv,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=90,
        stdin=subprocess.DEVNULL,
    )
    data = json.loads(result.read_text()) if result.exists() else {}
    assert proc.returncode == 0 and data.get("ok") is True, (data, proc.stdout, proc.stderr)
    return data


def test_neovim_init_lua_snippet(workspace: Path, tmp_path: Path) -> None:
    nvim = require_binary("nvim", "apt-get install -y neovim")
    init = tmp_path / "init.lua"
    init.write_text(snippet("## Neovim (0.7 and later)", "lua") + "\n")
    result = tmp_path / "result.json"
    data = run(
        [
            nvim,
            "--headless",
            "-u",
            str(init),
            "-i",
            "NONE",
            "-n",
            "-c",
            f"luafile {HERE / 'snippet_check.lua'}",
        ],
        env_for(tmp_path, workspace, result),
        result,
        tmp_path,
    )
    assert data["attached"] is True and data["status"].startswith("no intent")


@pytest.mark.parametrize(
    ("heading", "feature", "prep"),
    [
        ("### eglot (`intent-ls.el`)", "eglot", ""),
        # Batch Emacs loads no package autoloads: load lsp-mode's UI parts it turns on.
        (
            "### lsp-mode (`intent-ls-lsp.el`)",
            "lsp-mode",
            "(require 'lsp-mode) (require 'lsp-modeline) (require 'lsp-headerline) "
            "(require 'lsp-lens) (require 'lsp-diagnostics) (require 'lsp-completion) "
            '(setq lsp-session-file (expand-file-name "lsp-session" (getenv "HOME")))',
        ),
    ],
)
def test_emacs_snippets(
    workspace: Path, tmp_path: Path, heading: str, feature: str, prep: str
) -> None:
    emacs = require_binary("emacs", "apt-get install -y emacs-nox elpa-eglot elpa-lsp-mode")
    probe = subprocess.run(
        [emacs, "--batch", "--eval", f"(require '{feature})"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    if probe.returncode != 0:
        pytest.skip(f"{feature} is not installed (apt-get install -y elpa-{feature})")
    code = snippet(heading, "elisp")
    result = tmp_path / "result.json"
    data = run(
        [
            emacs,
            "--batch",
            "--eval",
            f"(progn {prep} {code})",
            "-l",
            str(HERE / "snippet_check.el"),
        ],
        env_for(tmp_path, workspace, result),
        result,
        tmp_path,
    )
    assert data["state"] == "AWAITING_INTENT_SELECTION"


def test_helix_snippet(tmp_path: Path, workspace: Path) -> None:
    command = snippet("## Helix", "sh")
    env = env_for(tmp_path, workspace, tmp_path / "unused")
    (Path(env["HOME"]) / ".config" / "helix").mkdir(parents=True)
    subprocess.run(["bash", "-euc", command], env=env, check=True, timeout=60)
    written = Path(env["HOME"]) / ".config" / "helix" / "languages.toml"
    assert written.read_text() == (EDITORS / "helix" / "languages.toml").read_text()
