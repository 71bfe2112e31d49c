"""Multi-root windows, documents nobody governs, and selections surviving a restart."""

from __future__ import annotations

from pathlib import Path

from lsp_harness import Editor, fresh_workspace, start_editor, stop_editor, uri_of
from lsprotocol import types

JWT = "src/auth/jwt.py"


async def test_each_folder_has_its_own_session(client_name: str, tmp_path: Path) -> None:
    one, two = fresh_workspace(tmp_path, "one"), fresh_workspace(tmp_path, "two")
    editor = await start_editor(client_name, [one, two])
    try:
        result = await editor.execute("intent.select", "INT-001", uri_of(one))
        assert result["folder"] == uri_of(one)
        first = editor.open(JWT, root=one)
        second = editor.open(JWT, root=two)
        editor.insert(first, 0, 0, "#\n")
        editor.insert(second, 0, 0, "#\n")
        [diag] = await editor.wait_diagnostics(JWT, bool, "folder two has no intent", root=two)
        assert diag.code == "no-active-intent"
        assert diag.related_information and diag.related_information[0].location.uri == uri_of(
            two / ".orchestration/active_intents.yaml"
        )
        assert editor.diagnostics(JWT, root=one) == []
        states = {s["folder"]: s["intent"] for s in editor.statuses}
        assert states[uri_of(one)]["id"] == "INT-001"
        assert states[uri_of(two)] is None
        # A document URI picks its folder; without one, the folder touched last is used.
        listing = await editor.execute("intent.list", second)
        assert not any(i["active"] for i in listing)
    finally:
        await stop_editor(editor)


async def test_commands_need_a_folder_when_ambiguous(client_name: str, tmp_path: Path) -> None:
    one, two = fresh_workspace(tmp_path, "one"), fresh_workspace(tmp_path, "two")
    editor = await start_editor(client_name, [one, two])
    try:
        from pygls.exceptions import JsonRpcException

        try:
            await editor.execute("intent.list")
        except JsonRpcException as exc:
            assert "several workspace folders" in exc.message
        else:
            raise AssertionError("intent.list picked a folder at random")
    finally:
        await stop_editor(editor)


async def test_folders_added_later(client_name: str, tmp_path: Path) -> None:
    one, two = fresh_workspace(tmp_path, "one"), fresh_workspace(tmp_path, "two")
    editor = await start_editor(client_name, [one])
    try:
        editor.client.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(
                    added=[types.WorkspaceFolder(uri=uri_of(two), name="two")], removed=[]
                )
            )
        )
        await editor.wait_status(lambda s: s["folder"] == uri_of(two), "the new folder's status")
        uri = editor.open(JWT, root=two)
        editor.insert(uri, 0, 0, "#\n")
        await editor.wait_diagnostics(JWT, bool, "governed in the new folder", root=two)
    finally:
        await stop_editor(editor)


async def test_documents_outside_folders_and_non_file_uris(editor: Editor, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n", encoding="utf-8")
    out_uri = editor.open("outside.py", root=tmp_path)
    editor.insert(out_uri, 0, 0, "#\n")
    untitled = "untitled:Untitled-1"
    editor.texts[untitled] = "y = 2\n"
    editor.versions[untitled] = 1
    editor.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=untitled, language_id="python", version=1, text="y = 2\n"
            )
        )
    )
    editor.insert(untitled, 0, 0, "#\n")
    assert [a.title for a in await editor.code_actions(out_uri, [])] == []
    marker = editor.open(JWT)
    editor.insert(marker, 0, 0, "#\n")
    await editor.wait_diagnostics(JWT, bool, "the marker")
    for uri in (out_uri, untitled):
        assert not any(editor.client.diagnostics.get(uri, [])), uri


async def test_selection_survives_a_restart(client_name: str, workspace: Path) -> None:
    editor = await start_editor(client_name, [workspace])
    await editor.execute("intent.select", "INT-002")
    session = editor.statuses[-1]["sessionId"]
    await stop_editor(editor)
    local = workspace / ".orchestration/.local"
    assert (local / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"

    editor = await start_editor(client_name, [workspace])
    try:
        status = editor.statuses[0]
        assert status["intent"]["id"] == "INT-002"
        assert status["state"] == "CONTEXT_LOADED"
        assert status["sessionId"] == session
        uri = editor.open(JWT)
        editor.insert(uri, 0, 0, "#\n")
        [diag] = await editor.wait_diagnostics(JWT, bool, "judged under INT-002")
        assert diag.code == "out-of-scope"
    finally:
        await stop_editor(editor)


async def test_restored_selection_that_is_no_longer_valid(
    client_name: str, workspace: Path
) -> None:
    editor = await start_editor(client_name, [workspace])
    await editor.execute("intent.select", "INT-002")
    await stop_editor(editor)
    spec = workspace / ".orchestration/active_intents.yaml"
    text = spec.read_text(encoding="utf-8")
    start = text.index("  - id: INT-002")
    spec.write_text(text[:start] + text[start:].replace("IN_PROGRESS", "BLOCKED", 1))

    editor = await start_editor(client_name, [workspace])
    try:
        assert editor.statuses[0]["intent"] is None
        message = await editor.wait_for(
            lambda: next(
                (m for m in editor.client.messages if "saved selection" in m.message), None
            ),
            "a message about the dropped selection",
        )
        assert "BLOCKED" in message.message
    finally:
        await stop_editor(editor)


async def test_removing_a_folder_clears_its_diagnostics(client_name: str, tmp_path: Path) -> None:
    one, two = fresh_workspace(tmp_path, "one"), fresh_workspace(tmp_path, "two")
    editor = await start_editor(client_name, [one, two])
    try:
        uri = editor.open(JWT, root=two)
        editor.insert(uri, 0, 0, "#\n")
        await editor.wait_diagnostics(JWT, bool, "flagged", root=two)
        editor.client.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(
                    added=[], removed=[types.WorkspaceFolder(uri=uri_of(two), name="two")]
                )
            )
        )
        await editor.wait_diagnostics(JWT, lambda d: d == [], "not governed any more", root=two)
    finally:
        await stop_editor(editor)


async def test_tcp_transport(client_name: str, workspace: Path) -> None:
    import asyncio
    import socket
    import sys

    from lsp_harness import make_client
    from pytest_lsp import client_capabilities

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "intent_ls", "serve", "--tcp", f"127.0.0.1:{port}"
    )
    client = make_client([])
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while True:  # wait for the listening socket, not for a fixed time
            try:
                await client.start_tcp("127.0.0.1", port)
                break
            except OSError:
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(0.05)
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities(client_name),
                workspace_folders=[types.WorkspaceFolder(uri=uri_of(workspace), name="ws")],
            )
        )
        listing = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="intent.list", arguments=[])
        )
        assert len(listing) == 4
        await client.shutdown_async(None)
        client.exit(None)
        await asyncio.wait_for(server.wait(), 30)
    finally:
        await client.stop()
        if server.returncode is None:
            server.kill()
            await server.wait()
