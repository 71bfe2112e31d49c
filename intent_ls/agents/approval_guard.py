"""Approvals are a human's: an agent's shell never gets to run ``intent-ls approve``.

Three layers, because no single one is complete:

- before a shell call, any spelling of the approve verb in the command — quoted, escaped,
  split by ``''``, wrapped in ``env``/``bash -c``/``python -m intent_ls``, a path to the
  executable — is refused outright (never asked: a yes at an agent's prompt would be
  the agent approving its own work);
- ``intent-ls approve`` itself refuses to run where an agent's shell marks its
  environment (:data:`AGENT_ENV`);
- whatever still appends an approval to the ledger during a tool call is an effect on a
  protected path and is cut off after the call (:mod:`.effects.verify`).
"""

from __future__ import annotations

import os
import re

#: Variables the agents set in the environment of the commands their shell tool runs,
#: and a human's terminal does not have (captured with ``env`` through each real CLI:
#: Claude Code 2.1.197, Gemini CLI 0.61.0, Codex 0.169.0 sandboxed or not;
#: tests/agents/test_real_barrier.py). ``CODEX_HOME`` is the user's own setting, not one.
AGENT_ENV = (
    "CLAUDECODE",
    "CLAUDE_CODE_SESSION_ID",
    "AI_AGENT",
    "GEMINI_CLI",
    "CODEX_THREAD_ID",
    "CODEX_TOOL_CALL_ID",
    "CODEX_CI",
)
_NOISE = re.compile(r"""["'\\`$(){}\[\]]""")
_PROGRAM = re.compile(r"intent[-_]?ls|intent_ls|intentls")


def is_approval_attempt(command: str) -> bool:
    """Whether ``command`` could run ``intent-ls approve`` however it is spelled."""
    flat = _NOISE.sub("", command).lower()
    return bool(_PROGRAM.search(flat)) and "approve" in flat


def agent_shell() -> str | None:
    """The marker naming the agent whose shell this process runs in, or None."""
    return next((name for name in AGENT_ENV if os.environ.get(name)), None)
