"""The repository's ``policy.agentProtectedPaths``: paths no agent tool call may change,
refused before a write and put back after any other, with the globs the before-tool
event read — an agent that edits the spec during the call narrows nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from intent_ls.agents.barrier import available
from tests.agents.conftest import SPEC, Hook, decision
from tests.agents.effects_helpers import SELECT, Agent, git_workspace

POLICY = "policy:\n  agentProtectedPaths:\n    - src/vendor/**\n    - '!src/vendor/README.md'\n"
LIB = "def vendored():\n    return 1\n"
PY = f"{sys.executable} -c"


@pytest.fixture
def ws(governed: Path) -> Path:
    (governed / ".orchestration" / "active_intents.yaml").write_text(SPEC + POLICY)
    (governed / "src" / "vendor").mkdir()
    (governed / "src" / "vendor" / "lib.py").write_text(LIB)
    (governed / "src" / "vendor" / "README.md").write_text("# vendored\n")
    return git_workspace(governed)


def spec_of(root: Path) -> str:
    return (root / ".orchestration" / "active_intents.yaml").read_text()


def test_a_write_tool_to_a_policy_path_is_refused_though_in_scope(ws: Path) -> None:
    hook = Hook(ws)
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    for path in ("src/vendor/lib.py", "src/vendor/deep/new.py"):
        out = hook("PreToolUse", "Write", {"file_path": str(ws / path), "content": "x\n"})
        verdict, reason = decision(out)
        assert verdict == "deny" and "protected-path" in reason, reason
        assert "agentProtectedPaths" in reason and path in reason
    readme = {"file_path": str(ws / "src/vendor/README.md"), "content": "# notes\n"}
    assert decision(hook("PreToolUse", "Write", readme))[0] != "deny"  # re-included by '!'


@pytest.mark.parametrize("agent", ["gemini", "claude-code"])
@pytest.mark.parametrize(
    "script",
    [
        "open('src/vendor/lib.py', 'w').write('evil')",
        "import os; os.remove('src/vendor/lib.py')",
        "import os; os.makedirs('src/vendor/x', exist_ok=True);"
        " open('src/vendor/x/planted.py', 'w').write('evil')",
    ],
)
def test_policy_paths_are_put_back_byte_for_byte(ws: Path, agent: str, script: str) -> None:
    player = Agent(ws, agent, barrier=False)
    player.select("INT-APP")
    _, told = player.shell(f'{PY} "{script}"')
    assert (ws / "src/vendor/lib.py").read_text() == LIB
    assert not (ws / "src/vendor/x/planted.py").exists()
    assert "src/vendor/" in told


def test_removing_the_key_during_a_call_is_put_back_and_the_path_stays_protected(
    ws: Path,
) -> None:
    """One command drops the key from the spec, then changes and plants protected files:
    the after-tool event judges with the globs the before-tool event read."""
    spec = spec_of(ws)
    player = Agent(ws, "gemini", barrier=False)  # verification only: nothing stops it
    player.select("INT-APP")
    unprotect = (
        "import re; p = '.orchestration/active_intents.yaml';"
        " open(p, 'w').write(open(p).read().split('policy:')[0]);"
        " open('src/vendor/lib.py', 'w').write('evil');"
        " open('src/vendor/planted.py', 'w').write('evil')"
    )
    _, told = player.shell(f'{PY} "{unprotect}"')
    assert spec_of(ws) == spec
    assert (ws / "src/vendor/lib.py").read_text() == LIB
    assert not (ws / "src/vendor/planted.py").exists()
    assert ".orchestration/active_intents.yaml" in told and "src/vendor/lib.py" in told
    # The next call still protects the path, before (a Write) and after (a command).
    hook = Hook(ws, "gemini")
    out = hook("BeforeTool", "write_file", {"file_path": "src/vendor/lib.py", "content": "x"})
    assert decision(out)[0] == "deny"
    player.shell(f"{PY} \"open('src/vendor/lib.py', 'a').write('# more')\"")
    assert (ws / "src/vendor/lib.py").read_text() == LIB


def test_an_unprotected_sibling_in_scope_is_recorded_not_put_back(ws: Path) -> None:
    player = Agent(ws, "gemini")
    player.select("INT-APP")
    player.shell(f"{PY} \"open('src/vendor/README.md', 'w').write('# notes')\"")
    assert (ws / "src/vendor/README.md").read_text() == "# notes"


@pytest.mark.skipif(not available(), reason="no user namespaces: no write barrier here")
def test_policy_paths_are_read_only_under_the_barrier(ws: Path) -> None:
    """A write that runs code within the same command never reaches the file: the
    barrier mounts it read-only before the command starts."""
    player = Agent(ws, "claude-code")
    player.select("INT-APP")
    ran = player.shell(f"{PY} \"open('src/vendor/lib.py', 'w').write('evil')\"; echo status=$?")
    assert (ws / "src/vendor/lib.py").read_text() == LIB
    assert "src/vendor/lib.py" not in ran[1]  # nothing needed putting back
