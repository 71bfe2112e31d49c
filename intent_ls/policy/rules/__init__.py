"""The rules: one module per verdict code, each holding a ``RULE`` (a
:class:`~intent_ls.policy.rules.rule.Rule`), found here and nowhere else.

The registry discovers its rules instead of listing them: every public module of this
package that defines ``RULE`` is a rule, and so is one in a folder that
``INTENT_LS_RULE_PATH`` names (absolute folders, ``os.pathsep``-separated: the folder
joins this package's path, so a rule kept outside intent-ls is that one file). Only a
variable set by whoever starts intent-ls adds folders: an ``intent_ls/policy/rules/``
folder elsewhere on ``sys.path`` (a folder an agent can write) is never imported. So
adding a rule is adding its file: ``evaluate`` walks :data:`REGISTRY` in the rules'
order, and every table the doors used to keep by hand is derived from it below. A rule
module imports only :mod:`.rule` at its top (its judgement loads what it needs when it
judges), which keeps the discovery cheap on the agent-hook path.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping

from intent_ls.policy.rules.rule import Rule, register, rule_of
from intent_ls.spec.model import Severity

#: The variable naming folders of rules kept outside intent-ls.
RULE_PATH = "INTENT_LS_RULE_PATH"


def _folders(path: list[str]) -> list[str]:
    """This package's folder, and each absolute folder :data:`RULE_PATH` names (a
    relative one would follow the working directory, which an agent controls)."""
    out = list(path)
    for entry in os.environ.get(RULE_PATH, "").split(os.pathsep):
        folder = os.path.normpath(entry) if os.path.isabs(entry) else ""
        if os.path.isdir(folder) and not any(_same(folder, known) for known in out):
            out.append(folder)
    return out


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


__path__ = _folders(__path__)

#: Modules of this package that hold no rule.
_NOT_RULES = frozenset({"rule"})


def _modules() -> list[str]:
    """The public modules in this package's folders (a listing, cheaper than pkgutil's
    on the agent-hook path)."""
    names: dict[str, None] = {}
    for folder in __path__:
        for entry in sorted(os.listdir(folder)):
            name, dot, suffix = entry.partition(".")
            if dot and suffix == "py" and name.isidentifier() and not name.startswith("_"):
                names.setdefault(name)
    return [name for name in names if name not in _NOT_RULES]


def _discover() -> tuple[Rule, ...]:
    found: list[Rule] = []
    for name in _modules():
        rule = getattr(importlib.import_module(f"{__name__}.{name}"), "RULE", None)
        if isinstance(rule, Rule):
            found.append(register(rule))
    return tuple(sorted(found, key=lambda r: (r.order, r.code)))


#: Every rule, in the order ``evaluate`` asks them and messages list them.
REGISTRY: tuple[Rule, ...] = _discover()

#: The default severity of each code (the editor's ``intentLs.severity`` overrides it).
DEFAULT_SEVERITY: Mapping[str, Severity] = {r.code: r.severity for r in REGISTRY}
#: Verdicts a mutation record may carry only until they are resolved: such a record
#: keeps its lines "open" (editor diagnostics, ``intent-ls check``) until approved,
#: reverted, or (scope rules) covered by the active intent.
GATED = frozenset(r.code for r in REGISTRY if r.gates)
#: Verdicts a human can approve in the editor, in the order messages list them.
APPROVABLE_IN_ORDER = tuple(r.code for r in REGISTRY if r.approvable)
APPROVABLE = frozenset(APPROVABLE_IN_ORDER)
#: Verdicts a human can approve from the terminal: the editor's, plus the agents' held
#: shell commands and a widened spec.
TERMINAL_APPROVABLE = frozenset(r.code for r in REGISTRY if r.terminal_approvable)
#: Verdicts about who may edit a file: resolved by selecting an intent that owns it.
SCOPE_CODES = frozenset(r.code for r in REGISTRY if r.selects_intent)

__all__ = [
    "APPROVABLE",
    "APPROVABLE_IN_ORDER",
    "DEFAULT_SEVERITY",
    "GATED",
    "REGISTRY",
    "SCOPE_CODES",
    "TERMINAL_APPROVABLE",
    "Rule",
    "rule_of",
]
