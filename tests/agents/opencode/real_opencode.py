"""OpenCode and Kilo Code's CLI, run offline against a scripted OpenAI-compatible model
(``opencode run`` / ``kilo run``, their default headless mode).

Both bundle the ``@ai-sdk/openai-compatible`` provider, so a ``provider`` entry whose
``baseURL`` is the scripted model needs no download. Each config folder they load
(``.opencode/``, ``~/.config/opencode/``; ``.kilo/``, ``~/.config/kilo/``) gets its
plugin package (``@opencode-ai/plugin``, ``@kilocode/plugin``) npm-installed at start,
and plugins wait for that: offline it fails after ~70 s of retries. It is skipped when
the folder's ``package-lock.json`` already lists the package, as after a first online
start: :func:`_seed` writes that state, so no run reaches the network.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.agents.real_cli import find_agent
from tests.agents.scripted_model import ScriptedChat, serve_chat

MODEL = "scripted"


class Cli(NamedTuple):
    #: As ``intent-ls hook`` names it.
    agent: str
    binary: str | None
    #: Its name in paths and variables (``.opencode``, ``OPENCODE_…``).
    home: str
    config: str
    plugin_package: str


OPENCODE = Cli("opencode", find_agent("opencode", "opencode-ai"), "opencode", "opencode.json",
               "@opencode-ai/plugin")  # fmt: skip
#: The newest OpenCode on the registry when CI ran (``$INTENT_LS_AGENTS_NEWEST``), beside
#: the pinned one.
OPENCODE_NEWEST = OPENCODE._replace(
    binary=find_agent("opencode", "opencode-ai@latest", "INTENT_LS_AGENTS_NEWEST")
)
OPENCODES = [
    pytest.param(cli, id=name)
    for name, cli in (("pinned", OPENCODE), ("newest", OPENCODE_NEWEST))
    if cli.binary is not None
]
KILO = Cli("kilo", find_agent("kilo", "@kilocode/cli"), "kilo", "kilo.json", "@kilocode/plugin")


def _seed(folder: Path, package: str) -> None:
    """A config folder as after the CLI's first online start: its plugin package
    installed (as far as the CLI checks: the lock lists it)."""
    (folder / "node_modules").mkdir(parents=True, exist_ok=True)
    deps = {"dependencies": {package: "*"}}
    (folder / "package.json").write_text(json.dumps(deps))
    (folder / "package-lock.json").write_text(json.dumps({"packages": {"": deps}}))


def _user_config(cli: Cli, url: str) -> dict[str, object]:
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Scripted",
        "options": {"baseURL": f"{url}/v1", "apiKey": "x"},
        "models": {MODEL: {"name": "Scripted", "tool_call": True}},
    }
    return {
        "autoupdate": False,
        "share": "disabled",
        "model": f"{MODEL}/{MODEL}",
        "provider": {MODEL: provider},
    }


def run_cli(cli: Cli, root: Path, tmp_path: Path, model: ScriptedChat, path: str) -> dict[str, str]:
    """``<cli> run`` in ``root`` with a fresh home; each tool call's result by id."""
    assert cli.binary is not None
    home = tmp_path / "home"
    config_dir = home / ".config" / cli.home
    config_dir.mkdir(parents=True)
    _seed(config_dir, cli.plugin_package)
    _seed(root / f".{cli.home}", cli.plugin_package)
    prefix = cli.home.upper()
    scratch = home / "tmp"  # the CLI unpacks a 5 MB native library there on every run
    scratch.mkdir()
    env = {
        "PATH": path,
        "HOME": str(home),
        "TMPDIR": str(scratch),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        f"{prefix}_DISABLE_MODELS_FETCH": "1",
        f"{prefix}_DISABLE_AUTOUPDATE": "1",
        f"{prefix}_DISABLE_SHARE": "1",
        f"{prefix}_DISABLE_LSP_DOWNLOAD": "1",
        f"{prefix}_DISABLE_DEFAULT_PLUGINS": "1",
        f"{prefix}_TELEMETRY_LEVEL": "off",
    }
    with serve_chat(model) as url:
        (config_dir / cli.config).write_text(json.dumps(_user_config(cli, url)))
        done = subprocess.run(
            [cli.binary, "run", "do the task"],
            cwd=root, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    return {str(m.get("tool_call_id")): str(m.get("content")) for m in model.tool_results()}
