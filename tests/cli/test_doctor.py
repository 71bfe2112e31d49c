"""``intent-ls doctor`` against real set-ups: a repository made by ``intent-ls init`` and
``hooks install`` for all three agents reports all green; each thing a user breaks (the
binary the hooks name, a hook event, the spec, the merge driver, the hooks themselves,
the ledger) is named with exit 1; and doctor changes nothing on disk."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

#: The console script of the intent-ls under test.
INTENT_LS = Path(sys.executable).parent / "intent-ls"
AGENTS = ("claude-code", "codex", "gemini")

pytestmark = pytest.mark.usefixtures("git_identity")


def _path_without_intent_ls() -> str:
    """PATH with every folder that holds an ``intent-ls`` left out: the hooks must name
    the copy this test installs them with, so removing it breaks them."""
    folders = os.environ.get("PATH", os.defpath).split(os.pathsep)
    return os.pathsep.join(f for f in folders if f and not (Path(f) / "intent-ls").exists())


def run(program: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``program`` as a user runs it, with a home of its own: doctor also reads the
    agents' user-level settings, and the tester's must not count."""
    home = cwd.parent / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "PATH": _path_without_intent_ls(), "HOME": str(home)}
    for variable in ("CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "CODEX_HOME"):
        env.pop(variable, None)
    return subprocess.run(
        [str(program), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def make_repo(tmp_path: Path, agents: tuple[str, ...] = AGENTS) -> Path:
    """A git repository set up as the README says, hooks installed for ``agents`` by an
    ``intent-ls`` that is not on PATH (so the hooks name its absolute path)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shutil.copy2(INTENT_LS, bin_dir / "intent-ls")
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert run(INTENT_LS, "init", cwd=root).returncode == 0
    for agent in agents:
        done = run(bin_dir / "intent-ls", "hooks", "install", agent, cwd=root)
        assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def doctor(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(INTENT_LS, "doctor", "--workspace", str(root), *args, cwd=root)


def checks(root: Path) -> tuple[int, list[dict[str, Any]]]:
    done = doctor(root, "--format", "json")
    assert "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] is (done.returncode == 0)
    return done.returncode, report["checks"]


def failed(found: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(c["area"], c["check"]) for c in found if c["status"] == "fail"}


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file and folder under ``root``, .git included: content hash and mtime."""
    found = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        found[path.relative_to(root).as_posix()] = (digest, st.st_mtime_ns)
    return found


def test_a_fresh_set_up_is_all_green_and_doctor_changes_nothing(repo: Path) -> None:
    # A session start through the real hook fills .orchestration/.local as an agent would.
    payload = {"session_id": "s1", "cwd": str(repo), "hook_event_name": "SessionStart"}
    hook = json.loads((repo / ".claude" / "settings.json").read_text())
    command = hook["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    subprocess.run(command, shell=True, cwd=repo, input=json.dumps(payload), text=True, check=True)
    before = snapshot(repo)

    done = doctor(repo)
    assert done.returncode == 0, done.stdout
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert all(line.startswith(("ok  ", "note")) for line in lines), done.stdout
    for agent in AGENTS:
        for check in ("hooks", "command", "fires on a write", "fires on a shell command"):
            assert any(line.startswith(f"ok    {agent} {check}:") for line in lines), (agent, check)
        (mcp,) = [line for line in lines if line.startswith(f"ok    {agent} MCP server:")]
        assert "answered initialize as intent-ls in" in mcp
    assert "(deny, no-active-intent)" in done.stdout
    assert "`git reset --hard` held for a human (ask, destructive-command)" in done.stdout
    assert "codex fires on a shell command: `git reset --hard` refused (deny" in done.stdout
    assert "note  codex hook trust:" in done.stdout
    assert "ok    ledger merge driver intent-ls-ledger:" in done.stdout
    assert snapshot(repo) == before


def test_json_report_parses_and_times_its_probes(repo: Path) -> None:
    status, found = checks(repo)
    assert status == 0
    assert {c["status"] for c in found} <= {"ok", "note"}
    timed = [c for c in found if c["check"] in ("fires on a write", "MCP server")]
    assert len(timed) == 6 and all(c["ms"] > 0 for c in timed)


def test_a_renamed_binary_is_named_and_the_hooks_shown_not_to_fire(repo: Path) -> None:
    program = repo.parent / "bin" / "intent-ls"
    program.rename(program.with_name("intent-ls-old"))
    status, found = checks(repo)
    assert status == 1
    for agent in AGENTS:
        assert {
            (agent, "command"),
            (agent, "fires on a write"),
            (agent, "fires on a shell command"),
            (agent, "MCP server"),
        } <= failed(found)
    fires = next(c for c in found if c["check"] == "fires on a write")
    assert "exit 127" in fires["detail"] and "would let it through" in fires["detail"]
    assert "hooks install" in fires["next_step"]


def test_a_deleted_hook_event_and_a_narrowed_matcher_are_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, ("claude-code",))
    path = repo / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    del settings["hooks"]["PostToolUse"]
    settings["hooks"]["PreToolUse"][0]["matcher"] = "Bash"
    path.write_text(json.dumps(settings))
    status, found = checks(repo)
    assert status == 1
    assert failed(found) == {("claude-code", "hooks")}
    (hooks,) = [c for c in found if c["area"] == "claude-code" and c["check"] == "hooks"]
    assert "no intent-ls hook on PostToolUse" in hooks["detail"]
    assert "PreToolUse misses Write, Edit, NotebookEdit" in hooks["detail"]
    assert hooks["next_step"] == "run `intent-ls hooks install claude-code`."


def test_settings_that_switch_the_hooks_off_are_named(repo: Path) -> None:
    (repo / ".claude" / "settings.local.json").write_text('{"disableAllHooks": true}')
    path = repo / ".gemini" / "settings.json"
    settings = json.loads(path.read_text())
    command = settings["hooks"]["BeforeTool"][0]["hooks"][0]["command"]
    settings["hooksConfig"] = {"disabled": [command]}
    path.write_text(json.dumps(settings))
    config = repo / ".codex" / "config.toml"
    config.write_text(config.read_text().replace("hooks = true", "hooks = false"))
    status, found = checks(repo)
    assert status == 1
    assert failed(found) == {(agent, "enabled") for agent in AGENTS}
    details = {c["area"]: c["detail"] for c in found if c["status"] == "fail"}
    assert "settings.local.json sets `disableAllHooks`" in details["claude-code"]
    assert "`hooksConfig.disabled`" in details["gemini"]
    assert "`[features] hooks = true`" in details["codex"]


def test_a_shell_prefix_other_than_the_sandboxs_is_named(repo: Path) -> None:
    """Claude Code's shell commands run in the sandbox through the prefix the install
    set; settings that set another (the local file wins) leave them unconfined."""
    status, found = checks(repo)
    enabled = [c for c in found if (c["area"], c["check"]) == ("claude-code", "enabled")]
    assert [c["status"] for c in enabled] == ["ok"], enabled
    local = repo / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"env": {"CLAUDE_CODE_SHELL_PREFIX": "/usr/bin/env"}}))
    status, found = checks(repo)
    assert status == 1 and failed(found) == {("claude-code", "enabled")}
    details = {c["area"]: c["detail"] for c in found if c["status"] == "fail"}
    assert "do not run in intent-ls's sandbox" in details["claude-code"]


