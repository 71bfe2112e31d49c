"""Path classification at the I/O edge: symlinks, sidecar, ignores, caching."""

from __future__ import annotations

import os
from pathlib import Path

from intent_ls.workspace.discover import (
    EMPTY_SETTLE_NS,
    PathKind,
    Workspace,
    find_workspace_root,
)


def test_governed_and_owned(workspace: Path) -> None:
    ws = Workspace(workspace)
    info = ws.classify(workspace / "src/auth/jwt.py")
    assert (info.kind, info.rel) == (PathKind.GOVERNED, "src/auth/jwt.py")
    assert [i.id for i in ws.scope().owners(info.rel)] == ["INT-001"]


def test_relative_paths_are_taken_from_the_root(workspace: Path) -> None:
    assert Workspace(workspace).classify("src/api/routes.py").rel == "src/api/routes.py"


def test_ignored_sidecar_git_and_outside(workspace: Path, tmp_path: Path) -> None:
    ws = Workspace(workspace)
    assert ws.classify(workspace / "build/bundle.js").kind is PathKind.IGNORED
    assert ws.classify(workspace / "poetry.lock").kind is PathKind.IGNORED
    assert ws.classify(workspace / ".git/config").kind is PathKind.IGNORED
    assert ws.classify(workspace / ".orchestration/active_intents.yaml").kind is PathKind.SIDECAR
    assert ws.classify(tmp_path / "elsewhere.py").kind is PathKind.OUTSIDE
    assert ws.classify(workspace / "../ws/src/auth/jwt.py").kind is PathKind.GOVERNED


def test_symlink_escaping_the_workspace_is_never_in_scope(workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "keys.py").write_text("KEY = 1\n")
    os.symlink(secret, workspace / "src/auth/linked")
    info = Workspace(workspace).classify(workspace / "src/auth/linked/keys.py")
    assert info.kind is PathKind.OUTSIDE
    assert "symlink" in info.reason


def test_symlink_inside_is_matched_on_its_real_location(workspace: Path) -> None:
    os.symlink(workspace / "src/api", workspace / "src/auth/api_link")
    info = Workspace(workspace).classify(workspace / "src/auth/api_link/routes.py")
    assert info.rel == "src/api/routes.py"


def test_symlinked_workspace_root(workspace: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    os.symlink(workspace, alias)
    assert Workspace(alias).classify(alias / "src/auth/jwt.py").rel == "src/auth/jwt.py"


def test_spec_and_ignore_reload_when_files_change(workspace: Path) -> None:
    ws = Workspace(workspace)
    first = ws.scope()
    assert ws.scope() is first  # compiled once per spec version
    spec_path = ws.spec_path
    spec_path.write_text(spec_path.read_text().replace("src/auth/**", "src/authn/**"))
    assert ws.scope() is not first
    assert ws.scope().owners("src/auth/jwt.py") == ()
    (workspace / ".intentignore").write_text("src/\n")
    assert ws.classify(workspace / "src/api/routes.py").kind is PathKind.IGNORED


def test_a_spec_read_between_truncation_and_write_keeps_the_intents(workspace: Path) -> None:
    """Git and editors writing in place truncate the spec first: the file just emptied
    does not govern yet, so what the writer then writes does, never the gap."""
    ws = Workspace(workspace)
    text = ws.spec_path.read_text()
    assert len(ws.spec().intents) == 4
    with ws.spec_path.open("r+") as f:
        f.truncate(0)
        f.flush()
        held = ws.spec_result()
        assert ws.settling and held.problems == ()
        assert len(ws.spec().intents) == 4 and ws.settling  # however often it is read
        f.write(text.replace("src/auth/**", "src/authn/**"))
    assert len(ws.spec().intents) == 4 and not ws.settling
    assert ws.scope().owners("src/authn/jwt.py") != ()


def test_a_spec_left_empty_governs(workspace: Path) -> None:
    ws = Workspace(workspace)
    assert len(ws.spec().intents) == 4
    ws.spec_path.write_text("")
    assert len(ws.spec().intents) == 4 and ws.settling
    emptied = ws.spec_path.stat().st_mtime_ns - EMPTY_SETTLE_NS
    os.utime(ws.spec_path, ns=(emptied, emptied))  # as when it was emptied that long ago
    assert ws.spec().intents == () and not ws.settling
    assert [p.code for p in ws.spec_result().problems] == ["empty-spec"]


def test_live_buffer_overrides_disk(workspace: Path) -> None:
    ws = Workspace(workspace)
    ws.set_spec_text("active_intents: [\n")
    assert ws.spec_result().has_errors
    assert ws.spec().intents == ()
    ws.set_spec_text(None)
    assert len(ws.spec().intents) == 4


def test_find_workspace_root(workspace: Path) -> None:
    assert find_workspace_root(workspace / "src/auth") == workspace.resolve()
