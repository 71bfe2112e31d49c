"""The server against a hostile repository and unusual URIs (issue 9), in both editors."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from lsp_harness import Editor, fresh_workspace, start_editor, stop_editor
from lsprotocol import types

LEDGER = ".orchestration/agent_trace.jsonl"


async def select(editor: Editor, intent: str = "INT-001") -> None:
    await editor.execute("intent.select", intent)
    await editor.wait_status(lambda s: (s["intent"] or {}).get("id") == intent, intent)


def open_as(editor: Editor, uri: str, text: str) -> None:
    editor.texts[uri] = text
    editor.versions[uri] = 1
    editor.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=text
            )
        )
    )


def did_save(editor: Editor, uri: str) -> None:
    editor.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


async def test_localhost_and_uppercase_scheme_uris_are_governed(editor: Editor) -> None:
    await select(editor)
    path = editor.root / "src/auth/jwt.py"
    text = path.read_text(encoding="utf-8")
    quoted = quote(path.as_posix())
    for n, uri in enumerate((f"file://localhost{quoted}", f"FILE://{quoted}")):
        open_as(editor, uri, text)
        await editor.settled()  # the server has read the disk baseline before we write
        text += f"# change {n}\n"
        editor.set_text(uri, text)
        path.write_text(text, encoding="utf-8")
        since = editor.recorded_count()
        did_save(editor, uri)
        [note] = await editor.wait_recorded(since, f"a record for {uri}")
        assert note["path"] == "src/auth/jwt.py"
        editor.close(uri)


async def test_invalid_utf8_uri_is_refused_not_recorded(editor: Editor) -> None:
    await select(editor)
    uri = editor.uri("src/auth") + "/%ff%fe.py"
    open_as(editor, uri, "x = 1\n")
    editor.set_text(uri, "x = 2\n")
    did_save(editor, uri)
    await editor.settled()
    await editor.wait_for(
        lambda: any("not UTF-8" in m.message for m in editor.client.messages), "a refusal"
    )
    ledger = editor.root / LEDGER
    assert not ledger.exists() or "\ufffd" not in ledger.read_text(encoding="utf-8")
    assert editor.recorded == []


async def test_symlinked_ledger_is_refused_and_target_kept(editor: Editor, tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_bytes(b"PRIVATE KEY\ntorn")
    (editor.root / LEDGER).symlink_to(secret)
    await select(editor)
    uri = editor.open("src/auth/jwt.py")
    editor.insert(uri, 0, 0, "# edit\n")
    await editor.save(uri)
    message = await editor.wait_for(
        lambda: next((m for m in editor.client.messages if "refusing" in m.message), None),
        "the ledger refusal",
    )
    assert "agent_trace.jsonl" in message.message and "symlink" in message.message
    assert secret.read_bytes() == b"PRIVATE KEY\ntorn"
    assert not (editor.root / ".orchestration/agent_trace.jsonl.quarantine").exists()
    # the server keeps running: a request is still answered
    await editor.settled()


async def test_symlinked_sidecar_directory_is_refused_server_keeps_running(
    client_name: str, tmp_path: Path
) -> None:
    workspace = fresh_workspace(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (workspace / ".orchestration").rename(elsewhere)
    (workspace / ".orchestration").symlink_to(elsewhere, target_is_directory=True)
    editor = await start_editor(client_name, [workspace])
    try:
        diagnostics = await editor.wait_diagnostics(
            ".orchestration/active_intents.yaml",
            lambda found: any("refusing to use" in d.message for d in found),
            "the refused spec",
        )
        assert any(".orchestration: it is a symlink" in d.message for d in diagnostics)
        uri = editor.open("src/auth/jwt.py")
        editor.insert(uri, 0, 0, "# edit\n")
        await editor.save(uri)
        await editor.settled()
        assert sorted(p.name for p in elsewhere.iterdir()) == ["active_intents.yaml"]
    finally:
        await stop_editor(editor)
