"""The real agent CLIs, found, set up and run offline against a scripted model: one way
for every test that drives them (tests/agents/test_real_*.py).

The CLIs come from npm; ``.ci/run`` installs them into ``$INTENT_LS_AGENTS`` and sets
``INTENT_LS_REQUIRE_AGENTS=1`` so that a missing CLI fails there instead of skipping.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.agents.scripted_model import (
    ScriptedCodex,
    ScriptedGemini,
    ScriptedModel,
    serve,
    serve_codex,
    serve_gemini,
)

CODEX_MODEL = "gpt-5.5"
#: intent-ls's ``select_active_intent`` as Claude Code and Gemini CLI name it (Codex:
#: :func:`tests.agents.scripted_model.codex_mcp`).
CLAUDE_SELECT = "mcp__intent-ls__select_active_intent"
GEMINI_SELECT = "mcp_intent-ls_select_active_intent"


def find_agent(binary: str, package: str, variable: str = "INTENT_LS_AGENTS") -> str | None:
    default = Path.home() / ".cache" / variable.lower().replace("_", "-")
    folder = os.environ.get(variable) or str(default)
    candidate = Path(folder) / "node_modules" / ".bin" / binary
    found = str(candidate) if candidate.exists() else shutil.which(binary)
    if found is None and os.environ.get("INTENT_LS_REQUIRE_AGENTS") == "1":
        raise RuntimeError(f"INTENT_LS_REQUIRE_AGENTS=1 but {package} is not installed")
    return found


def missing(package: str) -> str:
    return f"{package} not installed (npm install it into $INTENT_LS_AGENTS; .ci/run does)"


def releases(pinned: str | None, newest: str | None) -> list[Any]:
    """The pinned and the newest release of one CLI, as test parameters."""
    found = (("pinned", pinned), ("newest", newest))
    return [pytest.param(binary, id=name) for name, binary in found if binary is not None]


CLAUDE = find_agent("claude", "@anthropic-ai/claude-code")
#: The newest release on the registry when CI ran (``$INTENT_LS_AGENTS_NEWEST``): what a
#: user installing today gets, beside the pinned one.
CLAUDE_NEWEST = find_agent("claude", "@anthropic-ai/claude-code@latest", "INTENT_LS_AGENTS_NEWEST")
CLAUDES = releases(CLAUDE, CLAUDE_NEWEST)
CODEX = find_agent("codex", "@openai/codex")
GEMINI = find_agent("gemini", "@google/gemini-cli")
CODEX_NEWEST = find_agent("codex", "@openai/codex@latest", "INTENT_LS_AGENTS_NEWEST")
GEMINI_NEWEST = find_agent("gemini", "@google/gemini-cli@latest", "INTENT_LS_AGENTS_NEWEST")


CODEXES = releases(CODEX, CODEX_NEWEST)
GEMINIS = releases(GEMINI, GEMINI_NEWEST)


def spec_text(root: Path) -> str:
    """The workspace's spec, as the agent left it."""
    return (root / ".orchestration" / "active_intents.yaml").read_text()


#: What a developer's session runs: reads and an ``npm test`` the user's rules allow (run
#: without asking), and two writes the agent may ask about.
DEV_COMMANDS = (
    "ls src",
    "git status --short",
    "git diff",
    "npm test",
    "touch src/new.py",
    "echo hi > /tmp/note.txt",
)


def developer_workspace(tmp_path: Path, name: str, governed: Path) -> Path:
    """A copy of ``governed`` as a developer's repository: git, and an ``npm test`` that
    prints ``npm-tested`` (npm's update check off: no registry call)."""
    root = tmp_path / name
    subprocess.run(["cp", "-r", str(governed), str(root)], check=True)
    (root / "package.json").write_text('{"scripts": {"test": "echo npm-tested"}}\n')
    (root / ".npmrc").write_text("update-notifier=false\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def assert_same_permissions(
    before: list[str], after: list[str], refused: Callable[[str], bool]
) -> None:
    """Each of :data:`DEV_COMMANDS`' results without and with intent-ls: the reads and
    ``npm test`` ran, and every command is refused in both or in neither, but for
    intent-ls's own refusal of a write before an intent is selected."""
    by_command = dict(zip(DEV_COMMANDS, after, strict=True))
    for command in ("ls src", "git status --short", "git diff", "npm test"):
        assert not refused(by_command[command]), (command, by_command[command])
    assert "app.py" in by_command["ls src"]
    assert "npm-tested" in by_command["npm test"]
    ours_only = {c for c, text in by_command.items() if "[intent-ls]" in text}
    assert ours_only <= {"touch src/new.py"}, ours_only
    for command, was, now in zip(DEV_COMMANDS, before, after, strict=True):
        if command not in ours_only:
            assert refused(was) == refused(now), (command, was, now)


def install_hooks(agent: str, root: Path, path: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "hooks", "install", agent, "--workspace", str(root)],
        capture_output=True, text=True, env={**os.environ, "PATH": path}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def claude_env(home: Path, url: str, path: str) -> dict[str, str]:
    """Claude Code's environment offline: its home, the scripted model, no traffic."""
    return {
        "PATH": path,
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }


