"""Governance diagnostics follow the text: edited lines only, moved by inserts, gone on undo."""

from __future__ import annotations

from lsp_harness import Editor
from lsprotocol import types

from intent_ls.spec.load import SPEC_RELPATH as SPEC

JWT = "src/auth/jwt.py"
ROUTES = "src/api/routes.py"


def lines_of(diags: list[types.Diagnostic]) -> list[tuple[int, int]]:
    return sorted((d.range.start.line, d.range.end.line) for d in diags)


def codes(diags: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diags)


async def test_opening_a_file_publishes_nothing(editor: Editor) -> None:
    opened = editor.open(JWT)
    edited = editor.open(ROUTES)
    editor.insert(edited, 3, 0, "# touched\n")
    # The server handles messages in order: once the later edit is answered, the open of
    # the first file has been fully processed.
    await editor.wait_diagnostics(ROUTES, bool, "the diagnostic of the edited file")
    assert editor.client.diagnostics.get(opened, []) == []


async def test_no_active_intent_on_the_edited_line(editor: Editor) -> None:
    uri = editor.open(JWT)
    editor.insert(uri, 5, 0, "import os\n")
    diags = await editor.wait_diagnostics(JWT, bool, "no-active-intent")
    [diag] = diags
    assert diag.code == "no-active-intent"
    assert diag.source == "intent-ls"
    assert diag.severity == types.DiagnosticSeverity.Error
    assert (diag.range.start.line, diag.range.start.character) == (5, 0)
    assert (diag.range.end.line, diag.range.end.character) == (5, len("import os"))
    assert "INT-001" in diag.message and "JWT authentication migration" in diag.message
    [related] = diag.related_information or []
    assert related.location.uri == editor.uri(SPEC)
    # ``      - src/auth/**`` is line 8 of the spec (0-based 7), the glob starts at column 8.
    assert related.location.range.start == types.Position(line=7, character=8)
    assert related.location.range.end == types.Position(line=7, character=19)
    assert "src/auth/**" in related.message


