"""``intent-ls hook AGENT``: one hook process — stdin JSON in, one JSON answer out.

Every agent CLI *fails open*: a hook that crashes, overruns its timeout or prints
something that is not JSON lets the tool run. So this process fails closed itself:

- anything the gate or an adapter raises becomes a refusal naming the error;
- a timer a little shorter than the agent's timeout turns an overrun into a refusal;
- stray output (a library printing) goes to stderr: stdout carries the final JSON only;
- input that is not a hook payload gets a refusal and exit status 2, which every agent
  treats as "blocked" whatever the event.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intent_ls.agents import DEFAULT_BUDGET, registry
from intent_ls.agents.events import Decision, Outcome

if TYPE_CHECKING:
    from intent_ls.agents.events import HookEvent
    from intent_ls.agents.profile import AgentProfile

#: Seconds a hook may take before it refuses on its own: below the 10 s that
#: ``hooks install`` gives every agent, leaving room for the interpreter's start.
#: A hook payload carries one tool call's input: far above this it is not one.
MAX_PAYLOAD = 64 * 1024 * 1024


#: Signals that end a hook early, each answered with a refusal (SIGTERM caught last:
#: once it is, all of them are).
ENDING_SIGNALS = (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)


class HookTimeout(BaseException):
    """A BaseException, as KeyboardInterrupt is: the alarm may fire inside any library's
    ``except Exception`` (pathspec's glob check, an import), which must not swallow it
    and let the hook answer from half a judgement."""


def _root(profile: AgentProfile, event: HookEvent, workspace: Path | None) -> Path:
    """The workspace: given, else the agent's project folder, else the one holding the
    event's cwd — or, when that is none (``cwd: "/"``), the one holding a file the tool
    names, so a call is never ungoverned for where the agent says it stands."""
    if workspace is not None:
        return Path(os.path.realpath(workspace))
    project = profile.project_dir(os.environ)
    start = Path(os.path.realpath(project or event.cwd or "."))
    found = _governed(start)
    if found is not None or project:
        return found or start
    paths = [p for p in _named(event) if os.path.isabs(p)]
    return next((f for f in map(_governed, map(Path, paths)) if f is not None), start)


def _named(event: HookEvent) -> list[str]:
    """The files a tool call names: its file arguments, or what its command writes."""
    tool = event.tool
    if tool is None:
        return []
    if tool.command:
        from intent_ls.agents.shell.classify import classify_command

        return list(classify_command(tool.command, "/", event.cwd or "/").writes)
    return [c.path for c in tool.files]


def _governed(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding a spec folder."""
    start = Path(os.path.realpath(start))
    return next((c for c in (start, *start.parents) if (c / ".orchestration").is_dir()), None)


def _host(profile: AgentProfile) -> AgentProfile | None:
    """Another agent running this agent's hook (:mod:`intent_ls.agents.hosted`)."""
    if not any(profile.name in p.runs_hooks_of for p in registry.profiles()):
        return None
    from intent_ls.agents.hosted import host_of

    return host_of(profile, os.environ)


def refusal(agent: str, event_name: str, reason: str) -> dict[str, Any]:
    """The fail-closed answer in the agent's own format."""
    profile = registry.get(agent)
    name = event_name or profile.gate_event
    if name == profile.gate_event:
        return profile.render(name, Outcome(Decision.DENY, reason))
    return profile.render(name, Outcome(context=reason))


def run(agent: str, raw: bytes, workspace: Path | None = None) -> tuple[dict[str, Any], int]:
    """The answer to one payload and the exit status."""
    from intent_ls.agents.gate.answer import answer

    try:
        if len(raw) > MAX_PAYLOAD:
            raise ValueError(f"{len(raw)} bytes, above the {MAX_PAYLOAD} a hook reads")
        payload = json.loads(raw.decode("utf-8"))
        if not isinstance(payload, dict):
            raise ValueError("the payload is not a JSON object")
    except (ValueError, RecursionError) as exc:
        reason = f"[intent-ls] governance-error: unreadable hook input ({exc}); refused."
        return refusal(agent, "", reason), 2
    event_name = ""
    try:
        profile = registry.get(agent)
        host = _host(profile)
        if host is not None:
            from intent_ls.agents.hosted import governed_by_own_hook

            if governed_by_own_hook(host, payload):
                return {}, 0
            agent, profile = host.name, host
        event_name = str(payload.get(profile.event_key) or "")
        event = profile.parse(payload)
        root = _root(profile, event, workspace)
        if workspace is None:
            from intent_ls.agents.session_root import fixed

            root = fixed(agent, event.session_id, root)
        outcome = answer(event, root, ask_supported=profile.ask_supported)
        return profile.render(event_name, outcome), 0
    except HookTimeout:
        reason = "the governance check took too long"
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"
    text = (
        f"[intent-ls] governance-error: intent-ls could not check this action ({reason}), so it "
        "is refused. Next step: tell the human; `intent-ls validate` and `intent-ls trace "
        "verify` show what is wrong with the workspace."
    )
    return refusal(agent, event_name, text), 0


def main(agent: str, workspace: Path | None = None, budget: float = DEFAULT_BUDGET) -> int:
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing but the final JSON reaches the agent's stdout

    def expire(signum: int, frame: Any) -> None:
        raise HookTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    try:
        # An agent (or anything else) ending the hook early gets a refusal, not silence:
        # handled inside the ``try``, so even a signal that arrives the moment it is
        # caught (before the timer is set) is answered, never an exit with a traceback.
        # A closed terminal (SIGHUP) and Ctrl-C (SIGINT) end it as SIGTERM does.
        for ending in ENDING_SIGNALS:
            signal.signal(ending, expire)
        signal.setitimer(signal.ITIMER_REAL, budget)
        raw = sys.stdin.buffer.read()
        answer, status = run(agent, raw, workspace)
    except (HookTimeout, KeyboardInterrupt):  # Ctrl-C before its handler was set
        answer = refusal(
            agent, "", "[intent-ls] governance-error: the hook was stopped early; refused."
        )
        status = 2
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if status == 2:
        sys.stderr.write(_reason_of(answer) + "\n")
    out.write(json.dumps(answer, ensure_ascii=False))
    out.write("\n")
    out.flush()
    return status


def _reason_of(answer: dict[str, Any]) -> str:
    specific = answer.get("hookSpecificOutput") or {}
    return str(
        answer.get("reason")
        or specific.get("permissionDecisionReason")
        or specific.get("additionalContext")
        or "refused by intent-ls"
    )
