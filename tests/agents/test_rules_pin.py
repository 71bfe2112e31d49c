"""Route 3 of issue 28: an agent's own rule files decide nothing for a command unless
they are as they were when the session started."""

from __future__ import annotations

from pathlib import Path

import pytest

from intent_ls.agents.barrier import available
from tests.agents.conftest import Hook, decision, rewritten

ALLOW_PYTHON = 'prefix_rule(pattern = ["python3"], decision = "allow")\n'
GEMINI_ALLOW = (
    '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "python3"\n'
    'decision = "allow"\npriority = 100\n'
)

pytestmark = pytest.mark.skipif(not available(), reason="no user and mount namespaces here")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_a_rule_the_agent_adds_during_the_session_decides_nothing(
    governed: Path, agents_homes: dict[str, Path], agent: str
) -> None:
    if agent == "codex":
        event, tool, ask = "PreToolUse", "Bash", "deny"  # Codex cannot ask
        rules = agents_homes["codex"] / "rules" / "dev.rules"
        text = ALLOW_PYTHON
    else:
        event, tool, ask = "BeforeTool", "run_shell_command", "ask"
        rules = agents_homes["gemini"] / ".gemini" / "policies" / "dev.toml"
        text = GEMINI_ALLOW
    hook = Hook(governed, agent)
    start = "SessionStart"
    hook(start)
    _write(rules, text)  # what an agent's script would do mid-session
    answer = hook(event, tool, {"command": "python3 x.py"})
    verdict, reason = decision(answer)
    assert verdict == ask and "rule files changed since this session started" in reason
    assert "python3 x.py" in reason
    unruled = rewritten(hook(event, tool, {"command": "ls"}))
    assert unruled is not None and "intent_ls.agents.barrier" in unruled["command"]


def test_rules_in_place_when_the_session_started_still_decide(
    governed: Path, agents_homes: dict[str, Path]
) -> None:
    _write(agents_homes["codex"] / "rules" / "dev.rules", ALLOW_PYTHON)
    hook = Hook(governed, "codex")
    hook("SessionStart")
    assert hook("PreToolUse", "Bash", {"command": "python3 x.py"}) == {}
    other = Hook(governed, "codex", session="s2")  # pinned at its first event
    assert other("PreToolUse", "Bash", {"command": "python3 x.py"}) == {}
