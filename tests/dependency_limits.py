"""What the tests assume about dependencies at their limits, stated once.

A fresh machine installs the newest releases pyproject.toml allows and CI also installs
the lowest (``tools/lowest_constraints.py``); a test that leans on a dependency's
behaviour at a limit takes the variants from here, so both ends are exercised and a
release that moves a limit shows up as one named assumption, not a stray failure.
"""

from __future__ import annotations

import re
from importlib import metadata

import yaml

#: Every loader a spec may be read with on some machine: PyYAML wheels bundle libyaml
#: (``CSafeLoader``), source builds do not. libyaml refuses nesting deeper than its own
#: limit (1000 levels in the wheels since PyYAML 6.0.4) before emitting a single event;
#: the pure-Python parser has no such limit. The spec's answers must not depend on which
#: one is present.
YAML_LOADERS: dict[str, type] = {"pure": yaml.SafeLoader}
if getattr(yaml, "__with_libyaml__", False):
    YAML_LOADERS["libyaml"] = yaml.CSafeLoader

#: Grammar wheels: the node kinds our queries name (definitions, their names) are what
#: the tests expect from the lower bound of each ``tree-sitter-*`` range in pyproject.toml
#: upwards; a grammar release that changes them moves that bound (with tree-sitter-go 0.23.1
#: a saved Go change in tests/lsp/test_lsp_ledger.py was AST_REFACTOR, not INTENT_EVOLUTION).

#: Deeper than any YAML layer's own limit, so whichever layer looks first meets it.
BEYOND_EVERY_YAML_NESTING_LIMIT = 100_000

_REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9._-]+")


def runtime_distributions() -> list[str]:
    """The installed intent-ls's own runtime requirements, the optional features' extras
    (``otlp``) included; the ``test`` extra's tools left out."""
    requirements = metadata.requires("intent-ls") or []
    return [
        match.group()
        for requirement in requirements
        if 'extra == "test"' not in requirement
        and (match := _REQUIREMENT_NAME.match(requirement)) is not None
    ]


def resolved_versions() -> str:
    """One line naming what this run resolved, so a failure names what changed."""
    parts = []
    for name in runtime_distributions():
        try:
            parts.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{name} missing")
    libyaml = "with libyaml" if "libyaml" in YAML_LOADERS else "without libyaml"
    from intent_ls.ledger.index import native

    writer = "the index's C writer" if native.available() else "no C writer: pure Python"
    return "runtime dependencies: " + ", ".join(parts) + f" ({libyaml}; {writer})"
