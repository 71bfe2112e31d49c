"""What intent-ls answers an agent: the same rules as the editor, for one hook event.

Before a write: the session must have selected an intent that owns the path, the file
must not have changed on disk since this session last read or wrote it, nothing under
``.orchestration/`` may be written, and a destructive change needs a human. Before a
shell command: the classifier decides, and each file it writes is judged like a file
write. After a write: a ledger record through :mod:`intent_ls.workflow`. Session start
and each prompt: the selected intent's context, or how to select one.

Every refusal names its code, the owning intents and the exact next step, because the
model reads it and must be able to comply without a human decoding it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from intent_ls.agents import sessions
from intent_ls.agents.events import (
    Decision,
    FileChange,
    HookEvent,
    Outcome,
    Phase,
    ToolCall,
    ToolKind,
)
from intent_ls.common.hashing import text_hash
from intent_ls.policy.approvals import whole_file_request
from intent_ls.policy.session import SelectionRefused, Session, check_selectable
from intent_ls.policy.verdicts import (
    DESTRUCTIVE_COMMAND,
    DESTRUCTIVE_EDIT,
    GOVERNANCE_ERROR,
    NO_ACTIVE_INTENT,
    OUT_OF_SCOPE,
    PROTECTED_PATH,
    STALE_FILE,
)
from intent_ls.scope import glob_cache
from intent_ls.scope.index import ScopeIndex, is_sidecar
from intent_ls.spec.model import Intent, Spec, labels

#: :data:`intent_ls.spec.load.SPEC_RELPATH`, repeated so the hook never imports the YAML
#: parser when the compiled spec is current (a test keeps the two equal).
SPEC_RELPATH = ".orchestration/active_intents.yaml"
INTENTIGNORE = ".intentignore"
#: :data:`intent_ls.workspace.discover.MAX_IGNORE_BYTES` (a test keeps the two equal).
MAX_IGNORE_BYTES = 256 * 1024
MCP_SERVER = "intent-ls"
SELECT_TOOL = "select_active_intent"
#: Selectable intents listed in a context message before "call list_intents".
LISTED = 25
#: Claude Code permission modes in which an ``ask`` may be answered without a human
#: (skipped, or settled by a classifier): a write there never counts as approved.
UNATTENDED_MODES = frozenset({"bypassPermissions", "auto"})


@attrs.frozen
class Governance:
    """The workspace as one hook process sees it."""

    root: Path
    spec: Spec
    scope: ScopeIndex
    #: Why the spec cannot govern (then every write is refused), else None.
    broken: str | None = None


def load_governance(root: Path) -> Governance | None:
    """None when the workspace is not governed at all (no ``.orchestration/``). The
    workspace's glob translations are loaded too (:func:`handle` saves new ones), so a
    hook process compiles its scopes without importing pathspec."""
    from intent_ls.spec.cache import load_spec_cached

    if not (root / ".orchestration").is_dir():
        return None
    root = Path(os.path.realpath(root))
    loaded, problems = load_spec_cached(root, root / SPEC_RELPATH)
    errors = [p for p in problems if p.severity.value == "error"]
    broken = None
    if loaded is None or errors:
        first = errors[0] if errors else None
        where = f" (line {first.span.start.line + 1})" if first else ""
        broken = (
            f"the intent spec {SPEC_RELPATH} cannot be used: "
            f"{first.message if first else 'no intents'}{where}"
        )
    spec = loaded or Spec()
    from intent_ls.common.safe_io import read_regular

    try:  # as the CLI and the editor read it: a symlink or a huge file is not used
        ignores = read_regular(root / INTENTIGNORE, MAX_IGNORE_BYTES).decode("utf-8", "replace")
    except OSError:
        ignores = ""
    glob_cache.load(root)
    return Governance(root, spec, ScopeIndex(spec, ignores.splitlines()), broken)


def _session(gov: Governance, state: dict[str, Any]) -> Session:
    session = Session()
    wanted = state.get("intent_id")
    if isinstance(wanted, str):
        with contextlib.suppress(SelectionRefused):
            session.select(gov.spec, wanted)
    return session


def _rel(gov: Governance, cwd: str, path: str) -> str | None:
    """Workspace-relative POSIX path, or None outside the workspace."""
    full = os.path.realpath(os.path.join(cwd, os.path.expanduser(path)))
    root = str(gov.root)
    if full == root or not full.startswith(root + os.sep):
        return None
    return Path(full).relative_to(root).as_posix()


def _read(gov: Governance, rel: str) -> str | None:
    try:
        return (gov.root / rel).read_bytes().decode("utf-8-sig", "replace")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _hard_linked(gov: Governance, rel: str) -> int:
    """How many names the existing regular file ``rel`` has, when more than one."""
    try:
        st = os.lstat(gov.root / rel)
    except OSError:
        return 0
    return st.st_nlink if st.st_nlink > 1 and not os.path.isdir(gov.root / rel) else 0


def _deny(code: str, message: str, step: str) -> Outcome:
    return Outcome(Decision.DENY, f"[intent-ls] {code}: {message} Next step: {step}")


def _select_step(owners: Sequence[Intent]) -> str:
    selectable = [i for i in owners if i.selectable]
    if selectable:
        ids = " or ".join(f'"{i.id}"' for i in selectable)
        return (
            f"call the {SELECT_TOOL} tool of the MCP server {MCP_SERVER} with intent_id "
            f"{ids}, then retry."
        )
    return (
        "no IN_PROGRESS intent owns this path: ask the human to add it to an intent's "
        f"owned_scope in {SPEC_RELPATH} (agents never edit it), or work elsewhere."
    )


# -- before a file write ----------------------------------------------------------------


@attrs.frozen
class _Judged:
    outcome: Outcome
    #: (rel, content before the write) of every governed file the call may write.
    pending: tuple[tuple[str, str | None], ...] = ()
    #: (rel, the change a human is asked about): see :func:`_asked`.
    asked: tuple[tuple[str, dict[str, Any]], ...] = ()


def _judge_file(
    gov: Governance,
    session: Session,
    state: dict[str, Any],
    event: HookEvent,
    change: FileChange,
    ask_supported: bool,
) -> _Judged:
    from intent_ls import workflow

    rel = _rel(gov, event.cwd, change.path)
    if rel is None:
        return _Judged(Outcome())
    if is_sidecar(rel):
        return _Judged(
            _deny(
                PROTECTED_PATH,
                f"{rel} is intent-ls's own sidecar: agents never write .orchestration/ (the "
                "spec is the human's contract, and the ledger is append-only through "
                "intent-ls).",
                f"to work on an intent call {SELECT_TOOL}; to change an intent's scope, ask "
                "the human to edit the spec.",
            )
        )
    linked = _hard_linked(gov, rel)
    if linked:
        return _Judged(
            _deny(
                PROTECTED_PATH,
                f"{rel} has {linked} names (hard links): a write through it changes every "
                "one of them, and intent-ls cannot tell which are protected.",
                f"remove the link ({rel}) and write a fresh file, or ask the human.",
            )
        )
    if gov.scope.is_ignored(rel):
        return _Judged(Outcome())
    if gov.broken:
        return _Judged(_deny(GOVERNANCE_ERROR, gov.broken + ".", "ask the human to fix the spec."))
    targets = [rel]
    if change.move_to is not None:
        moved = _rel(gov, event.cwd, change.move_to)
        if moved is not None and is_sidecar(moved):
            return _judge_file(
                gov, session, state, event, FileChange(change.move_to), ask_supported
            )
        if moved is not None:
            targets.append(moved)
    old = _read(gov, rel)
    new: str | None = None
    if change.delete or change.move_to is not None:
        decision = workflow.judge_file_operation(
            session, gov.scope, rel, targets[1] if len(targets) > 1 else None, text=old
        )
    else:
        new = change.new_text if change.transform is None else change.transform(old)
        if new is None:
            decision = workflow.decide(rel, _path_verdicts(gov, session, rel))
        else:
            decision = workflow.judge_write(
                session, gov.scope, rel, old or "", new, disk=_disk(gov, state, rel, old)
            )
    if any(v.code in (STALE_FILE, DESTRUCTIVE_EDIT) for v in decision.open):
        decision = workflow.decide(
            rel, decision.verdicts, workflow.recorded_approvals(gov.root, rel)
        )
    blocking = decision.blocking()
    pending = tuple((t, _read(gov, t)) for t in targets)
    if not blocking:
        return _Judged(Outcome(), pending)
    first = blocking[0]
    if first.code == NO_ACTIVE_INTENT:
        owners = gov.scope.owners(rel)
        who = f"it is owned by {labels(owners)}" if owners else "no intent owns it"
        return _Judged(
            _deny(
                NO_ACTIVE_INTENT,
                f"this session has not selected an intent, so it may not write {rel} ({who}).",
                _select_step(owners),
            )
        )
    if first.code == OUT_OF_SCOPE:
        owners = gov.scope.owners(first.details.get("path", rel))
        return _Judged(
            _deny(
                OUT_OF_SCOPE,
                first.message,
                (
                    f"if this work belongs to another intent, {_select_step(owners)} Otherwise "
                    if owners
                    else ""
                )
                + "leave this file alone, or ask the human to widen the active intent's "
                f"owned_scope in {SPEC_RELPATH}.",
            )
        )
    if first.code == STALE_FILE:
        return _Judged(
            _deny(
                STALE_FILE,
                first.message.replace("since you read it", "since this session read it") + ".",
                f"read {rel} again and redo the change on its current content.",
            )
        )
    findings = [v for v in blocking if v.code == DESTRUCTIVE_EDIT]
    kinds = {v.details.get("kind") for v in findings}
    code = PROTECTED_PATH if "protected-path" in kinds else DESTRUCTIVE_EDIT
    approve = "; ".join(_approve_command(gov, v.details) for v in findings)
    what = "; ".join(v.message for v in findings)
    reason = (
        f"[intent-ls] {code}: {what}. A human must approve this before it is written: "
        f"{approve} — then retry. If the change was not meant to destroy this, redo it "
        "without the deletion."
    )
    if not ask_supported:
        return _Judged(Outcome(Decision.DENY, reason))
    asked = () if new is None else ((rel, _asked(rel, old, new, findings)),)
    return _Judged(Outcome(Decision.ASK, reason), pending, asked)


def _asked(rel: str, old: str | None, new: str, findings: Sequence[Any]) -> dict[str, Any]:
    """What the agent's permission prompt asks a human about: the content the write will
    leave (its hash) and the approvals the ask's ``intent-ls approve`` commands would
    record. A yes at the prompt is recorded as those approvals once the after-tool event
    finds exactly that content (:func:`_prompt_approvals`)."""
    approvals = []
    for verdict in findings:
        wanted = verdict.details.get("approval")
        if not isinstance(wanted, dict):  # `intent-ls approve CODE PATH`: the whole file
            wanted = whole_file_request(verdict.code, rel, old)
        approvals.append(dict(wanted))
    return {"after": text_hash(new), "approvals": approvals}


def _approve_command(gov: Governance, details: dict[str, Any]) -> str:
    wanted = details.get("approval")
    path = details.get("path", "")
    if isinstance(wanted, dict):
        return (
            f"`intent-ls approve --workspace {gov.root} {wanted['verdict_code']} "
            f"{wanted['path']} --hash {wanted['content_hash']} "
            f"--lines {wanted['start_line']}-{wanted['end_line']}`"
        )
    return f"`intent-ls approve --workspace {gov.root} {DESTRUCTIVE_EDIT} {path}`"


def _path_verdicts(gov: Governance, session: Session, rel: str) -> tuple[Any, ...]:
    from intent_ls.policy.judge import evaluate

    return evaluate(session, gov.scope, rel)


def _disk(gov: Governance, state: dict[str, Any], rel: str, old: str | None) -> Any:
    from intent_ls.policy.stale import DiskState

    known = state.get("seen")
    if not isinstance(known, dict) or rel not in known:
        return None  # never seen by this session: nothing to be stale against
    seen = known[rel] if isinstance(known[rel], str) else None
    current = None if old is None else text_hash(old)
    changer = None
    if seen != current and current is not None:
        changer = _changer(gov, rel, current)
    return DiskState(seen, current, changer, "read")


def _changer(gov: Governance, rel: str, digest: str) -> Any:
    from intent_ls.ledger.lookup import path_records
    from intent_ls.ledger.writers import changer_from_records

    try:
        newest = path_records(gov.root, rel, 20)
        return changer_from_records(reversed(newest), rel, digest)
    except Exception:  # naming the writer is a courtesy; the verdict stands without it
        return None


def _judge_files(
    gov: Governance,
    state: dict[str, Any],
    event: HookEvent,
    changes: Sequence[FileChange],
    ask_supported: bool,
) -> _Judged:
    session = _session(gov, state)
    pending: list[tuple[str, str | None]] = []
    asks: list[Outcome] = []
    asked: list[tuple[str, dict[str, Any]]] = []
    for change in changes:
        judged = _judge_file(gov, session, state, event, change, ask_supported)
        if judged.outcome.decision is Decision.DENY:
            return judged
        if judged.outcome.decision is Decision.ASK:
            asks.append(judged.outcome)
        pending.extend(judged.pending)
        asked.extend(judged.asked)
    if asks:
        reason = " ".join(o.reason for o in asks)
        return _Judged(Outcome(Decision.ASK, reason), tuple(pending), tuple(asked))
    return _Judged(Outcome(), tuple(pending))


# -- before a shell command -------------------------------------------------------------


def _judge_shell(
    gov: Governance,
    state: dict[str, Any],
    event: HookEvent,
    command: str,
    ask_supported: bool,
    cwd: str,
) -> _Judged:
    from intent_ls.agents.approval_guard import is_approval_attempt
    from intent_ls.agents.shell.classify import DESTRUCTIVE, classify_command

    if is_approval_attempt(command):
        return _Judged(
            _deny(
                PROTECTED_PATH,
                "approving a verdict is a human's decision; an agent never runs "
                "`intent-ls approve`, in any spelling, nor a command that could run it "
                "unseen (a program or script only known at run time: `$x …`, "
                '`eval "$(…)"`, `… | sh`).',
                "tell the human what needs approval and why, and let them approve it "
                "(in their terminal or the editor), then retry; otherwise spell the "
                "command out.",
            )
        )
    found = classify_command(command, gov.root, cwd)
    # A directory target (``rm -rf src``) spans intents: the sidecar rule still holds,
    # the rest is the destructive verdict's business, decided by a human.
    writes = [
        FileChange(full)
        for full in (os.path.join(str(gov.root), w) for w in found.writes)
        if _judged_as_file(gov, event, full)
    ]
    judged = _judge_files(gov, state, event, writes, ask_supported)
    if judged.outcome.decision is Decision.DENY:
        return judged
    # What a command the classifier cannot follow does is judged by its effects after it
    # ran (:mod:`.effects`); only what nothing could put back is held for a human.
    if found.klass == DESTRUCTIVE:
        code = DESTRUCTIVE_COMMAND
        if _command_approved(gov, code, command):
            return _Judged(Outcome(), judged.pending)
        why = "; ".join(found.reasons) or found.klass
        if ask_supported:
            step = "wait for the human's answer; if refused, find a non-destructive way."
        else:
            step = (
                f"ask the human to approve it with `intent-ls approve --workspace {gov.root} "
                f"{code} --command {_quote(command)}`, then retry; or find another way."
            )
        verb = "cannot be undone"
        reason = f"[intent-ls] {code}: `{command}` {verb} ({why}); a human must decide. "
        return _Judged(
            Outcome(
                Decision.ASK if ask_supported else Decision.DENY, reason + "Next step: " + step
            ),
            judged.pending,
        )
    return judged


def _judged_as_file(gov: Governance, event: HookEvent, full: str) -> bool:
    rel = _rel(gov, event.cwd, full)
    return not os.path.isdir(full) or rel is None or is_sidecar(rel)


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _command_approved(gov: Governance, code: str, command: str) -> bool:
    from intent_ls.agents.held_commands import use_approval

    return use_approval(gov.root, code, command)


# -- after a write: the record ----------------------------------------------------------


def _record(gov: Governance, event: HookEvent, rels: Sequence[str]) -> list[str]:
    """Appends one record per written file that changed; returns problems to report."""
    from intent_ls import workflow
    from intent_ls.ledger.store import Ledger, ledger_path
    from intent_ls.policy.approvals import Contributor

    problems: list[str] = []
    with sessions.updating(gov.root, event.agent, event.session_id) as state:
        pending: dict[str, Any] = state.setdefault("pending", {})
        seen: dict[str, Any] = state.setdefault("seen", {})
        session = _session(gov, state)
        model = event.model or _model(event, state)
        ledger = Ledger(ledger_path(gov.root))
        for rel in rels:
            if rel not in pending:
                continue
            entry = pending.pop(rel)
            old = entry.get("old") if isinstance(entry, dict) else None
            asked = entry.get("asked") if isinstance(entry, dict) else None
            new = _read(gov, rel)
            seen[rel] = None if new is None else text_hash(new)
            if (old or "") == (new or ""):
                continue
            try:
                for approval in _prompt_approvals(event.agent, rel, asked, new):
                    workflow.record_approval(
                        ledger,
                        gov.root,
                        approval,
                        intent_id=session.intent_id,
                        session_id=event.session_id,
                    )
            except OSError as exc:  # the change is still recorded, its verdict open
                problems.append(f"{rel}: {exc}")
            try:
                workflow.record_write(
                    ledger,
                    gov.root,
                    rel,
                    old or "",
                    new or "",
                    session=session,
                    scope=gov.scope,
                    session_id=event.session_id,
                    contributor=Contributor("ai", model),
                )
            except OSError as exc:
                problems.append(f"{rel}: {exc}")
    return problems


def _prompt_approvals(agent: str, rel: str, asked: object, new: str | None) -> list[Any]:
    """The approvals a human gave at the agent's permission prompt for this write: those
    the before-tool event asked about (:func:`_asked`), when the file now holds exactly
    the content it asked about — anything else the human never saw. Recorded as
    ``intent-ls approve`` records them (same key, a human approver), with a reason
    saying where the yes came from."""
    from intent_ls.policy.approvals import Approval, Contributor

    if not isinstance(asked, dict) or new is None or asked.get("after") != text_hash(new):
        return []
    found = []
    for item in asked.get("approvals") or ():
        try:
            if item["verdict_code"] != DESTRUCTIVE_EDIT or item["path"] != rel:
                continue
            found.append(
                Approval(
                    DESTRUCTIVE_EDIT,
                    rel,
                    int(item["start_line"]),
                    int(item["end_line"]),
                    str(item["content_hash"]),
                    Contributor("human"),
                    f"approved at the {agent} permission prompt",
                )
            )
        except (KeyError, TypeError, ValueError):
            continue
    return found


def _model(event: HookEvent, state: dict[str, Any]) -> str | None:
    env = os.environ.get("ANTHROPIC_MODEL") if event.agent == "claude-code" else None
    if env:
        return env
    if event.transcript_path:
        found = _model_from_transcript(event.transcript_path)
        if found:
            return found
    saved = state.get("model")
    return saved if isinstance(saved, str) else None


def _model_from_transcript(path: str) -> str | None:
    """The newest ``message.model`` in a JSONL transcript (read from its tail)."""
    import json

    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 256 * 1024))
            tail = fh.read()
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        if b'"model"' not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        model = message.get("model") if isinstance(message, dict) else None
        if isinstance(model, str) and model and not model.startswith("<"):
            return model
    return None


# -- context ----------------------------------------------------------------------------


def session_context(gov: Governance, state: dict[str, Any]) -> str:
    from intent_ls.workspace.brain import lessons_for, read_brain
    from intent_ls.workspace.context import context_xml

    if gov.broken:
        return (
            f"intent-ls governs this workspace, but {gov.broken}. Every file write is refused "
            "until a human fixes the spec."
        )
    session = _session(gov, state)
    intent = gov.spec.get(session.intent_id) if session.intent_id else None
    if intent is not None:
        lessons = lessons_for(read_brain(gov.root), intent.id)
        return (
            f"intent-ls: this session works on intent {intent.id}. Only files in its "
            "owned_scope may be changed; .orchestration/ is never written by agents.\n"
            + context_xml(intent, lessons=lessons)
        )
    return selection_help(gov.spec)


def clone_setup_note(root: Path) -> str:
    """Once per agent session (like ``serve`` and ``check``): a clone without the merge
    driver produces ledger conflicts on the next merge, and only a human can run ``init``."""
    from intent_ls.workspace.setup import clone_setup_problems

    problems = clone_setup_problems(root)
    if not problems:
        return ""
    return "\n\nintent-ls setup warning (tell the human): " + "; ".join(problems) + "."


def selection_help(spec: Spec) -> str:
    selectable = [i for i in spec.intents if i.selectable]
    lines = [
        "intent-ls governs this workspace: before changing any file, call the "
        f"{SELECT_TOOL} tool (MCP server {MCP_SERVER}) with the id of the intent your task "
        "belongs to. Writes outside the selected intent's owned_scope are refused.",
    ]
    if not selectable:
        lines.append("No intent is IN_PROGRESS: ask the human to start one before editing.")
    else:
        lines.append("Selectable intents:")
        for intent in selectable[:LISTED]:
            scope = ", ".join(intent.patterns[:5])
            lines.append(f"- {intent.id}: {intent.name} (owns {scope})")
        if len(selectable) > LISTED:
            lines.append(f"… and {len(selectable) - LISTED} more: call list_intents.")
    return "\n".join(lines)


# -- the entry point --------------------------------------------------------------------


def files_of(gov: Governance, event: HookEvent, tool: ToolCall) -> list[str]:
    """Workspace-relative paths the tool call writes (for the after-tool record)."""
    from intent_ls.agents.shell.classify import classify_command

    paths = [c.path for c in tool.files] + [c.move_to for c in tool.files if c.move_to]
    cwd = command_cwd(gov, event, tool)
    if tool.kind is ToolKind.SHELL and tool.command and cwd is not None:
        found = classify_command(tool.command, gov.root, cwd)
        paths += [os.path.join(str(gov.root), w) for w in found.writes]
    rels = [_rel(gov, event.cwd, p) for p in paths]
    return [r for r in rels if r is not None]


#: Tool calls whose effects on disk are verified after they ran (:mod:`.effects`).
VERIFIED = frozenset({ToolKind.WRITE, ToolKind.SHELL, ToolKind.OTHER})


def handle(event: HookEvent, root: Path, *, ask_supported: bool) -> Outcome:
    from intent_ls.agents.effects import verify

    verified = event.tool is not None and event.tool.kind in VERIFIED
    restored = None
    if verified and event.phase is Phase.AFTER_TOOL:
        # Before the spec or any cache is read: they are judged as they were.
        restored = verify.restore_protected(Path(os.path.realpath(root)), event)
    gov = load_governance(root)
    if gov is None:
        return Outcome(context=_effects_told(restored.told if restored else ()))
    outcome = _handle(gov, event, ask_supported)
    glob_cache.save(gov.root)
    if verified and event.phase is Phase.BEFORE_TOOL and outcome.decision is not Decision.DENY:
        verify.before_call(gov.root, event)
        outcome = _behind_barrier(gov, event, outcome)
    if restored is not None and event.tool is not None:
        from intent_ls.agents.effects.attribute import judge_files

        told = [
            *restored.told,
            *judge_files(
                gov, event, restored, set(files_of(gov, event, event.tool)), _wording(gov, event)
            ),
        ]
        if told:
            context = _effects_told(told)
            outcome = Outcome(
                outcome.decision,
                outcome.reason,
                "\n".join(filter(None, [outcome.context, context])),
            )
    return outcome


#: Agents whose before-tool answer may rewrite a shell command (checked in each real CLI:
#: Claude Code's ``updatedInput``, Codex's ``updatedInput`` with ``allow``, Gemini CLI's
#: ``tool_input``). Elsewhere shell commands are verified after they ran, only.
REWRITES_COMMANDS = frozenset({"claude-code", "codex", "gemini"})


def _behind_barrier(gov: Governance, event: HookEvent, outcome: Outcome) -> Outcome:
    """A shell command let through runs under the write barrier where it can."""
    tool = event.tool
    if (
        tool is None
        or tool.kind is not ToolKind.SHELL
        or outcome.decision is not Decision.PASS
        or event.agent not in REWRITES_COMMANDS
        or not tool.command
    ):
        return outcome
    import sys

    from intent_ls.agents import barrier

    if not barrier.available():
        return outcome
    cwd_out = None  # Gemini CLI and Codex run each command in a fresh shell
    if event.agent == "claude-code":  # its shell persists: a ``cd`` carries over
        cwd_out = os.path.join(
            os.environ.get("TMPDIR", "/tmp"), f"intent-ls-cwd-{os.getpid()}-{os.urandom(4).hex()}"
        )
    wrapped = barrier.wrap(sys.executable, gov.root, tool.command, cwd_out)
    return attrs.evolve(outcome, updated_input={**tool.arguments, "command": wrapped})


def barrier_note(agent: str) -> str:
    """Said once, at session start: whether shell commands run under a write barrier."""
    from intent_ls.agents import barrier

    if agent in REWRITES_COMMANDS and barrier.available():
        return (
            "\n\nintent-ls runs your shell commands under a write barrier (read-only mounts): "
            "its protected files (.orchestration/, .intentignore, .gitattributes, git's "
            "config/hooks/info, the agents' settings) cannot be changed by them."
        )
    return (
        "\n\nintent-ls: no write barrier for shell commands here; what each tool call "
        "changes is verified after it ran, and protected or out-of-scope files are put back."
    )


def _wording(gov: Governance, event: HookEvent) -> Any:
    """The gate's knowledge and phrasing, for the effects of a call (:mod:`.effects`)."""
    from intent_ls.agents.effects.attribute import Wording

    state = sessions.read_state(gov.root, event.agent, event.session_id)
    session = _session(gov, state)

    def scope_step(rel: str, verdict: Any) -> str:
        owners = gov.scope.owners(rel)
        who = f"owned by {labels(owners)}" if owners else "no intent owns it"
        if verdict.code == NO_ACTIVE_INTENT:
            return f"this session has selected no intent ({who}); next step: {_select_step(owners)}"
        return (
            f"outside intent {session.intent_id}'s owned_scope ({who}); next step: leave it "
            f"alone, or ask the human to widen the scope in {SPEC_RELPATH}"
        )

    return Wording(
        session,
        event.model or _model(event, state),
        lambda details: _approve_command(gov, details),
        scope_step,
    )


