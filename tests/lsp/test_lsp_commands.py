"""The intent.* commands: results, side effects, and clear errors for bad calls."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_harness import Editor, start_editor, stop_editor
from pygls.exceptions import JsonRpcException

ROUTES = "src/api/routes.py"


async def error_of(editor: Editor, command: str, *args: object) -> str:
    with pytest.raises(JsonRpcException) as info:
        await editor.execute(command, *args)
    message = info.value.message
    assert "Traceback" not in message and 'File "' not in message
    assert info.value.data is None or "traceback" not in str(info.value.data)
    return message


async def test_select_returns_intent_and_context(editor: Editor) -> None:
    result = await editor.execute("intent.select", "INT-001")
    assert result["intent"] == {
        "id": "INT-001",
        "name": "JWT authentication migration",
        "status": "IN_PROGRESS",
    }
    xml = result["context"]
    assert xml.startswith('<intent_context id="INT-001">')
    assert "<constraint>Must not use external auth providers</constraint>" in xml
    assert "<glob>src/auth/**</glob>" in xml
    status = await editor.wait_status(lambda s: s["intent"] is not None, "status")
    assert status["state"] == "CONTEXT_LOADED"
    assert status["intent"]["id"] == "INT-001"
    assert status["message"] == "intent-ls: INT-001 JWT authentication migration"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("INT-003",), "DRAFT"),
        (("INT-004",), "COMPLETED"),
        (("INT-999",), "no intent 'INT-999'"),
        ((42,), "the intent id must be a non-empty string"),
        (("INT-001", "x", "y"), "expects [id] or [id, uri]"),
        (("INT-001", "file:///elsewhere/x.py"), "not inside a workspace folder"),
    ],
)
async def test_select_refusals(editor: Editor, args: tuple[object, ...], expected: str) -> None:
    message = await error_of(editor, "intent.select", *args)
    assert expected in message
    listing = await editor.execute("intent.list")
    assert not any(i["active"] for i in listing)


async def test_clear(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-002")
    result = await editor.execute("intent.clear")
    assert result["state"] == "AWAITING_INTENT_SELECTION"
    status = await editor.wait_status(
        lambda s: s["state"] == "AWAITING_INTENT_SELECTION" and s["intent"] is None,
        "cleared status",
        since=1,
    )
    assert status["message"] == "intent-ls: no active intent"
    assert "no active intent" in await error_of(editor, "intent.context")


async def test_context_of_the_active_intent(editor: Editor) -> None:
    assert "run intent.select first" in await error_of(editor, "intent.context")
    await editor.execute("intent.select", "INT-002")
    result = await editor.execute("intent.context")
    assert result["intent"]["id"] == "INT-002"
    assert (
        "<constraint>Cursor-based pagination only; no OFFSET queries</constraint>"
        in (result["context"])
    )


async def test_list_has_selectable_flags(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-002")
    listing = await editor.execute("intent.list")
    assert [(i["id"], i["status"], i["selectable"], i["active"]) for i in listing] == [
        ("INT-001", "IN_PROGRESS", True, False),
        ("INT-002", "IN_PROGRESS", True, True),
        ("INT-003", "DRAFT", False, False),
        ("INT-004", "COMPLETED", False, False),
    ]
    assert listing[0]["owned_scope"] == ["src/auth/**", "tests/auth/**"]


async def test_add_to_scope_sends_the_edit(editor: Editor) -> None:
    result = await editor.execute("intent.addToScope", "INT-001", ROUTES)
    assert result == {"intent": "INT-001", "path": ROUTES, "glob": ROUTES, "applied": True}
    [edit] = editor.applied_edits
    [change] = editor.edits_in(edit, editor.uri(".orchestration/active_intents.yaml"))
    assert change.new_text == f"      - {ROUTES}\n"
    assert change.range.start.line == 9


async def test_add_to_scope_by_uri_and_already_owned(editor: Editor) -> None:
    result = await editor.execute("intent.addToScope", "INT-002", editor.uri("README.md"))
    assert result["glob"] == "/README.md"
    assert result["applied"] is True
    again = await editor.execute("intent.addToScope", "INT-001", "src/auth/jwt.py")
    assert again["applied"] is False
    assert "already owns" in again["reason"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("INT-001",), "expects [id, path or uri]"),
        (("INT-001", "build/bundle.js"), "excluded by .intentignore"),
        (("INT-001", ".orchestration/CLAUDE.md"), "sidecar"),
        (("INT-404", ROUTES), "no intent 'INT-404'"),
        ((None, ROUTES), "the intent id must be a non-empty string"),
    ],
)
async def test_add_to_scope_errors(editor: Editor, args: tuple[object, ...], expected: str) -> None:
    assert expected in await error_of(editor, "intent.addToScope", *args)
    assert editor.applied_edits == []


async def test_approve_errors(editor: Editor) -> None:
    uri = editor.open(ROUTES)
    rng = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}
    assert "no active intent" in await error_of(editor, "intent.approve", uri, rng, "out-of-scope")
    await editor.execute("intent.select", "INT-001")
    assert "only 'out-of-scope'" in await error_of(
        editor, "intent.approve", uri, rng, "no-active-intent"
    )
    assert "the range must look like" in await error_of(
        editor, "intent.approve", uri, {"start": 3}, "out-of-scope"
    )
    assert "expects [uri, range, code]" in await error_of(editor, "intent.approve", uri)
    assert "no edit of src/api/routes.py" in await error_of(
        editor, "intent.approve", uri, rng, "out-of-scope"
    )
    other = editor.open("src/auth/jwt.py")
    assert "inside INT-001's scope" in await error_of(
        editor, "intent.approve", other, rng, "out-of-scope"
    )
    assert "not an open document" in await error_of(
        editor, "intent.approve", editor.uri("web/src/orders.ts"), rng, "out-of-scope"
    )


async def test_record_lesson_appends_to_the_brain(editor: Editor) -> None:
    assert "no active intent" in await error_of(editor, "intent.recordLesson", "x")
    await editor.execute("intent.select", "INT-001")
    result = await editor.execute("intent.recordLesson", "  Rotate   keys via the vault  ")
    assert result == {
        "intent": "INT-001",
        "lesson": "Rotate keys via the vault",
        "path": ".orchestration/CLAUDE.md",
    }
    brain = (editor.root / ".orchestration/CLAUDE.md").read_text(encoding="utf-8")
    section = brain.split("## Lessons: INT-001", 1)[1]
    assert ": Rotate keys via the vault" in section
    context = await editor.execute("intent.context")
    assert "Rotate keys via the vault</lesson>" in context["context"]
    assert "non-empty string" in await error_of(editor, "intent.recordLesson", 3)
    assert "non-empty string" in await error_of(editor, "intent.recordLesson", "   ")


async def test_unknown_command_is_an_error_and_the_server_keeps_serving(editor: Editor) -> None:
    message = await error_of(editor, "intent.explode", 1)
    assert "intent.explode" in message
    assert len(await editor.execute("intent.list")) == 4


async def test_commands_are_advertised(editor: Editor) -> None:
    assert editor.init_result is not None
    provider = editor.init_result.capabilities.execute_command_provider
    assert provider is not None
    assert sorted(provider.commands) == sorted(
        [
            "intent.select",
            "intent.clear",
            "intent.context",
            "intent.list",
            "intent.addToScope",
            "intent.approve",
            "intent.recordLesson",
            "intent.start",
            "intent.complete",
        ]
    )


async def test_add_to_scope_writes_the_file_when_the_client_cannot_apply_edits(
    client_name: str, workspace: Path
) -> None:
    editor = await start_editor(client_name, [workspace], apply_edit=False)
    try:
        uri = editor.open(ROUTES)
        await editor.execute("intent.select", "INT-001")
        editor.insert(uri, 0, 0, "#\n")
        await editor.wait_diagnostics(ROUTES, bool, "out-of-scope")
        result = await editor.execute("intent.addToScope", "INT-001", ROUTES)
        assert result["applied"] is True
        assert editor.applied_edits == []
        text = (workspace / ".orchestration/active_intents.yaml").read_text(encoding="utf-8")
        assert "      - tests/auth/**\n      - src/api/routes.py\n" in text
        await editor.wait_diagnostics(ROUTES, lambda d: d == [], "reloaded at once")
    finally:
        await stop_editor(editor)
