"""Qwen Code as intent-ls sees it (checked against Qwen Code 0.24.4)."""

from __future__ import annotations

from intent_ls.agents.profile import AgentProfile, lazy, lazy_value

_HERE = "intent_ls.agents.qwen"
#: Every tool, before and after: writes and the shell are judged before they run, our
#: own MCP tools answered ``allow``, every tool's effects judged after it.
BEFORE = ".*"
AFTER = ".*"

PROFILE = AgentProfile(
    name="qwen",
    label="Qwen Code",
    parse=lazy(f"{_HERE}.adapter", "parse"),
    render=lazy(f"{_HERE}.adapter", "render"),
    gate_event="PreToolUse",
    install=lazy(f"{_HERE}.install", "install"),
    hooks_file=".qwen/settings.json",
    events={
        "SessionStart": None,
        "UserPromptSubmit": None,
        "PreToolUse": BEFORE,
        "PostToolUse": AFTER,
        # After a tool that failed (a command's non-zero exit too), instead of PostToolUse.
        "PostToolUseFailure": AFTER,
    },
    # Seconds (Qwen Code 0.24.4 reads 1000 or more as milliseconds, the old unit).
    timeout_unit=1.0,
    project_vars=("QWEN_PROJECT_DIR",),
    # Interactively an ``ask`` is Qwen's own prompt, but headless (``-p``) Qwen turns it
    # into a deny that carries the reason, and the hook cannot tell which: what needs a
    # human is denied with the ``intent-ls approve`` step, in both.
    ask_supported=False,
    # Qwen Code ignores a PreToolUse ``updatedInput`` and has no shell prefix: a command
    # let through is denied with its sandboxed form, which the model runs instead.
    model_runs_wrapped=True,
    session_var="QWEN_CODE_SESSION_ID",
    # Set in every hook's environment (the session's model).
    model_env="QWEN_CODE_MODEL",
    env_markers=("QWEN_CODE", "QWEN_CODE_SESSION_ID"),
    protected_trees=(".qwen",),
    protected_shown=(".qwen/",),
    home_files=(".qwen/settings.json",),
    command_vars=("QWEN_PROJECT_DIR",),
    doctor_facts=lazy_value(f"{_HERE}.doctor", "FACTS"),
)
