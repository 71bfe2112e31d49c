"""The write barrier and the agent-shell markers in the real Gemini CLI, Codex CLI and
Claude Code (offline, scripted model).

Each CLI lets the before-tool hook rewrite a shell command (Gemini ``tool_input``,
Codex ``updatedInput`` with ``allow``, Claude Code ``updatedInput``): a write to the
spec from a command no classifier follows fails inside the command, the agent sees why
in the command's output, and the file is unchanged. The agent's own checks of the
command text still apply to the rewritten one. ``intent-ls approve`` recognises the
agent's shell by the variables each CLI really sets there (captured with ``env``), and
a script that drops them still cannot write an approval: the ledger is read-only.

Gemini CLI and Codex match their own rules on the rewritten command: a command one of
their rules speaks to is left as written, and the rest keeps what the agent does around
a command (Gemini's background-job listing, Codex's sandbox).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from intent_ls.agents.approval_guard import AGENT_ENV
from intent_ls.agents.barrier import available
from tests.agents.conftest import SPEC
from tests.agents.real_cli import (
    CLAUDE,
    CODEX,
    GEMINI,
    install_hooks,
    missing,
    run_claude,
    run_codex,
    run_gemini,
    spec_text,
)
from tests.agents.scripted_model import (
    ScriptedCodex,
    ScriptedGemini,
    ScriptedModel,
    codex_shell,
    result_text,
    tool,
)
from tests.support import records

pytestmark = pytest.mark.skipif(not available(), reason="no user and mount namespaces here")

#: A write to the spec whose path only exists at run time: nothing predicts it.
SNEAK = (
    f"{sys.executable} -c \"import os; p = os.path.join('.orchestration', "
    "'active_intents' + '.yaml'); open(p, 'w').write('active_intents: []')\""
)
#: Prints which agent-shell marker ``intent-ls approve`` would refuse on.
PROBE = "from intent_ls.agents.approval_guard import agent_shell\nprint('marker', agent_shell())\n"


#: A script no guard reads: it drops every agent-shell marker, then approves.
UNMARKED_APPROVE = (
    "import os, subprocess, sys\n"
    "from intent_ls.agents.approval_guard import AGENT_ENV\n"
    "env = {k: v for k, v in os.environ.items() if k not in AGENT_ENV}\n"
    "done = subprocess.run([sys.executable, '-m', 'intent_ls', 'approve', "
    "'destructive-command', '--command', 'git push -f'], env=env)\n"
    "print('approve exited', done.returncode)\n"
)


def _env_names(output: str) -> set[str]:
    return {line.split("=", 1)[0] for line in output.splitlines() if "=" in line}


def _probe(root: Path) -> str:
    (root / "probe.py").write_text(PROBE)
    return f"{sys.executable} probe.py"


def _unmarked_approve(root: Path) -> str:
    (root / "tool.py").write_text(UNMARKED_APPROVE)
    return f"{sys.executable} tool.py"


def _no_approval(root: Path, output: str) -> None:
    """The unmarked approve ran, and failed on the read-only sidecar."""
    assert "approve exited 0" not in output and "approve exited" in output, output
    assert "Read-only file system" in output and "Traceback" not in output, output
    kinds = [r.get("metadata", {}).get("intent_ls", {}).get("kind") for r in records(root)]
    assert "approval" not in kinds


@pytest.mark.skipif(GEMINI is None, reason=missing("the Gemini CLI"))
def test_gemini_runs_shell_commands_behind_the_barrier(
    governed: Path, tmp_path: Path, agent_path: str
) -> None:
    install_hooks("gemini", governed, agent_path)
    model = ScriptedGemini(
        [
            tool(1, "run_shell_command", command=SNEAK),
            tool(2, "run_shell_command", command="env"),
            tool(3, "run_shell_command", command=_probe(governed)),
            # intent-ls finds nothing wrong here; Gemini itself refuses it, as unwrapped.
            tool(4, "run_shell_command", command="echo $(date)"),
            tool(5, "run_shell_command", command=_unmarked_approve(governed)),
            "finished",
        ]
    )
    results = run_gemini(governed, tmp_path, model, agent_path, "yolo")
    assert spec_text(governed) == SPEC
    assert "Read-only file system" in results["toolu_01"], results["toolu_01"]
    assert "active_intents.yaml" in results["toolu_01"]
    assert "runs your shell commands in a sandbox" in json.dumps(model.main_requests[0])
    names = _env_names(json.loads(results["toolu_02"])["output"])
    assert "GEMINI_CLI" in names and "GEMINI_CLI" in AGENT_ENV
    assert "marker GEMINI_CLI" in results["toolu_03"], results["toolu_03"]
    assert "Command injection detected" in results["toolu_04"], results["toolu_04"]
    _no_approval(governed, results["toolu_05"])


@pytest.mark.skipif(CODEX is None, reason=missing("the Codex CLI"))
def test_codex_runs_shell_commands_behind_the_barrier(
    governed: Path, tmp_path: Path, agent_path: str
) -> None:
    install_hooks("codex", governed, agent_path)
    model = ScriptedCodex(
        [
            codex_shell(1, SNEAK),
            codex_shell(2, "env"),
            codex_shell(3, _probe(governed)),
            codex_shell(4, "cd src && pwd"),
            codex_shell(5, _unmarked_approve(governed)),
            "finished",
        ]
    )
    results = run_codex(governed, tmp_path, model, agent_path)
    assert spec_text(governed) == SPEC
    assert "Read-only file system" in results["call_01"], results["call_01"]
    assert "active_intents.yaml" in results["call_01"]
    assert "runs your shell commands in a sandbox" in json.dumps(model.main_requests[0])
    names = _env_names(json.loads(results["call_02"]))
    assert {"CODEX_THREAD_ID", "CODEX_TOOL_CALL_ID", "CODEX_CI"} <= names, names
    assert {"CODEX_THREAD_ID", "CODEX_TOOL_CALL_ID", "CODEX_CI"} <= set(AGENT_ENV)
    assert "marker CODEX_THREAD_ID" in results["call_03"], results["call_03"]
    assert str(governed / "src") in results["call_04"], results["call_04"]
    _no_approval(governed, results["call_05"])


@pytest.mark.skipif(CLAUDE is None, reason=missing("Claude Code"))
def test_claude_codes_shell_is_marked(governed: Path, tmp_path: Path, agent_path: str) -> None:
    install_hooks("claude-code", governed, agent_path)
    model = ScriptedModel(
        [
            tool(1, "Bash", command="env", description="env"),
            tool(2, "Bash", command=_probe(governed), description="probe"),
            "finished",
        ]
    )
    run_claude(governed, tmp_path, model, agent_path, "--allowedTools", "Bash")
    results = {r["tool_use_id"]: result_text(r) for r in model.tool_results()}
    names = _env_names(results["toolu_01"])
    assert {"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "AI_AGENT"} <= names, results["toolu_01"]
    assert "marker CLAUDECODE" in results["toolu_02"], results["toolu_02"]


#: The user's own Gemini policy: a deny on a whole pipeline (no single command of it
#: matches), and an allow for one command.
GEMINI_POLICY = """
[[rule]]
toolName = "run_shell_command"
commandRegex = "echo pwned \\\\| cat"
decision = "deny"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "echo hi"
decision = "allow"
priority = 100
"""
#: What Gemini CLI appends to a tool result whose input a hook rewrote.
REWRITTEN = "Tool input parameters were modified by a hook"


@pytest.mark.skipif(GEMINI is None, reason=missing("the Gemini CLI"))
def test_gemini_judges_its_own_rules_on_the_command_as_written(
    governed: Path, tmp_path: Path, agent_path: str
) -> None:
    """Gemini matches its policy on the command the hook returns: the pipeline its user
    denied ran when rewritten. Commands whose rules a rewrite would defeat (that deny,
    an allow) are left as written; the rest still run behind the barrier, where Gemini
    still learns the background jobs."""
    install_hooks("gemini", governed, agent_path)
    model = ScriptedGemini(
        [
            tool(1, "run_shell_command", command="echo pwned | cat"),
            tool(2, "run_shell_command", command="echo hi"),
            tool(3, "run_shell_command", command="sleep 1 >/dev/null 2>&1 & echo started"),
            tool(4, "run_shell_command", command=SNEAK),
            "finished",
        ]
    )
    results = run_gemini(governed, tmp_path, model, agent_path, "yolo", policy=GEMINI_POLICY)
    assert "denied by policy" in results["toolu_01"], results["toolu_01"]
    assert "Output: pwned" not in results["toolu_01"]
    assert "Output: hi" in results["toolu_02"] and REWRITTEN not in results["toolu_02"]
    assert "Background PIDs: " in results["toolu_03"], results["toolu_03"]
    assert REWRITTEN in results["toolu_03"]
    assert "Read-only file system" in results["toolu_04"] and spec_text(governed) == SPEC


@pytest.mark.skipif(GEMINI is None, reason=missing("the Gemini CLI"))
def test_gemini_tools_allowed_keeps_its_meaning(
    governed: Path, tmp_path: Path, agent_path: str
) -> None:
    """``tools.allowed`` narrowed to one command denies every other shell command,
    rewritten ones included: the allowed one is left as written, so it still runs."""
    install_hooks("gemini", governed, agent_path)
    model = ScriptedGemini(
        [
            tool(1, "run_shell_command", command="echo allowed"),
            tool(2, "run_shell_command", command="echo other"),
            "finished",
        ]
    )
    allowed = {"tools": {"allowed": ["run_shell_command(echo allowed)"]}}
    results = run_gemini(governed, tmp_path, model, agent_path, "yolo", settings=allowed)
    assert "Output: allowed" in results["toolu_01"], results["toolu_01"]
    assert "denied by policy" in results["toolu_02"], results["toolu_02"]


CODEX_RULES = """
prefix_rule(pattern = ["echo", "forbidden"], decision = "forbidden")
prefix_rule(pattern = ["touch"], decision = "allow")
"""
#: Codex's ``workspace-write`` sandbox with only the workspace writable.
WORKSPACE_ONLY = (
    "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
)


@pytest.mark.skipif(CODEX is None, reason=missing("the Codex CLI"))
def test_codex_judges_its_own_rules_on_the_command_as_written(
    governed: Path, tmp_path: Path, agent_path: str
) -> None:
    """A command the user's rules allow runs outside Codex's sandbox, unasked; rewritten
    it matched no rule and ran sandboxed. Left as written it keeps that, a forbidden
    one is still refused, and the rest runs in the sandbox, where no namespace can be
    made: without the barrier (said), verified after the call."""
    outside = tmp_path / "outside"
    outside.mkdir()
    install_hooks("codex", governed, agent_path)
    model = ScriptedCodex(
        [
            codex_shell(1, "echo forbidden"),
            codex_shell(2, f"touch {outside}/allowed"),
            codex_shell(3, f"mkdir {outside}/sandboxed"),
            codex_shell(4, "echo other"),
            "finished",
        ]
    )
    results = run_codex(
        governed, tmp_path, model, agent_path, sandbox="workspace-write", rules=CODEX_RULES,
        config=WORKSPACE_ONLY,
    )  # fmt: skip
    # Forbidden stays forbidden behind the barrier: Codex matches the verbatim copy.
    assert "policy forbids commands starting with `echo forbidden`" in results["call_01"]
    assert (outside / "allowed").exists(), results["call_02"]
    assert "Read-only file system" in results["call_03"], results["call_03"]
    assert not (outside / "sandboxed").exists()
    assert "other" in results["call_04"] and "Traceback" not in results["call_04"]
    assert "no sandbox inside this agent's sandbox" in results["call_04"]
