"""Per-workspace-folder state: the core Workspace, the turn Session, approvals, the trace.

Each folder governs itself (its own ``.orchestration/``), so multi-root editors get
independent selections. What governs documents is a *snapshot* taken by
:meth:`Folder.refresh`; the per-keystroke path never touches the disk, and every open
document is re-evaluated against the same snapshot when it changes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from pygls.uris import from_fs_path

from intent_ls.common.local_state import load_selection, save_selection
from intent_ls.common.safe_io import read_sidecar
from intent_ls.common.uris import path_of_uri
from intent_ls.policy.approvals import Approval
from intent_ls.policy.session import SelectionRefused, Session
from intent_ls.scope.index import ScopeIndex
from intent_ls.server.config import Config
from intent_ls.server.trace import FolderTrace
from intent_ls.spec.load import MAX_SPEC_BYTES, SPEC_NOT_FOUND, SpecResult
from intent_ls.spec.model import Intent, Spec
from intent_ls.workspace.discover import Workspace


class Folder:
    def __init__(self, uri: str, root: Path, config: Config) -> None:
        self.uri = uri
        self.workspace = Workspace(root)
        self.workspace.extra_ignores = tuple(config.extra_ignores)
        saved = load_selection(self.workspace.root)
        session_id = saved.get("session_id")
        self.session = Session(id=session_id) if isinstance(session_id, str) else Session()
        #: The approvals made in this session (the status bar counts them).
        self.approvals: list[Approval] = []
        self._trace: FolderTrace | None = None
        self.spec_uri = from_fs_path(str(self.workspace.spec_path)) or ""
        self.spec_result: SpecResult = SpecResult(None, ())
        #: The spec that governs: the disk spec, or the last usable one while the file
        #: on disk cannot be parsed (a half-saved edit must not drop the selection).
        self.spec = Spec()
        #: Lines of the governing spec (for pointing into it) and of the file on disk.
        self.spec_lines: list[str] = []
        self.disk_lines: list[str] = []
        self.scope = ScopeIndex(Spec())
        self.governed = False
        self.cache: dict[object, object] = {}
        self._seen: object = None
        self.refresh()
        self.restore_problem: str | None = None
        wanted = saved.get("intent_id")
        if isinstance(wanted, str) and self.governed:
            try:
                self.session.select(self.spec, wanted)
            except SelectionRefused as exc:
                self.restore_problem = f"the saved selection was dropped: {exc}"
                self.persist()

    @property
    def root(self) -> Path:
        return self.workspace.root

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def trace(self) -> FolderTrace:
        """The folder's trace ledger and index, opened on first use."""
        if self._trace is None:
            self._trace = FolderTrace(self.root)
        return self._trace

    def close(self) -> None:
        if self._trace is not None:
            self._trace.close()

    @property
    def active(self) -> Intent | None:
        return self.spec.get(self.session.intent_id) if self.session.intent_id else None

    @property
    def spec_stale(self) -> bool:
        """True while governing with the last usable spec because the file is broken."""
        return self.governed and self.spec_result.spec is None

    def set_extra_ignores(self, extra: tuple[str, ...]) -> None:
        self.workspace.extra_ignores = extra

    def refresh(self) -> tuple[bool, str | None]:
        """Re-reads the spec and ignores from disk.

        Returns whether what governs changed, and why the selection was dropped if the
        new spec no longer allows it.
        """
        result = self.workspace.spec_result()
        missing = result.spec is None and any(p.code == SPEC_NOT_FOUND for p in result.problems)
        self.governed = not missing
        if result is not self.spec_result:
            self.spec_result = result
            self.disk_lines = self._read_spec_lines()
            if result.spec is not None:
                self.spec, self.spec_lines = result.spec, self.disk_lines
            elif missing:
                self.spec, self.spec_lines = Spec(), []
        ignores = (*self.workspace.ignore_lines(), *self.workspace.extra_ignores)
        key = (id(self.spec), ignores, self.governed, id(result))
        if key == self._seen:
            return False, None
        self._seen = key
        self.scope = ScopeIndex(self.spec, ignores)
        self.cache = {}
        dropped = None
        if self.governed and self.session.intent_id and result.spec is not None:
            before = self.session.intent_id
            if self.session.revalidate(self.spec):
                dropped = f"{before} is no longer selectable (spec changed); no active intent"
                self.persist()
        return True, dropped

    def _read_spec_lines(self) -> list[str]:
        try:
            data = read_sidecar(self.workspace.spec_path, MAX_SPEC_BYTES)
        except OSError:
            return []
        return data.decode("utf-8-sig", "replace").splitlines()

    def select(self, intent_id: str) -> Intent:
        intent = self.session.select(self.spec, intent_id)
        self.persist()
        return intent

    def clear(self) -> None:
        self.session.clear()
        self.persist()

    def persist(self) -> None:
        save_selection(self.root, self.session.intent_id, self.session.id)


class FolderSet:
    """The workspace folders, found for a path by the longest containing root."""

    def __init__(self) -> None:
        self._folders: dict[str, Folder] = {}

    def __iter__(self) -> Iterator[Folder]:
        return iter(list(self._folders.values()))

    def __len__(self) -> int:
        return len(self._folders)

    def add(self, uri: str, config: Config) -> Folder | None:
        """Adds a ``file:`` folder; other schemes (virtual file systems) are not governed."""
        path = path_of_uri(uri)
        if path is None or not os.path.isdir(path):
            return None
        folder = Folder(uri, Path(path), config)
        self._folders[uri] = folder
        return folder

    def remove(self, uri: str) -> Folder | None:
        return self._folders.pop(uri, None)

    def get(self, uri: str) -> Folder | None:
        return self._folders.get(uri)

    def for_path(self, path: str) -> Folder | None:
        real = os.path.realpath(path)
        best: Folder | None = None
        for folder in self._folders.values():
            root = str(folder.root)
            if (real == root or real.startswith(root + os.sep)) and (
                best is None or len(root) > len(str(best.root))
            ):
                best = folder
        return best
