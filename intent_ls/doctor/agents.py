"""Each coding agent set up in the workspace: its intent-ls hooks are there for every
event, name an executable, and *fire* — run exactly as the agent's settings spell them,
with a synthetic payload, they refuse an out-of-scope write and hold a destructive
command — and its MCP server entry starts and answers ``initialize``.

How each agent runs a hook's command line (checked against Claude Code 2.1, Codex CLI
0.169 and Gemini CLI 0.61, ``/work/shared/design/real-agents.md``): through ``bash -c``
in the project folder, with ``CLAUDE_PROJECT_DIR`` (Claude Code; an entry with ``args``
runs without a shell, ``${CLAUDE_PROJECT_DIR}`` substituted), or with
``$GEMINI_PROJECT_DIR``, ``$GEMINI_CWD`` and ``$CLAUDE_PROJECT_DIR`` replaced in the
text and set in the environment with the entry's own ``env`` (Gemini CLI).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from intent_ls.agents.gate import MCP_SERVER
from intent_ls.agents.install import CLAUDE_EVENTS, CODEX_EVENTS, GEMINI_EVENTS, is_ours
from intent_ls.doctor import mcp, probe
from intent_ls.doctor.commands import brought_by_repository, expand, plain_words, resolve
from intent_ls.doctor.report import Check, fail, note, ok
from intent_ls.workspace import Workspace

#: A destructive command that writes no file: every agent's hook holds it for a human.
HELD_COMMAND = "git reset --hard"
#: Seconds an agent gives a hook whose entry names no timeout.
DEFAULT_TIMEOUT_S = 60.0


@attrs.frozen
class Agent:
    name: str
    label: str
    hooks_file: str
    #: Hook event -> the matcher ``hooks install`` writes (None: every tool).
    events: Mapping[str, str | None]
    #: Hook event -> the tools its matcher must reach for intent-ls to see them.
    tools: Mapping[str, tuple[str, ...]]
    gate: str
    write_tool: str
    shell_tool: str
    #: The answer its hook gives a destructive command (Codex ignores ``ask``).
    held: str
    #: A hook entry's ``timeout`` in seconds per unit.
    timeout_unit: float
    #: Files whose presence shows the agent is used in this workspace.
    used_here: tuple[str, ...]
    #: The agent-side switches intent-ls cannot flip, as what to check.
    trust: tuple[tuple[str, str], ...]


CLAUDE = Agent(
    "claude-code",
    "Claude Code",
    ".claude/settings.json",
    CLAUDE_EVENTS,
    {
        "PreToolUse": (
            "Write",
            "Edit",
            "NotebookEdit",
            "Bash",
            f"mcp__{MCP_SERVER}__select_active_intent",
        ),
        "PostToolUse": ("Write", "Edit", "NotebookEdit", "Bash", "Read"),
    },
    "PreToolUse",
    "Write",
    "Bash",
    "ask",
    1.0,
    (".claude", ".mcp.json"),
    (
        (
            "folder trust",
            "an interactive session runs this folder's hooks only once you trust the folder "
            "(Claude Code asks at the first start here); `claude -p` runs them regardless.",
        ),
        (
            "MCP approval",
            "approve the project MCP server intent-ls from .mcp.json once when Claude Code "
            "asks; `/mcp` then shows it connected and `/hooks` lists the intent-ls hooks.",
        ),
    ),
)
CODEX = Agent(
    "codex",
    "Codex CLI",
    ".codex/hooks.json",
    CODEX_EVENTS,
    {
        "PreToolUse": ("apply_patch", "Bash", "mcp__intent_ls__select_active_intent"),
        "PostToolUse": ("apply_patch", "Bash"),
    },
    "PreToolUse",
    "apply_patch",
    "Bash",
    "deny",
    1.0,
    (".codex",),
    (
        (
            "hook trust",
            "Codex skips project hooks it was not told to trust, silently: review and trust "
            "them once with /hooks in the Codex TUI (again after they change).",
        ),
        (
            "project trust",
            "Codex reads .codex/config.toml only in a trusted project: trust it when Codex "
            'asks, or set [projects."<this folder>"] trust_level = "trusted" in '
            "~/.codex/config.toml.",
        ),
    ),
)
GEMINI = Agent(
    "gemini",
    "Gemini CLI",
    ".gemini/settings.json",
    GEMINI_EVENTS,
    {
        "BeforeTool": (
            "write_file",
            "replace",
            "run_shell_command",
            f"mcp_{MCP_SERVER}_select_active_intent",
        ),
        "AfterTool": ("write_file", "replace", "run_shell_command", "read_file"),
    },
    "BeforeTool",
    "write_file",
    "run_shell_command",
    "ask",
    0.001,
    (".gemini",),
    (
        (
            "folder trust",
            "Gemini CLI runs project hooks only in a trusted folder: trust this folder when "
            "it asks (/permissions), and accept its warning listing the project hooks.",
        ),
    ),
)
AGENTS = (CLAUDE, CODEX, GEMINI)


def used_here(agent: Agent, root: Path) -> bool:
    return any((root / rel).exists() for rel in agent.used_here)


def check_agent(agent: Agent, root: Path, mirror: Path) -> list[Check]:
    area = agent.name
    install = f"run `intent-ls hooks install {agent.name}`."
    settings = _load_json(root / agent.hooks_file)
    if isinstance(settings, str):
        return [fail(area, "settings", settings, f"fix {agent.hooks_file}, then {install}")]
    hooks = settings.get("hooks")
    hooks = hooks if isinstance(hooks, dict) else {}
    ours = {event: _our_hooks(agent, hooks.get(event)) for event in agent.events}
    checks = [_events_check(agent, ours)]
    gate = [hook for _, hook in ours[agent.gate]]
    if any(ours.values()):
        checks += _switched_off(agent, root, settings, gate[0] if gate else None)
    if gate:
        vetted, runnable = _vet_hook(agent, gate[0], root)
        checks.append(vetted)
        if runnable:
            checks += _fire_checks(agent, gate[0], mirror)
    checks += _mcp_checks(agent, root, settings, mirror)
    if any(ours.values()):
        checks += [note(area, name, text) for name, text in agent.trust]
    return checks


# -- the settings ----------------------------------------------------------------------


def _load_json(path: Path) -> dict[str, Any] | str:
    """The settings object, {} when the file is absent, or why it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        return f"{path.name} cannot be read ({exc})."
    try:
        data = json.loads(text or "{}")
    except ValueError as exc:
        return f"{path.name} is not valid JSON ({exc}): the agent ignores it."
    return data if isinstance(data, dict) else f"{path.name} does not hold a JSON object."


