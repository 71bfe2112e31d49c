"""Route 4 of issue 28, recorded: ``hooks install`` keeps what it installed outside the
workspace, and each session start and ``doctor`` say when that installation changed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from intent_ls.agents import install_record
from tests.agents.conftest import Hook


def _install(root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "hooks", "install", "claude-code",
         "--workspace", str(root)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_a_pth_file_in_a_site_folder_changes_the_digest(tmp_path: Path) -> None:
    package, site = tmp_path / "pkg", tmp_path / "site"
    package.mkdir()
    site.mkdir()
    (package / "a.py").write_text("x = 1\n")
    before = install_record.digest(package, [site])
    (site / "evil.pth").write_text("import os; os.system('true')\n")
    assert install_record.digest(package, [site]) != before
    (site / "evil.pth").unlink()
    assert install_record.digest(package, [site]) == before
    (site / "sitecustomize.py").write_text("")
    assert install_record.digest(package, [site]) != before


def test_session_start_and_doctor_say_when_the_installation_changed(
    governed: Path, effects_store: Path
) -> None:
    _install(governed)
    record = effects_store / "intent-ls" / "installs.json"
    kept = json.loads(record.read_text())
    assert install_record.current()["package"] in kept
    context = json.dumps(Hook(governed)("SessionStart"))
    assert "installation these hooks run changed" not in context
    for entry in kept.values():
        entry["digest"] = "0" * 64  # as if a .pth file had appeared since
    record.write_text(json.dumps(kept))
    context = json.dumps(Hook(governed, session="s2")("SessionStart"))
    assert "installation these hooks run changed" in context and "pth" in context
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "doctor", "--workspace", str(governed)],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert "changed since `hooks install` recorded it" in done.stdout, done.stdout
