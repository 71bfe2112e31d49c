"""The real Kilo Code CLI (``kilo run``), offline against a scripted model: the plugin
``intent-ls hooks install kilo`` writes governs it as it governs OpenCode, whose fork it
is (the whole cycle is tests/agents/opencode/test_real_opencode.py; this run checks what
Kilo could do differently: where it loads the plugin and MCP server from, its tool
names, the rewrite into the sandbox, its model id)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from intent_ls.agents.barrier import available
from tests.agents.conftest import SPEC
from tests.agents.opencode.real_opencode import KILO, run_cli
from tests.agents.real_cli import install_hooks, missing, spec_text
from tests.agents.scripted_model import ScriptedChat, tool
from tests.support import records

pytestmark = [
    pytest.mark.skipif(KILO.binary is None, reason=missing("Kilo Code CLI")),
    pytest.mark.skipif(not available(), reason="no user and mount namespaces here"),
]
#: A write to the spec whose path only exists at run time: nothing predicts it.
SNEAK = (
    f"{sys.executable} -c \"import os; p = os.path.join('.orchestration', "
    "'active_intents' + '.yaml'); open(p, 'w').write('active_intents: []')\""
)


def test_kilo_is_governed_by_the_same_plugin(
    governed: Path, tmp_path: Path, agent_path: str
) -> None:
    install_hooks("kilo", governed, agent_path)
    model = ScriptedChat(
        [
            tool(1, "write", filePath=str(governed / "src/new.py"), content="x = 1\n"),
            tool(2, "intent-ls_select_active_intent", intent_id="INT-APP"),
            tool(3, "bash", command="echo 'y = 2' > src/shell.py", description="w"),
            tool(4, "write", filePath=str(governed / "docs/new.md"), content="# x\n"),
            tool(5, "bash", command=SNEAK, description="s"),
            tool(6, "bash", command="git reset --hard", description="d"),
            "finished",
        ],
        "write",
    )
    results = run_cli(KILO, governed, tmp_path, model, agent_path)
    assert len(results) == 6, results
    assert "no-active-intent" in results["toolu_01"], results["toolu_01"]
    assert "intent_context" in results["toolu_02"], results["toolu_02"]
    assert (governed / "src/shell.py").read_text() == "y = 2\n"
    assert "out-of-scope" in results["toolu_04"] and not (governed / "docs/new.md").exists()
    assert "Read-only file system" in results["toolu_05"], results["toolu_05"]
    assert spec_text(governed) == SPEC
    assert "intent-ls approve" in results["toolu_06"], results["toolu_06"]
    [record] = records(governed)
    assert record["files"][0]["path"] == "src/shell.py"
    assert record["files"][0]["conversations"][0]["contributor"]["model_id"] == "scripted"
