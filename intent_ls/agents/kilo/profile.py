"""Kilo Code's CLI as intent-ls sees it (checked against ``@kilocode/cli`` 7.7.7): a fork
of OpenCode with the same plugin API, loading the plugin intent-ls ships
(:mod:`intent_ls.agents.js_plugin`) from ``.kilo/plugins/``; its project config is
``kilo.json`` (it reads ``opencode.json`` too, as a legacy name)."""

from __future__ import annotations

from intent_ls.agents.profile import AgentProfile, lazy, lazy_value

_HERE = "intent_ls.agents.kilo"
CONFIG = "kilo.json"
#: What the agent writes as its config's ``$schema`` when the file names none.
SCHEMA = "https://app.kilo.ai/config.json"

PROFILE = AgentProfile(
    name="kilo",
    label="Kilo Code CLI",
    parse=lazy(f"{_HERE}.adapter", "parse"),
    render=lazy("intent_ls.agents.js_plugin.adapter", "render"),
    gate_event="PreToolUse",
    install=lazy(f"{_HERE}.install", "install"),
    hooks_file=".kilo/plugins/intent-ls.js",
    events=dict.fromkeys(("SessionStart", "PreToolUse", "PostToolUse")),
    timeout_unit=1.0,
    ask_supported=False,
    rewrites_commands=True,
    env_markers=("KILO_PID",),
    # ``.kilocode/`` is its legacy config folder, loaded as ``.kilo/`` is.
    protected_trees=(".kilo", ".kilocode"),
    protected_files=(CONFIG, "kilo.jsonc"),
    protected_shown=(".kilo/", ".kilocode/", CONFIG),
    home_files=(".config/kilo/kilo.json", ".config/kilo/kilo.jsonc", ".config/kilo/config.json"),
    doctor_facts=lazy_value(f"{_HERE}.doctor", "FACTS"),
)
