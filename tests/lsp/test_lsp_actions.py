"""Quick fixes and the source action, run the way an editor runs them."""

from __future__ import annotations

from lsp_harness import Editor
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from intent_ls.spec.load import load_spec_text

JWT = "src/auth/jwt.py"
ROUTES = "src/api/routes.py"
SPEC = ".orchestration/active_intents.yaml"
SELECT_ACTIVE = "Select active intent…"


def titles(actions: list[types.CodeAction]) -> list[str]:
    return [a.title for a in actions]


def apply_text_edits(text: str, edits: list[types.TextEdit], codec: PositionCodec) -> str:
    """What the editor does with a WorkspaceEdit, in its own position units."""
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character))[::-1]:
        lines = text.splitlines(keepends=True)
        rng = codec.range_from_client_units(lines, edit.range)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))
        a = starts[rng.start.line] + rng.start.character
        b = starts[rng.end.line] + rng.end.character
        text = text[:a] + edit.new_text + text[b:]
    return text


async def flagged(editor: Editor, rel: str, code: str) -> tuple[str, types.Diagnostic]:
    uri = editor.open(rel)
    editor.insert(uri, 0, 0, "# change\n")
    diags = await editor.wait_diagnostics(rel, lambda d: any(x.code == code for x in d), code)
    return uri, next(d for d in diags if d.code == code)


async def test_no_active_intent_offers_owners_first(editor: Editor) -> None:
    uri, diag = await flagged(editor, JWT, "no-active-intent")
    actions = await editor.code_actions(uri, [diag])
    assert titles(actions) == [
        "Select intent INT-001: JWT authentication migration",
        "Select intent INT-002: Order API pagination",
        SELECT_ACTIVE,
    ]
    first, second, source = actions
    assert first.is_preferred is True and not second.is_preferred
    assert first.kind == types.CodeActionKind.QuickFix
    assert source.kind == types.CodeActionKind.Source
    assert list(first.diagnostics or []) == [diag]
    result = await editor.run_action(first)
    assert result["intent"]["id"] == "INT-001"
    await editor.wait_diagnostics(JWT, lambda d: d == [], "the fix to clear the diagnostic")
    status = await editor.wait_status(lambda s: s["intent"] is not None, "status")
    assert status["intent"]["id"] == "INT-001"


async def test_file_owned_only_by_a_draft_intent_has_no_preferred_fix(editor: Editor) -> None:
    uri, diag = await flagged(editor, "services/billing/main.go", "no-active-intent")
    actions = await editor.code_actions(uri, [diag])
    assert titles(actions)[:2] == [
        "Select intent INT-001: JWT authentication migration",
        "Select intent INT-002: Order API pagination",
    ]
    assert not any(a.is_preferred for a in actions)


