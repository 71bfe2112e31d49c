"""An agent's intent-ls hooks: present on every event with a matcher that reaches every
tool intent-ls must see, naming an executable, and *firing*: run exactly as the agent's
settings spell them, with a synthetic payload, they refuse an out-of-scope write and
hold a destructive command, within the entry's timeout.

How each agent runs a hook's command line (through ``bash -c`` in the project folder,
with variables of its own, or without a shell) is its profile's
``doctor.invocation``, in the agent's own folder.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
from pathlib import Path
from typing import Any

from intent_ls.agents.install import is_ours
from intent_ls.agents.profile import AgentProfile
from intent_ls.doctor import probe
from intent_ls.doctor.agent_settings import DEFAULT_TIMEOUT_S, HELD_COMMAND, own_env
from intent_ls.doctor.commands import brought_by_repository, expand, plain_words, resolve
from intent_ls.doctor.report import Check, fail, ok
from intent_ls.workspace.discover import Workspace

#: (matcher, hook) of each intent-ls command hook on one event.
Ours = list[tuple[Any, dict[str, Any]]]


def _line(hook: dict[str, Any]) -> str:
    """The hook's command line as one string (an exec-form entry's ``args`` joined)."""
    command = hook.get("command")
    args = hook.get("args")
    line = command if isinstance(command, str) else ""
    if isinstance(args, list) and all(isinstance(a, str) for a in args):
        line = shlex.join([line, *args])
    return line


def our_hooks(agent: AgentProfile, entries: Any) -> Ours:
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


def matches(agent: AgentProfile, matcher: Any, tool: str) -> bool:
    """Whether the agent runs a hook with this matcher for ``tool``. Some agents test
    the matcher as a regular expression only (an invalid one as a literal); the
    PreToolUse format takes ``A|B`` of plain names as an exact list, else a regex."""
    if matcher is None or (isinstance(matcher, str) and matcher.strip() in ("", "*")):
        return True
    if not isinstance(matcher, str):
        return False
    regex_only = agent.doctor.regex_matchers
    if not regex_only and re.fullmatch(r"[A-Za-z0-9_|]+", matcher):
        return tool in matcher.split("|")
    try:
        return re.search(matcher, tool) is not None
    except re.error:
        return regex_only and matcher == tool


def events_check(agent: AgentProfile, ours: dict[str, Ours]) -> Check:
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
    for event, tools in agent.doctor.tools.items():
        unseen = [t for t in tools if not any(matches(agent, m, t) for m, _ in ours[event])]
        if ours[event] and unseen:
            gaps.append(f"{event} misses {', '.join(unseen)}")
    if missing or gaps:
        problems = ([f"no intent-ls hook on {', '.join(missing)}"] if missing else []) + gaps
        return fail(area, "hooks", f"{agent.hooks_file}: {'; '.join(problems)}.", install)
    return ok(area, "hooks", f"{agent.hooks_file}: intent-ls on {', '.join(agent.events)}.")


def _invocation(
    agent: AgentProfile, hook: dict[str, Any], project: Path, session: str
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment the agent runs this hook with, in ``project`` (an entry
    with an ``env`` of its own is never run: :func:`vet_hook`)."""
    form, own = agent.doctor.invocation(hook, project, session)
    env = {**os.environ, **own}
    if isinstance(form, list):
        return form, env
    return [probe.shell(), "-c", form], env


def _timeout_s(agent: AgentProfile, hook: dict[str, Any]) -> float:
    value = hook.get("timeout")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value) * agent.timeout_unit
    return DEFAULT_TIMEOUT_S


def vet_hook(agent: AgentProfile, hook: dict[str, Any], root: Path) -> tuple[Check, bool]:
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
    if own_env(hook):
        why = f"sets its own environment ({', '.join(own_env(hook))})"
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


def _hook_arguments(agent: AgentProfile, args: list[str]) -> bool:
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
    agent: AgentProfile, project: Path, session: str, tool: str, args: dict[str, Any]
) -> dict[str, Any]:
    payload = agent.doctor.payload(agent.gate_event, session, project, tool, args)
    return {**payload, **agent.doctor.payload_extra}


#: What the probe's write would put in the file it names.
PROBE_TEXT = "written by no one: intent-ls doctor checks that this write is refused\n"


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


def fire_checks(agent: AgentProfile, hook: dict[str, Any], mirror: Path) -> list[Check]:
    rel = probe_path(mirror)
    probes = (
        (
            "fires on a write",
            agent.doctor.write_tool,
            agent.doctor.write_args(mirror, rel, PROBE_TEXT),
            "deny",
            f"a write to {rel}",
        ),
        (
            "fires on a shell command",
            agent.doctor.shell_tool,
            {"command": HELD_COMMAND},
            agent.doctor.held,
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
        checks.append(_judge(agent, name, what, expected, ran))
    return checks


def _judge(agent: AgentProfile, name: str, what: str, expected: str, ran: probe.Ran) -> Check:
    """A hook that overran the entry's timeout was stopped there (``ran.status`` None),
    as the agent would stop it."""
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
    decision, reason = agent.doctor.decision_of(answer)
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
    code = re.match(r"\[intent-ls\] ([a-z-]+):", reason)
    label = code.group(1) if code else "no code"
    verb = "refused" if expected == "deny" else "held for a human"
    return ok(area, name, f"{what} {verb} ({expected}, {label}) in {ran.ms:.0f} ms.", ran.ms)
