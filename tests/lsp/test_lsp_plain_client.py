"""A client that announces nothing beyond the LSP spec (plain eglot, Helix, Zed, Kate,
Sublime LSP): every server-made edit works there.

The clients below announce what eglot does (``applyEdit``, versioned ``documentChanges``,
code actions, no experimental capabilities, no file watching), with UTF-16 positions
(the spec's default, as VS Code) or UTF-8 (as Neovim), and apply an edit the way eglot
does: refused when its version is not the buffer's, a range end past the last line
clamped to the end of the buffer. In Emacs (eglot names itself "Eglot", or nothing
before 1.10) "Reload from disk" must leave the buffer equal to the disk whether or not
Emacs reverted the buffer before applying it (it asks "discard your edits?" and
re-opens the document on yes). A client that names itself otherwise keeps the version
check: the edit is refused once the buffer moved on. Other edits stay pinned to the
version the client last sent, in every client.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_harness import Editor, stale_of, start_editor, stop_editor
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec
from test_lsp_actions import apply_text_edits
from test_lsp_destructive import delete_verify_token

JWT = "src/auth/jwt.py"


def plain_capabilities(encoding: str) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
            execute_command=types.ExecuteCommandClientCapabilities(),
            configuration=True,
        ),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(
                        value_set=[types.CodeActionKind.QuickFix]
                    )
                ),
                is_preferred_support=True,
            ),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(),
        ),
        window=types.WindowClientCapabilities(
            show_message=types.ShowMessageRequestClientCapabilities()
        ),
        general=types.GeneralClientCapabilities(position_encodings=[encoding]),
    )


#: eglot before 1.10 (no clientInfo) with UTF-16 positions, and since (UTF-8).
EGLOTS = [("utf-16", None), ("utf-8", "Eglot")]


async def plain_editor(workspace: Path, encoding: str, name: str | None) -> Editor:
    editor = await start_editor(
        f"plain-{encoding}-{name}",
        [workspace],
        capabilities=plain_capabilities(encoding),
        client_info=None if name is None else types.ClientInfo(name=name),
    )
    assert editor.init_result is not None
    assert editor.init_result.capabilities.position_encoding == encoding
    return editor


@pytest.fixture(params=EGLOTS, ids=lambda p: f"{p[0]}-{p[1]}")
async def plain(request: pytest.FixtureRequest, workspace: Path):  # type: ignore[no-untyped-def]
    editor = await plain_editor(workspace, *request.param)
    yield editor
    await stop_editor(editor)


def apply_as_eglot(editor: Editor, uri: str, version: int, edit: types.WorkspaceEdit) -> str:
    """The buffer after the client applies ``edit`` to ``uri`` at ``version``, as eglot
    does: ``Edits on … require version N, you have M`` for another version, and an end
    position past the buffer's last line taken as its end."""
    [change] = edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.uri == uri
    wanted = change.text_document.version
    if wanted is not None and wanted != version:
        raise AssertionError(f"Edits on {uri} require version {wanted}, you have {version}")
    text = editor.texts[uri]
    return apply_text_edits(
        text, [_clamped(e, text, editor.codec) for e in change.edits], editor.codec
    )


def _clamped(
    edit: types.TextEdit | types.AnnotatedTextEdit, text: str, codec: PositionCodec
) -> types.TextEdit:
    lines = text.splitlines(keepends=True)
    end = edit.range.end
    if end.line >= len(lines):
        last = lines[-1] if lines else ""
        body = last.rstrip("\r\n")
        end = (
            types.Position(len(lines), 0)
            if body != last
            else types.Position(len(lines) - 1, codec.client_num_units(body))
        )
    return types.TextEdit(
        range=types.Range(start=edit.range.start, end=end), new_text=edit.new_text
    )


async def stale_buffer(editor: Editor, theirs_suffix: str) -> tuple[str, str, types.Diagnostic]:
    """jwt.py edited here, then rewritten on disk by another process (the server polls:
    the client watches nothing for it)."""
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    editor.insert(uri, 0, 0, "# mine\n")
    await editor.settled()
    theirs = (editor.root / JWT).read_text().replace('"""JSON Web', '"""Their JSON Web')
    theirs += theirs_suffix
    editor.write_file(editor.root / JWT, theirs)
    diags = await editor.wait_diagnostics(JWT, lambda d: bool(stale_of(d)), "stale-file")
    [diag] = stale_of(diags)
    return uri, theirs, diag


