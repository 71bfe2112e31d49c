"""The ``intent.*`` commands (workspace/executeCommand), all listed in :data:`COMMANDS`.

Arguments arrive as raw JSON (``*args``) and are checked by :mod:`.arguments`. Every
command takes an optional trailing document or folder URI to pick the workspace folder
in multi-root windows; without it, the folder of the document touched last (or the only
folder) is used. The intent lifecycle's commands are :mod:`.lifecycle`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from intent_ls.common.safe_io import read_sidecar, write_atomic
from intent_ls.common.uris import is_file_uri, path_of_uri
from intent_ls.policy.rules import APPROVABLE_IN_ORDER, rule_of
from intent_ls.policy.session import SelectionRefused
from intent_ls.server import arguments, guard, lifecycle
from intent_ls.server.approvals import approve as approve_in
from intent_ls.server.edits import apply
from intent_ls.server.folders import Folder
from intent_ls.server.guard import Refused, UserError, brief
from intent_ls.server.hub import Hub
from intent_ls.server.spec_edits import scope_edit
from intent_ls.spec.edit import SpecEditError, add_to_scope, apply_edit, glob_for_path
from intent_ls.spec.load import MAX_SPEC_BYTES
from intent_ls.spec.model import Intent
from intent_ls.workspace.brain import BRAIN_RELPATH, lessons_for, read_brain, record_lesson
from intent_ls.workspace.context import context_xml

COMMANDS: dict[str, Callable[..., Any]] = {}


def command(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        COMMANDS[name] = guard.request(name)(fn)
        return fn

    return register


def _intent_json(intent: Intent) -> dict[str, Any]:
    return {"id": intent.id, "name": intent.name, "status": intent.status.value}


async def _context(ls: Hub, folder: Folder, intent: Intent) -> str:
    history, note = await ls.workers.query(ls.recorder.follow(folder).recent_history, intent.id)
    lessons = lessons_for(read_brain(folder.root), intent.id)
    if note is not None:
        note += "; older changes of this intent may be missing, ask again once it is done"
    return context_xml(intent, history=history, lessons=lessons, history_note=note)


def _active(folder: Folder, name: str) -> Intent:
    active = folder.active
    if active is None:
        raise Refused(f"{name}: no active intent; run intent.select first")
    return active


def _reevaluate(ls: Hub, folder: Folder) -> None:
    blocked = False
    for doc in list(ls.documents.values()):
        if doc.folder is folder:
            blocked = ls.publish(doc).blocked or blocked
    folder.session.settle(blocked)
    ls.analyzer.schedule_folder(folder, delay=0)  # recorded verdicts an owner now covers
    ls.send_status(folder)


@command("intent.select")
async def select(ls: Hub, *args: Any) -> dict[str, Any] | None:
    """``[id]`` selects; ``[]`` or ``[null]`` asks the user to pick one."""
    name = "intent.select"
    arguments.arity(name, args, 0, 2, "[id] or [id, uri] (id null: pick from a list)")
    wanted = arguments.string(name, args[0] if args else None, "the intent id", optional=True)
    folder = arguments.folder(ls, name, args[1] if len(args) > 1 else None)
    if wanted is None:
        wanted = await _pick(ls, folder)
        if wanted is None:
            return None
    try:
        intent = folder.select(wanted)
    except SelectionRefused as exc:
        raise Refused(f"{name}: {exc}", {"code": exc.code}) from None
    _reevaluate(ls, folder)
    return {
        "intent": _intent_json(intent),
        "context": await _context(ls, folder, intent),
        "folder": folder.uri,
    }


async def _pick(ls: Hub, folder: Folder) -> str | None:
    choices = [i for i in folder.spec.intents if i.selectable]
    if not choices:
        raise Refused("intent.select: no IN_PROGRESS intent to select in the spec")
    titles = {f"{i.id}: {i.name}": i.id for i in choices}
    answer = await ls.window_show_message_request_async(
        types.ShowMessageRequestParams(
            type=types.MessageType.Info,
            message="Select the active intent",
            actions=[types.MessageActionItem(title=t) for t in titles],
        )
    )
    return titles.get(answer.title) if answer is not None else None


@command("intent.clear")
def clear(ls: Hub, *args: Any) -> dict[str, Any]:
    arguments.arity("intent.clear", args, 0, 1, "[] or [uri]")
    folder = arguments.folder(ls, "intent.clear", args[0] if args else None)
    folder.clear()
    _reevaluate(ls, folder)
    return {"state": folder.session.state.value, "folder": folder.uri}


@command("intent.context")
async def context(ls: Hub, *args: Any) -> dict[str, Any]:
    arguments.arity("intent.context", args, 0, 1, "[] or [uri]")
    folder = arguments.folder(ls, "intent.context", args[0] if args else None)
    intent = _active(folder, "intent.context")
    return {"intent": _intent_json(intent), "context": await _context(ls, folder, intent)}


@command("intent.list")
def list_intents(ls: Hub, *args: Any) -> list[dict[str, Any]]:
    arguments.arity("intent.list", args, 0, 1, "[] or [uri]")
    folder = arguments.folder(ls, "intent.list", args[0] if args else None)
    return [
        {
            **_intent_json(i),
            "selectable": i.selectable,
            "active": i.id == folder.session.intent_id,
            "owned_scope": list(i.patterns),
        }
        for i in folder.spec.intents
    ]


@command("intent.addToScope")
async def add_scope(ls: Hub, *args: Any) -> dict[str, Any]:
    name = "intent.addToScope"
    arguments.arity(name, args, 2, 2, "[id, path or uri]")
    intent_id = arguments.string(name, args[0], "the intent id")
    target = arguments.string(name, args[1], "the path or URI")
    assert intent_id is not None and target is not None
    arguments.path_text(name, target)
    path = path_of_uri(target) if is_file_uri(target) else target
    folder = arguments.folder(ls, name, target if is_file_uri(target) else None)
    if path is None:
        raise UserError(f"{name}: {brief(target)} is not a file URI")
    info = folder.workspace.classify(Path(path))
    if info.rel is None or not info.governed:
        raise Refused(f"{name}: {brief(target)} cannot be added to a scope: it {info.reason}")
    if folder.spec.get(intent_id) is None:
        raise Refused(f"{name}: no intent {brief(intent_id)} in the spec")
    glob = glob_for_path(info.rel)
    result = {"intent": intent_id, "path": info.rel, "glob": glob}
    if folder.scope.owns(intent_id, info.rel):
        return {**result, "applied": False, "reason": f"{intent_id} already owns {info.rel}"}
    edit = scope_edit(ls, folder, intent_id, info.rel)
    if edit is None:
        raise Refused(f"{name}: the owned_scope of {intent_id} cannot be edited automatically")
    if get_capability(ls.client_capabilities, "workspace.apply_edit", False):
        refused = await apply(ls, edit, f"Add {info.rel} to {intent_id}")
        if refused is not None:
            return {**result, "applied": False, "reason": refused}
    else:
        _write_spec(folder, intent_id, glob)
        ls.refresh(folder)
    return {**result, "applied": True}


def _write_spec(folder: Folder, intent_id: str, glob: str) -> None:
    """Edits the file directly for clients that cannot apply a WorkspaceEdit."""
    path = folder.workspace.spec_path
    text = read_sidecar(path, MAX_SPEC_BYTES).decode("utf-8")
    try:
        edit = add_to_scope(text, intent_id, glob)
    except SpecEditError as exc:
        raise Refused(f"intent.addToScope: {exc}") from None
    if edit is not None:
        write_atomic(path, apply_edit(text, edit).encode("utf-8"))


@command(arguments.APPROVE)
async def approve(ls: Hub, *args: Any) -> dict[str, Any]:
    """``[uri, range, code]`` or ``[uri, range, code, contentHash]`` (which verdict, when
    several of ``code`` overlap the range): records a human approval in the ledger."""
    name = arguments.APPROVE
    arguments.arity(name, args, 3, 4, "[uri, range, code] or [uri, range, code, contentHash]")
    uri = arguments.string(name, args[0], "the document URI")
    lines = arguments.lines(name, args[1])
    code = args[2]
    key = None
    if len(args) > 3:
        key = arguments.string(name, args[3], "the content hash", optional=True)
    if not isinstance(code, str) or not rule_of(code).approvable:
        raise UserError(
            f"{name}: only {', '.join(repr(c) for c in APPROVABLE_IN_ORDER)} verdicts can be "
            f"approved, not {brief(code)} (for no-active-intent, select an intent)"
        )
    doc = ls.documents.get(uri or "")
    if doc is None or doc.folder is None:
        raise Refused(f"{name}: {brief(uri)} is not an open document in a workspace folder")
    if rule_of(code).selects_intent:
        _active(doc.folder, name)
    if not doc.governed or doc.rel is None:
        raise Refused(f"{name}: {doc.rel or uri} is not governed; nothing to approve")
    return await approve_in(ls, doc, lines, code, key)


@command("intent.recordLesson")
def record(ls: Hub, *args: Any) -> dict[str, Any]:
    name = "intent.recordLesson"
    arguments.arity(name, args, 1, 2, "[text] or [text, uri]")
    text = arguments.string(name, args[0], "the lesson text")
    assert text is not None
    folder = arguments.folder(ls, name, args[1] if len(args) > 1 else None)
    active = _active(folder, name)
    record_lesson(folder.root, active.id, text)
    return {"intent": active.id, "lesson": " ".join(text.split()), "path": BRAIN_RELPATH}


command(lifecycle.START)(lifecycle.start)
command(lifecycle.COMPLETE)(lifecycle.complete)
