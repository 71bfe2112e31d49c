"""The intent lifecycle: "Start intent" / "Complete intent" as commands, code lenses and
code actions in active_intents.yaml, the confirmation that shows the acceptance criteria,
the warning about unapproved verdicts, and the history in the intent context."""

from __future__ import annotations

import re
from pathlib import Path

from lsp_harness import Editor, start_editor, stop_editor
from lsprotocol import types
from test_lsp_actions import apply_text_edits
from test_lsp_commands import error_of
from test_lsp_destructive import delete_verify_token

from intent_ls.spec.load import load_spec_text

SPEC = ".orchestration/active_intents.yaml"
JWT = "src/auth/jwt.py"
STAMP = re.compile(r'updated_at: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"')


def status_of(text: str, intent_id: str) -> str:
    result = load_spec_text(text)
    assert result.spec is not None and not result.has_errors, result.problems
    intent = result.spec.get(intent_id)
    assert intent is not None
    return intent.status.value


async def lenses(editor: Editor, uri: str) -> list[types.CodeLens]:
    return list(
        await editor.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        or []
    )


async def test_spec_lenses_offer_the_possible_transitions(editor: Editor) -> None:
    uri = editor.open(SPEC)
    found = await lenses(editor, uri)
    shown = [
        (
            lens.range.start.line,
            lens.command.title,
            lens.command.command,
            list(lens.command.arguments or []),
        )
        for lens in found
        if lens.command is not None
    ]
    lines = editor.texts[uri].splitlines()

    def line_of(intent_id: str) -> int:
        return lines.index(f"  - id: {intent_id}")

    assert shown == [
        (line_of("INT-001"), "Complete intent", "intent.complete", ["INT-001", uri]),
        (line_of("INT-002"), "Complete intent", "intent.complete", ["INT-002", uri]),
        (line_of("INT-003"), "Start intent", "intent.start", ["INT-003", uri]),
    ]


async def test_start_moves_a_draft_to_in_progress_in_the_open_spec(editor: Editor) -> None:
    uri = editor.open(SPEC)
    editor.insert(uri, 0, 0, "# edited, not saved\n")  # the edit is for this version
    result = await editor.execute("intent.start", "INT-003", uri)
    assert result == {"intent": "INT-003", "status": "IN_PROGRESS", "applied": True}
    [edit] = editor.applied_edits
    after = apply_text_edits(editor.texts[uri], editor.edits_in(edit, uri), editor.codec)
    before_lines, after_lines = editor.texts[uri].splitlines(), after.splitlines()
    at = before_lines.index("    status: DRAFT")
    assert after_lines[at] == "    status: IN_PROGRESS"
    assert STAMP.fullmatch(after_lines[at + 1].strip())
    assert after_lines[:at] + after_lines[at + 2 :] == before_lines[:at] + before_lines[at + 1 :]
    assert status_of(after, "INT-003") == "IN_PROGRESS"
    message = await error_of(editor, "intent.start", "INT-001")
    assert "INT-001 is IN_PROGRESS; only a DRAFT can start" in message


async def test_complete_shows_the_criteria_and_applies_on_confirmation(editor: Editor) -> None:
    editor.pick = "Complete INT-001"
    result = await editor.execute("intent.complete", "INT-001")
    assert result["applied"] is True and result["unapproved"] == 0
    [request] = editor.message_requests
    assert request.type == types.MessageType.Info
    assert "Acceptance criteria: Unit tests in tests/auth/ pass." in request.message
    assert [a.title for a in request.actions or []] == ["Complete INT-001", "Cancel"]
    [edit] = editor.applied_edits
    spec_uri = editor.uri(SPEC)
    text = (editor.root / SPEC).read_text(encoding="utf-8")
    after = apply_text_edits(text, editor.edits_in(edit, spec_uri), editor.codec)  # not open
    assert status_of(after, "INT-001") == "COMPLETED"
    assert STAMP.search(after)


