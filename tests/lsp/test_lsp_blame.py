"""Intent blame: hover on a line or definition, code lens above each definition."""

from __future__ import annotations

from pathlib import Path

from lsp_harness import FAST, Editor, start_editor, stop_editor
from lsprotocol import types

JWT = "src/auth/jwt.py"
ROTATE = "def rotate_keys(keys: list[bytes]) -> list[bytes]:\n    return keys[1:] + keys[:1]\n"


async def saved(editor: Editor, uri: str) -> None:
    since = editor.recorded_count()
    await editor.save(uri)
    await editor.wait_recorded(since)


async def hover(editor: Editor, uri: str, line: int) -> str | None:
    result = await editor.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=4),
        )
    )
    if result is None:
        return None
    assert isinstance(result.contents, types.MarkupContent)
    assert result.contents.kind == types.MarkupKind.Markdown
    return result.contents.value


async def lenses(editor: Editor, uri: str) -> dict[int, str]:
    result = await editor.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    out = {}
    for lens in result or []:
        assert lens.command is not None
        out[lens.range.start.line] = lens.command.title
    return out


async def change_verify_token(editor: Editor) -> tuple[str, int]:
    """Selects INT-001, adds a line to ``verify_token`` and saves it; returns the
    document and the method's line."""
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    verify = line_of(editor, uri, "    def verify_token")
    editor.insert(uri, verify + 1, 0, "        token = token.strip()\n")
    await saved(editor, uri)
    return uri, verify


def line_of(editor: Editor, uri: str, text: str) -> int:
    return next(i for i, line in enumerate(editor.lines(uri)) if line.startswith(text))


async def test_hover_and_code_lens_after_a_save(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    verify = line_of(editor, uri, "    def verify_token")
    sign = line_of(editor, uri, "    def sign")
    assert await hover(editor, uri, verify + 1) is None  # no history yet
    before = await lenses(editor, uri)
    assert before[verify] == "no recorded changes"
    editor.insert(uri, verify + 1, 0, "        token = token.strip()\n")
    await saved(editor, uri)
    text = await hover(editor, uri, verify + 1)
    assert text is not None
    assert "`JwtCodec.verify_token` (method)" in text
    assert "INT-001 JWT authentication migration" in text
    assert "| unknown | INTENT_EVOLUTION |" in text
    found = await lenses(editor, uri)
    assert found[verify] == "INT-001 · 1 change"
    assert found[sign] == "no recorded changes"
    assert found[line_of(editor, uri, "class JwtCodec")] == "INT-001 · 1 change"
    # a second change of the same method
    editor.insert(uri, verify + 1, 0, "        assert token\n")
    await saved(editor, uri)
    assert (await lenses(editor, uri))[verify] == "INT-001 · 2 changes"
    text = await hover(editor, uri, verify + 2)
    assert text is not None and text.count("INT-001 JWT authentication migration") == 2
    if editor.name == "visual-studio-code":  # advertises workspace/codeLens/refresh
        await editor.wait_for(lambda: editor.lens_refreshes > 0, "a code lens refresh")


async def test_moved_code_keeps_its_intent(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    editor.insert(uri, len(editor.lines(uri)), 0, "\n\n" + ROTATE)
    await saved(editor, uri)
    # The function moves to a new file (written by another tool, say).
    (editor.root / "src/auth/keys.py").write_text('"""Keys."""\n\n\n' + ROTATE)
    keys = editor.open("src/auth/keys.py")
    text = await hover(editor, keys, 4)
    assert text is not None
    assert "`rotate_keys` (function)" in text
    assert "INT-001 JWT authentication migration" in text
    assert "(in `src/auth/jwt.py`)" in text
    assert (await lenses(editor, keys))[3] == "INT-001 · 1 change"


async def test_code_lens_format_and_switch(client_name: str, workspace: Path) -> None:
    options = {"intentLs": {**FAST, "codeLens": {"format": "{count} by {intents}, last {last}"}}}
    editor = await start_editor(client_name, [workspace], options=options)
    try:
        uri, verify = await change_verify_token(editor)
        title = (await lenses(editor, uri))[verify]
        assert title.startswith("1 by INT-001, last 20") and title.endswith("Z")
    finally:
        await stop_editor(editor)
    options = {"intentLs": {**FAST, "codeLens": {"enabled": False}}}
    editor = await start_editor(client_name, [workspace], options=options)
    try:
        uri = editor.open(JWT)
        assert await lenses(editor, uri) == {}
    finally:
        await stop_editor(editor)


async def test_no_history_for_files_nobody_governs(editor: Editor) -> None:
    uri = editor.open("build/bundle.js")
    assert await hover(editor, uri, 0) is None
    assert await lenses(editor, uri) == {}


async def test_hover_shows_ledger_text_literally(client_name: str, workspace: Path) -> None:
    """The ledger is data from anyone who can push: a model id carrying a link, HTML, a
    pipe and a line break must not become markup, a new cell or a new row."""
    hostile = "[docs](https://evil.example/) <img src=x> | `tick`\n| forged | row |"
    options = {"intentLs": {**FAST, "contributor": {"type": "ai", "model_id": hostile}}}
    editor = await start_editor(client_name, [workspace], options=options)
    try:
        uri, verify = await change_verify_token(editor)
        text = await hover(editor, uri, verify + 1)
    finally:
        await stop_editor(editor)
    assert text is not None
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len(rows) == 3  # header, rule, the one record
    assert rows[2].endswith("| INTENT_EVOLUTION |")
    assert rows[2].count(" | ") == 3  # four cells: every pipe of the model id is escaped
    assert "\\[docs\\](https://evil.example/) \\<img src=x\\> \\| \\`tick\\` \\| forged" in rows[2]
    assert "[docs](" not in text.replace("\\[docs\\](", "")
