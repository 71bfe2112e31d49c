"""Raw bytes against a real ``intent-ls serve``: every request answered, no frame trusted.

Each attack of issue 9's protocol list is written as a broken client would write it; the
server must answer every request (InvalidParams / InvalidRequest / ParseError), keep
serving, and refuse an oversized frame without allocating it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from raw_client import RawServer

INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
PARSE_ERROR = -32700


@pytest.fixture
def server(workspace: Path) -> Iterator[RawServer]:
    srv = RawServer(workspace)
    yield srv
    srv.close()


def test_bad_requests_all_get_error_responses(server: RawServer, workspace: Path) -> None:
    assert "capabilities" in server.initialize(workspace)["result"]
    app = (workspace / "src/auth/jwt.py").as_uri()
    server.request(2, "textDocument/hover", {})
    assert server.response(2)["error"]["code"] == INVALID_PARAMS
    server.request(
        3, "textDocument/codeAction", {"textDocument": {"uri": app}, "context": {"diagnostics": []}}
    )
    error = server.response(3)["error"]
    assert error["code"] == INVALID_PARAMS and "range" in error["message"]
    server.send(
        [
            {"jsonrpc": "2.0", "id": 4, "method": "shutdown"},
            {"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": {}},
        ]
    )
    assert server.response(4)["error"]["code"] == INVALID_REQUEST
    assert server.response(5)["error"]["code"] == INVALID_REQUEST
    server.send({"jsonrpc": "2.0", "id": 6, "method": 7})
    assert server.response(6)["error"]["code"] == INVALID_REQUEST
    server.send({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": []})
    assert server.response(7)["error"]["code"] == INVALID_PARAMS
    server.send_bytes(b"Content-Length: 9\r\n\r\n{not json")
    assert server.response(None)["error"]["code"] == PARSE_ERROR
    server.send({"jsonrpc": "2.0", "id": 8, "method": "x" * 1_000_000})
    error = server.response(8)["error"]
    assert len(error["message"]) < 2500 and "data" not in error
    # still healthy: a well-formed request is answered normally
    server.request(
        9,
        "textDocument/hover",
        {"textDocument": {"uri": app}, "position": {"line": 0, "character": 0}},
    )
    assert "error" not in server.response(9)
    status, err = server.close()
    assert status == 0
    assert "Traceback" not in err or max(map(len, err.splitlines())) < 8100
    assert len(err) < 200_000  # the 1 MB method name is not echoed into the log


@pytest.mark.parametrize(
    "header", [b"Content-Length: 1000000000000\r\n\r\n", b"Content-Length: 67108865\r\n\r\n"]
)
def test_oversized_frame_is_refused_without_allocating(
    server: RawServer, workspace: Path, header: bytes
) -> None:
    server.initialize(workspace)
    import resource

    server.send_bytes(header)
    status, err = server.wait_exit()
    assert status == 1, err
    assert "above the 64 MiB cap" in err
    assert "MemoryError" not in err
    shown = [m for m in server.seen if m.get("method") == "window/showMessage"]
    assert any("64 MiB" in m["params"]["message"] for m in shown)
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < 1024 * 1024  # KiB: < 1 GiB


def test_header_line_without_end_is_refused(server: RawServer, workspace: Path) -> None:
    server.initialize(workspace)
    with contextlib.suppress(BrokenPipeError):  # it may stop reading before the end
        server.send_bytes(b"X-Junk: " + b"a" * 100_000)
    status, err = server.wait_exit()
    assert status == 1 and "header line is longer" in err


@pytest.mark.parametrize("planted", [".orchestration/active_intents.yaml", ".intentignore"])
def test_sidecar_symlinked_to_stdin_is_not_read(workspace: Path, planted: str) -> None:
    """The server would read its own LSP stream and never answer initialize."""
    target = workspace / planted
    target.unlink(missing_ok=True)
    os.symlink("/dev/stdin", target)
    srv = RawServer(workspace)
    try:
        assert "capabilities" in srv.initialize(workspace)["result"]
        srv.request(2, "workspace/executeCommand", {"command": "intent.status", "arguments": []})
        srv.response(2)
    finally:
        status, _ = srv.close()
    assert status == 0


def test_tcp_answers_bad_params_and_refuses_oversized_frames(workspace: Path) -> None:
    import json
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "intent_ls", "serve", "--tcp", f"127.0.0.1:{port}"],
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:  # wait for the listening socket, not for a fixed time
            try:
                conn = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.05)
        with conn:
            reader = conn.makefile("rb")

            def send(message: object) -> None:
                body = json.dumps(message).encode()
                conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)

            def response(msg_id: int) -> dict:
                while True:
                    length = 0
                    while (line := reader.readline()) not in (b"\r\n", b""):
                        if line.lower().startswith(b"content-length:"):
                            length = int(line.split(b":")[1])
                    message = json.loads(reader.read(length))
                    if message.get("id") == msg_id and "method" not in message:
                        return message

            send(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "processId": None,
                        "rootUri": workspace.as_uri(),
                        "capabilities": {},
                    },
                }
            )
            assert "result" in response(1)
            send({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {}})
            assert response(2)["error"]["code"] == INVALID_PARAMS
            conn.sendall(b"Content-Length: 1000000000000\r\n\r\n")
            assert proc.wait(timeout=30) == 1
        assert proc.stderr is not None
        assert "above the 64 MiB cap" in proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
