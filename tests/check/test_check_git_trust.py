"""``intent-ls check`` reads a repository an agent may have written: its gits run no
program the repository configured, and a git directory pointed elsewhere is refused."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.check.conftest import GitRepo

APP = "def main():\n    return 1\n"


def _filter(config: Path, attributes: Path, marker: Path) -> None:
    script = marker.with_name("filter.sh")
    script.write_text(f"#!/bin/sh\necho ran >> {marker}\ncat\n")
    script.chmod(0o755)
    with config.open("a") as f:
        f.write(f'[filter "x"]\n\tclean = {script}\n\tprocess = {script}\n[diff "x"]\n')
        f.write(f"\ttextconv = {script}\n[diff]\n\texternal = {script}\n")
    attributes.parent.mkdir(exist_ok=True)
    attributes.write_text("* filter=x diff=x\n")


def test_check_runs_no_filter_the_repository_configured(repo: GitRepo, tmp_path: Path) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.save("src/app.py", APP + "X = 1\n")
    marker = tmp_path / "marker"
    _filter(repo.top / ".git" / "config", repo.top / ".git" / "info" / "attributes", marker)
    rc, out, err = repo.check()
    assert not marker.exists()
    assert (rc, out) == (0, ""), err
    repo.git("diff", "HEAD")  # the same repository, asked by a plain git
    assert marker.exists()


def test_check_refuses_a_git_dir_pointed_at_another_repository(
    repo: GitRepo, tmp_path: Path
) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.write("src/app.py", APP + "unrecorded = 1\n")
    copy = tmp_path / "copy.git"
    shutil.copytree(repo.top / ".git", copy)
    (repo.top / ".git" / "commondir").write_text(str(copy))
    rc, _, err = repo.check()
    assert rc != 0 and "points at another repository" in err
