"""A governed git workspace and an agent that runs what the hooks let through."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import Hook, decision, rewritten
from tests.support import committed

SELECT = "mcp__intent-ls__select_active_intent"
LEDGER = ".orchestration/agent_trace.jsonl"


def git_workspace(root: Path) -> Path:
    (root / ".intentignore").write_text("*.log\n")
    (root / ".gitattributes").write_text("*.py text\n")
    return committed(root)


class Agent:
    """Plays one agent session: the before-tool event, the command (run for real, as
    the agent would once allowed, or as a human who said yes), the after-tool event."""

    def __init__(
        self,
        root: Path,
        agent: str = "claude-code",
        home: Path | None = None,
        *,
        barrier: bool = True,
        session: str = "s1",
    ) -> None:
        """``barrier=False`` plays a machine without the write barrier: the agent runs
        its own command, and only the verification after the call stands guard."""
        self.hook = Hook(root, agent, session)
        self.barrier = barrier
        self.root = root
        self.agent = agent
        self.env = {"HOME": str(home)} if home else {}
        self.calls = 0
        #: The last command as it ran (exit status, output); None when it was not run.
        self.done: subprocess.CompletedProcess[str] | None = None

    def select(self, intent: str) -> None:
        if self.agent == "gemini":
            answer = self.hook(
                "BeforeTool", "mcp_intent-ls_select_active_intent", {"intent_id": intent}
            )
        else:
            tool = SELECT.replace("intent-ls", "intent_ls") if self.agent == "codex" else SELECT
            answer = self.hook("PreToolUse", tool, {"intent_id": intent})
        assert decision(answer)[0] == "allow"

    def _events(self) -> tuple[str, str, str]:
        if self.agent == "gemini":
            return "BeforeTool", "AfterTool", "run_shell_command"
        return "PreToolUse", "PostToolUse", "Bash"

    def shell(self, command: str, *, run_held: bool = True) -> tuple[dict[str, Any], str]:
        """(the before-tool answer, the after-tool context); a held command is run anyway
        when ``run_held`` (a human said yes, or an unattended mode skipped the prompt)."""
        before, after, tool = self._events()
        self.calls += 1
        extra = {"tool_use_id": f"call-{self.calls}"}
        args = {"command": command}
        pre = self.hook(before, tool, args, env=self.env, **extra)
        verdict = decision(pre)[0]
        self.done = None
        if verdict == "deny" or (verdict == "ask" and not run_held):
            return pre, ""
        env = {**os.environ, **self.env, "PYTHON": sys.executable}
        argv = ["bash", "-c", str(args["command"])]
        if self.barrier:
            args = rewritten(pre) or args  # the agent runs what the hook says
            argv = ["bash", "-c", str(args["command"])]
            if self.agent == "claude-code":  # through its shell prefix, as Claude Code does
                sandbox = Path(sys.executable).parent / "intent-ls-sandbox"
                argv = [str(sandbox), str(args["command"])]
                env["CLAUDE_CODE_SESSION_ID"] = self.hook.session
        self.done = subprocess.run(
            argv,
            cwd=self.root,
            capture_output=True,
            text=True,
            errors="replace",
            env=env,
            timeout=60,
            check=False,
        )
        post = self.hook(after, tool, args, env=self.env, **extra)
        spec = post.get("hookSpecificOutput") or {}
        return pre, str(spec.get("additionalContext") or "")


def script(body: str) -> str:
    """The command as a script written in scope, then run: no classifier reads it."""
    return f"cat > src/do.sh <<'EOF'\n{body}\nEOF\nbash src/do.sh; rm src/do.sh"


#: A stash git never made: the ledger with a record nobody wrote, stored as a stash.
FORGED_STASH = script(
    "f=$(mktemp); cat .orchestration/agent_trace.jsonl > $f\n"
    'echo \'{"id":"forged","approvals":["human"]}\' >> $f\n'
    "blob=$(git hash-object -w $f)\n"
    "export GIT_INDEX_FILE=$(mktemp -u)\n"
    "git read-tree HEAD\n"
    f"git update-index --cacheinfo 100644,$blob,{LEDGER}\n"
    "t=$(git write-tree)\n"
    "g='-c user.name=a -c user.email=a@b'\n"
    "i=$(git $g commit-tree $t -p HEAD -m index)\n"
    "s=$(git $g commit-tree $t -p HEAD -p $i -m 'WIP on main: x')\n"
    "git stash store -m forged $s"
)


#: What a command may do to the ledger's copy that the after-tool event must not take in
#: (tests/agents/effects/test_ledger_copy.py as root, tests/agents/sandbox/test_attacks.py
#: as root and as an unprivileged user).
LEDGER_REWRITES = [
    pytest.param(
        "git -c user.name=a -c user.email=a@b commit -qam c; " + FORGED_STASH + "; git stash pop",
        id="forged-stash-popped",
    ),
    pytest.param(script(f'echo \'{{"id":"made-up"}}\' >> {LEDGER}'), id="appended"),
    pytest.param(script(f"head -n 1 {LEDGER} > x && cat x > {LEDGER}"), id="cut"),
    pytest.param("git reset -q --hard", id="reset-drops-records"),
    pytest.param(script(f"git checkout -q HEAD -- {LEDGER}"), id="checkout-drops-records"),
    pytest.param(script(f"rm -f {LEDGER}"), id="removed"),
    pytest.param(script(f"ln -sf /etc/hostname {LEDGER}"), id="symlinked"),
]
