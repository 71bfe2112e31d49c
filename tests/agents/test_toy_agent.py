"""A new agent is one folder and its profile: the toy agent of tests/agents/toy/, with a
hook shape of its own, registered from outside the package, is gated by ``intent-ls hook
toy`` and answered in its own shape, installed by ``hooks install toy`` and reported by
``doctor``, with no file of intent_ls/ naming it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from intent_ls.agents import registry
from intent_ls.cli.main import main
from tests.agents.toy.profile import PROFILE

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The toy registered here, and an ``intent-ls`` first on PATH that registers it
    before it runs (what the hook and the MCP server are started as): the program a
    package bringing the toy agent would install."""
    registry.register(PROFILE)
    bin_dir = tmp_path / "toy-bin"
    bin_dir.mkdir()
    launcher = bin_dir / "intent-ls"
    launcher.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from intent_ls.agents import registry\n"
        "from tests.agents.toy.profile import PROFILE\n"
        "registry.register(PROFILE)\n"
        "from intent_ls.cli.main import main\n"
        "sys.exit(main())\n"
    )
    launcher.chmod(0o755)
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")]))
    yield launcher
    registry.unregister(PROFILE.name)


def hook(launcher: Path, root: Path, event: str, tool: str = "", **args: Any) -> dict[str, Any]:
    payload = {"event": event, "session": "t1", "dir": str(root), "tool": tool, "args": args}
    done = subprocess.run(
        [str(launcher), "hook", "toy"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=root,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_the_toy_hook_gates_writes_and_answers_in_its_own_shape(toy: Path, governed: Path) -> None:
    new = str(governed / "src" / "new.py")
    refused = hook(toy, governed, "before", "save", path=new, text="x = 1\n")
    assert refused["verdict"] == "deny" and "no-active-intent" in refused["why"]
    selected = hook(
        toy, governed, "before", "mcp:intent-ls:select_active_intent", intent_id="INT-APP"
    )
    assert selected["verdict"] == "allow"
    assert hook(toy, governed, "before", "save", path=new, text="x = 1\n") == {}
    outside = hook(toy, governed, "before", "save", path=str(governed / "docs" / "x.md"), text="")
    assert outside["verdict"] == "deny" and "out-of-scope" in outside["why"]
    own = hook(
        toy, governed, "before", "save", path=str(governed / ".toy" / "hooks.json"), text="{}"
    )
    assert own["verdict"] == "deny" and ".toy/" in own["why"]
    held = hook(toy, governed, "before", "sh", command="git reset --hard")
    assert held["verdict"] == "deny"  # the toy cannot ask: held is denied, with the step
    assert "destructive-command" in held["why"]
    assert "note" in hook(toy, governed, "start")


def test_hooks_install_toy_writes_its_settings_and_uninstall_removes_them(
    toy: Path, governed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hooks", "install", "toy", "--workspace", str(governed)]) == 0
    assert ".toy/hooks.json" in capsys.readouterr().out
    settings = json.loads((governed / ".toy" / "hooks.json").read_text())
    assert set(settings["hooks"]) == {"start", "before", "after"}
    command = settings["hooks"]["before"][0]["hooks"][0]["command"]
    assert command == "intent-ls hook toy"
    assert settings["mcpServers"]["intent-ls"] == {"command": "intent-ls", "args": ["mcp"]}
    assert main(["hooks", "install", "toy", "--uninstall", "--workspace", str(governed)]) == 0
    assert json.loads((governed / ".toy" / "hooks.json").read_text()) == {}


def test_doctor_reports_the_toy_agent(
    toy: Path, governed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hooks", "install", "toy", "--workspace", str(governed)]) == 0
    capsys.readouterr()
    main(["doctor", "--workspace", str(governed)])
    lines = capsys.readouterr().out.splitlines()
    mine = [line for line in lines if line.split()[1:2] == ["toy"]]
    assert "ok    toy hooks: .toy/hooks.json: intent-ls on start, before, after." in mine
    assert "ok    toy enabled: the toy runs its hooks." in mine
    assert any(line.startswith("ok    toy command: `intent-ls hook toy` runs ") for line in mine)
    fires = [line for line in mine if line.startswith("ok    toy fires on")]
    assert len(fires) == 2, mine
    assert "refused (deny, no-active-intent)" in fires[0]
    assert "`git reset --hard` refused (deny, destructive-command)" in fires[1]
    assert any(line.startswith("ok    toy MCP server: `intent-ls mcp`") for line in mine), mine
    assert "note  toy toy trust: the toy trusts every folder." in mine


def test_an_unregistered_agent_is_no_choice(governed: Path) -> None:
    assert "toy" not in registry.names()
    with pytest.raises(SystemExit):
        main(["hooks", "install", "toy", "--workspace", str(governed)])