def test_a_hook_slower_than_its_timeout_is_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, ("claude-code",))
    path = repo / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    settings["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 0.01
    path.write_text(json.dumps(settings))
    status, found = checks(repo)
    assert status == 1
    assert failed(found) == {
        ("claude-code", "fires on a write"),
        ("claude-code", "fires on a shell command"),
    }
    fires = next(c for c in found if c["check"] == "fires on a write")
    assert fires["detail"] == "no answer within 0.01 s: Claude Code would let the tool run."


def test_a_corrupt_spec_is_named_as_validate_names_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, ("claude-code",))
    (repo / ".orchestration" / "active_intents.yaml").write_text("active_intents: [\n")
    done = doctor(repo)
    assert done.returncode == 1
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("FAIL  spec")]
    assert ".orchestration/active_intents.yaml:" in line and "yaml-syntax" in line
    assert "intent-ls validate" in line
    # The hooks still refuse writes: a broken spec fails closed.
    assert "ok    claude-code fires on a write" in done.stdout


def test_a_dropped_merge_driver_is_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, ())
    subprocess.run(
        ["git", "config", "--unset", "merge.intent-ls-ledger.driver"], cwd=repo, check=True
    )
    status, found = checks(repo)
    assert status == 1
    assert failed(found) == {("ledger", "merge driver intent-ls-ledger")}
    (driver,) = [c for c in found if c["status"] == "fail"]
    assert driver["next_step"] == "run `intent-ls init` in this clone."


