"""The workspace as one hook process sees it: the spec, the scope index, the session's
selection, and paths as the tool call names them turned into workspace-relative ones."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any, NamedTuple

from intent_ls.agents.events import HookEvent, ToolCall
from intent_ls.policy.session import SelectionRefused, Session
from intent_ls.scope import glob_cache
from intent_ls.scope.index import ScopeIndex
from intent_ls.spec.location import SPEC_RELPATH
from intent_ls.spec.model import Spec

INTENTIGNORE = ".intentignore"
#: :data:`intent_ls.workspace.discover.MAX_IGNORE_BYTES` (a test keeps the two equal).
MAX_IGNORE_BYTES = 256 * 1024


class Governance(NamedTuple):
    """The workspace as one hook process sees it."""

    root: Path
    spec: Spec
    scope: ScopeIndex
    #: Why the spec cannot govern (then every write is refused), else None.
    broken: str | None = None


def load_governance(root: Path) -> Governance | None:
    """None when the workspace is not governed at all (no ``.orchestration/``). The
    workspace's glob translations are loaded too (:func:`.answer.answer` saves new ones),
    so a hook process compiles its scopes without importing pathspec."""
    from intent_ls.spec.cache import load_spec_cached

    if not (root / ".orchestration").is_dir():
        return None
    root = Path(os.path.realpath(root))
    loaded, problems = load_spec_cached(root, root / SPEC_RELPATH)
    errors = [p for p in problems if p.severity.value == "error"]
    broken = None
    if loaded is None or errors:
        first = errors[0] if errors else None
        where = f" (line {first.span.start.line + 1})" if first else ""
        broken = (
            f"the intent spec {SPEC_RELPATH} cannot be used: "
            f"{first.message if first else 'no intents'}{where}"
        )
    broken = _linked_out(root) or broken
    spec = loaded or Spec()
    from intent_ls.common.safe_io import read_regular

    try:  # as the CLI and the editor read it: a symlink or a huge file is not used
        ignores = read_regular(root / INTENTIGNORE, MAX_IGNORE_BYTES).decode("utf-8", "replace")
    except OSError:
        ignores = ""
    glob_cache.load(root)
    return Governance(root, spec, ScopeIndex(spec, ignores.splitlines()), broken)


def _linked_out(root: Path) -> str | None:
    """Why the spec cannot govern when a link leads it out of the sidecar: a symlinked
    ``.orchestration/``, or a spec that is a link to a file elsewhere (in the agent's
    scope, say, where it could write its own intents)."""
    sidecar = root / ".orchestration"
    if sidecar.is_symlink():
        return "the sidecar .orchestration/ is a symbolic link, so its spec cannot be trusted"
    spec = root / SPEC_RELPATH
    if spec.is_symlink() and not os.path.realpath(spec).startswith(str(sidecar) + os.sep):
        return f"the intent spec {SPEC_RELPATH} is a symbolic link out of .orchestration/"
    return None


def session_of(gov: Governance, state: dict[str, Any]) -> Session:
    """The session's selection as its state file keeps it, if the spec still allows it."""
    session = Session()
    wanted = state.get("intent_id")
    if isinstance(wanted, str):
        with contextlib.suppress(SelectionRefused):
            session.select(gov.spec, wanted)
    return session


def rel_path(gov: Governance, cwd: str, path: str) -> str | None:
    """Workspace-relative POSIX path, or None outside the workspace."""
    full = os.path.realpath(os.path.join(cwd, os.path.expanduser(path)))
    root = str(gov.root)
    if full == root or not full.startswith(root + os.sep):
        return None
    return Path(full).relative_to(root).as_posix()


def read_text(gov: Governance, rel: str) -> str | None:
    try:
        return (gov.root / rel).read_bytes().decode("utf-8-sig", "replace")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def hard_links(gov: Governance, rel: str) -> int:
    """How many names the existing regular file ``rel`` has, when more than one."""
    try:
        st = os.lstat(gov.root / rel)
    except OSError:
        return 0
    return st.st_nlink if st.st_nlink > 1 and not os.path.isdir(gov.root / rel) else 0


def command_cwd(gov: Governance, event: HookEvent, tool: ToolCall) -> str | None:
    """Where the tool runs: its own working-directory argument (taken from the event's
    cwd), which must lie inside the workspace; None when it does not."""
    if tool.workdir is None:
        return event.cwd
    if "\0" in tool.workdir:
        return None
    full = os.path.realpath(os.path.join(event.cwd, os.path.expanduser(tool.workdir)))
    root = str(gov.root)
    return full if full == root or full.startswith(root + os.sep) else None
