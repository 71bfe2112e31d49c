"""editors/emacs/intent-ls.el in a real Emacs (batch) with eglot, against the example workspace."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from editor_harness import EDITORS, HERE, editor_env, require_binary, run_editor


def _require_eglot(emacs: str) -> None:
    probe = subprocess.run(
        [emacs, "--batch", "--eval", "(require 'eglot)"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    if probe.returncode != 0:
        pytest.skip(
            "eglot is not available to Emacs (apt-get install -y elpa-eglot): "
            + probe.stderr[-300:]
        )


def test_emacs_eglot_flow(workspace: Path, tmp_path: Path) -> None:
    emacs = require_binary("emacs", "apt-get install -y emacs-nox elpa-eglot")
    _require_eglot(emacs)
    run = run_editor(
        [emacs, "--batch", "-l", str(HERE / "emacs_flow.el")],
        {
            **editor_env(tmp_path),
            "INTENT_LS_PLUGIN": str(EDITORS / "emacs" / "intent-ls.el"),
            "INTENT_LS_WS": str(workspace),
        },
        tmp_path / "emacs-result.json",
        timeout=90,
        cwd=tmp_path,
    )
    r = run.result
    assert r["jwt_mode"] == "python-mode"
    assert r["no_active"]["line"] == 3
    assert r["no_active"]["text"].startswith("intent-ls [no-active-intent]: ")
    assert any(t.startswith("Select intent INT-001") for t in r["jwt_actions"]), r["jwt_actions"]
    assert "[INT-001 " in r["mode_line_selected"]
    assert r["out_of_scope"]["line"] == 1
    assert "Switch to intent INT-002: Order API pagination" in r["routes_actions"]
    assert r["list"] == ["INT-001", "INT-002", "INT-003", "INT-004"]
    assert "[no intent " in r["mode_line_cleared"]
    # One server for the governed tree, and exactly one didOpen per visited file.
    assert r["servers"] == 1
    assert len(r["did_open"]) == len(set(r["did_open"])) == 2, r["did_open"]
    print(f"emacs flow: {run.seconds:.2f} s; steps {r['steps']}")