def test_uninstalled_hooks_are_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, ("gemini",))
    done = run(INTENT_LS, "hooks", "install", "gemini", "--uninstall", cwd=repo)
    assert done.returncode == 0, done.stderr
    status, found = checks(repo)
    assert status == 1
    assert failed(found) == {("gemini", "hooks"), ("gemini", "MCP server")}
    (hooks,) = [c for c in found if c["area"] == "gemini" and c["check"] == "hooks"]
    assert "no intent-ls hooks" in hooks["detail"]
    assert not any(c["area"] == "gemini" and c["check"].startswith("fires") for c in found)


def test_a_tampered_ledger_is_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, ())
    for command in ("rm -rf build", "rm -rf dist"):
        approve = ("approve", "destructive-command", "--command", command)
        assert run(INTENT_LS, *approve, cwd=repo).returncode == 0
    status, found = checks(repo)
    assert status == 0 and any("2 record(s), chain intact" in c["detail"] for c in found)
    ledger = repo / ".orchestration" / "agent_trace.jsonl"
    ledger.write_text(ledger.read_text().replace("rm -rf build", "rm -rf BUILD", 1))
    status, found = checks(repo)
    assert status == 1
    assert failed(found) == {("ledger", "verify")}
    (verify,) = [c for c in found if c["status"] == "fail"]
    assert verify["detail"].startswith(".orchestration/agent_trace.jsonl:")
    assert "trace repair" in verify["next_step"]


def test_the_index_writer_is_named(tmp_path: Path, monkeypatch) -> None:
    """Compiled (as .ci/run requires) it is ok; turned off, or not compiled, a note with the
    next step, and doctor still passes."""
    from intent_ls.ledger.index import native

    repo = make_repo(tmp_path, ())
    status, found = checks(repo)
    (writer,) = [c for c in found if c["check"] == "index writer"]
    assert status == 0
    assert writer["status"] == ("ok" if native.compiled() else "note"), writer
    monkeypatch.setenv("INTENT_LS_PURE_PYTHON", "1")
    status, found = checks(repo)
    (writer,) = [c for c in found if c["check"] == "index writer"]
    assert status == 0 and writer["status"] == "note", writer
    assert ("INTENT_LS_PURE_PYTHON" in writer["detail"]) == native.compiled()
    assert writer["next_step"]


def test_a_hook_that_names_its_workspace_is_not_probed_against_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, ("codex",))
    path = repo / ".codex" / "hooks.json"
    text = path.read_text().replace(" hook codex", f" hook codex --workspace {repo}")
    path.write_text(text)
    before = snapshot(repo)
    status, found = checks(repo)
    assert status == 1
    assert failed(found) == {("codex", "command")}
    (command,) = [c for c in found if c["status"] == "fail"]
    assert "names its workspace" in command["detail"]
    assert not any(c["check"].startswith("fires") for c in found)
    assert snapshot(repo) == before


