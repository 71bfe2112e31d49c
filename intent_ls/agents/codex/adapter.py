"""Codex CLI: the PreToolUse hook format (:mod:`intent_ls.agents.hook_json`), Codex's tools.

``apply_patch`` arrives with the patch text as ``tool_input.command``; every file in it
is judged (adds, updates, deletes and moves). The shell tool arrives as ``Bash``. Every
payload carries ``model``. Codex ignores ``ask`` (the tool would run), so whatever needs
a human is denied with the command that approves it.

A shell command let through is rewritten to run under the write barrier
(:mod:`.barrier`). Codex 0.169.0 applies ``updatedInput`` only beside
``permissionDecision: "allow"`` (alone it is an invalid answer and the command runs
unchanged); that ``allow`` only carries the rewrite, the rewritten command still runs in
Codex's sandbox (checked with ``sandbox_mode = "read-only"``). PostToolUse then reports
the rewritten command, which is read back as the agent's own.
"""

from __future__ import annotations

import re
from typing import Any

from intent_ls.agents import hook_json
from intent_ls.agents.codex.apply_patch import PatchError, parse_patch
from intent_ls.agents.events import FileChange, HookEvent, ToolCall, ToolKind

AGENT = "codex"
ASK_SUPPORTED = False
PATCH_TOOLS = ("apply_patch", "ApplyPatch")


def patch_call(name: str, patch: str) -> ToolCall:
    try:
        files = parse_patch(patch)
    except PatchError:
        # Not an envelope we can read: Codex will reject it too, but judge it as the
        # unknown write it is rather than let it through.
        return ToolCall(ToolKind.SHELL, name, command=patch)
    changes = []
    for f in files:
        if f.op == "delete":
            changes.append(FileChange(f.path, delete=True))
        elif f.op == "add":
            changes.append(FileChange(f.path, f.new_text(None)))
        else:
            changes.append(FileChange(f.path, None, f.new_text, move_to=f.move_to))
    return ToolCall(ToolKind.WRITE, name, tuple(changes))


_HEREDOC = re.compile(
    r"\A\s*apply_patch\s*<<\s*(['\"]?)(?P<tag>[A-Za-z_]+)\1[ \t]*\n"
    r"(?P<body>.*?\n)(?P=tag)[ \t]*\n?\s*\Z",
    re.DOTALL,
)


def heredoc_patch(command: str) -> str | None:
    """The patch of a shell-form ``apply_patch <<'EOF' … EOF``, only when that heredoc is
    the whole script: anything before or after it is a shell command of its own."""
    match = _HEREDOC.match(command)
    if match is None or "*** Begin Patch" not in match.group("body"):
        return None
    return match.group("body")


#: Codex names MCP tools ``mcp__<server>__<tool>`` with the server name sanitized
#: (``intent-ls`` → ``intent_ls``).
OWN_PREFIX = "mcp__intent_ls__"


def tool_call(name: str, args: dict[str, Any]) -> ToolCall:
    if name.startswith(OWN_PREFIX):
        return ToolCall(ToolKind.OWN_MCP, name, mcp_tool=name[len(OWN_PREFIX) :], arguments=args)
    command = args.get("command")
    if name in PATCH_TOOLS and isinstance(command, str):
        return patch_call(name, command)
    workdir = args.get("workdir")
    workdir = workdir if isinstance(workdir, str) or workdir is None else "\0"
    if name in ("Bash", "shell", "exec_command") and isinstance(command, str):
        from intent_ls.agents.barrier import unwrap

        command = unwrap(command)
        patch = heredoc_patch(command)
        if patch is not None:
            return patch_call(name, patch)
        return ToolCall(ToolKind.SHELL, "Bash", command=command, arguments=args, workdir=workdir)
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        import shlex

        return ToolCall(ToolKind.SHELL, name, command=shlex.join(command), workdir=workdir)
    return hook_json.tool_call(name, args)


def parse(payload: dict[str, Any]) -> HookEvent:
    return hook_json.parse(payload, AGENT, tool_call)


def render(event_name: str, outcome: Any) -> dict[str, Any]:
    out = hook_json.render(event_name, outcome, ask_supported=ASK_SUPPORTED)
    spec = out.get("hookSpecificOutput")
    if event_name == hook_json.GATE and isinstance(spec, dict) and "updatedInput" in spec:
        spec["permissionDecision"] = "allow"  # without it Codex ignores the rewrite
    return out
