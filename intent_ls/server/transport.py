"""The JSON-RPC edge of the server: frames in, one response for every request out.

pygls' own reader (``pygls.io_.run_async``) trusts its peer: it allocates whatever
``Content-Length`` says (``1000000000000`` ends in a MemoryError), reads header lines of
any length, and when a message does not deserialize — hover with ``{}``, codeAction
without a range, a batch array, ``"method": 7`` — it logs and drops it, so the client
waits forever for a response. This module replaces that loop (the rest of pygls is used
as is) and the protocol's error responses:

- a frame above :data:`MAX_FRAME_BYTES` (64 MiB), a header line above
  :data:`MAX_HEADER_BYTES`, too many header lines or a malformed ``Content-Length`` cannot
  be skipped without trusting the peer, so the server logs the reason, tells the client
  (``window/showMessage``) and exits cleanly with status 1, never having allocated the frame;
- unparsable JSON gets a ParseError response (id null); a batch, a non-object, a
  non-string method or a bad id an InvalidRequest (with the request's id when it has a
  usable one); params that do not fit the method's type an InvalidParams naming the field;
- error messages sent to the client stay under :data:`MAX_ERROR_CHARS` and log lines
  under :data:`MAX_LOG_CHARS`, whatever the request carried.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any, BinaryIO

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol

logger = logging.getLogger(__name__)

MAX_FRAME_BYTES = 64 * 1024 * 1024
MAX_HEADER_BYTES = 8 * 1024
MAX_HEADER_LINES = 32
MAX_ERROR_CHARS = 2000
MAX_LOG_CHARS = 8000

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602


class FramingError(Exception):
    """The byte stream cannot be trusted any more: the server must stop reading it."""


def clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters cut]"


class BoundedFormatter(logging.Formatter):
    """Log lines (tracebacks included) cut at :data:`MAX_LOG_CHARS`: a request's 10 MB
    argument must not become 20 MB of log."""

    def format(self, record: logging.LogRecord) -> str:
        return clip(super().format(record), MAX_LOG_CHARS)


def configure_logging() -> None:
    """Each stderr record starts with its level, so a client shows it at that level (the VS
    Code extension does; editors that copy stderr verbatim still get readable lines)."""
    handler = logging.StreamHandler()
    handler.setFormatter(BoundedFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)


class BoundedProtocol(LanguageServerProtocol):
    """pygls' LSP protocol with every error response bounded."""

    def _send_response(
        self, msg_id: Any, result: Any = None, error: types.ResponseError | None = None
    ) -> None:
        if error is not None:
            error = types.ResponseError(
                code=error.code,
                message=clip(error.message, MAX_ERROR_CHARS),
                data=error.data if len(repr(error.data)) <= MAX_ERROR_CHARS else None,
            )
        super()._send_response(msg_id, result, error)

    def send_error(self, msg_id: Any, code: int, message: str) -> None:
        self._send_response(msg_id, None, types.ResponseError(code=code, message=message))


class _Headers:
    """Header lines of one frame, fed one at a time; knows when the body starts."""

    def __init__(self) -> None:
        self.length: int | None = None
        self._lines = 0

    def feed(self, line: bytes) -> bool:
        """True once the blank line after a ``Content-Length`` arrived."""
        self._lines += 1
        if self._lines > MAX_HEADER_LINES:
            raise FramingError(f"more than {MAX_HEADER_LINES} header lines")
        if not line.strip():
            return self.length is not None  # a stray blank line between frames is skipped
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            digits = value.strip()
            if not digits.isdigit() or len(digits) > 18:
                raise FramingError(f"malformed Content-Length {clip(repr(digits), 40)}")
            self.length = int(digits)
            if self.length > MAX_FRAME_BYTES:
                raise FramingError(
                    f"a frame of {self.length} bytes is above the "
                    f"{MAX_FRAME_BYTES // (1024 * 1024)} MiB cap"
                )
        return False


def read_frame(stream: BinaryIO) -> bytes | None:
    """The next frame's body from a blocking stream (run in a worker thread); None at end
    of input. Raises :class:`FramingError`."""
    headers = _Headers()
    while True:
        line = stream.readline(MAX_HEADER_BYTES)
        if not line.endswith(b"\n"):
            if len(line) >= MAX_HEADER_BYTES:
                raise FramingError(f"a header line is longer than {MAX_HEADER_BYTES} bytes")
            return None  # end of input
        if headers.feed(line):
            break
    assert headers.length is not None
    body = stream.read(headers.length)
    return body if len(body) == headers.length else None


