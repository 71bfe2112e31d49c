from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from intent_ls.common.hashing import content_hash, hash_key, line_range_hash, text_hash


def test_content_hash_is_sha256_of_lf_joined_utf8_lines() -> None:
    expected = "sha256:" + hashlib.sha256("a\nb é".encode()).hexdigest()
    assert content_hash(["a", "b é"]) == expected


def test_crlf_and_trailing_newline_do_not_change_text_hash() -> None:
    assert text_hash("x\r\ny\r\n") == text_hash("x\ny") == content_hash(["x", "y"])
    assert text_hash("x\ny\n\n") != text_hash("x\ny")


def test_line_range_hash_is_position_independent() -> None:
    lines = ["a", "b", "c", "b", "c"]
    assert line_range_hash(lines, 2, 3) == line_range_hash(lines, 4, 5)


@given(st.text())
def test_text_hash_matches_content_hash_of_lines(text: str) -> None:
    text = text.replace("\r", "")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    assert text_hash(text) == content_hash(lines)


def test_hash_key_is_signed_64_bit() -> None:
    assert hash_key("sha256:" + "f" * 64) == -1
    assert hash_key("sha256:" + "0" * 15 + "1" + "0" * 48) == 1
