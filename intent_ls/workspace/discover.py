"""A workspace on disk: where its sidecar lives, and how a path relates to it.

This is the I/O edge of the core. It resolves symlinks, reads the spec and
``.intentignore`` and caches what it compiled, keyed on file identity (mtime and size),
so repeated CLI or hook calls in one process and every LSP request reuse the same
:class:`~intent_ls.scope.index.ScopeIndex` until a file actually changes.
"""

from __future__ import annotations

import enum
import os
import time
from pathlib import Path
from typing import NamedTuple

from intent_ls.common.safe_io import read_regular
from intent_ls.scope.conflicts import with_scope_conflicts
from intent_ls.scope.index import ScopeIndex, is_sidecar
from intent_ls.spec.load import SPEC_RELPATH, SpecResult, load_spec_file, load_spec_text
from intent_ls.spec.model import Spec

INTENTIGNORE = ".intentignore"
MAX_IGNORE_BYTES = 256 * 1024
#: How long an emptied spec file waits before it governs: a writer between truncating and
#: writing it takes microseconds, unless a loaded machine takes its processor away.
EMPTY_SETTLE_NS = 1_000_000_000


class PathKind(enum.StrEnum):
    GOVERNED = "governed"
    IGNORED = "ignored"  # .intentignore or built-in (.git/)
    SIDECAR = "sidecar"  # .orchestration/: intent-ls's own files
    OUTSIDE = "outside"  # not under the workspace (possibly through a symlink)


class PathInfo(NamedTuple):
    kind: PathKind
    rel: str | None
    reason: str

    @property
    def governed(self) -> bool:
        return self.kind is PathKind.GOVERNED


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))
        self._spec_key: object = None
        self._spec_result: SpecResult | None = None
        self._ignore_key: object = None
        self._ignore_lines: tuple[str, ...] = ()
        self._scope_key: object = None
        self._scope: ScopeIndex | None = None
        self._spec_override: str | None = None
        #: Whether the spec just read empty and the last one is kept for another look.
        self.settling = False
        self.extra_ignores: tuple[str, ...] = ()

    @property
    def orchestration(self) -> Path:
        return self.root / ".orchestration"

    @property
    def spec_path(self) -> Path:
        return self.root / SPEC_RELPATH

    @property
    def intentignore_path(self) -> Path:
        return self.root / INTENTIGNORE

    def set_spec_text(self, text: str | None) -> None:
        """Validates a live (unsaved) buffer of the spec instead of the file on disk."""
        self._spec_override = text
        self._spec_key = None

    def spec_result(self) -> SpecResult:
        if self._spec_override is not None:
            key: object = ("buffer", hash(self._spec_override))
        else:
            key = _file_key(self.spec_path)
        self.settling = False
        if key != self._spec_key or self._spec_result is None:
            held = self._held(key) if self._spec_override is None else None
            if held is not None:
                return held
            if self._spec_override is not None:
                self._spec_result = with_scope_conflicts(load_spec_text(self._spec_override))
            else:
                self._spec_result = with_scope_conflicts(load_spec_file(self.spec_path))
            self._spec_key = key
        return self._spec_result

    def _held(self, key: object) -> SpecResult | None:
        """The last spec, while the spec file is empty and was changed a moment ago.

        Git and editors that write in place truncate the file before they write it: a
        read between the two found a valid, empty spec, and every session's selection was
        dropped. An empty file younger than :data:`EMPTY_SETTLE_NS` where intents were
        does not govern yet (``settling``: look again); one left empty does.
        """
        last = self._spec_result
        if not isinstance(key, tuple) or key[1] != 0:
            return None
        if not 0 <= time.time_ns() - key[0] < EMPTY_SETTLE_NS:
            return None
        if last is None or last.spec is None or not last.spec.intents:
            return None
        self.settling = True
        return last

    def spec(self) -> Spec:
        """The current spec; an unusable file yields an empty spec (its problems say why)."""
        return self.spec_result().spec or Spec()

    def ignore_lines(self) -> tuple[str, ...]:
        key = _file_key(self.intentignore_path)
        if key != self._ignore_key:
            self._ignore_key = key
            try:
                data = read_regular(self.intentignore_path, MAX_IGNORE_BYTES)
                self._ignore_lines = tuple(data.decode("utf-8", "replace").splitlines())
            except OSError:  # absent, too large, a symlink or special file: no ignores
                self._ignore_lines = ()
        return self._ignore_lines

    def scope(self) -> ScopeIndex:
        spec = self.spec()
        ignores = (*self.ignore_lines(), *self.extra_ignores)
        key = (id(spec), ignores)
        if key != self._scope_key or self._scope is None:
            self._scope = ScopeIndex(spec, ignores)
            self._scope_key = key
        return self._scope

    def relative(self, path: Path | str) -> str | None:
        """Workspace-relative POSIX path of the file's real location, or None if outside."""
        real = os.path.realpath(path)
        try:
            rel = Path(real).relative_to(self.root)
        except ValueError:
            return None
        return rel.as_posix() if rel.parts else ""

    def classify(self, path: Path | str) -> PathInfo:
        path = Path(path)
        if not path.is_absolute():
            path = self.root / path
        rel = self.relative(path)
        if rel is None:
            lexical = os.path.normpath(path)
            inside = lexical == str(self.root) or lexical.startswith(str(self.root) + os.sep)
            reason = (
                "resolves (through a symlink) outside the workspace"
                if inside
                else "is outside the workspace"
            )
            return PathInfo(PathKind.OUTSIDE, None, reason)
        return self.classify_rel(rel)

    def classify_rel(self, rel: str) -> PathInfo:
        """Classifies a workspace-relative POSIX path as written, resolving no symlink:
        where git reports a change, the path itself is what a commit changed (a symlink
        there is a change of its own, not the file it points to)."""
        if rel == "":
            return PathInfo(PathKind.OUTSIDE, None, "is the workspace root itself")
        if is_sidecar(rel):
            return PathInfo(PathKind.SIDECAR, rel, "is intent-ls's own sidecar (.orchestration/)")
        if self.scope().is_ignored(rel):
            return PathInfo(
                PathKind.IGNORED, rel, "is excluded by .intentignore or built-in ignores"
            )
        return PathInfo(PathKind.GOVERNED, rel, "is governed")


def _file_key(path: Path) -> object:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def find_workspace_root(start: Path) -> Path:
    """The nearest ancestor holding ``.orchestration/``, else ``start`` itself."""
    start = Path(os.path.realpath(start))
    for candidate in (start, *start.parents):
        if (candidate / ".orchestration").is_dir():
            return candidate
    return start