# Their version longer than the buffer (the edit's end is the disk text's, past the
# buffer's last line), shorter (the buffer's end, past the disk text's), or without a
# final newline.
SUFFIXES = ["\n# theirs\n# and more\n# and more\n", "", "x = 'no final newline'"]


@pytest.mark.parametrize("suffix", SUFFIXES)
async def test_reload_from_disk_is_right_whether_or_not_the_client_reverted(
    plain: Editor, suffix: str
) -> None:
    uri, theirs, diag = await stale_buffer(plain, suffix)
    [reload, *_] = await plain.code_actions(uri, [diag])
    assert reload.title == "Reload from disk" and reload.command is None
    assert reload.edit is not None
    # Applied to the buffer it was computed for: the disk text.
    version = plain.versions[uri]
    assert apply_as_eglot(plain, uri, version, reload.edit) == theirs
    # eglot on "yes, discard my edits": the document is closed and opened again with the
    # disk text (eglot at version 0), then the same edit is applied: still the disk text.
    plain.close(uri)
    plain.open(JWT)
    assert plain.texts[uri] == theirs
    assert apply_as_eglot(plain, uri, 0, reload.edit) == theirs
    await plain.wait_diagnostics(JWT, lambda d: d == [], "the reload clears everything")


async def test_the_reload_is_the_disk_as_it_is_when_asked(plain: Editor) -> None:
    """The poller read the file between a writer's truncation and its write (``>`` in a
    shell): the quick fix asked for after the write reloads the written text, not the
    empty file the poller saw."""
    await plain.execute("intent.select", "INT-001")
    uri = plain.open(JWT)
    plain.insert(uri, 0, 0, "# mine\n")
    await plain.settled()
    theirs = (plain.root / JWT).read_text().replace('"""JSON Web', '"""Their JSON Web')
    plain.write_file(plain.root / JWT, "")
    diags = await plain.wait_diagnostics(JWT, lambda d: bool(stale_of(d)), "stale-file")
    [diag] = stale_of(diags)
    (plain.root / JWT).write_text(theirs, encoding="utf-8")  # no poll has seen it yet
    [reload, *_] = await plain.code_actions(uri, [diag])
    assert reload.edit is not None
    assert apply_as_eglot(plain, uri, plain.versions[uri], reload.edit) == theirs


async def test_other_edits_stay_pinned_to_the_version_the_client_sent(plain: Editor) -> None:
    uri, diag = await delete_verify_token(plain)
    actions = await plain.code_actions(uri, [diag])
    restore = next(a for a in actions if a.title == "Restore deleted code")
    assert restore.edit is not None
    [change] = restore.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version == plain.versions[uri]
    with pytest.raises(AssertionError, match="require version"):
        apply_as_eglot(plain, uri, plain.versions[uri] + 1, restore.edit)
    restored = apply_as_eglot(plain, uri, plain.versions[uri], restore.edit)
    assert "    def verify_token" in restored


async def test_a_client_naming_itself_keeps_the_version_check(workspace: Path) -> None:
    """The same capabilities from an editor that applies edits to the buffer as it is
    (here named as Helix names itself): the reload edit is pinned to the version the
    client last sent, and refused once the buffer moved on."""
    editor = await plain_editor(workspace, "utf-8", "helix")
    try:
        uri, theirs, diag = await stale_buffer(editor, "")
        [reload, *_] = await editor.code_actions(uri, [diag])
        assert reload.edit is not None
        [change] = reload.edit.document_changes or []
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.version == editor.versions[uri]
        assert apply_as_eglot(editor, uri, editor.versions[uri], reload.edit) == theirs
        with pytest.raises(AssertionError, match="require version"):
            apply_as_eglot(editor, uri, editor.versions[uri] + 1, reload.edit)
    finally:
        await stop_editor(editor)
