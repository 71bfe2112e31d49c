"""The ``scope-conflict`` warning: two IN_PROGRESS intents own a common path.

It is a spec problem, but deciding it needs the scope matcher, which sits above the
spec loader; so the loader reports what one file's shape says and this module adds the
conflicts. Every door that shows a spec's problems (the editor, ``intent-ls validate``)
asks for :func:`with_scope_conflicts`.
"""

from __future__ import annotations

from intent_ls.scope.index import ScopeIndex
from intent_ls.scope.overlap import overlapping_pairs
from intent_ls.spec.load import SCOPE_CONFLICT, SpecResult
from intent_ls.spec.model import Intent, Problem, Severity, Spec, Status


def scope_conflicts(intents: tuple[Intent, ...]) -> list[Problem]:
    """Decided by the matcher that answers ``which`` (see :mod:`intent_ls.scope.overlap`):
    a warning names a path ``intent-ls which`` lists under both intents."""
    live = [i for i in intents if i.status is Status.IN_PROGRESS]
    if len(live) < 2:
        return []
    index = ScopeIndex(Spec(intents=tuple(live)))
    pairs = overlapping_pairs(
        [i.patterns for i in live], lambda n, path: index.owns(live[n].id, path)
    )
    out = []
    for first, g, second, h, path in pairs:
        intent, other = live[first], live[second]
        glob, other_glob = intent.owned_scope[g], other.owned_scope[h]
        out.append(
            Problem(
                SCOPE_CONFLICT,
                Severity.WARNING,
                f"IN_PROGRESS intents '{intent.id}' and '{other.id}' both own '{path}' "
                f"(globs '{glob.pattern}' and '{other_glob.pattern}'); two live intents "
                "should not share files",
                glob.span,
                ((f"scope of '{other.id}'", other_glob.span),),
            )
        )
    return out


def with_scope_conflicts(result: SpecResult) -> SpecResult:
    """``result`` with the spec's scope conflicts added to its problems."""
    if result.spec is None:
        return result
    found = scope_conflicts(result.spec.intents)
    return result._replace(problems=(*result.problems, *found)) if found else result
