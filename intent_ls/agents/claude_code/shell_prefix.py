"""``intent-ls-sandbox``: Claude Code's ``CLAUDE_CODE_SHELL_PREFIX``, which ``hooks install
claude-code`` sets (:mod:`intent_ls.agents.sandbox.prefix`). Light on purpose: it runs
before every shell command, so it names the agent here instead of loading its profile."""

from __future__ import annotations

NAME = "claude-code"
#: Set by Claude Code in its shell commands' environment.
SESSION_VAR = "CLAUDE_CODE_SESSION_ID"
PREFIX_VAR = "CLAUDE_CODE_SHELL_PREFIX"


def main() -> int:
    from intent_ls.agents.sandbox import prefix

    return prefix.main(NAME, SESSION_VAR)
