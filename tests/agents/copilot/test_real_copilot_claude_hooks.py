"""GitHub Copilot CLI runs Claude Code's project hooks too (``.claude/settings.json``,
after its own ``.github/hooks``, with its own payloads: ``Write`` ``{path, file_text}``).
intent-ls's Claude Code hook, run by it, answers as Copilot's: alone it governs the
session (and confines its shell commands); beside Copilot's own hook it stays out of the
call (no refusal of a write it cannot read, no second record). The real CLI, offline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.copilot.real_copilot import COPILOT, SELECT, run_session
from tests.agents.real_cli import install_hooks, missing
from tests.agents.scripted_model import ScriptedChat, tool
from tests.support import git, records

pytestmark = pytest.mark.skipif(COPILOT is None, reason=missing("GitHub Copilot CLI"))


def _session(root: Path) -> ScriptedChat:
    return ScriptedChat(
        [
            tool(1, "create", path=str(root / "src/new.py"), file_text="x = 1\n"),
            tool(2, SELECT, intent_id="INT-APP"),
            tool(3, "create", path=str(root / "src/new.py"), file_text="x = 1\n"),
            tool(4, "bash", description="step", command="python3 -c \"open('.orchestration/' "
                 "+ 'active_intents.yaml', 'a')\"; printf 'y = 2\\n' > src/shell.py"),
            "finished",
        ],
        main_tool="create",
    )  # fmt: skip


@pytest.mark.parametrize("own_hook", [False, True], ids=["claude-hook-only", "both-hooks"])
def test_claude_codes_hook_under_copilot(
    own_hook: bool, governed: Path, tmp_path: Path, agent_path: str
) -> None:
    assert COPILOT is not None
    spec = (governed / ".orchestration/active_intents.yaml").read_text()
    git(governed, "init", "-q")
    install_hooks("claude-code", governed, agent_path)
    if own_hook:
        install_hooks("copilot", governed, agent_path)
    root, _, results = run_session(COPILOT, governed, tmp_path, _session, agent_path, "--allow-all")
    assert "no-active-intent" in results["toolu_01"]
    assert "intent_context" in results["toolu_02"]
    assert results["toolu_03"].startswith("Created file")
    # The shell command ran in the sandbox: the protected write failed, the other landed.
    assert "Read-only file system" in results["toolu_04"]
    assert (root / ".orchestration/active_intents.yaml").read_text() == spec
    assert (root / "src/shell.py").read_text() == "y = 2\n"
    written = [f["path"] for r in records(root) for f in r["files"]]
    assert sorted(written) == ["src/new.py", "src/shell.py"]