def run_claude(
    root: Path,
    tmp_path: Path,
    model: ScriptedModel,
    path: str,
    *flags: str,
    claude: str | None = CLAUDE,
    user: int | None = None,
    env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``claude -p`` with edits accepted (and whatever ``flags`` add); its JSON result.
    Its home is ``tmp_path``'s ``home``, kept from an earlier run there. ``user``: the
    uid it runs as (:mod:`tests.agents.unprivileged`), ``env``: more variables."""
    assert claude is not None
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    argv = [_cli(claude, user), "-p", "do the task", "--permission-mode",
            "acceptEdits", *flags, "--output-format", "json"]  # fmt: skip
    with serve(model) as url:
        done = subprocess.run(
            _as(user, argv, home), cwd=root, env={**claude_env(home, url, path), **(env or {})},
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout)


def _cli(binary: str, user: int | None) -> str:
    """The CLI where ``user`` can run it (itself for the test's own user)."""
    if user is None:
        return binary
    from tests.agents.unprivileged import reachable_cli

    return reachable_cli(binary)


def _as(user: int | None, argv: list[str], *owned: Path) -> list[str]:
    """``argv`` as ``user`` runs it, the folders it keeps its state in made its own."""
    if user is None:
        return argv
    from tests.agents.unprivileged import as_user, give

    for folder in owned:
        give(folder, user)
    return as_user(argv, user)


def run_codex(
    root: Path,
    tmp_path: Path,
    model: ScriptedCodex,
    path: str,
    *,
    sandbox: str | None = "danger-full-access",
    approval: str | None = "never",
    rules: str | None = None,
    config: str = "",
    codex: str | None = CODEX,
    user: int | None = None,
    env: dict[str, str] | None = None,
) -> dict[str, str]:
    """``codex exec`` with the project trusted and hooks on; each call's output by id.
    ``sandbox``/``approval``: Codex's ``sandbox_mode`` and ``approval_policy`` (None:
    Codex's defaults); ``rules``: the user's exec-policy rules
    (``$CODEX_HOME/rules/user.rules``); ``config``: more of ``config.toml``, after the
    rest."""
    assert codex is not None
    home, codex_home = tmp_path / "home", tmp_path / "codex"
    home.mkdir(exist_ok=True)
    codex_home.mkdir()
    if rules is not None:
        (codex_home / "rules").mkdir()
        (codex_home / "rules" / "user.rules").write_text(rules)
    with serve_codex(model) as url:
        modes = "".join(
            f'{key} = "{value}"\n'
            for key, value in (("approval_policy", approval), ("sandbox_mode", sandbox))
            if value is not None
        )
        (codex_home / "config.toml").write_text(
            f'model = "{CODEX_MODEL}"\nmodel_provider = "mock"\n{modes}'
            f'[model_providers.mock]\nname = "mock"\nbase_url = "{url}/v1"\n'
            'wire_api = "responses"\nenv_key = "MOCK_API_KEY"\nrequest_max_retries = 0\n'
            "stream_max_retries = 0\n"
            "[features]\nplugins = false\nremote_plugin = false\napps = false\n"
            "tool_suggest = false\nhooks = true\n"
            f'[projects."{root}"]\ntrust_level = "trusted"\n{config}'
        )
        variables = {"PATH": path, "HOME": str(home), "CODEX_HOME": str(codex_home)}
        variables |= {"MOCK_API_KEY": "x", **(env or {})}
        argv = [_cli(codex, user), "exec", "--json", "--skip-git-repo-check",
                "--dangerously-bypass-hook-trust", "do the task"]  # fmt: skip
        run = subprocess.run(
            _as(user, argv, home, codex_home), cwd=root, env=variables,
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:] + run.stdout[-3000:]
    return {r["call_id"]: json.dumps(r.get("output")) for r in model.tool_results()}


def run_gemini(
    root: Path,
    tmp_path: Path,
    model: ScriptedGemini,
    path: str,
    approval_mode: str,
    *,
    settings: dict[str, Any] | None = None,
    policy: str | None = None,
    gemini: str | None = GEMINI,
    user: int | None = None,
    env: dict[str, str] | None = None,
) -> dict[str, str]:
    """``gemini -p`` with the workspace trusted; each call's response by id. ``settings``
    adds to the user's settings, ``policy`` is a user policy file
    (``~/.gemini/policies/user.toml``)."""
    assert gemini is not None
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    settings_json = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False},
        **(settings or {}),
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings_json))
    if policy is not None:
        (home / ".gemini" / "policies").mkdir()
        (home / ".gemini" / "policies" / "user.toml").write_text(policy)
    with serve_gemini(model) as url:
        variables = {
            "PATH": path,
            "HOME": str(home),
            "GEMINI_CLI_HOME": str(home),
            "GOOGLE_GEMINI_BASE_URL": url,
            "GEMINI_API_KEY": "fake",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_TELEMETRY_ENABLED": "false",
            **(env or {}),
        }
        argv = [_cli(gemini, user), "-p", "do the task", "--approval-mode",
                approval_mode, "--output-format", "json"]  # fmt: skip
        run = subprocess.run(
            _as(user, argv, home), cwd=root, env=variables, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    return {r.get("id"): json.dumps(r.get("response")) for r in model.tool_results()}