def test_a_hostile_repository_cannot_make_doctor_run_its_code(tmp_path: Path) -> None:
    """doctor asks nobody to trust the folder, so it runs only the plain hook command
    with a program that did not come with the clone, and starts no server with its own
    environment."""
    repo = make_repo(tmp_path, ("claude-code", "gemini"))
    pwned = tmp_path / "pwned"
    evil = repo / "tools" / "intent-ls"
    evil.parent.mkdir()
    evil.write_text(f"#!/bin/sh\ntouch {pwned}\n")
    evil.chmod(0o755)
    subprocess.run(["git", "add", "tools/intent-ls"], cwd=repo, check=True)
    claude = repo / ".claude" / "settings.json"
    settings = json.loads(claude.read_text())
    settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = "./tools/intent-ls hook claude-code"
    claude.write_text(json.dumps(settings))
    (repo / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"intent-ls": {"command": "./tools/intent-ls", "args": ["mcp"]}}})
    )
    gemini = repo / ".gemini" / "settings.json"
    settings = json.loads(gemini.read_text())
    hook = settings["hooks"]["BeforeTool"][0]["hooks"][0]
    hook["command"] += f" ; touch {pwned}"
    settings["mcpServers"]["intent-ls"]["env"] = {"PYTHONSTARTUP": str(evil)}
    gemini.write_text(json.dumps(settings))
    status, found = checks(repo)
    assert status == 1
    assert failed(found) == {
        ("claude-code", "command"),
        ("claude-code", "MCP server"),
        ("gemini", "command"),
        ("gemini", "MCP server"),
    }
    details = " ".join(c["detail"] for c in found if c["status"] == "fail")
    assert "came with this repository" in details
    assert "is more than a program and its arguments" in details
    assert "sets its own environment (PYTHONSTARTUP)" in details
    assert not pwned.exists()


def test_editor_server_commands_are_resolved(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, ())
    settings = repo / ".vscode" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        '{\n  // the venv\n  "intentLs.serverCommand": ["/nowhere/python", "-m", "intent_ls"],\n}\n'
    )
    status, found = checks(repo)
    assert status == 1 and failed(found) == {("editors", "VS Code")}
    settings.write_text(json.dumps({"intentLs.serverCommand": str(INTENT_LS)}))
    helix = repo / ".helix" / "languages.toml"
    helix.parent.mkdir()
    helix.write_text('[language-server.intent-ls]\ncommand = "intent-ls-renamed"\n')
    status, found = checks(repo)
    assert status == 1 and failed(found) == {("editors", "Helix")}
    helix.write_text(f'[language-server.intent-ls]\ncommand = "{INTENT_LS}"\n')
    status, found = checks(repo)
    assert status == 0
    assert {c["check"] for c in found if c["area"] == "editors" and c["status"] == "ok"} == {
        "VS Code",
        "Helix",
    }


def test_a_workspace_without_agents_says_how_to_add_one(tmp_path: Path) -> None:
    assert run(INTENT_LS, "init", "--workspace", str(tmp_path), cwd=tmp_path).returncode == 0
    done = doctor(tmp_path)
    assert done.returncode == 0, done.stdout
    assert "note  ledger merge driver: not a git repository" in done.stdout
    assert "note  agents hooks: no coding agent is set up" in done.stdout


@pytest.mark.parametrize("where", ["missing", "file"])
def test_a_bad_workspace_cannot_run(tmp_path: Path, where: str) -> None:
    target = tmp_path / "nowhere"
    if where == "file":
        target.write_text("")
    done = run(INTENT_LS, "doctor", "--workspace", str(target), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("intent-ls: error: workspace") and "Traceback" not in done.stderr


def test_doctor_never_imports_pygls(tmp_path: Path) -> None:
    make_repo(tmp_path, ("claude-code",))
    probe = (
        "import sys\n"
        "from intent_ls.cli.main import main\n"
        f"main(['doctor', '-w', {str(tmp_path / 'repo')!r}])\n"
        "heavy = [m for m in ('pygls', 'lsprotocol') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
