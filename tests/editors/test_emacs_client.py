"""editors/emacs/intent-ls.el in a real Emacs (batch) with eglot, against the example
workspace; and plain eglot without it, configured as users of generic LSP clients do."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest
from editor_harness import EDITORS, HERE, editor_env, require_binary, run_editor


def _require(emacs: str, feature: str, install_hint: str) -> None:
    probe = subprocess.run(
        [emacs, "--batch", "--eval", f"(require '{feature})"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    if probe.returncode != 0:
        pytest.skip(f"{feature} is not available to Emacs ({install_hint}): {probe.stderr[-300:]}")


def _assert_reloaded_without_error(reloads: list[dict]) -> None:
    """Each "Reload from disk" of a buffer edited here and rewritten on disk by another
    process: no question (picking it is the answer), the disk text, unmodified, no error
    signalled or shown, no stale-file left."""
    assert reloads, reloads
    for reload in reloads:
        assert reload["error"] is None, reload
        assert reload["questions"] == [], reload
        assert reload["reloaded"] is True, reload
        assert reload["modified"] is False, reload
        assert "stale-file" not in reload["diagnostics"], reload
        assert "require version" not in reload["messages"], reload
        assert "rror" not in reload["messages"], reload


def test_emacs_eglot_flow(workspace: Path, tmp_path: Path) -> None:
    emacs = require_binary("emacs", "apt-get install -y emacs-nox elpa-eglot")
    _require(emacs, "eglot", "apt-get install -y elpa-eglot")
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
    assert r["spec_mode"] == "intent-ls-plain-mode"  # no yaml-mode in a bare Emacs 28
    assert r["spec_scope"] == ["      - src/api/routes.py"]
    assert "[no intent " in r["mode_line_cleared"]
    assert r["destructive"].endswith("deletes method `JwtCodec.verify_token` (lines 23–31)")
    assert r["record"] == {"path": "src/auth/jwt.py", "intent": "INT-001"}
    assert "intent-ls history" in r["hover"] and "INT-001" in r["hover"]
    assert len(r["reloads"]) == 2, r["reloads"]
    _assert_reloaded_without_error(r["reloads"])
    assert r["ts_mode"] == "intent-ls-plain-mode"
    assert r["outside_managed"] is False
    assert r["complete"] is True, (r.get("complete_reason"), r.get("complete_asked"))
    assert "Acceptance criteria: GET /orders returns next_cursor." in r["complete_asked"]
    assert r["spec_after_complete"][0] == "    status: COMPLETED"
    assert r["spec_after_complete"][1].startswith('    updated_at: "')
    # One server for the governed tree, and one didOpen per visited file (jwt.py three
    # times: each "Reload from disk" reverts the buffer, which re-opens it).
    assert r["servers"] == 1
    opened = Counter(uri.rsplit("/ws/", 1)[1] for uri in r["did_open"])
    assert opened == {
        "src/auth/jwt.py": 3,
        "src/api/routes.py": 1,
        ".orchestration/active_intents.yaml": 1,
        "web/src/orders.ts": 1,
    }, r["did_open"]
    print(f"emacs flow: {run.seconds:.2f} s; steps {r['steps']}")


def test_plain_eglot_reloads_from_disk(workspace: Path, tmp_path: Path) -> None:
    """eglot with only ``eglot-server-programs`` naming the server (no client file, no
    experimental capability): "Reload from disk" leaves the buffer equal to the disk, no
    error, whether the user lets Emacs discard the edits (a revert, which re-opens the
    document at version 0) or keeps them (the edit replaces them)."""
    emacs = require_binary("emacs", "apt-get install -y emacs-nox elpa-eglot")
    _require(emacs, "eglot", "apt-get install -y elpa-eglot")
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)  # the project root
    run = run_editor(
        [emacs, "--batch", "-l", str(HERE / "eglot_plain_flow.el")],
        {**editor_env(tmp_path), "INTENT_LS_WS": str(workspace)},
        tmp_path / "eglot-plain-result.json",
        timeout=90,
        cwd=tmp_path,
    )
    r = run.result
    assert not r["capabilities_experimental"], r["capabilities_experimental"]  # eglot: {}
    reloads = r["reloads"]
    assert [x["discard"] for x in reloads] == [True, False, True]
    for reload in reloads:
        assert reload["error"] is None, reload
        assert reload["reloaded"] is True, reload
        assert reload["modified"] is not reload["discard"], reload
        assert "stale-file" not in reload["diagnostics"], reload
        assert "require version" not in reload["messages"], reload
        assert "rror" not in reload["messages"], reload
        # Emacs's own question, before the edit; nothing else when edits are discarded.
        assert any("Discard your edits?" in q for q in reload["questions"]), reload
    print(f"plain eglot flow: {run.seconds:.2f} s")


def test_emacs_lsp_mode_beside_pylsp(workspace: Path, tmp_path: Path) -> None:
    emacs = require_binary("emacs", "apt-get install -y emacs-nox elpa-lsp-mode")
    require_binary("pylsp", "apt-get install -y python3-pylsp")
    _require(emacs, "lsp-mode", "apt-get install -y elpa-lsp-mode")
    run = run_editor(
        [emacs, "--batch", "-l", str(HERE / "emacs_lsp_flow.el")],
        {
            **editor_env(tmp_path),
            "INTENT_LS_PLUGIN": str(EDITORS / "emacs" / "intent-ls-lsp.el"),
            "INTENT_LS_WS": str(workspace),
        },
        tmp_path / "emacs-lsp-result.json",
        timeout=120,
        cwd=tmp_path,
    )
    r = run.result
    assert r["mode"] == "python-mode"
    # intent-ls runs beside the buffer's own server, not instead of it.
    assert dict(r["servers"]) == {"pylsp": "initialized", "intent-ls": "initialized"}
    assert any(t.startswith("Select intent INT-001") for t in r["actions"]), r["actions"]
    assert "[INT-001 " in r["mode_line_selected"]
    assert r["record"] == {"path": "src/auth/jwt.py", "intent": "INT-001"}
    assert dict(r["servers_after"]) == dict(r["servers"])
    _assert_reloaded_without_error([r["reload"]])
    assert r["warnings"] == [], r["warnings"]  # e.g. lsp-mode's "Unknown notification"
    print(f"emacs lsp-mode flow: {run.seconds:.2f} s; steps {r['steps']}")
