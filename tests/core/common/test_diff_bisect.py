"""The bisecting common prefix/suffix agree with a plain scan, and diff_lines with them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from intent_ls.common.diff import common_prefix, common_suffix, diff_lines

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


def test_a_deletion_stays_put_when_a_change_elsewhere_makes_difflib_align_the_file() -> None:
    """Deleting a block that begins with a blank line like the one after it has two
    equal alignments; the change alone is placed by the prefix stripping (as low as
    possible), and with another change above it difflib must not pick the other one:
    the destructive-edit diagnostic would jump a line between keystrokes."""
    old = ["def a():", "    return 1", "", "def b():", "    return 2", "", "def c():", "    pass"]
    alone = old[:3] + old[6:]  # b deleted, with the blank line after it
    [hunk] = diff_lines(old, alone)
    assert (hunk.old_start, hunk.old_end, hunk.new_start) == (3, 6, 3)
    shifted = ["# later", *alone]
    assert [(h.old_start, h.old_end, h.new_start, h.new_end) for h in diff_lines(old, shifted)] == [
        (0, 0, 0, 1),
        (3, 6, 4, 4),
    ]
