"""Replayed attacks: the hooks let a command through (or a human said yes), it ran, and
the after-tool event must leave protected and out-of-scope files as they were."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from intent_ls.agents.barrier import available
from tests.agents.conftest import APP, SPEC, decision
from tests.agents.effects_helpers import Agent, git_workspace
from tests.support import git, records

PY = f"{sys.executable} -c"


def py_write(path: str, text: str, mode: str = "w") -> str:
    """A write no classifier can follow: the path is built at run time."""
    parts = " + ".join(repr(p) for p in path.split("/"))
    return (
        f'{PY} "import os; p = os.path.join(*[{parts.replace(" + ", ", ")}]);'
        f" os.makedirs(os.path.dirname(os.path.expanduser(p)) or '.', exist_ok=True);"
        f' open(os.path.expanduser(p), {mode!r}).write({text!r})"'
    )


@pytest.fixture
def ws(governed: Path) -> Path:
    return git_workspace(governed)


def spec_of(root: Path) -> str:
    return (root / ".orchestration" / "active_intents.yaml").read_text()


@pytest.mark.parametrize(
    "command",
    [
        # a script written in scope, then run: no classifier knows what it does
        'printf \'open(".orchestration/active_intents.yaml","w").write("x")\' > src/w.py'
        f" && {sys.executable} src/w.py",
        f"{PY} \"import shutil; shutil.rmtree('.orchestration')\"",
        "env -S 'cp src/app.py .orchestration/active_intents.yaml'",
        "cd src && cd .. && mv .orchestration/active_intents.yaml /tmp/h18-stolen.yaml",
        f"{PY} \"import os; s = '.orchestration/active_intents.yaml';"
        " os.symlink('/etc/passwd', s + '.new'); os.replace(s + '.new', s)\"",
    ],
)
def test_the_spec_is_put_back_whatever_wrote_it(ws: Path, command: str) -> None:
    agent = Agent(ws, "gemini", barrier=False)
    agent.select("INT-APP")
    pre, told = agent.shell(command)
    assert spec_of(ws) == SPEC
    assert not (ws / ".orchestration" / "active_intents.yaml").is_symlink()
    if decision(pre)[0] != "deny":  # prediction may refuse it before it runs
        assert ".orchestration/active_intents.yaml" in told and "put them back" in told


def test_a_created_sidecar_file_is_removed_and_an_approval_record_cut_off(ws: Path) -> None:
    agent = Agent(ws, "gemini", barrier=False)
    agent.select("INT-APP")
    ledger = ws / ".orchestration" / "agent_trace.jsonl"
    forged = {"metadata": {"intent_ls": {"kind": "approval", "session_id": "editor"}}}
    _, told = agent.shell(
        py_write(".orchestration/agent_trace.jsonl", json.dumps(forged) + "\n", "a")
        + "; "
        + py_write(".orchestration/.local/spec-cache.json", "")
        + "; "
        + py_write(".orchestration/planted", "")
    )
    assert not ledger.exists()  # it did not exist before the call
    assert not (ws / ".orchestration" / "planted").exists()
    cache = ws / ".orchestration" / ".local" / "spec-cache.json"
    assert cache.stat().st_size > 0  # deleted, then rebuilt from the spec by the hook
    assert "removed" in told


def test_an_appended_approval_is_cut_from_an_existing_ledger(ws: Path) -> None:
    agent = Agent(ws, "gemini", barrier=False)
    agent.select("INT-APP")
    agent.shell("echo generated > src/gen.txt")  # a first record
    ledger = ws / ".orchestration" / "agent_trace.jsonl"
    before = ledger.read_bytes()
    approve = json.loads(before.splitlines()[0])
    approve["metadata"]["intent_ls"]["kind"] = "approval"
    approve["metadata"]["intent_ls"]["session_id"] = "somebody"
    agent.shell(py_write(".orchestration/agent_trace.jsonl", json.dumps(approve) + "\n", "a"))
    assert ledger.read_bytes() == before
    log = (ws / ".orchestration" / ".local" / "effects.jsonl").read_text()
    assert '"code": "ledger-append"' in log and "somebody" in log


@pytest.mark.parametrize(
    ("command", "path"),
    [
        ("git config merge.intent-ls-ledger.driver true", ".git/config"),
        ("printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-commit", ".git/hooks/pre-commit"),
        ("echo '* -text' >> .git/info/attributes", ".git/info/attributes"),
        (py_write(".intentignore", "src/**\n", "a"), ".intentignore"),
        (
            "ln -f .intentignore src/ig && echo '*' >> src/ig",
            ".intentignore",
        ),
        (py_write(".gitattributes", "* merge=union\n"), ".gitattributes"),
        (py_write(".claude/settings.local.json", "{}"), ".claude/settings.local.json"),
        (py_write(".codex/hooks.json", "x"), ".codex/hooks.json"),
        (py_write(".gemini/settings.json", "{}"), ".gemini/settings.json"),
        (py_write(".mcp.json", "{}"), ".mcp.json"),
        ("ln -s ../.orchestration src/o && echo x > src/o/CLAUDE.md", ".orchestration/CLAUDE.md"),
    ],
)
def test_protected_paths_are_put_back_byte_for_byte(ws: Path, command: str, path: str) -> None:
    target = ws / path
    existed = target.exists()
    before = target.read_bytes() if existed else None
    agent = Agent(ws, "gemini", barrier=False)
    agent.select("INT-APP")
    _, told = agent.shell(command)
    if existed:
        assert target.read_bytes() == before
    else:
        assert not target.exists()
    assert path in told


def test_home_settings_are_put_back(ws: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    settings = home / ".claude" / "settings.json"
    settings.write_text('{"hooks": {}}\n')
    agent = Agent(ws, "gemini", home=home, barrier=False)
    agent.select("INT-APP")
    _, told = agent.shell(
        py_write("~/.claude/settings.json", "{}") + "; " + py_write("~/.gitconfig", "[x]")
    )
    assert settings.read_text() == '{"hooks": {}}\n'
    assert not (home / ".gitconfig").exists()
    assert str(settings) in told


@pytest.mark.parametrize(
    ("command", "changed"),
    [
        (f"{PY} \"open('docs/guide.md','w').write('owned')\"", "docs/guide.md"),
        (f"{PY} \"open('docs/new.md','w').write('planted')\"", "docs/new.md"),
        ("cp -r src/. docs/", "docs/app.py"),
        (f"{PY} \"import os; os.rename('src/app.py', 'docs/app.py')\"", "docs/app.py"),
        ("sort -o docs/guide.md src/app.py", "docs/guide.md"),
        ("cd docs; cd -; " + py_write("docs/guide.md", "x"), "docs/guide.md"),
        (py_write("docs/guide.md", "x", "a") + " && git commit -qam sneak", "docs/guide.md"),
    ],
)
def test_out_of_scope_changes_are_put_back_with_the_owner(
    ws: Path, command: str, changed: str
) -> None:
    agent = Agent(ws)
    agent.select("INT-APP")
    _, told = agent.shell(command)
    assert (ws / "docs" / "guide.md").read_text() == "# Guide\n"
    assert not (ws / "docs" / "new.md").exists() and not (ws / "docs" / "app.py").exists()
    assert (ws / "src" / "app.py").read_text() == APP
    assert changed in told and "out-of-scope" in told and "INT-DOCS" in told


def test_without_a_selected_intent_nothing_stays(ws: Path) -> None:
    agent = Agent(ws)
    _, told = agent.shell(f"{PY} \"open('src/app.py','a').write('# x\\n')\"")
    assert (ws / "src" / "app.py").read_text() == APP
    assert "no-active-intent" in told and "select_active_intent" in told


def test_in_scope_changes_are_recorded_as_the_session_and_check_passes(ws: Path) -> None:
    agent = Agent(ws)
    agent.select("INT-APP")
    env_model = {"ANTHROPIC_MODEL": "claude-test-9"}
    agent.env.update(env_model)
    script = "print('def gen():\\n    return 1')"
    _, told = agent.shell(
        f"{PY} \"{script}\" > src/gen_out.txt; sed -i 's/return 2/return 3/' src/app.py"
    )
    agent.shell(f"{PY} \"open('src/made.py','w').write('def made():\\n    return 1\\n')\"")
    assert told == ""
    recorded = {r["files"][0]["path"]: r for r in records(ws)}
    assert set(recorded) == {"src/gen_out.txt", "src/app.py", "src/made.py"}
    made = recorded["src/made.py"]
    conv = made["files"][0]["conversations"][0]
    assert conv["contributor"] == {"type": "ai", "model_id": "claude-test-9"}
    assert conv["related"] == [{"type": "specification", "url": "urn:intent:INT-APP"}]
    assert made["metadata"]["intent_ls"]["session_id"] == "s1"
    assert [n["name"] for n in made["metadata"]["intent_ls"]["ast_nodes"]] == ["made"]
    git(ws, "add", "-A")
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "check", "--workspace", str(ws), "--base", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_destructive_shell_change_is_put_back_until_a_human_approves(ws: Path) -> None:
    agent = Agent(ws)
    agent.select("INT-APP")
    command = f"{PY} \"open('src/app.py','w').write('def main():\\n    return 1\\n')\""
    _, told = agent.shell(command)
    assert (ws / "src" / "app.py").read_text() == APP
    assert "destructive-edit" in told and "intent-ls approve" in told
    approve = told.split("`intent-ls approve", 1)[1].split("`", 1)[0]
    subprocess.run(
        [sys.executable, "-m", "intent_ls", "approve", *approve.split()], check=True, cwd=ws
    )
    _, told = agent.shell(command)
    assert told == ""
    assert (ws / "src" / "app.py").read_text() == "def main():\n    return 1\n"
    assert records(ws)[-1]["files"][0]["path"] == "src/app.py"


def test_ignored_files_and_other_sessions_records_are_not_the_agents(ws: Path) -> None:
    agent = Agent(ws)
    agent.select("INT-APP")
    _, told = agent.shell("echo noise > build.log")
    assert told == "" and (ws / "build.log").exists()


def test_what_cannot_be_put_back_fails_check(ws: Path) -> None:
    big = ws / "docs" / "big.txt"
    big.write_bytes(b"a\n" * (5 * 1024 * 1024))  # untracked and above the copy limit
    agent = Agent(ws)
    agent.select("INT-APP")
    _, told = agent.shell(py_write("docs/big.txt", "more", "a"))
    assert "could not be put back" in told
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "check", "--workspace", str(ws), "--base", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0 and "agent-effect" in done.stdout


def test_gemini_and_codex_verify_too(ws: Path) -> None:
    """Behind the barrier the spec write fails; what the barrier leaves writable (an
    out-of-scope file) is put back after the call and the agent told."""
    for name in ("gemini", "codex"):
        agent = Agent(ws, agent=name)
        agent.select("INT-APP")
        _, told = agent.shell(f"{PY} \"open('.orchestration/active_intents.yaml','w').write('')\"")
        assert spec_of(ws) == SPEC, name
        assert available() or "active_intents.yaml" in told, name
        _, told = agent.shell(py_write("docs/guide.md", "mine"))
        assert (ws / "docs" / "guide.md").read_text() == "# Guide\n", name
        assert "docs/guide.md" in told, name


@pytest.mark.skipif(not available(), reason="no Landlock on this kernel")
@pytest.mark.parametrize(
    "command",
    [
        f'printf \'open(".orchestration/active_intents.yaml","w").write("x")\' > src/w.py'
        f" && {sys.executable} src/w.py",
        "printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-commit && git commit -qm x",
        "ln -f .intentignore src/ig; echo '*' >> src/ig",
        py_write(".intentignore", "src/**\\n", "a"),
        # Code on the command line that deletes is held before it runs
        # (test_shell_holds.py); the same code from a file runs behind the barrier.
        "printf 'import shutil; shutil.rmtree(\".orchestration\")' > src/d.py"
        f" && {sys.executable} src/d.py",
        py_write("~/.claude/settings.json", "{}"),
    ],
)
def test_claude_runs_shell_commands_in_the_sandbox(ws: Path, tmp_path: Path, command: str) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{}\n")
    before = {
        p: p.read_bytes()
        for p in (ws / ".orchestration" / "active_intents.yaml", ws / ".intentignore")
    }
    agent = Agent(ws, home=home)
    agent.select("INT-APP")
    pre, _ = agent.shell(command)
    assert "updatedInput" not in pre.get("hookSpecificOutput", {})  # its prefix confines it
    assert {p: p.read_bytes() for p in before} == before
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert (home / ".claude" / "settings.json").read_text() == "{}\n"


@pytest.mark.skipif(not available(), reason="no user and mount namespaces here")
def test_the_barrier_keeps_git_and_ordinary_saves_working(ws: Path, tmp_path: Path) -> None:
    cwd_out = tmp_path / "cwd"
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "shell", "barrier", "--workspace", str(ws),
         "--cwd-out", str(cwd_out), "--",
         "echo new > notes.txt && sed -i s/new/old/ notes.txt && git add -A"
         " && git -c user.name=a -c user.email=a@a commit -qm ok && cd src"],
        cwd=ws, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (ws / "notes.txt").read_text() == "old\n"
    assert "ok" in git(ws, "log", "-1", "--format=%s")
    assert cwd_out.read_text().strip() == str(ws / "src")


def test_removing_the_kept_state_during_a_call_fails_check(ws: Path, tmp_path: Path) -> None:
    from intent_ls.agents.effects.store import store_dir

    state = tmp_path / "state"
    agent = Agent(ws, "gemini", barrier=False)
    agent.env["XDG_STATE_HOME"] = str(state)
    agent.select("INT-APP")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", str(state))
        store = store_dir(ws)
    command = f'{PY} "import shutil; shutil.rmtree({str(store)!r})"; ' + py_write(
        ".orchestration/active_intents.yaml", "active_intents: []\n"
    )
    _, told = agent.shell(command)
    assert "removed during it" in told
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "check", "--workspace", str(ws), "--base", "HEAD"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode != 0 and "agent-effect" in done.stdout


@pytest.mark.parametrize("flag", ["--assume-unchanged", "--skip-worktree"])
@pytest.mark.parametrize("same_call", [True, False])
def test_a_file_hidden_from_git_status_is_still_put_back(
    ws: Path, flag: str, same_call: bool
) -> None:
    agent = Agent(ws, "gemini", barrier=False)
    agent.select("INT-APP")
    hide = f"git update-index {flag} docs/guide.md"
    write = py_write("docs/guide.md", "backdoor")
    if same_call:
        _, told = agent.shell(f"{hide} && {write}")
    else:
        agent.shell(hide)
        _, told = agent.shell(write)
    assert (ws / "docs" / "guide.md").read_text() == "# Guide\n"
    assert "docs/guide.md" in told and "out-of-scope" in told


def test_a_hidden_file_deleted_in_a_later_call_is_re_created(ws: Path) -> None:
    agent = Agent(ws, "gemini", barrier=False)
    agent.select("INT-APP")
    agent.shell("git update-index --skip-worktree docs/guide.md")
    _, told = agent.shell(f"{PY} \"import os; os.remove('docs/guide.md')\"")
    assert (ws / "docs" / "guide.md").read_text() == "# Guide\n"
    assert "docs/guide.md" in told


def test_a_humans_hidden_local_edit_is_kept_when_the_agent_overwrites_it(ws: Path) -> None:
    """A flag a human set on a local settings file is theirs: the agent's out-of-scope
    rewrite is undone back to the human's local bytes, not to the committed ones."""
    (ws / "docs" / "guide.md").write_text("# Guide (my local notes)\n")
    git(ws, "update-index", "--skip-worktree", "docs/guide.md")
    agent = Agent(ws, "gemini", barrier=False)
    agent.select("INT-APP")
    agent.shell(py_write("docs/guide.md", "agent"))
    assert (ws / "docs" / "guide.md").read_text() == "# Guide (my local notes)\n"


