"""Which live intents own a common path: the ``scope-conflict`` check.

Two owned_scope globs overlap when some path is matched by both. Deciding that exactly
for gitignore globs with negations is a language-intersection problem; instead, this
module *proposes* paths that both globs of a pair could match — built by walking the
two globs segment by segment and choosing, at each step, a name both segments accept —
and the caller *decides* with the very matcher that answers ``intent-ls which``. So a
reported conflict is always real (``which`` lists both intents for the named path), and
a glob shape is never judged by a second, drifting implementation of the rules.

Pairs are only proposed when the globs' literal beginnings are compatible (one is a
prefix of the other: ``src/`` and ``src/billing/`` can meet, ``src/a_`` and ``src/b/``
cannot), so a 1,000-intent spec costs a few dictionary lookups per glob.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from fnmatch import fnmatchcase
from functools import lru_cache
from itertools import chain, islice
from typing import NamedTuple

_WILDCARD = re.compile(r"[*?\[\\]")
_FILLERS = ("w", "v")
#: Walked paths per pair of globs (each proposed three ways): the walk branches at every
#: ``**``; the first few cover the shapes people write, and every proposal costs up to
#: two matcher calls.
_MAX_WALKS = 8


class Shape(NamedTuple):
    """A positive glob as anchored segments: ``**`` matches any number of directories;
    matching any leading part of a path owns the whole path (gitignore's directory rule)."""

    segments: tuple[str, ...]
    #: The literal text every matched path starts with ('' when it can start anywhere).
    literal: str


@lru_cache(maxsize=16384)
def shape_of(pattern: str) -> Shape | None:
    """None for a negation, which owns nothing by itself."""
    if pattern.startswith("!"):
        return None
    body = pattern.rstrip("/")
    anchored = body.startswith("/") or "/" in body
    segments = tuple(s for s in body.lstrip("/").split("/") if s)
    if not anchored:
        return Shape(("**", *segments), "")
    text = "/".join(segments)
    wildcard = _WILDCARD.search(text)
    return Shape(segments, text[: wildcard.start()] if wildcard else text)


def _tokens(segment: str) -> tuple[str, ...]:
    """A segment as single-character tests: ``*``, ``?``, a ``[...]`` class (kept as an
    fnmatch pattern), or one literal character (escapes resolved)."""
    out: list[str] = []
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch == "\\" and i + 1 < len(segment):
            out.append(re.escape(segment[i + 1]))
            i += 2
            continue
        if ch == "*":
            while i < len(segment) and segment[i] == "*":
                i += 1
            out.append("*")
            continue
        if ch == "[":
            end = segment.find("]", i + 2)
            if end != -1:
                out.append(segment[i : end + 1].replace("[^", "[!", 1))
                i = end + 1
                continue
        out.append("?" if ch == "?" else re.escape(ch))
        i += 1
    return tuple(out)


def _takes(token: str, char: str) -> bool:
    if token in ("*", "?"):
        return True
    if token.startswith("["):
        return fnmatchcase(char, token)
    return re.fullmatch(token, char) is not None


@lru_cache(maxsize=16384)
def _common_names(a: str, b: str) -> tuple[str, ...]:
    """Shortest non-empty names both segments accept (``test_*`` and ``*.py`` ->
    ``test_.py``), searched over the characters the two segments mention plus fillers;
    a second search in reverse character order gives a different name where one
    exists, so that a negation excluding the first does not hide an overlap."""
    if not _WILDCARD.search(a) and not _WILDCARD.search(b):
        return (a,) if a == b else ()
    ta, tb = _tokens(a), _tokens(b)
    mentioned = {c for t in ta + tb if t not in ("*", "?") for c in t[-1:] if c != "]"}
    mentioned |= {c for t in ta + tb if t.startswith("[") for c in t[1:-1] if c not in "!-"}
    alphabet = sorted(mentioned | set(_FILLERS))
    names = [_shortest(ta, tb, alphabet), _shortest(ta, tb, alphabet[::-1])]
    return tuple(dict.fromkeys(n for n in names if n))


def _shortest(ta: tuple[str, ...], tb: tuple[str, ...], alphabet: Sequence[str]) -> str | None:
    """Breadth-first over pairs of positions (plus "has a character yet")."""

    def close(i: int, j: int, grown: bool) -> list[tuple[int, int, bool]]:
        states = [(i, j, grown)]
        for k in range(i, len(ta)):
            if ta[k] != "*":
                break
            states += [(k + 1, jj, grown) for _, jj, _ in list(states)]
        for k in range(j, len(tb)):
            if tb[k] != "*":
                break
            states += [(ii, k + 1, grown) for ii, _, _ in list(states)]
        return states

    seen: dict[tuple[int, int, bool], str] = {}
    frontier: list[tuple[int, int, bool]] = []
    for state in close(0, 0, False):
        seen.setdefault(state, "")
        frontier.append(state)
    while frontier:
        following: list[tuple[int, int, bool]] = []
        for i, j, grown in frontier:
            text = seen[(i, j, grown)]
            if grown and i == len(ta) and j == len(tb):
                return text
            for char in alphabet:
                steps_a = _steps(ta, i, char)
                steps_b = _steps(tb, j, char)
                for ni in steps_a:
                    for nj in steps_b:
                        for state in close(ni, nj, True):
                            if state not in seen:
                                seen[state] = text + char
                                following.append(state)
        frontier = following
    return None


def _steps(tokens: tuple[str, ...], i: int, char: str) -> list[int]:
    if i >= len(tokens) or not _takes(tokens[i], char):
        return []
    return [i] if tokens[i] == "*" else [i + 1]


def _examples(segment: str) -> tuple[str, ...]:
    """Names ``segment`` alone accepts (one or two)."""
    return _common_names(segment, segment) or (_FILLERS[0],)


def _expand(segments: Sequence[str]) -> Iterator[list[str]]:
    """Concrete names for the rest of one glob: first choices; second choices; and with
    each inner ``**`` spanning one directory (past a negated name at its level)."""
    rest = [_examples(s) for s in segments if s != "**"]
    yield [names[0] for names in rest]
    if any(len(names) > 1 for names in rest):
        yield [names[-1] for names in rest]
    if "**" in segments[:-1]:
        yield [_FILLERS[0] if s == "**" else _examples(s)[0] for s in segments]


def _walk(a: Sequence[str], b: Sequence[str]) -> Iterator[list[str]]:
    """Paths (as segments) along which ``a`` and ``b`` could both match; when one glob is
    exhausted it owns everything below, so the other is simply completed."""
    if not a or not b:
        yield from _expand(a or b)
        return
    if a[0] == "**" and b[0] == "**":
        # Either one ends first; then the same one directory down, where a negation
        # that spares the top level may no longer reach (git never looks inside an
        # excluded directory).
        found = list(islice(chain(_walk(a[1:], b), _walk(a, b[1:])), _MAX_WALKS))
        yield from found
        for rest in found:
            yield [_FILLERS[0], *rest]
        return
    if a[0] == "**" or b[0] == "**":
        star, other = (a, b) if a[0] == "**" else (b, a)
        yield from _walk(star[1:], other)
        # Or it swallows the other's next segment (any name that segment accepts).
        for name in _examples(other[0]):
            for rest in _walk(star, other[1:]):
                yield [name, *rest]
        return
    for name in _common_names(a[0], b[0]):
        for rest in _walk(a[1:], b[1:]):
            yield [name, *rest]


def proposals(first: Shape, second: Shape) -> list[str]:
    """Candidate paths for a common owner of both shapes, to be decided by the real
    matcher: every walked path first, then each with a file inside, then deeper down
    (a glob ending in a directory owns what is inside it, possibly only past a directory
    a negation re-included) — breadth before depth, so a negation that refutes the
    first walk does not use up the budget."""
    walked: dict[str, None] = {}
    for segments in _walk(first.segments, second.segments):
        if segments:
            walked.setdefault("/".join(segments))
        if len(walked) >= _MAX_WALKS:
            break
    out = [*walked]
    out += [f"{path}/{_FILLERS[0]}.txt" for path in walked]
    out += [f"{path}/{_FILLERS[0]}/{_FILLERS[0]}.txt" for path in walked]
    return out


def overlapping_pairs(
    owners: Sequence[Sequence[str]], owns: Callable[[int, str], bool]
) -> Iterator[tuple[int, int, int, int, str]]:
    """Pairs of owners (by index) sharing a path: ``(i, gi, j, gj, path)`` with ``i < j``,
    ``gi``/``gj`` the overlapping globs' indices in ``owners[i]``/``owners[j]``, and
    ``path`` a path ``owns`` accepts for both. At most one result per pair of owners."""
    by_literal: dict[str, list[tuple[int, int, Shape]]] = defaultdict(list)
    entries: list[tuple[int, int, Shape]] = []
    for i, patterns in enumerate(owners):
        for g, pattern in enumerate(patterns):
            shape = shape_of(pattern)
            if shape is not None:
                entries.append((i, g, shape))
                by_literal[shape.literal].append((i, g, shape))
    done: set[tuple[int, int]] = set()
    for i, g, shape in entries:
        lit = shape.literal
        for k in range(len(lit) + 1):
            for j, h, other in by_literal.get(lit[:k], ()):
                pair = (min(i, j), max(i, j))
                if i == j or pair in done:
                    continue
                for path in proposals(shape, other):
                    if owns(i, path) and owns(j, path):
                        done.add(pair)
                        yield (i, g, j, h, path) if i < j else (j, h, i, g, path)
                        break
