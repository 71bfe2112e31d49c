"""Protected paths: files whose every edit needs a human's approval.

Some files are cheap to change and expensive to get wrong: an applied migration, a lock
file, a CI workflow. Their globs use gitignore semantics on workspace-relative POSIX
paths (the same engine as ``owned_scope``), so ``!`` re-includes work as users expect.
"""

from __future__ import annotations

from typing import NamedTuple

from intent_ls.scope.index import compile_matcher

#: The defaults, chosen for "rewriting this silently breaks something far away":
#: applied database migrations (rewriting history that production already ran), lock
#: files (a hand edit desynchronizes them from their manifest) and CI definitions (they
#: decide what the gate itself checks). Dockerfiles and manifests are left out: editing
#: them is routine work, not destruction.
DEFAULT_PROTECTED: tuple[str, ...] = (
    "**/migrations/**",
    "**/alembic/versions/**",
    "*.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "go.sum",
    ".github/workflows/**",
    ".gitlab-ci.yml",
    ".circleci/**",
    "azure-pipelines.yml",
    "Jenkinsfile",
)


class ProtectedPaths(NamedTuple):
    """A compiled view of a protected-globs list (matchers are cached per glob tuple).

    ``extra`` is a second list matched on its own: what a front door protects on top of
    the repository's list. Its ``!`` lines re-include only within itself, so it can add
    protection but never lift the repository's.
    """

    patterns: tuple[str, ...] = DEFAULT_PROTECTED
    extra: tuple[str, ...] = ()

    def match(self, rel: str) -> str | None:
        """The glob that protects ``rel`` (the last positive one matching it, as git would
        name it), or None when the path is not protected."""
        return _match(self.patterns, rel) or _match(self.extra, rel)


def _match(patterns: tuple[str, ...], rel: str) -> str | None:
    if not patterns or not compile_matcher(patterns).match(rel):
        return None
    return next(
        (
            p
            for p in reversed(patterns)
            if not p.startswith("!") and compile_matcher((p,)).match(rel)
        ),
        None,
    )