def test_the_global_git_ignore_file_is_put_back(ws: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    agent = Agent(ws, "gemini", home=home, barrier=False)
    agent.select("INT-APP")
    _, told = agent.shell(
        py_write("~/.config/git/ignore", "docs/\n") + " && " + py_write("docs/new.md", "x")
    )
    assert not (home / ".config" / "git" / "ignore").exists()
    assert not (ws / "docs" / "new.md").exists()
    assert "docs/new.md" in told


@pytest.mark.parametrize(
    "command",
    [
        ": > src/app.py",
        "echo > src/app.py",
        "mv src/app.py /tmp/intent-ls-moved-away.py",
        "printf 'def main():\\n    return 1\\n' > src/app.py",
    ],
)
def test_a_shell_write_is_judged_by_its_effect_as_a_write_tool_would_be(
    ws: Path, command: str
) -> None:
    """The classifier names the file these commands write, and nobody was asked: what they
    did (emptied, moved out of the workspace, deleted a definition) is put back until a
    human approves it, as through the Write tool."""
    agent = Agent(ws)
    agent.select("INT-APP")
    pre, told = agent.shell(command)
    assert decision(pre)[0] != "ask"
    assert "src/app.py: destructive-edit, restored" in told
    assert (ws / "src" / "app.py").read_text() == APP
    assert records(ws) == []


def test_a_move_inside_the_scope_is_recorded_not_put_back(ws: Path) -> None:
    """``mv a b`` deletes ``a``, but its bytes are in ``b``, which the call keeps: nothing
    was lost, so both are recorded as the session's; moved to another intent's scope,
    the copy is removed and the original put back."""
    agent = Agent(ws)
    agent.select("INT-APP")
    _, told = agent.shell("mv src/app.py src/main.py")
    assert told == "" and (ws / "src" / "main.py").read_text() == APP
    assert not (ws / "src" / "app.py").exists()
    assert {f["path"] for r in records(ws) for f in r["files"]} == {"src/app.py", "src/main.py"}
    _, told = agent.shell(f"{PY} \"import os; os.rename('src/main.py', 'docs/main.py')\"")
    assert (ws / "src" / "main.py").read_text() == APP
    assert not (ws / "docs" / "main.py").exists()


def test_a_humans_ignored_settings_files_deleted_by_unread_code_are_put_back(
    ws: Path,
) -> None:
    """``.env`` and ``*.local`` files git ignores hold a human's work that exists nowhere
    else: code the classifier cannot read deletes them, and they are put back."""
    (ws / ".gitignore").write_text(".env\n*.local\n")
    git(ws, "add", ".gitignore")
    git(ws, "commit", "-qm", "ignore")
    (ws / ".env").write_text("TOKEN=mine\n")
    (ws / "src" / "settings.local").write_text("debug = true\n")
    big = "x" * (70 * 1024)
    (ws / "src" / "huge.local").write_text(big)  # above the budget: not kept
    agent = Agent(ws)
    agent.select("INT-APP")
    script = "import os\nfor p in ('.env', 'src/settings.local', 'src/huge.local'): os.remove(p)\n"
    (ws / "src" / "tidy.py").write_text(script)
    git(ws, "add", "src/tidy.py")
    git(ws, "commit", "-qm", "tidy")
    pre, told = agent.shell(f"{sys.executable} src/tidy.py")
    assert decision(pre)[0] != "ask"
    assert (ws / ".env").read_text() == "TOKEN=mine\n"
    assert (ws / "src" / "settings.local").read_text() == "debug = true\n"
    assert ".env: out-of-scope, restored" in told and "src/settings.local" in told
    assert not (ws / "src" / "huge.local").exists()


def test_human_files_are_found_where_they_live_and_listings_are_kept(tmp_path: Path) -> None:
    import os

    from intent_ls.agents.effects.human_files import human_files
    from intent_ls.agents.effects.store import Store

    ws = tmp_path / "proj"
    for folder in ("api", "node_modules", "api/deep"):
        (ws / folder).mkdir(parents=True)
    (ws / ".env").write_text("A=1\n")
    (ws / "api" / ".env.local").write_text("B=2\n")
    (ws / "api" / "main.py").write_text("x\n")
    (ws / "node_modules" / ".env").write_text("C=3\n")  # a dependency's: not looked in
    (ws / "api" / "deep" / "x.local").write_text("D=4\n")  # deeper than one folder down
    for folder in (ws, ws / "api", ws / "node_modules"):
        os.utime(folder, ns=(10**9, 10**9))  # settled: their listings are kept
    store = Store(ws)
    assert sorted(human_files(store, ws, "")) == [".env", "api/.env.local"]
    assert "api/" in store.read_state("human-files.json")["folders"]
    (ws / "api" / "db.local").write_text("x" * (64 * 1024 + 1))  # above the budget
    (ws / "api" / "new.local").write_text("E=5\n")  # the folder's mtime moves on
    assert sorted(human_files(store, ws, "")) == [".env", "api/.env.local", "api/new.local"]
