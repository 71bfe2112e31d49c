"""Route 1 of issue 28: the hook's own gits run nothing the repository configured and read
only the repository's own git directory. Each attack is first shown to work on a plain
``git status``, then replayed through hook cycles: its marker must never appear, and the
hook must still put back an out-of-scope write."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from intent_ls.common.safe_git import real_git_dir
from tests.agents.conftest import APP
from tests.agents.effects_helpers import Agent, git_workspace
from tests.support import git

PY = f"{sys.executable} -c"
GUIDE = "# Guide\n"


@pytest.fixture
def ws(governed: Path) -> Path:
    return git_workspace(governed)


def _script(path: Path, marker: Path, body: str = "cat") -> str:
    """An executable that leaves ``marker`` behind, then does ``body``."""
    path.write_text(f"#!/bin/sh\necho ran >> {marker}\n{body}\n")
    path.chmod(0o755)
    return str(path)


def _append(path: Path, text: str) -> None:
    with path.open("a") as f:
        f.write(text)


def filter_in_config(ws: Path, tmp: Path, marker: Path) -> None:
    _append(ws / ".git" / "config", f'[filter "x"]\n\tclean = {_script(tmp / "f", marker)}\n')
    (ws / ".git" / "info").mkdir(exist_ok=True)
    (ws / ".git" / "info" / "attributes").write_text("* filter=x\n")


def process_filter(ws: Path, tmp: Path, marker: Path) -> None:
    _append(ws / ".git" / "config", f'[filter "p"]\n\tprocess = {_script(tmp / "p", marker)}\n')
    _append(ws / ".gitattributes", "* filter=p\n")


def filter_through_include(ws: Path, tmp: Path, marker: Path) -> None:
    (ws / "src" / "inc.cfg").write_text(f'[filter "i"]\n\tclean = {_script(tmp / "i", marker)}\n')
    _append(ws / ".git" / "config", "[include]\n\tpath = ../src/inc.cfg\n")
    (ws / ".git" / "info" / "attributes").write_text("* filter=i\n")


def filter_through_include_if(ws: Path, tmp: Path, marker: Path) -> None:
    (ws / "src" / "inc.cfg").write_text(
        f'[filter "Odd=Name"]\n\tclean = {_script(tmp / "j", marker)}\n\trequired = true\n'
    )
    _append(ws / ".git" / "config", '[includeIf "onbranch:main"]\n\tpath = ../src/inc.cfg\n')
    (ws / ".git" / "info" / "attributes").write_text("* filter=Odd=Name\n")


def fsmonitor(ws: Path, tmp: Path, marker: Path) -> None:
    _append(ws / ".git" / "config", f"[core]\n\tfsmonitor = {_script(tmp / 'm', marker)}\n")


def hooks_path(ws: Path, tmp: Path, marker: Path) -> None:
    hooks = ws / "src" / "hooks"
    hooks.mkdir()
    for name in ("post-index-change", "pre-commit", "reference-transaction"):
        _script(hooks / name, marker, "exit 0")
        shutil.copy(hooks / name, ws / ".git" / "hooks" / name)
    _append(ws / ".git" / "config", "[core]\n\thooksPath = src/hooks\n")


def textconv_and_external_diff(ws: Path, tmp: Path, marker: Path) -> None:
    _append(
        ws / ".git" / "config",
        f'[diff "t"]\n\ttextconv = {_script(tmp / "t", marker)}\n'
        f"[diff]\n\texternal = {_script(tmp / 'e', marker)}\n",
    )
    (ws / ".git" / "info" / "attributes").write_text("* diff=t\n")


def commondir_to_a_copy(ws: Path, tmp: Path, marker: Path) -> None:
    """Route 1 as found: a copy of ``.git`` with the filter, and ``commondir`` to it."""
    copy = tmp / "copy.git"
    shutil.copytree(ws / ".git", copy)
    _append(copy / "config", f'[filter "x"]\n\tclean = {_script(tmp / "f", marker)}\n')
    (copy / "info").mkdir(exist_ok=True)
    (copy / "info" / "attributes").write_text("* filter=x\n")
    (ws / ".git" / "commondir").write_text(f"{copy}\n")


ATTACKS: list[Callable[[Path, Path, Path], None]] = [
    filter_in_config,
    process_filter,
    filter_through_include,
    filter_through_include_if,
    fsmonitor,
    hooks_path,
    textconv_and_external_diff,
]


def _stale_stat(ws: Path) -> None:
    """Tracked files whose stat data no longer matches the index, as after an editor's
    save: git must read (and clean) their content to tell whether they changed."""
    for rel in ("src/app.py", "docs/guide.md", ".gitattributes"):
        path = ws / rel
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 7_000_000_000))


def _plain_git_runs_it(ws: Path) -> None:
    """What the attack does to an unguarded git: the commands the hook runs, plain."""
    _stale_stat(ws)
    subprocess.run(["git", "status", "--porcelain=v2"], cwd=ws, capture_output=True, timeout=60)
    _append(ws / "src" / "app.py", "# changed\n")
    for args in (["diff", "HEAD"], ["commit", "-qam", "x"]):
        subprocess.run(["git", *args], cwd=ws, capture_output=True, check=False, timeout=60)


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.__name__)
def test_the_hooks_git_runs_nothing_the_repository_configured(
    ws: Path, tmp_path: Path, attack: Callable[[Path, Path, Path], None]
) -> None:
    marker = tmp_path / "marker"
    (tmp_path / "attack").mkdir()
    git(ws, "commit", "-qm", "ignore rules", "--allow-empty")
    attack(ws, tmp_path / "attack", marker)
    scratch = tmp_path / "scratch"
    shutil.copytree(ws, scratch, symlinks=True)
    _plain_git_runs_it(scratch)
    assert marker.exists(), "the attack must work on an unguarded git"
    marker.unlink()

    agent = Agent(ws, barrier=False)
    agent.select("INT-APP")
    for _ in range(2):
        _stale_stat(ws)
        agent.shell(f"{PY} \"open('src/app.py','a').write('# in scope\\n')\"")
    _stale_stat(ws)
    _, told = agent.shell(f"{PY} \"open('docs/guide.md','w').write('x')\"")

    assert not marker.exists(), marker.read_text()
    assert (ws / "docs" / "guide.md").read_text() == GUIDE, told
    assert "docs/guide.md" in told
    assert (ws / "src" / "app.py").read_text() == APP + "# in scope\n" * 2


def test_git_variables_in_the_agents_environment_are_not_the_hooks(
    ws: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    script = _script(tmp_path / "f", marker)
    (ws / ".git" / "info").mkdir(exist_ok=True)
    (ws / ".git" / "info" / "attributes").write_text("* filter=x\n")
    agent = Agent(ws, barrier=False)
    agent.env.update(
        GIT_CONFIG_COUNT="1",
        GIT_CONFIG_KEY_0="filter.x.clean",
        GIT_CONFIG_VALUE_0=script,
        GIT_EXTERNAL_DIFF=script,
        GIT_DIR=str(tmp_path / "elsewhere"),
    )
    agent.select("INT-APP")
    _stale_stat(ws)
    _, told = agent.shell(f"{PY} \"open('docs/guide.md','w').write('x')\"")
    assert not marker.exists()
    assert (ws / "docs" / "guide.md").read_text() == GUIDE and "docs/guide.md" in told


def test_a_commondir_written_during_a_call_is_put_back_and_never_followed(
    ws: Path, tmp_path: Path
) -> None:
    """Route 1 as found: the agent's in-scope script copies ``.git``, gives the copy a
    filter, and points ``.git/commondir`` at it."""
    marker = tmp_path / "marker"
    (tmp_path / "attack").mkdir()
    git(ws, "commit", "-qm", "ignore rules", "--allow-empty")
    scratch = tmp_path / "scratch"
    shutil.copytree(ws, scratch)
    commondir_to_a_copy(scratch, tmp_path / "attack", marker)
    _plain_git_runs_it(scratch)
    assert marker.exists(), "the attack must work on an unguarded git"
    marker.unlink()
    shutil.rmtree(tmp_path / "attack")
    (tmp_path / "attack").mkdir()
    plant = tmp_path / "plant.py"
    copy, script = tmp_path / "attack" / "copy.git", _script(tmp_path / "f", marker)
    plant.write_text(
        "import shutil\n"
        f"shutil.copytree('.git', {str(copy)!r})\n"
        f"open({str(copy / 'config')!r}, 'a').write('[filter \"x\"]\\n\\tclean = {script}\\n')\n"
        f"open({str(copy / 'info' / 'attributes')!r}, 'w').write('* filter=x\\n')\n"
        f"open('.git/commondir', 'w').write({str(copy)!r})\n"
    )
    agent = Agent(ws, barrier=False)
    agent.select("INT-APP")
    _stale_stat(ws)
    _, told = agent.shell(f"{sys.executable} {plant}")
    assert ".git/commondir" in told
    assert not (ws / ".git" / "commondir").exists()
    for _ in range(2):
        _stale_stat(ws)
        _, told = agent.shell(f"{PY} \"open('docs/guide.md','w').write('x')\"")
        assert (ws / "docs" / "guide.md").read_text() == GUIDE and "docs/guide.md" in told
    assert not marker.exists(), marker.read_text()


def test_a_git_dir_redirected_elsewhere_is_refused(ws: Path, tmp_path: Path) -> None:
    dot = ws / ".git"
    assert real_git_dir(ws) == (dot, dot)
    (dot / "commondir").write_text(str(tmp_path))
    assert real_git_dir(ws) is None
    (dot / "commondir").unlink()
    moved = tmp_path / "real.git"
    dot.rename(moved)
    dot.symlink_to(moved)
    assert real_git_dir(ws) is None
    dot.unlink()
    inside = ws / "src" / "admin"
    moved.rename(inside)
    dot.write_text(f"gitdir: {inside}\n")
    assert real_git_dir(ws) is None  # an admin directory the agent can write


def test_a_linked_worktree_is_its_own_repository_and_a_forged_one_is_not(
    ws: Path, tmp_path: Path
) -> None:
    linked = tmp_path / "linked"
    git(ws, "worktree", "add", "-q", str(linked))
    common = Path(os.path.realpath(ws / ".git"))
    admin = common / "worktrees" / "linked"
    assert real_git_dir(linked) == (admin, common)
    (admin / "commondir").write_text(str(tmp_path / "copy.git"))
    assert real_git_dir(linked) is None
    (admin / "commondir").write_text("../..\n")
    assert real_git_dir(linked) == (admin, common)
    (admin / "gitdir").write_text(str(tmp_path / "other" / ".git"))
    assert real_git_dir(linked) is None


def test_a_linked_worktree_is_still_verified(ws: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git(ws, "worktree", "add", "-q", str(linked))
    agent = Agent(linked, barrier=False)
    agent.select("INT-APP")
    _, told = agent.shell(f"{PY} \"open('docs/guide.md','w').write('x')\"")
    assert (linked / "docs" / "guide.md").read_text() == GUIDE and "docs/guide.md" in told
