"""``intent-ls hooks install opencode`` / ``kilo``: the plugin (with the absolute path of
the ``intent-ls`` it runs) and the MCP server, the user's own config kept, idempotent,
and undone by ``--uninstall``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from intent_ls.agents.js_plugin.install import command_in, plugin_text

INTENT_LS = Path(sys.executable).parent / "intent-ls"


def _install(root: Path, agent: str, *flags: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(INTENT_LS.parent), os.environ.get("PATH", "")])
    return subprocess.run(
        [str(INTENT_LS), "hooks", "install", agent, "--workspace", str(root), *flags],
        capture_output=True, text=True, env={**os.environ, "PATH": path}, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("agent", "plugin", "config"),
    [("opencode", ".opencode/plugins/intent-ls.js", "opencode.json"),
     ("kilo", ".kilo/plugins/intent-ls.js", "kilo.json")],
)  # fmt: skip
def test_install_keeps_the_users_config_and_uninstall_undoes_it(
    tmp_path: Path, agent: str, plugin: str, config: str
) -> None:
    mine = {"model": "a/b", "mcp": {"other": {"type": "remote", "url": "http://x"}}}
    (tmp_path / config).write_text(json.dumps(mine))
    done = _install(tmp_path, agent)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / plugin).read_text()
    assert command_in(text) == [str(INTENT_LS), "hook", agent]
    assert text == plugin_text([str(INTENT_LS), "hook", agent])
    settings = json.loads((tmp_path / config).read_text())
    assert settings["model"] == "a/b" and settings["mcp"]["other"] == mine["mcp"]["other"]
    assert settings["$schema"].endswith("config.json")
    assert settings["mcp"]["intent-ls"] == {
        "type": "local", "command": [str(INTENT_LS), "mcp"], "enabled": True,
    }  # fmt: skip
    again = _install(tmp_path, agent)
    assert again.returncode == 0 and "created" not in again.stdout + again.stderr
    done = _install(tmp_path, agent, "--uninstall")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / plugin).exists()
    left = json.loads((tmp_path / config).read_text())
    assert left == {"$schema": settings["$schema"], **mine}


def test_a_plugin_of_someone_elses_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / ".opencode/plugins/intent-ls.js"
    path.parent.mkdir(parents=True)
    path.write_text("export const Mine = async () => ({})\n")
    done = _install(tmp_path, "opencode")
    assert done.returncode != 0 and "not a plugin intent-ls wrote" in done.stderr
    assert path.read_text() == "export const Mine = async () => ({})\n"
