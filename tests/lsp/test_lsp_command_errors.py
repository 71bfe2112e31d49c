"""Refusals and malformed input are answers, not crashes: a JSON-RPC error with a bounded
message (InvalidParams for bad arguments, RequestFailed for refusals), one log line and
no traceback; notifications about documents the server does not know are ignored."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from lsp_harness import Editor
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from intent_ls.spec.load import SPEC_RELPATH as SPEC

INVALID_PARAMS = -32602
REQUEST_FAILED = -32803


async def refused(editor: Editor, command: str, *args: object) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as info:
        await editor.execute(command, *args)
    return info.value


async def server_stderr(capfd: pytest.CaptureFixture[str], editor: Editor, needle: str) -> str:
    """The server's stderr (pytest-lsp forwards it) up to a line containing ``needle``."""
    seen = ""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while needle not in seen:
        assert loop.time() < deadline, f"no {needle!r} on the server's stderr: {seen[-2000:]}"
        await editor.settled()  # a round trip: forwarded lines arrive meanwhile
        seen += capfd.readouterr().err
    return seen


def send_raw(editor: Editor, message: dict[str, object]) -> None:
    """A message as a client that does not validate its params sends it."""
    body = json.dumps(message)
    writer = editor.client.protocol.writer
    assert writer is not None
    writer.write(f"Content-Length: {len(body.encode())}\r\n\r\n{body}".encode())


def internal_errors(editor: Editor) -> list[str]:
    return [m.message for m in editor.client.messages if "internal error" in m.message]


async def test_selecting_a_completed_intent_is_refused_without_a_traceback(
    editor: Editor, capfd: pytest.CaptureFixture[str]
) -> None:
    exc = await refused(editor, "intent.select", "INT-004")
    assert exc.code == REQUEST_FAILED
    assert "INT-004" in exc.message and "COMPLETED" in exc.message
    err = await server_stderr(capfd, editor, "INT-004")
    assert "Traceback" not in err
    assert len([line for line in err.splitlines() if "INT-004" in line]) == 1


async def test_bad_arguments_are_invalid_params(editor: Editor) -> None:
    exc = await refused(editor, "intent.select", {"a": 1})
    assert exc.code == INVALID_PARAMS


async def test_a_10_mb_argument_is_not_echoed_back(
    editor: Editor, capfd: pytest.CaptureFixture[str]
) -> None:
    huge = "x" * 10_000_000
    for command, args in (
        ("intent.select", [huge]),
        ("intent.approve", [huge, {"start": {"line": 0}, "end": {"line": 0}}, "stale-file"]),
        ("intent.addToScope", ["INT-001", huge]),
    ):
        exc = await refused(editor, command, *args)
        assert len(exc.message) < 2_000, command
        assert "characters)" in exc.message  # it says how long the value was
    err = await server_stderr(capfd, editor, "addToScope")
    assert len(err) < 20_000


@pytest.mark.parametrize(
    "target", ["src/a\0b.py", "src/\ud800.py", "src/new\nline.py", "src/tab\there.py"]
)
async def test_add_to_scope_refuses_nul_surrogates_and_control_characters(
    editor: Editor, target: str
) -> None:
    spec = (editor.root / SPEC).read_bytes()
    exc = await refused(editor, "intent.addToScope", "INT-001", target)
    assert exc.code == INVALID_PARAMS
    assert "intent.addToScope" in exc.message
    assert (editor.root / SPEC).read_bytes() == spec


async def test_change_and_save_of_an_unopened_document_are_ignored(editor: Editor) -> None:
    uri = editor.uri("src/auth/jwt.py")
    editor.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(0, 0), end=types.Position(0, 0)),
                    text="x",
                )
            ],
        )
    )
    editor.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    editor.client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await editor.settled()
    assert internal_errors(editor) == []
    assert [m.type for m in editor.client.messages] == []
    assert any("not open" in m.message for m in editor.client.log_messages)
    assert len(await editor.execute("intent.list")) == 4


@pytest.mark.parametrize(
    ("start", "end"),
    [((-1, 0), (0, 0)), ((0, -5), (0, 2)), ((500, 0), (900, 3)), ((1, 10_000), (1, 20_000))],
)
async def test_negative_and_out_of_range_positions_are_not_internal_errors(
    editor: Editor, start: tuple[int, int], end: tuple[int, int]
) -> None:
    rel = "src/auth/jwt.py"
    uri = editor.open(rel)
    send_raw(
        editor,
        {
            "jsonrpc": "2.0",
            "method": types.TEXT_DOCUMENT_DID_CHANGE,
            "params": {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [
                    {
                        "range": {
                            "start": {"line": start[0], "character": start[1]},
                            "end": {"line": end[0], "character": end[1]},
                        },
                        "text": "# typed\n",
                    }
                ],
            },
        },
    )
    await editor.settled()
    assert internal_errors(editor) == []
    assert len(await editor.execute("intent.list")) == 4
    assert Path(editor.root / rel).is_file()
    editor.insert(uri, 0, 0, "# still in step\n")  # edits after it still work
    await editor.wait_diagnostics(
        rel, lambda d: any(x.range.start.line == 0 for x in d), "the edit's diagnostic"
    )
