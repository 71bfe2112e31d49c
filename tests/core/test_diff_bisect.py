"""The bisecting common prefix/suffix agree with a plain scan, and diff_lines with them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from intent_ls.diff import common_prefix, common_suffix, diff_lines

lines = st.lists(st.sampled_from(["a\n", "b\n", "c\n", ""]), max_size=12)


def scan_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def scan_suffix(a: list[str], b: list[str], prefix: int) -> int:
    n = 0
    while n < min(len(a), len(b)) - prefix and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


@given(lines, lines)
def test_bisection_matches_a_scan(a: list[str], b: list[str]) -> None:
    prefix = common_prefix(a, b)
    assert prefix == scan_prefix(a, b)
    assert common_suffix(a, b, prefix) == scan_suffix(a, b, prefix)


@given(lines, lines)
def test_hunks_rebuild_the_new_side(a: list[str], b: list[str]) -> None:
    rebuilt = list(a)
    for h in reversed(diff_lines(a, b)):
        rebuilt[h.old_start : h.old_end] = b[h.new_start : h.new_end]
    assert rebuilt == b