def _effects_told(told: Sequence[str]) -> str:
    if not told:
        return ""
    return (
        "[intent-ls] This tool call changed files it may not change, so intent-ls put them "
        "back as they were before the call (agents never change intent-ls's sidecar, the "
        "agents' settings or git's control files, nor files outside the selected intent's "
        "owned_scope):\n" + "\n".join(f"- {line}" for line in told)
    )


def _handle(gov: Governance, event: HookEvent, ask_supported: bool) -> Outcome:
    tool = event.tool
    if event.phase in (Phase.SESSION_START, Phase.PROMPT):
        state = sessions.read_state(gov.root, event.agent, event.session_id)
        context = session_context(gov, state)
        if event.phase is Phase.SESSION_START:
            context += clone_setup_note(gov.root) + barrier_note(event.agent)
        return Outcome(context=context)
    if event.phase is Phase.BEFORE_MODEL:
        if event.model:
            with sessions.updating(gov.root, event.agent, event.session_id) as state:
                state["model"] = event.model
        return Outcome()
    if tool is None:
        return Outcome()
    if event.phase is Phase.BEFORE_TOOL:
        return _before_tool(gov, event, tool, ask_supported)
    if event.phase is Phase.AFTER_TOOL:
        return _after_tool(gov, event, tool)
    return Outcome()


