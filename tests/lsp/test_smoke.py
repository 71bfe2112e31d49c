from lsp_harness import Editor


async def test_no_intent(editor: Editor) -> None:
    uri = editor.open("src/auth/jwt.py")
    editor.insert(uri, 0, 0, "x = 1\n")
    diags = await editor.wait_diagnostics("src/auth/jwt.py", lambda d: bool(d), "diag")
    print(diags)
    print(editor.statuses)
    assert diags[0].code == "no-active-intent"