async def read_frame_async(reader: asyncio.StreamReader) -> bytes | None:
    """:func:`read_frame` for a TCP connection (``reader`` created with a
    :data:`MAX_HEADER_BYTES` limit)."""
    headers = _Headers()
    try:
        while not headers.feed(await reader.readuntil(b"\n")):
            pass
        assert headers.length is not None
        return await reader.readexactly(headers.length)
    except asyncio.LimitOverrunError:
        raise FramingError(f"a header line is longer than {MAX_HEADER_BYTES} bytes") from None
    except asyncio.IncompleteReadError:
        return None


def _valid_id(value: Any) -> bool:
    return value is None or (isinstance(value, (int, str)) and not isinstance(value, bool))


def dispatch(protocol: BoundedProtocol, body: bytes) -> None:
    """Handles one frame: everything a client can send gets an answer or a log line."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        protocol.send_error(None, PARSE_ERROR, f"intent-ls: the message is not JSON ({exc})")
        return
    if isinstance(data, list):
        ids = [m["id"] for m in data if isinstance(m, dict) and "method" in m and "id" in m]
        for msg_id in [i for i in ids if _valid_id(i)] or [None]:
            protocol.send_error(
                msg_id, INVALID_REQUEST, "intent-ls: JSON-RPC batches are not part of LSP"
            )
        return
    refused = _malformed(data)
    if refused is None:
        _handle(protocol, data)
    elif refused[0]:
        protocol.send_error(refused[1], INVALID_REQUEST, refused[2])
    else:
        logger.warning(refused[2])


def _malformed(data: Any) -> tuple[bool, Any, str] | None:
    """Why ``data`` is not a message intent-ls handles: (answer it, the id to answer,
    the text); None when it is one."""
    if not isinstance(data, dict):
        return True, None, "intent-ls: a message must be a JSON object"
    msg_id = data.get("id")
    if not _valid_id(msg_id):
        return True, None, "intent-ls: id must be a number or a string"
    if "method" in data and not isinstance(data.get("method"), str):
        return True, msg_id, "intent-ls: method must be a string"
    if data.get("jsonrpc") != "2.0":
        if "id" in data and "method" in data:
            return True, msg_id, 'intent-ls: jsonrpc must be "2.0"'
        return False, None, "dropped a message without jsonrpc 2.0"
    return None


def _handle(protocol: BoundedProtocol, data: dict[str, Any]) -> None:
    """A well-formed message: its params structured, then handled; a failure of either
    is answered (a request) or logged (a notification)."""
    msg_id = data.get("id")
    is_request = "id" in data and "method" in data
    method = data.get("method")
    try:
        message = protocol.structure_message(data)
    except JsonRpcException as exc:
        why = _why(exc)
        if is_request:
            protocol.send_error(
                msg_id, INVALID_PARAMS, f"intent-ls: bad params for {method}: {why}"
            )
        else:
            logger.warning("dropped %s with bad params: %s", method, why)
        return
    try:
        protocol.handle_message(message)
    except Exception:
        logger.exception("handling %s failed", method)
        if is_request:
            protocol.send_error(msg_id, INVALID_PARAMS, f"intent-ls: cannot handle {method}")


def _why(exc: JsonRpcException) -> str:
    """cattrs' account of what did not fit, one short line per field."""
    cause = exc.__cause__
    if isinstance(cause, (cattrs.ClassValidationError, cattrs.IterableValidationError)):
        return clip("; ".join(cattrs.transform_error(cause)), MAX_ERROR_CHARS // 2)
    return clip(str(cause or exc), MAX_ERROR_CHARS // 2)


async def serve_frames(
    stop: threading.Event,
    stream: BinaryIO | asyncio.StreamReader,
    protocol: BoundedProtocol,
    pool: Any = None,
) -> str | None:
    """The message loop over stdio (a blocking stream, read in ``pool``) or TCP (an
    asyncio reader). Returns why it stopped reading when the stream broke its framing
    (None at the end of input or when stopped)."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        try:
            if isinstance(stream, asyncio.StreamReader):
                body = await read_frame_async(stream)
            else:
                body = await loop.run_in_executor(pool, read_frame, stream)
        except FramingError as exc:
            return str(exc)
        if body is None:
            return None
        dispatch(protocol, body)
    return None
