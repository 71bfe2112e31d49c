"""The ``intent/map`` request behind the VS Code "Intents" view: intents → files → AST
nodes from the ledger, for the folder a URI names."""

from __future__ import annotations

from typing import Any

import pytest
from lsp_harness import Editor, plain
from pygls.exceptions import JsonRpcException


async def intent_map(editor: Editor, params: dict[str, Any] | None) -> dict[str, Any]:
    result = await editor.client.protocol.send_request_async("intent/map", params)
    return plain(result)


async def test_lists_every_intent_then_a_saved_definition(editor: Editor) -> None:
    before = await intent_map(editor, {"uri": editor.uri("")})
    assert before["governed"] is True
    assert [i["id"] for i in before["intents"]] == ["INT-001", "INT-002", "INT-003", "INT-004"]
    assert all(i["files"] == [] for i in before["intents"])
    await editor.execute("intent.select", "INT-001")
    uri = editor.open("src/auth/jwt.py")
    at = editor.lines(uri).index("    def verify_token(self, token: str) -> dict:\n")
    editor.insert(uri, at + 1, 0, "        token = token.strip()\n")
    since = editor.recorded_count()
    await editor.save(uri)
    await editor.wait_recorded(since)
    after = await intent_map(editor, None)  # one folder: no uri needed
    first = after["intents"][0]
    assert (first["id"], first["name"], first["status"]) == (
        "INT-001",
        "JWT authentication migration",
        "IN_PROGRESS",
    )
    [entry] = first["files"]
    assert entry["path"] == "src/auth/jwt.py"
    assert entry["uri"] == uri
    assert entry["changes"] == 1
    names = [(n["name"], n["kind"]) for n in entry["nodes"]]
    assert ("JwtCodec.verify_token", "method") in names
    assert all(i["files"] == [] for i in after["intents"][1:])


async def test_a_uri_outside_every_folder_is_a_clear_error(editor: Editor) -> None:
    with pytest.raises(JsonRpcException) as info:
        await intent_map(editor, {"uri": "file:///elsewhere/x.py"})
    assert "intent/map: file:///elsewhere/x.py is not inside a workspace folder" in str(
        info.value.message
    )