def _unreadable(gov: Governance, event: HookEvent, tool: ToolCall) -> str | None:
    """Why this call cannot be judged at all (then it is refused), or None."""
    if tool.problem:
        return tool.problem
    if not os.path.isabs(event.cwd) or not os.path.isdir(event.cwd):
        return f"the event's working directory {event.cwd!r} is not a directory"
    if tool.workdir is not None and command_cwd(gov, event, tool) is None:
        return f"the tool's working directory {tool.workdir!r} is outside the workspace"
    return None


def command_cwd(gov: Governance, event: HookEvent, tool: ToolCall) -> str | None:
    """Where the tool runs: its own working-directory argument (taken from the event's
    cwd), which must lie inside the workspace; None when it does not."""
    if tool.workdir is None:
        return event.cwd
    if "\0" in tool.workdir:
        return None
    full = os.path.realpath(os.path.join(event.cwd, os.path.expanduser(tool.workdir)))
    root = str(gov.root)
    return full if full == root or full.startswith(root + os.sep) else None


def _before_tool(gov: Governance, event: HookEvent, tool: ToolCall, ask_supported: bool) -> Outcome:
    if tool.kind in (ToolKind.WRITE, ToolKind.SHELL):
        why = _unreadable(gov, event, tool)
        if why is not None:
            return _deny(
                GOVERNANCE_ERROR,
                f"intent-ls cannot judge this {tool.name} call: {why}; it is refused.",
                "call the tool with the arguments it documents (a string file_path, a "
                "working directory inside the workspace).",
            )
    if tool.kind is ToolKind.OWN_MCP:
        if tool.mcp_tool == SELECT_TOOL:
            wanted = tool.arguments.get("intent_id")
            if isinstance(wanted, str):
                try:
                    check_selectable(gov.spec, wanted)
                except SelectionRefused:
                    pass  # the tool itself answers why and what can be selected
                else:
                    with sessions.updating(gov.root, event.agent, event.session_id) as state:
                        state["intent_id"] = wanted
        return Outcome(Decision.ALLOW)
    if tool.kind not in (ToolKind.WRITE, ToolKind.SHELL):
        return Outcome()
    state = sessions.read_state(gov.root, event.agent, event.session_id)
    if tool.kind is ToolKind.SHELL:
        cwd = command_cwd(gov, event, tool) or event.cwd
        judged = _judge_shell(gov, state, event, tool.command or "", ask_supported, cwd)
    else:
        judged = _judge_files(gov, state, event, tool.files, ask_supported)
    if judged.outcome.decision is not Decision.DENY and judged.pending:
        asked = dict(judged.asked) if event.permission_mode not in UNATTENDED_MODES else {}
        with sessions.updating(gov.root, event.agent, event.session_id) as fresh:
            pending = fresh.setdefault("pending", {})
            for rel, old in judged.pending:
                pending[rel] = {"old": old}
                if rel in asked:
                    pending[rel]["asked"] = asked[rel]
    return judged.outcome


def _after_tool(gov: Governance, event: HookEvent, tool: ToolCall) -> Outcome:
    if tool.kind is ToolKind.READ:
        rels = [r for r in (_rel(gov, event.cwd, c.path) for c in tool.files) if r]
        if rels:
            with sessions.updating(gov.root, event.agent, event.session_id) as state:
                seen = state.setdefault("seen", {})
                for rel in rels:
                    text = _read(gov, rel)
                    seen[rel] = None if text is None else text_hash(text)
        return Outcome()
    if tool.kind not in (ToolKind.WRITE, ToolKind.SHELL):
        return Outcome()
    problems = _record(gov, event, files_of(gov, event, tool))
    if problems:
        return Outcome(
            context="intent-ls could not record this change in the trace ledger: "
            + "; ".join(problems)
            + ". Tell the human: `intent-ls record PATH` records it once the ledger is writable."
        )
    return Outcome()