async def test_out_of_scope_points_at_the_owner_in_the_spec(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(ROUTES)
    editor.insert(uri, 0, 0, "# pagination tweak\n")
    [diag] = await editor.wait_diagnostics(ROUTES, bool, "out-of-scope")
    assert diag.code == "out-of-scope"
    assert diag.severity == types.DiagnosticSeverity.Error
    assert lines_of([diag]) == [(0, 0)]
    assert "outside the scope of active intent INT-001" in diag.message
    assert "INT-002" in diag.message
    related = diag.related_information or []
    owner = next(r for r in related if "INT-002" in r.message)
    assert owner.location.range.start == types.Position(line=20, character=8)
    active = next(r for r in related if "active intent INT-001" in r.message)
    assert active.location.range.start.line == 7


async def test_in_scope_edit_is_clean(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    editor.insert(uri, 0, 0, "# fine\n")
    await editor.wait_for(lambda: editor.history.get(uri), "a publish for the edit")
    assert all(d == [] for d in editor.history[uri])


async def test_ignored_and_sidecar_files_are_never_flagged(editor: Editor) -> None:
    bundle = editor.open("build/bundle.js")
    editor.insert(bundle, 0, 0, "x;\n")
    brain = editor.open(".orchestration/notes.md", text="notes\n")
    editor.insert(brain, 0, 0, "more\n")
    lock = editor.open("poetry.lock")
    editor.insert(lock, 0, 0, "x\n")
    marker = editor.open(JWT)
    editor.insert(marker, 0, 0, "#\n")
    await editor.wait_diagnostics(JWT, bool, "the marker diagnostic")
    for uri in (bundle, brain, lock):
        assert all(d == [] for d in editor.history.get(uri, [])), uri


async def test_undo_removes_the_diagnostic(editor: Editor) -> None:
    uri = editor.open(JWT)
    editor.insert(uri, 9, 0, "x = 1\n")
    await editor.wait_diagnostics(JWT, bool, "the edit's diagnostic")
    editor.replace(uri, (9, 0), (10, 0), "")
    await editor.wait_diagnostics(JWT, lambda d: d == [], "the diagnostic to go after undo")


async def test_diagnostics_move_with_lines_inserted_above(editor: Editor) -> None:
    uri = editor.open(JWT)
    editor.replace(uri, (12, 0), (12, 5), "class")  # same text: no change yet
    editor.insert(uri, 12, 0, "# note\n")
    await editor.wait_diagnostics(JWT, lambda d: lines_of(d) == [(12, 12)], "line 12")
    editor.insert(uri, 0, 0, "# a\n# b\n")
    await editor.wait_diagnostics(
        JWT, lambda d: lines_of(d) == [(0, 1), (14, 14)], "the edit moved to line 14"
    )


async def test_deleting_lines_is_an_edit_too(editor: Editor) -> None:
    uri = editor.open(JWT)
    editor.replace(uri, (2, 0), (4, 0), "")  # delete two imports
    [diag] = await editor.wait_diagnostics(JWT, bool, "the deletion's diagnostic")
    assert diag.range.start.line == 2
    assert "2 line(s) deleted here" in diag.message


async def test_non_ascii_positions_are_exact(editor: Editor) -> None:
    """Emoji take 2 UTF-16 units and 4 UTF-8 bytes; CJK 1 and 3. Edits after them must land
    on the right character, or undoing would not restore the baseline."""
    line = "名前 = '😀 ok 😀'  # 日本語\n"
    uri = editor.open("src/auth/unicode.py", text="a = 1\n" + line + "b = 2\n")
    await editor.execute("intent.select", "INT-002")  # src/auth is out of scope
    at = line.index("ok")
    editor.replace(uri, (1, at), (1, at + 2), "OK")
    [diag] = await editor.wait_diagnostics("src/auth/unicode.py", bool, "out-of-scope")
    expected = line.rstrip("\n").replace("ok", "OK")
    unit = "utf-16-le" if editor.codec.encoding == "utf-16" else "utf-8"
    width = len(expected.encode(unit)) // (2 if unit == "utf-16-le" else 1)
    assert diag.range.end == types.Position(line=1, character=width)
    assert width != len(expected)  # the test would not catch a code-point mix-up otherwise
    editor.replace(uri, (1, at), (1, at + 2), "ok")
    await editor.wait_diagnostics("src/auth/unicode.py", lambda d: d == [], "undo restores")


async def test_negotiated_position_encoding(editor: Editor) -> None:
    expected = "utf-16" if editor.name == "visual-studio-code" else "utf-8"
    assert editor.codec.encoding == expected


async def test_allowed_save_becomes_the_new_baseline(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    editor.insert(uri, 0, 0, "# saved work\n")
    await editor.save(uri)
    await editor.execute("intent.clear")
    editor.insert(uri, 3, 0, "# new\n")
    diags = await editor.wait_diagnostics(JWT, bool, "only the unsaved edit")
    assert lines_of(diags) == [(3, 3)]


async def test_saving_an_out_of_scope_edit_does_not_hide_it(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(ROUTES)
    editor.insert(uri, 0, 0, "# sneaky\n")
    await editor.wait_diagnostics(ROUTES, bool, "out-of-scope")
    await editor.save(uri)
    editor.insert(uri, 5, 0, "# more\n")
    diags = await editor.wait_diagnostics(ROUTES, lambda d: len(d) == 2, "both edits flagged")
    assert lines_of(diags) == [(0, 0), (5, 5)]


async def test_selecting_an_intent_re_evaluates_open_documents(editor: Editor) -> None:
    uri = editor.open(JWT)
    editor.insert(uri, 0, 0, "#\n")
    await editor.wait_diagnostics(JWT, lambda d: codes(d) == ["no-active-intent"], "no intent")
    await editor.execute("intent.select", "INT-002")
    await editor.wait_diagnostics(JWT, lambda d: codes(d) == ["out-of-scope"], "out of scope")
    await editor.execute("intent.select", "INT-001")
    await editor.wait_diagnostics(JWT, lambda d: d == [], "in scope")
    await editor.execute("intent.clear")
    await editor.wait_diagnostics(JWT, lambda d: codes(d) == ["no-active-intent"], "cleared")


async def test_turn_state_follows_edits(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    await editor.wait_status(lambda s: s["state"] == "CONTEXT_LOADED", "context loaded")
    ok = editor.open(JWT)
    editor.insert(ok, 0, 0, "#\n")
    await editor.wait_status(lambda s: s["state"] == "ACTION_ALLOWED", "allowed")
    bad = editor.open(ROUTES)
    editor.insert(bad, 0, 0, "#\n")
    status = await editor.wait_status(lambda s: s["state"] == "BLOCKED", "blocked")
    assert status["intent"]["id"] == "INT-001"


async def test_spec_problems_while_typing(editor: Editor) -> None:
    uri = editor.open(SPEC)
    line = 5  # "    status: IN_PROGRESS" of INT-001
    assert editor.lines(uri)[line].strip() == "status: IN_PROGRESS"
    editor.replace(uri, (line, 12), (line, 23), "IN_PROGRES")
    [diag] = await editor.wait_diagnostics(SPEC, bool, "unknown-status")
    assert diag.code == "unknown-status"
    assert "IN_PROGRESS" in diag.message
    assert diag.range.start == types.Position(line=line, character=12)
    assert diag.range.end == types.Position(line=line, character=22)
    # Half-typed YAML: a syntax error, with the server still serving.
    editor.replace(uri, (line, 12), (line, 22), "[IN_PROGRESS")
    await editor.wait_diagnostics(SPEC, lambda d: codes(d) == ["yaml-syntax"], "yaml-syntax")
    # Documents are judged by the spec on disk meanwhile: selecting still works.
    result = await editor.execute("intent.select", "INT-001")
    assert result["intent"]["id"] == "INT-001"
    editor.replace(uri, (line, 12), (line, 24), "IN_PROGRESS")
    await editor.wait_diagnostics(SPEC, lambda d: d == [], "fixed")


async def test_scope_conflict_is_shown_in_the_spec(editor: Editor) -> None:
    uri = editor.open(SPEC)
    editor.insert(uri, 9, 0, "      - src/api/**\n")
    diags = await editor.wait_diagnostics(SPEC, bool, "scope-conflict")
    [diag] = [d for d in diags if d.code == "scope-conflict"]
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert diag.range.start == types.Position(line=9, character=8)
    assert "INT-002" in diag.message
    [related] = diag.related_information or []
    assert related.location.uri == uri


async def test_spec_problems_with_non_ascii_columns(editor: Editor) -> None:
    uri = editor.open(SPEC)
    prefix = '    owned_scope: [😀日本/**, tests/auth/**, "'
    assert editor.lines(uri)[6] == "    owned_scope:\n"
    editor.replace(uri, (6, 0), (9, 0), prefix + ' bad"]\n')
    [diag] = await editor.wait_diagnostics(
        SPEC, lambda d: codes(d) == ["invalid-glob"], "invalid-glob after emoji"
    )
    unit = "utf-16-le" if editor.codec.encoding == "utf-16" else "utf-8"
    width = len(prefix[:-1].encode(unit)) // (2 if unit == "utf-16-le" else 1)
    assert diag.range.start == types.Position(line=6, character=width)
