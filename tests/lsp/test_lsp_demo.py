"""``intent-ls demo`` runs the real server end to end and narrates what an editor shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[2] / "examples" / "workspace"


def test_demo_plays_the_scripted_session() -> None:
    before = sorted(p.relative_to(EXAMPLE) for p in EXAMPLE.rglob("*"))
    proc = subprocess.run(
        [sys.executable, "-m", "intent_ls", "demo"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "src/auth/jwt.py:6: error [no-active-intent]" in out
    assert "★ Select intent INT-001: JWT authentication migration" in out
    assert "status bar: intent-ls: INT-001 JWT authentication migration" in out
    assert "file src/auth/jwt.py, intent INT-001, contributor unknown, INTENT_EVOLUTION" in out
    assert "lines 6–6  sha256:" in out
    assert "| INT-001 JWT authentication migration | unknown | INTENT_EVOLUTION |" in out
    assert "src/api/routes.py:12: error [out-of-scope]" in out
    assert "Add src/api/routes.py to INT-001's scope" in out
    assert "Problems: none in src/api/routes.py" in out
    assert "Traceback" not in proc.stderr
    # The demo works on a copy: the example keeps no selection state or edits.
    assert sorted(p.relative_to(EXAMPLE) for p in EXAMPLE.rglob("*")) == before


@pytest.mark.parametrize(
    ("where", "message"),
    [
        (("demo", "--workspace", "."), "unrecognized arguments: --workspace ."),
        (("-w", ".", "demo"), "demo always plays on a copy of the bundled example"),
    ],
)
def test_demo_refuses_a_workspace(tmp_path: Path, where: tuple[str, ...], message: str) -> None:
    """The script edits the example's own files; `demo --workspace .` used to crash with
    FileExistsError. Either placement of the flag is refused with a reason."""
    proc = subprocess.run(
        [sys.executable, "-m", "intent_ls", *where],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
