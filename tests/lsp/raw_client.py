"""A JSON-RPC peer that writes raw bytes to a real ``intent-ls serve`` and reads its frames.

pytest-lsp only sends well-formed messages; the protocol attacks of issue 9 need the
bytes a broken or hostile client would send.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawServer:
    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "intent_ls", "serve"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self._out = self.proc.stdout.fileno()
        self._buffer = b""
        self.seen: list[dict[str, Any]] = []
        self._stderr: list[bytes] = []
        # Drained all along: a server blocked on a full stderr pipe would look hung.
        self._drain = threading.Thread(target=self._read_stderr, daemon=True)
        self._drain.start()
        self._closed: tuple[int, str] | None = None

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        while chunk := self.proc.stderr.read1(1 << 16):
            self._stderr.append(chunk)

    def send_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        self.send_bytes(frame(json.dumps(message).encode()))

    def request(self, msg_id: int, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})

    def initialize(self, root: Path) -> dict[str, Any]:
        self.request(
            1, "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
        )
        reply = self.response(1)
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        return reply

    def _fill(self, deadline: float) -> bool:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self._out], [], [], left)[0]:
            return False
        chunk = os.read(self._out, 1 << 16)
        if not chunk:
            return False
        self._buffer += chunk
        return True

    def next_frame(self, timeout: float = 30) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while True:
            head, sep, rest = self._buffer.partition(b"\r\n\r\n")
            if sep:
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                if len(rest) >= length:
                    self._buffer = rest[length:]
                    message = json.loads(rest[:length])
                    self.seen.append(message)
                    return message
            if not self._fill(deadline):
                return None

    def response(self, msg_id: Any, timeout: float = 30) -> dict[str, Any]:
        """The response to ``msg_id``; server-to-client requests are answered with null."""
        deadline = time.monotonic() + timeout
        while (message := self.next_frame(deadline - time.monotonic())) is not None:
            if "method" in message and "id" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "method" not in message and message.get("id") == msg_id:
                return message
        raise AssertionError(f"no response to {msg_id!r} within {timeout} s; saw {self.seen}")

    def wait_exit(self, timeout: float = 30) -> tuple[int, str]:
        """For a server expected to stop on its own: its exit status and stderr."""
        self.proc.wait(timeout=timeout)
        while self.next_frame(timeout=1) is not None:  # what it wrote before stopping
            pass
        return self.close()

    def close(self) -> tuple[int, str]:
        """Ends the session if the server still runs; returns (exit status, stderr)."""
        if self._closed is not None:
            return self._closed
        if self.proc.poll() is None:
            try:
                self.request(999, "shutdown", None)
                self.response(999, timeout=10)
                self.send({"jsonrpc": "2.0", "method": "exit"})
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            except (AssertionError, BrokenPipeError):
                self.proc.kill()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._drain.join(timeout=10)
        err = b"".join(self._stderr).decode("utf-8", "replace")
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                with contextlib.suppress(BrokenPipeError):  # unread input left in the pipe
                    stream.close()
        self._closed = (self.proc.returncode, err)
        return self._closed