def _line(hook: dict[str, Any]) -> str:
    """The hook's command line as one string (an exec-form entry's ``args`` joined)."""
    command = hook.get("command")
    args = hook.get("args")
    line = command if isinstance(command, str) else ""
    if isinstance(args, list) and all(isinstance(a, str) for a in args):
        line = shlex.join([line, *args])
    return line


def _our_hooks(agent: Agent, entries: Any) -> list[tuple[Any, dict[str, Any]]]:
    """(matcher, hook) of each intent-ls command hook among an event's entries."""
    found = []
    for entry in entries if isinstance(entries, list) else ():
        hooks = entry.get("hooks") if isinstance(entry, dict) else None
        for hook in hooks if isinstance(hooks, list) else ():
            if not isinstance(hook, dict) or hook.get("type", "command") != "command":
                continue
            if is_ours({"hooks": [{"command": _line(hook)}]}):
                found.append((entry.get("matcher"), hook))
    return found


def matches(agent: Agent, matcher: Any, tool: str) -> bool:
    """Whether the agent runs a hook with this matcher for ``tool``. Gemini tests the
    matcher as a regular expression (an invalid one as a literal); Claude's format
    (Codex's too) takes ``A|B`` of plain names as an exact list, else a regex."""
    if matcher is None or (isinstance(matcher, str) and matcher.strip() in ("", "*")):
        return True
    if not isinstance(matcher, str):
        return False
    if agent is not GEMINI and re.fullmatch(r"[A-Za-z0-9_|]+", matcher):
        return tool in matcher.split("|")
    try:
        return re.search(matcher, tool) is not None
    except re.error:
        return agent is GEMINI and matcher == tool