async def test_an_edit_the_client_refuses_with_an_error_is_reported(editor: Editor) -> None:
    editor.apply_error = "Edits on active_intents.yaml require version 3, you have 4"
    result = await editor.execute("intent.start", "INT-003")
    assert result["applied"] is False
    assert "require version 3" in result["reason"]
    scope = await editor.execute("intent.addToScope", "INT-001", "src/api/routes.py")
    assert scope["applied"] is False and "require version 3" in scope["reason"]


async def test_complete_does_nothing_when_dismissed(editor: Editor) -> None:
    editor.pick = None
    result = await editor.execute("intent.complete", "INT-002")
    assert result["applied"] is False and result["reason"] == "not confirmed"
    assert len(editor.message_requests) == 1
    assert editor.applied_edits == []


async def test_complete_warns_about_unapproved_verdicts_in_open_files(editor: Editor) -> None:
    await delete_verify_token(editor)
    editor.pick = "Complete INT-001 anyway"
    result = await editor.execute("intent.complete", "INT-001")
    assert result["applied"] is True and result["unapproved"] == 1
    [request] = editor.message_requests
    assert request.type == types.MessageType.Warning
    assert request.message.startswith(
        "intent-ls: 1 unapproved verdict on its files: src/auth/jwt.py (destructive-edit). "
        "Complete INT-001: JWT authentication migration?"
    )


async def test_complete_warns_about_recorded_verdicts_of_closed_files(editor: Editor) -> None:
    uri, _ = await delete_verify_token(editor)
    since = editor.recorded_count()
    await editor.save(uri)  # the record carries the unapproved destructive-edit
    await editor.wait_recorded(since)
    editor.close(uri)
    editor.pick = "Cancel"
    result = await editor.execute("intent.complete", "INT-001")
    assert result["applied"] is False and result["unapproved"] == 1
    [request] = editor.message_requests
    assert "src/auth/jwt.py (destructive-edit)" in request.message


async def refactors(editor: Editor, uri: str, line: int) -> list[str]:
    at = types.Position(line=line, character=4)
    result = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=at, end=at),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return [
        a.title
        for a in result or []
        if isinstance(a, types.CodeAction) and a.kind == types.CodeActionKind.Refactor
    ]


async def test_lifecycle_code_actions_on_the_intents_lines(editor: Editor) -> None:
    uri = editor.open(SPEC)
    assert await refactors(editor, uri, 30) == ["Start intent INT-003"]
    assert await refactors(editor, uri, 5) == ["Complete intent INT-001"]
    assert await refactors(editor, uri, 0) == []
    assert await refactors(editor, uri, 38) == []  # INT-004 is COMPLETED


async def test_without_apply_edit_the_file_is_written(client_name: str, workspace: Path) -> None:
    editor = await start_editor(client_name, [workspace], apply_edit=False)
    try:
        before = (workspace / SPEC).read_text(encoding="utf-8")
        result = await editor.execute("intent.start", "INT-003")
        assert result["applied"] is True
        after = (workspace / SPEC).read_text(encoding="utf-8")
        assert status_of(after, "INT-003") == "IN_PROGRESS"
        assert after.count("\n") == before.count("\n") + 1
        listing = await editor.execute("intent.list")
        assert {i["id"]: i["status"] for i in listing}["INT-003"] == "IN_PROGRESS"
    finally:
        await stop_editor(editor)


async def test_the_context_carries_the_intents_recent_history(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    line = next(i for i, t in enumerate(editor.lines(uri)) if "def verify_token" in t)
    editor.insert(uri, line + 1, 0, "        # checked\n")
    since = editor.recorded_count()
    await editor.save(uri)
    await editor.wait_recorded(since)
    context = (await editor.execute("intent.context"))["context"]
    [change] = re.findall(r"<change [^>]*>[^<]*</change>", context)
    assert 'file="src/auth/jwt.py"' in change
    assert "JwtCodec.verify_token" in change
    assert 'when="' in change and 'mutation_class="' in change
