"""Which intents own a path, and which paths are not governed at all.

Globs follow gitignore semantics (pathspec's ``GitIgnoreSpec``, through the translations
:mod:`intent_ls.scope.glob_cache` keeps) on workspace-relative POSIX paths. A
:class:`ScopeIndex` is compiled once per spec version; lookups only test the intents
whose globs could match the path's first directory, plus the "floating" ones (``*.py``,
``**/x``), which keeps a 1,000-intent spec fast.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache

from intent_ls.scope.glob_cache import translate
from intent_ls.spec.model import Intent, Spec

#: Never governed whatever the spec says: version-control internals.
BUILTIN_IGNORES = (".git/",)
#: The sidecar is governed by intent-ls's own rules (spec validation, append-only
#: ledger), never by owned_scope: editing the spec must stay possible to fix a scope.
SIDECAR_DIR = ".orchestration"

_GLOB_CHARS = re.compile(r"[*?\[\\]")
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


def _literal_key(pattern: str) -> tuple[tuple[str, ...], str]:
    """Where a glob can match: its leading literal directories, and the literal start of
    the segment after them (``src/mod_*.py`` -> ``(("src",), "mod_")``).

    Unanchored globs (``*.py``, ``build/`` without an inner slash) can match at any depth
    and get the empty key, as do globs whose first segment starts with a wildcard. An
    empty segment (``a//b``) ends the literal directories.
    """
    body = pattern.rstrip("/")
    if not (body.startswith("/") or "/" in body):
        return (), ""
    body = body.lstrip("/")
    wildcard = _GLOB_CHARS.search(body)
    *prefix, stem = (body if wildcard is None else body[: wildcard.start()]).split("/")
    if "" in prefix:
        return tuple(prefix[: prefix.index("")]), ""
    if wildcard is None:
        return (*prefix, stem), ""
    return tuple(prefix), stem


def _level_regex(regex: re.Pattern[str]) -> re.Pattern[str]:
    """Turns pathspec's "this path or anything below it" regex into a one-level test.

    Patterns with a ``ps_d`` group must match the whole candidate (a directory written
    with its trailing slash, or a file); trailing-``/**`` patterns (``^src/``) only match
    strictly inside their directory; ``**`` (``.``) matches everything.
    """
    if "ps_d" in regex.groupindex:
        return re.compile(f"(?:{regex.pattern})\\Z")
    if regex.pattern == ".":
        return regex
    return re.compile(f"(?:{regex.pattern}).")


class GitMatcher:
    """A list of gitignore lines evaluated the way git does, directory level by level.

    pathspec's compiled regexes match a directory's descendants too, so a later negation
    like ``!/a`` would also re-include ``a/a/x`` although git excludes it (the inner
    directory ``a`` still matches ``a``). Git decides each parent directory first and
    never looks inside an excluded one; this class replays that on pathspec's regexes.
    Without negations both views agree, and pathspec's own matcher is used directly.
    """

    def __init__(self, lines: Iterable[str]) -> None:
        compiled = [(bool(i), s) for i, s in translate(list(lines)) if s is not None]
        self._negated = any(not include for include, _ in compiled)
        self._compiled = compiled
        self._levels: list[tuple[bool, re.Pattern[str]]] | None = None
        positives = [source for include, source in compiled if include]
        self._any_positive = re.compile(
            "|".join(f"(?:{_NAMED_GROUP.sub('(', p)})" for p in positives) or "(?!)"
        )

    def _decide(self, candidate: str) -> bool | None:
        if self._levels is None:
            self._levels = [(i, _level_regex(re.compile(s))) for i, s in self._compiled]
        for include, regex in reversed(self._levels):
            if regex.search(candidate):
                return include
        return None

    def match(self, rel: str) -> bool:
        # A path (or one of its directories) must match some positive glob to be owned;
        # one combined search rejects most candidates before the per-level replay.
        if not self._any_positive.search(rel):
            return False
        if not self._negated:
            return True
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            if self._decide("/".join(parts[:depth]) + "/"):
                return True
        return bool(self._decide(rel))


@lru_cache(maxsize=8192)
def compile_matcher(patterns: tuple[str, ...]) -> GitMatcher:
    """Shared across spec versions, so re-validating a spec as it is typed only compiles
    the globs that changed."""
    return GitMatcher(patterns)


class ScopeIndex:
    """Compiled owned_scope and ignore matchers for one spec version."""

    def __init__(self, spec: Spec, ignore_lines: Iterable[str] = ()) -> None:
        self.spec = spec
        self._intents: tuple[Intent, ...] = spec.intents
        self._matchers: list[GitMatcher | None] = [None] * len(self._intents)
        self._by_id = {intent.id: n for n, intent in enumerate(self._intents)}
        self._by_key: dict[tuple[str, ...], dict[str, list[int]]] = defaultdict(dict)
        for n, intent in enumerate(self._intents):
            keys = {_literal_key(p) for p in intent.patterns if not p.startswith("!")}
            for prefix, stem in keys:
                self._by_key[prefix].setdefault(stem, []).append(n)
        self._stem_lengths = {
            prefix: sorted({len(stem) for stem in stems}) for prefix, stems in self._by_key.items()
        }
        self._depth = max((len(k) for k in self._by_key), default=0)
        self._ignore = GitMatcher([*BUILTIN_IGNORES, *ignore_lines])
        self._owners_cached = lru_cache(maxsize=4096)(self._owners)

    def _matcher(self, n: int) -> GitMatcher:
        """Compiled on first use: a big spec costs nothing for intents never consulted."""
        matcher = self._matchers[n]
        if matcher is None:
            matcher = self._matchers[n] = compile_matcher(self._intents[n].patterns)
        return matcher

    def _candidates(self, rel: str) -> Sequence[int]:
        """Intents with a glob keyed under a leading part of ``rel``, in spec order."""
        parts = tuple(rel.split("/"))
        found: set[int] = set()
        for depth in range(min(len(parts), self._depth) + 1):
            prefix = parts[:depth]
            stems = self._by_key.get(prefix)
            if not stems:
                continue
            segment = parts[depth] if depth < len(parts) else ""
            for length in self._stem_lengths[prefix]:
                if length <= len(segment):
                    found.update(stems.get(segment[:length], ()))
        return sorted(found)

    def _owners(self, rel: str) -> tuple[Intent, ...]:
        return tuple(self._intents[n] for n in self._candidates(rel) if self._matcher(n).match(rel))

    def owners(self, rel: str) -> tuple[Intent, ...]:
        """Intents (any status) whose owned_scope matches ``rel``, in spec order."""
        return self._owners_cached(rel)

    def owns(self, intent_id: str, rel: str) -> bool:
        n = self._by_id.get(intent_id)
        return n is not None and self._matcher(n).match(rel)

    def is_ignored(self, rel: str) -> bool:
        """True for ``.git/`` and ``.intentignore`` matches: such files are never governed."""
        return self._ignore.match(rel)


def is_sidecar(rel: str) -> bool:
    return rel == SIDECAR_DIR or rel.startswith(SIDECAR_DIR + "/")