def _events_check(agent: Agent, ours: dict[str, list[tuple[Any, dict[str, Any]]]]) -> Check:
    area, install = agent.name, f"run `intent-ls hooks install {agent.name}`."
    if not any(ours.values()):
        return fail(
            area,
            "hooks",
            f"{agent.hooks_file} has no intent-ls hooks: {agent.label}'s writes are not "
            "governed here.",
            install,
        )
    missing = [event for event, found in ours.items() if not found]
    gaps = []
    for event, tools in agent.tools.items():
        unseen = [t for t in tools if not any(matches(agent, m, t) for m, _ in ours[event])]
        if ours[event] and unseen:
            gaps.append(f"{event} misses {', '.join(unseen)}")
    if missing or gaps:
        problems = ([f"no intent-ls hook on {', '.join(missing)}"] if missing else []) + gaps
        return fail(area, "hooks", f"{agent.hooks_file}: {'; '.join(problems)}.", install)
    return ok(area, "hooks", f"{agent.hooks_file}: intent-ls on {', '.join(agent.events)}.")


# -- the command and its proof ---------------------------------------------------------


def _invocation(
    agent: Agent, hook: dict[str, Any], project: Path, session: str
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment the agent runs this hook with, in ``project``."""
    env = dict(os.environ)
    line = hook.get("command") if isinstance(hook.get("command"), str) else ""
    if agent is GEMINI:
        quoted = shlex.quote(str(project))
        for name in ("GEMINI_PROJECT_DIR", "GEMINI_CWD", "CLAUDE_PROJECT_DIR"):
            line = line.replace(f"${name}", quoted)
            env[name] = str(project)
        env["GEMINI_SESSION_ID"] = session
        extra = hook.get("env")
        if isinstance(extra, dict):
            env.update({k: str(v) for k, v in extra.items() if isinstance(k, str)})
    elif agent is CLAUDE:
        env["CLAUDE_PROJECT_DIR"] = str(project)
        args = hook.get("args")
        if isinstance(args, list) and all(isinstance(a, str) for a in args):
            own = [line, *args]
            return [w.replace("${CLAUDE_PROJECT_DIR}", str(project)) for w in own], env
    return [probe.shell(), "-c", line], env


def _timeout_s(agent: Agent, hook: dict[str, Any]) -> float:
    value = hook.get("timeout")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value) * agent.timeout_unit
    return DEFAULT_TIMEOUT_S


def _own_env(entry: dict[str, Any]) -> list[str]:
    extra = entry.get("env")
    return sorted(str(k) for k in extra) if isinstance(extra, dict) else []


def _vet_hook(agent: Agent, hook: dict[str, Any], root: Path) -> tuple[Check, bool]:
    """The check of the hook's command line, and whether doctor may run it. Only the
    plain form ``PROGRAM hook AGENT [--budget S]`` is run, with a program that did not
    come with the repository: a cloned repository's settings could run anything, and
    doctor, unlike the agent, asks nobody to trust the folder first."""
    area, line = agent.name, _line(hook)
    reinstall = (
        f"run `intent-ls hooks install {agent.name}` (it writes the plain command), or "
        "check the hook in a session of the agent."
    )
    argv, env = _invocation(agent, hook, root, "doctor")
    exec_form = argv[:2] != [probe.shell(), "-c"]
    found = argv if exec_form else plain_words(line)
    if _own_env(hook):
        why = f"sets its own environment ({', '.join(_own_env(hook))})"
    elif found is None:
        why = "is more than a program and its arguments"
    elif any(w in ("--workspace", "-w") or w.startswith("--workspace=") for w in found):
        why = "names its workspace, so a probe would run against the real one"
    elif not _hook_arguments(agent, found[1:]):
        why = f"does not run `intent-ls hook {agent.name}`"
    else:
        why = ""
    if found is None or why:
        return fail(
            area,
            "command",
            f"`{line}` {why}: doctor does not run it, so cannot prove it fires.",
            reinstall,
        ), False
    program = found[0] if exec_form else expand(found[0], env)
    path = resolve(program, root, env)
    if path is None:
        return fail(
            area,
            "command",
            f"`{line}` names `{program}`, which is not an executable here (not on PATH, "
            "or a path that does not exist).",
            f"run `intent-ls hooks install {agent.name}` with the intent-ls you use "
            "(it writes its path when it is not on PATH).",
        ), True
    if brought_by_repository(path, root):
        return fail(
            area,
            "command",
            f"`{line}` runs {path}, which came with this repository: doctor does not run "
            "a repository's own programs.",
            "install intent-ls outside the repository (or in a virtual environment git "
            f"ignores), then run `intent-ls hooks install {agent.name}`.",
        ), False
    return ok(area, "command", f"`{line}` runs {path}."), True


def _hook_arguments(agent: Agent, args: list[str]) -> bool:
    """``hook AGENT`` with at most a ``--budget`` of seconds."""
    if args[:2] != ["hook", agent.name]:
        return False
    rest = args[2:]
    if rest and rest[0].startswith("--budget="):
        rest = ["--budget", rest[0].removeprefix("--budget="), *rest[1:]]
    if not rest:
        return True
    return (
        len(rest) == 2
        and rest[0] == "--budget"
        and re.fullmatch(r"\d+(\.\d+)?", rest[1]) is not None
    )


def _payload(
    agent: Agent, project: Path, session: str, tool: str, args: dict[str, Any]
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": "",
        "cwd": str(project),
        "hook_event_name": agent.gate,
        "tool_name": tool,
        "tool_input": args,
    }
    if agent is CLAUDE:
        payload["permission_mode"] = "default"
    if agent is CODEX:
        payload["model"] = "intent-ls-doctor"
    return payload


def probe_path(root: Path) -> str:
    """A governed top-level path that does not exist: no intent has selected it in a
    fresh session, so every hook must refuse a write to it."""
    ws = Workspace(root)
    for name in (
        "intent-ls-doctor-probe.txt",
        "intent-ls-doctor-probe.py",
        "intent-ls-doctor-probe",
    ):
        if not (root / name).exists() and ws.classify_rel(name).governed:
            return name
    return "intent-ls-doctor-probe.txt"


def _write_args(agent: Agent, project: Path, rel: str) -> dict[str, Any]:
    text = "written by no one: intent-ls doctor checks that this write is refused\n"
    if agent is CODEX:
        return {"command": f"*** Begin Patch\n*** Add File: {rel}\n+{text}*** End Patch\n"}
    return {"file_path": str(project / rel), "content": text}


def _decision(agent: Agent, answer: Any) -> tuple[str | None, str]:
    if not isinstance(answer, dict):
        return None, ""
    if agent is GEMINI:
        return answer.get("decision"), str(answer.get("reason", ""))
    out = answer.get("hookSpecificOutput")
    out = out if isinstance(out, dict) else {}
    return out.get("permissionDecision"), str(out.get("permissionDecisionReason", ""))


def _fire_checks(agent: Agent, hook: dict[str, Any], mirror: Path) -> list[Check]:
    rel = probe_path(mirror)
    probes = (
        (
            "fires on a write",
            agent.write_tool,
            _write_args(agent, mirror, rel),
            "deny",
            f"a write to {rel}",
        ),
        (
            "fires on a shell command",
            agent.shell_tool,
            {"command": HELD_COMMAND},
            agent.held,
            f"`{HELD_COMMAND}`",
        ),
    )
    checks = []
    for name, tool, args, expected, what in probes:
        session = f"intent-ls-doctor-{secrets.token_hex(6)}"
        argv, env = _invocation(agent, hook, mirror, session)
        payload = _payload(agent, mirror, session, tool, args)
        limit = _timeout_s(agent, hook)
        ran = probe.run(argv, mirror, env, json.dumps(payload).encode(), limit)
        checks.append(_judge(agent, name, what, expected, ran, limit))
    return checks


def _judge(
    agent: Agent, name: str, what: str, expected: str, ran: probe.Ran, limit: float
) -> Check:
    area = agent.name
    retry = (
        f"run `intent-ls hooks install {agent.name}`; if it still fails, run the hook's "
        "command line by hand from this folder and read its error."
    )
    if ran.status is None:
        return fail(
            area, name, f"{ran.error}: {agent.label} would let the tool run.", retry, ran.ms
        )
    try:
        answer = json.loads(ran.stdout) if ran.stdout.strip() else None
    except ValueError:
        answer = None
    decision, reason = _decision(agent, answer)
    if decision != expected:
        why = probe.last_line(ran.stderr)
        got = f"answered {decision!r}" if decision else "gave no decision"
        return fail(
            area,
            name,
            f"{what} was not {'refused' if expected == 'deny' else 'held'}: the hook {got} "
            f"(exit {ran.status}"
            + (f": {why}" if why else "")
            + f"), so {agent.label} would let it through.",
            retry,
            ran.ms,
        )
    if ran.ms > limit * 1000:
        return fail(
            area,
            name,
            f"answered in {ran.ms:.0f} ms, over the {limit:g} s the entry gives it: "
            f"{agent.label} would give up on it and let the tool run.",
            "raise the entry's timeout (`intent-ls hooks install` writes 10 s).",
            ran.ms,
        )
    code = re.match(r"\[intent-ls\] ([a-z-]+):", reason)
    label = code.group(1) if code else "no code"
    verb = "refused" if expected == "deny" else "held for a human"
    return ok(area, name, f"{what} {verb} ({expected}, {label}) in {ran.ms:.0f} ms.", ran.ms)


# -- the MCP server --------------------------------------------------------------------


CODEX_CONFIG = ".codex/config.toml"


def _load_toml(path: Path) -> dict[str, Any] | str:
    """The TOML table, {} when the file is absent, or why it cannot be read."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return f"{path} cannot be read ({exc})."


def _user_file(variable: str, default: str, *parts: str) -> Path:
    """An agent's user-level file: under the folder ``variable`` names, else ``default``
    in the home folder."""
    return Path(os.environ.get(variable) or os.path.expanduser(default), *parts)


def _switched_off(agent: Agent, root: Path, settings: dict[str, Any], hook: Any) -> list[Check]:
    """Settings that keep the agent from running any hook, or this one, where the
    workspace and the user's home show them."""
    area, name = agent.name, "enabled"
    if agent is CLAUDE:
        for path in (
            root / ".claude/settings.json",
            root / ".claude/settings.local.json",
            _user_file("CLAUDE_CONFIG_DIR", "~/.claude", "settings.json"),
        ):
            loaded = _load_json(path)
            if isinstance(loaded, dict) and loaded.get("disableAllHooks") is True:
                return [
                    fail(
                        area,
                        name,
                        f"{path} sets `disableAllHooks`: Claude Code runs no hook.",
                        f"remove `disableAllHooks` from {path}.",
                    )
                ]
        return []
    if agent is GEMINI:
        hook_name = hook.get("name") or hook.get("command") if isinstance(hook, dict) else None
        user = _user_file("GEMINI_CLI_HOME", "~", ".gemini", "settings.json")
        for path, loaded in ((root / agent.hooks_file, settings), (user, _load_json(user))):
            config = loaded.get("hooksConfig") if isinstance(loaded, dict) else None
            if not isinstance(config, dict):
                continue
            if config.get("enabled") is False:
                return [
                    fail(
                        area,
                        name,
                        f"{path} sets `hooksConfig.enabled` to false: Gemini CLI runs no hook.",
                        f"remove it from {path}.",
                    )
                ]
            disabled = config.get("disabled")
            if hook_name and isinstance(disabled, list) and hook_name in disabled:
                return [
                    fail(
                        area,
                        name,
                        f"{path} lists the intent-ls hook in `hooksConfig.disabled`.",
                        f"remove it from that list in {path}.",
                    )
                ]
        return []
    project = _load_toml(root / CODEX_CONFIG)
    if isinstance(project, str):
        return [fail(area, name, project, f"fix {CODEX_CONFIG}.")]
    user = _load_toml(_user_file("CODEX_HOME", "~/.codex", "config.toml"))
    values = [
        t.get("features", {}).get("hooks")
        for t in (project, user)
        if isinstance(t, dict) and isinstance(t.get("features"), dict)
    ]
    if not values or values[0] is not True:
        return [
            fail(
                area,
                name,
                f"{CODEX_CONFIG} does not set `[features] hooks = true`: Codex runs no hooks.",
                f"run `intent-ls hooks install {agent.name}`.",
            )
        ]
    return [ok(area, name, f"{CODEX_CONFIG}: `[features] hooks = true`.")]


def _mcp_entry(agent: Agent, root: Path, settings: dict[str, Any]) -> tuple[str, Any]:
    """(where it is configured, the intent-ls server entry or an error text or None)."""
    if agent is CODEX:
        where = CODEX_CONFIG
        config = _load_toml(root / where)
        if isinstance(config, str):
            return where, config
        servers = config.get("mcp_servers")
    elif agent is CLAUDE:
        where = ".mcp.json"
        loaded = _load_json(root / where)
        if isinstance(loaded, str):
            return where, loaded
        servers = loaded.get("mcpServers")
    else:
        where, servers = agent.hooks_file, settings.get("mcpServers")
    return where, servers.get(MCP_SERVER) if isinstance(servers, dict) else None


def _mcp_checks(agent: Agent, root: Path, settings: dict[str, Any], mirror: Path) -> list[Check]:
    area, install = agent.name, f"run `intent-ls hooks install {agent.name}`."
    where, entry = _mcp_entry(agent, root, settings)
    if isinstance(entry, str):
        return [fail(area, "MCP server", entry, install)]
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return [
            fail(
                area,
                "MCP server",
                f"{where} has no MCP server {MCP_SERVER}: the agent cannot select an "
                "intent, so every write it makes is refused.",
                install,
            )
        ]
    args = entry.get("args")
    argv = [entry["command"], *(args if isinstance(args, list) else [])]
    line = " ".join(shlex.quote(str(w)) for w in argv)
    env = dict(os.environ)
    if _own_env(entry) or argv[1:] != ["mcp"]:
        why = (
            f"sets its own environment ({', '.join(_own_env(entry))})"
            if _own_env(entry)
            else "does not run `intent-ls mcp`"
        )
        return [
            fail(
                area,
                "MCP server",
                f"{where}: `{line}` {why}: doctor does not start it, so cannot prove it answers.",
                install,
            )
        ]
    if agent is CLAUDE:  # Claude Code expands variables in .mcp.json itself
        argv[0] = expand(argv[0], {**env, "CLAUDE_PROJECT_DIR": str(root)})
    path = resolve(argv[0], root, env)
    if path is None or brought_by_repository(path, root):
        why = (
            "which is not an executable here" if path is None else "which came with this repository"
        )
        return [fail(area, "MCP server", f"{where}: `{line}` names `{argv[0]}`, {why}.", install)]
    if agent is not CODEX:
        env["CLAUDE_PROJECT_DIR"] = str(mirror)
    answer = mcp.initialize([str(path), *argv[1:]], mirror, env)
    if answer.server is None:
        return [fail(area, "MCP server", f"`{line}` {answer.error}.", install, answer.ms)]
    checks = [
        ok(
            area,
            "MCP server",
            f"`{line}` ({where}) answered initialize as {answer.server} in {answer.ms:.0f} ms.",
            answer.ms,
        )
    ]
    if agent is GEMINI and entry.get("trust") is not True:
        checks.append(
            note(
                area,
                "MCP trust",
                f'the server has no `"trust": true` in {where}: Gemini CLI asks before each '
                "of its tools.",
                install,
            )
        )
    return checks