async def test_out_of_scope_fixes(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    uri, diag = await flagged(editor, ROUTES, "out-of-scope")
    actions = await editor.code_actions(uri, [diag])
    assert titles(actions) == [
        "Switch to intent INT-002: Order API pagination",
        f"Add {ROUTES} to INT-001's scope",
        "Approve out-of-scope edit",
        SELECT_ACTIVE,
    ]
    switch, add, approve, _ = actions
    assert switch.is_preferred is True and not add.is_preferred and not approve.is_preferred
    assert all(list(a.diagnostics or []) == [diag] for a in (switch, add, approve))
    await editor.run_action(switch)
    await editor.wait_diagnostics(ROUTES, lambda d: d == [], "switching clears it")


async def test_add_to_scope_edit_keeps_the_spec_formatting(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    uri, diag = await flagged(editor, ROUTES, "out-of-scope")
    actions = await editor.code_actions(uri, [diag])
    add = next(a for a in actions if a.title.startswith("Add "))
    edits = editor.edits_in(add.edit, editor.uri(SPEC))
    spec_path = editor.root / SPEC
    before = spec_path.read_text(encoding="utf-8")
    after = apply_text_edits(before, list(edits), editor.codec)
    assert after.replace(f"      - {ROUTES}\n", "", 1) == before
    assert "      - tests/auth/**\n      - src/api/routes.py\n" in after
    result = load_spec_text(after)
    assert result.spec is not None
    intent = result.spec.get("INT-001")
    assert intent is not None and ROUTES in intent.patterns
    # The user saves the spec: the file watcher (client or server side) reloads it.
    editor.write_file(spec_path, after)
    await editor.wait_diagnostics(ROUTES, lambda d: d == [], "the scope change to clear it")


async def test_add_to_scope_edit_is_exact_after_non_ascii_text(editor: Editor) -> None:
    spec_path = editor.root / SPEC
    text = spec_path.read_text(encoding="utf-8").replace(
        "      - tests/auth/**\n", "      - tests/auth/**  # 認証 😀😀\n"
    )
    text = text.replace(
        "owned_scope:\n      - src/api/**\n      - web/src/**/*.ts",
        "owned_scope: [src/api/**, web/src/**/*.ts]  # 😀",
    )
    editor.write_file(spec_path, text)
    await editor.execute("intent.select", "INT-002")
    uri, diag = await flagged(editor, JWT, "out-of-scope")
    actions = await editor.code_actions(uri, [diag])
    add = next(a for a in actions if a.title.startswith("Add "))
    edits = editor.edits_in(add.edit, editor.uri(SPEC))
    after = apply_text_edits(text, list(edits), editor.codec)
    assert "owned_scope: [src/api/**, web/src/**/*.ts, src/auth/jwt.py]  # 😀\n" in after


async def test_approve_accepts_that_edit_only(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    uri, diag = await flagged(editor, ROUTES, "out-of-scope")
    actions = await editor.code_actions(uri, [diag])
    approve = next(a for a in actions if a.title == "Approve out-of-scope edit")
    result = await editor.run_action(approve)
    assert result["intent"] == "INT-001"
    assert result["path"] == ROUTES
    assert result["lines"] == [1, 1]
    assert result["contributor"]["type"] == "human"
    await editor.wait_diagnostics(ROUTES, lambda d: d == [], "approval clears it")
    status = await editor.wait_status(lambda s: s["approvals"] == 1, "status counts it")
    assert status["state"] == "CONTEXT_LOADED"
    editor.insert(uri, 6, 0, "# another\n")
    diags = await editor.wait_diagnostics(ROUTES, bool, "a later edit is checked again")
    assert [(d.range.start.line, d.code) for d in diags] == [(6, "out-of-scope")]


async def test_source_action_asks_which_intent(editor: Editor) -> None:
    uri = editor.open("README.md")
    actions = await editor.code_actions(uri, [], only=[types.CodeActionKind.Source])
    assert titles(actions) == [SELECT_ACTIVE]
    editor.pick = "INT-002"
    result = await editor.run_action(actions[0])
    [request] = editor.message_requests
    assert [a.title for a in request.actions or []] == [
        "INT-001: JWT authentication migration",
        "INT-002: Order API pagination",
    ]
    assert result["intent"]["id"] == "INT-002"
    editor.pick = None
    assert await editor.run_action(actions[0]) is None  # dismissed: nothing changes
    listing = await editor.execute("intent.list")
    assert [i["id"] for i in listing if i["active"]] == ["INT-002"]


async def test_quick_fixes_only_filter(editor: Editor) -> None:
    uri, diag = await flagged(editor, JWT, "no-active-intent")
    actions = await editor.code_actions(uri, [diag], only=[types.CodeActionKind.QuickFix])
    assert SELECT_ACTIVE not in titles(actions)
    assert len(actions) == 2


async def test_foreign_diagnostics_get_no_fixes(editor: Editor) -> None:
    uri = editor.open(JWT)
    foreign = types.Diagnostic(
        range=types.Range(start=types.Position(0, 0), end=types.Position(0, 1)),
        message="E501",
        source="ruff",
        code="no-active-intent",
    )
    assert titles(await editor.code_actions(uri, [foreign])) == [SELECT_ACTIVE]
