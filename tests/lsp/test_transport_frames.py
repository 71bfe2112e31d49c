"""The frame reader of ``intent_ls/server/transport.py`` on byte streams a client could send."""

from __future__ import annotations

import io

import pytest

from intent_ls.server.transport import MAX_FRAME_BYTES, FramingError, clip, read_frame


def frames(data: bytes) -> list[bytes]:
    stream = io.BufferedReader(io.BytesIO(data))  # type: ignore[arg-type]
    out = []
    while (body := read_frame(stream)) is not None:
        out.append(body)
    return out


def test_headers_any_case_extra_headers_and_stray_blank_lines() -> None:
    data = (
        b"content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}"
        b"\r\n"
        b"Content-Length:3\n\n[1]"
    )
    assert frames(data) == [b"{}", b"[1]"]


def test_truncated_input_ends_quietly() -> None:
    assert frames(b"Content-Length: 10\r\n\r\n{}") == []
    assert frames(b"Content-Len") == []


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"Content-Length: %d\r\n\r\n" % (MAX_FRAME_BYTES + 1), "above the 64 MiB cap"),
        (b"Content-Length: 1000000000000\r\n\r\n", "above the 64 MiB cap"),
        (b"Content-Length: -5\r\n\r\n", "malformed Content-Length"),
        (b"Content-Length: 99999999999999999999999\r\n\r\n", "malformed Content-Length"),
        (b"X: " + b"a" * 10_000, "longer than 8192 bytes"),
        (b"X: y\r\n" * 40, "more than 32 header lines"),
    ],
)
def test_refused_without_reading_the_body(data: bytes, why: str) -> None:
    with pytest.raises(FramingError, match=why):
        frames(data)


def test_clip_says_how_much_was_cut() -> None:
    assert clip("abc", 5) == "abc"
    assert clip("x" * 10, 4) == "xxxx… [6 more characters cut]"
