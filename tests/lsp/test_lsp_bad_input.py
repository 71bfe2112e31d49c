"""Hostile or broken input: the server keeps serving and says what is wrong, in one line."""

from __future__ import annotations

from lsp_harness import Editor

from intent_ls.spec.load import SPEC_RELPATH as SPEC


async def still_serving(editor: Editor) -> None:
    assert len(await editor.execute("intent.list")) == 4


async def test_binary_file(editor: Editor) -> None:
    uri = editor.open("src/auth/blob.bin", text="\0\x01\x02 binary \0")
    editor.insert(uri, 0, 0, "x")
    [diag] = await editor.wait_diagnostics("src/auth/blob.bin", bool, "a whole-file diagnostic")
    assert diag.code == "no-active-intent"
    assert "it is a binary file" in diag.message
    assert diag.range.start.line == 0 and diag.range.end.line == 0
    await still_serving(editor)


async def test_file_over_5_mb(editor: Editor) -> None:
    text = "# filler line of text for the size limit\n" * 140_000
    assert len(text) > 5 * 1024 * 1024
    uri = editor.open("src/auth/huge.py", text=text)
    editor.insert(uri, 10, 0, "x = 1\n")
    [diag] = await editor.wait_diagnostics("src/auth/huge.py", bool, "a whole-file diagnostic")
    assert "larger than 5 MB" in diag.message
    assert diag.range.start.line == 0
    assert any("not tracked" in m.message for m in editor.client.log_messages)
    await still_serving(editor)


async def test_invalid_utf8_file_on_disk(editor: Editor) -> None:
    path = editor.root / "src/auth/latin1.py"
    path.write_bytes(b"name = 'caf\xe9'\nok = 1\n")
    uri = editor.open("src/auth/latin1.py")  # decoded with U+FFFD, like editors do
    editor.insert(uri, 1, 0, "# edited\n")
    [diag] = await editor.wait_diagnostics("src/auth/latin1.py", bool, "diagnostic")
    assert diag.range.start.line == 1
    await still_serving(editor)


async def test_invalid_utf8_spec_on_disk(editor: Editor) -> None:
    spec = editor.root / SPEC
    data = spec.read_bytes().replace(b"JWT authentication", b"JWT \xff authentication")
    editor.write_file(spec, data)
    diags = await editor.wait_diagnostics(SPEC, bool, "not-text")
    [diag] = diags
    assert diag.code == "not-text"
    assert "not valid UTF-8" in diag.message
    assert diag.range.start.line == 4
    status = await editor.wait_status(lambda s: not s["spec"]["valid"], "invalid spec status")
    assert status["governed"] is True
    await still_serving(editor)


async def test_binary_spec_buffer(editor: Editor) -> None:
    uri = editor.open(SPEC)
    editor.insert(uri, 0, 0, "\0")
    diags = await editor.wait_diagnostics(SPEC, lambda d: any(x.code for x in d), "a problem")
    assert diags[0].code in ("not-text", "yaml-syntax")
    await still_serving(editor)


async def test_garbage_command_arguments(editor: Editor) -> None:
    from pygls.exceptions import JsonRpcException

    for args in ([{"a": [1, 2]}], [[None]], ["INT-001", 7]):
        try:
            await editor.execute("intent.select", *args)
        except JsonRpcException as exc:
            assert "intent.select" in exc.message
            assert exc.data is None or "traceback" not in str(exc.data)
        else:
            raise AssertionError(f"intent.select accepted {args!r}")
    await still_serving(editor)


async def test_no_spec_at_all(client_name: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from lsp_harness import start_editor, stop_editor

    root = tmp_path / "plain"
    (root / "src").mkdir(parents=True)
    (root / "src/app.py").write_text("x = 1\n", encoding="utf-8")
    editor = await start_editor(client_name, [root])
    try:
        assert editor.statuses[0]["governed"] is False
        uri = editor.open("src/app.py")
        editor.insert(uri, 0, 0, "#\n")
        await editor.wait_for(lambda: editor.history.get(uri), "a publish")
        assert editor.history[uri] == [[]]
        assert editor.diagnostics(SPEC) == []
    finally:
        await stop_editor(editor)
