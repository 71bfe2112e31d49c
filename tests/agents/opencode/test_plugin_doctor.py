"""``intent-ls doctor`` on the plugin ``hooks install opencode`` (and ``kilo``) writes:
green on a clean install, and each breakage named — the plugin missing, the plugin
altered, the ``intent-ls`` it runs renamed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_doctor import checks, failed, make_repo

pytestmark = pytest.mark.usefixtures("git_identity")
PLUGIN = ".opencode/plugins/intent-ls.js"


@pytest.mark.parametrize("agent", ["opencode", "kilo"])
def test_a_clean_install_is_green_and_its_hook_fires(tmp_path: Path, agent: str) -> None:
    repo = make_repo(tmp_path, (agent,))
    status, found = checks(repo)
    mine = {c["check"]: c for c in found if c["area"] == agent}
    assert status == 0, [c for c in found if c["status"] == "fail"]
    for check in ("hooks", "command", "fires on a write", "fires on a shell command"):
        assert mine[check]["status"] == "ok", mine[check]
    assert "refused (deny, no-active-intent)" in mine["fires on a write"]["detail"]
    # Nothing can ask a human there: the destructive command is refused, naming approve.
    assert "refused (deny, destructive-command)" in mine["fires on a shell command"]["detail"]
    assert "answered initialize as intent-ls" in mine["MCP server"]["detail"]


def test_a_missing_plugin_is_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, ("opencode",))
    (repo / PLUGIN).unlink()
    status, found = checks(repo)
    assert status == 1 and failed(found) == {("opencode", "hooks")}
    (hooks,) = [c for c in found if c["check"] == "hooks"]
    assert PLUGIN in hooks["detail"] and "hooks install opencode" in hooks["next_step"]


def test_an_altered_plugin_is_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, ("opencode",))
    path = repo / PLUGIN
    path.write_text(path.read_text().replace('"tool.execute.before"', '"tool.execute.never"'))
    status, found = checks(repo)
    assert status == 1 and ("opencode", "settings") in failed(found)
    (settings,) = [c for c in found if c["check"] == "settings"]
    assert "not the plugin this intent-ls ships" in settings["detail"]


def test_a_renamed_binary_is_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, ("opencode",))
    program = repo.parent / "bin" / "intent-ls"
    program.rename(program.with_name("intent-ls-old"))
    status, found = checks(repo)
    assert status == 1
    assert {
        ("opencode", "command"),
        ("opencode", "fires on a write"),
        ("opencode", "fires on a shell command"),
        ("opencode", "MCP server"),
    } <= failed(found)
    (command,) = [c for c in found if c["area"] == "opencode" and c["check"] == "command"]
    assert str(program) in command["detail"]
