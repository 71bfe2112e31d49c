"""``file:`` URI spellings clients send, mapped to one local path (issue 9)."""

from __future__ import annotations

import pytest

from intent_ls.common.uris import UriError, is_file_uri, path_of_uri, uri_to_path


@pytest.mark.parametrize(
    "uri",
    [
        "file:///w/src/a%20b.py",
        "file://localhost/w/src/a%20b.py",
        "file://LOCALHOST/w/src/a%20b.py",
        "FILE:///w/src/a%20b.py",
        "File:///w/src/a b.py",
        "file:///w/src/a%20b.py#L3",
        "file:/w/src/a%20b.py",
    ],
)
def test_spellings_of_one_file(uri: str) -> None:
    assert is_file_uri(uri)
    assert uri_to_path(uri) == "/w/src/a b.py"


def test_percent_decoding_is_bytes_then_utf8() -> None:
    assert uri_to_path("file:///w/%F0%9F%98%80.py") == "/w/😀.py"
    assert uri_to_path("file:///w/%e2%82%ac%25.py") == "/w/€%.py"


@pytest.mark.parametrize(
    ("uri", "why"),
    [
        ("file:///w/%ff%fe.py", "not UTF-8 (0xff)"),
        ("file:///w/%c3.py", "not UTF-8 (0xc3)"),
        ("file:///w/a%00b.py", "NUL"),
        ("file://server/share/a.py", "another host (server)"),
        ("untitled:Untitled-1", "not a file: URI"),
        ("file:relative/a.py", "no absolute path"),
        ("file:///w/\udcff.py", "not valid text"),
    ],
)
def test_refused_with_a_reason(uri: str, why: str) -> None:
    with pytest.raises(UriError, match=why.replace("(", r"\(").replace(")", r"\)")):
        uri_to_path(uri)
    assert path_of_uri(uri) is None
