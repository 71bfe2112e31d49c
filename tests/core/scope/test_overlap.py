"""scope-conflict decided by the matcher that answers ``which``: every pair of live
intents that ``which`` finds owning a common path is reported, and every report names a
path ``which`` lists under both."""

from __future__ import annotations

import itertools
import os
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from intent_ls.scope.conflicts import with_scope_conflicts
from intent_ls.scope.index import ScopeIndex
from intent_ls.spec.load import SCOPE_CONFLICT, load_spec_text

GLOB_SEGMENTS = [
    "src",
    "billing",
    "a.py",
    "x",
    "*",
    "**",
    "*.py",
    "test_*",
    "b*",
    "[ab].py",
    "?.py",
]
PATH_SEGMENTS = ["src", "billing", "a.py", "b.py", "test_a.py", "x", "bx", "w"]
CONFLICT = re.compile(r"intents '([^']+)' and '([^']+)' both own '([^']+)'")


@st.composite
def globs(draw: st.DrawFn, negated: bool) -> str:
    segments = draw(st.lists(st.sampled_from(GLOB_SEGMENTS), min_size=1, max_size=3))
    body = "/".join(segments)
    if draw(st.booleans()):
        body = "/" + body
    if draw(st.booleans()):
        body += "/"
    return ("!" if negated else "") + body


@st.composite
def scopes(draw: st.DrawFn) -> list[str]:
    first = draw(globs(False))
    rest = draw(st.lists(st.booleans().flatmap(globs), max_size=2))
    return [first, *rest]


def spec_yaml(scopes: list[list[str]]) -> str:
    lines = ["active_intents:"]
    for n, scope in enumerate(scopes):
        quoted = ", ".join(f"'{g}'" for g in scope)
        lines.append(f"  - {{id: I{n}, name: n, status: IN_PROGRESS, owned_scope: [{quoted}]}}")
    return "\n".join(lines) + "\n"


UNIVERSE = [
    "/".join(p) for depth in (1, 2, 3) for p in itertools.product(PATH_SEGMENTS, repeat=depth)
]


def conflicts(text: str) -> dict[frozenset[str], str]:
    result = with_scope_conflicts(load_spec_text(text))
    found = {}
    for problem in result.problems:
        if problem.code == SCOPE_CONFLICT:
            match = CONFLICT.search(problem.message)
            assert match, problem.message
            found[frozenset(match.group(1, 2))] = match.group(3)
    return found


def test_issue_example_reports_every_overlapping_pair() -> None:
    text = spec_yaml([["src/**"], ["**/*.py"], ["src/billing/"]])
    assert set(conflicts(text)) == {
        frozenset({"I0", "I1"}),
        frozenset({"I0", "I2"}),
        frozenset({"I1", "I2"}),
    }


def test_disjoint_shapes_do_not_conflict() -> None:
    text = spec_yaml([["/src/a.py"], ["/src/b/"], ["web/**"], ["/src/c*", "!/src/c*"]])
    assert conflicts(text) == {}


@settings(max_examples=int(os.environ.get("INTENT_LS_OVERLAP_EXAMPLES", "200")), deadline=None)
@given(st.lists(scopes(), min_size=2, max_size=4))
def test_conflicts_agree_with_which(scopes: list[list[str]]) -> None:
    text = spec_yaml(scopes)
    result = with_scope_conflicts(load_spec_text(text))
    if result.spec is None or len(result.spec.intents) != len(scopes):
        return  # a glob the validator refuses: its intent is not compared
    index = ScopeIndex(result.spec)
    reported = conflicts(text)
    for pair, path in reported.items():
        assert pair <= {i.id for i in index.owners(path)}, (scopes, pair, path)
    shared = set()
    for path in UNIVERSE:
        owners = [i.id for i in index.owners(path)]
        shared.update(frozenset(p) for p in itertools.combinations(owners, 2))
    assert shared <= set(reported), (scopes, shared - set(reported))
