"""editors/nvim/lua/intent-ls.lua in a real headless Neovim (0.7+), on the example workspace."""

from __future__ import annotations

from pathlib import Path

from editor_harness import EDITORS, HERE, editor_env, require_binary, run_editor


def test_neovim_flow(workspace: Path, tmp_path: Path) -> None:
    nvim = require_binary("nvim", "apt-get install -y neovim")
    run = run_editor(
        [
            nvim,
            "--headless",
            "-u",
            "NONE",
            "-i",
            "NONE",
            "-n",
            "-c",
            f"luafile {HERE / 'nvim_flow.lua'}",
        ],
        {
            **editor_env(tmp_path),
            "INTENT_LS_PLUGIN": str(EDITORS / "nvim" / "lua" / "intent-ls.lua"),
            "INTENT_LS_WS": str(workspace),
        },
        tmp_path / "nvim-result.json",
        timeout=90,
        cwd=tmp_path,
    )
    r = run.result
    assert r["filetype"] == "python"
    assert r["no_active"]["line"] == 2
    assert any(t.startswith("Select intent INT-001") for t in r["jwt_actions"]), r["jwt_actions"]
    assert any(t.startswith("Select intent INT-001") for t in r["ui_offered"]), r["ui_offered"]
    assert r["status_selected"].startswith("INT-001")
    assert r["out_of_scope"]["line"] == 0
    assert "Approve out-of-scope edit" in r["go_actions"], r["go_actions"]
    assert r["spec_scope"] == ["      - services/billing/main.go"]
    assert r["status_cleared"].startswith("no intent")
    assert r["destructive"] == "deletes method `JwtCodec.verify_token` (lines 23–31)"
    assert r["restored"] == "        try:"  # the line after the restored `def verify_token`
    assert r["record"] == {
        "path": "src/auth/jwt.py",
        "intent": "INT-001",
        "mutation_class": r["record"]["mutation_class"],
    }
    assert "INT-001" in r["hover"] and "intent-ls history" in r["hover"]
    assert r["reload_versioned"] is True
    assert r["stale_edit_refused"] is True
    assert (r["notes_filetype"], r["notes_attached"]) == ("", True)
    assert r["outside_clients"] == 0
    assert r["clients"] == 1
    print(f"neovim flow: {run.seconds:.2f} s; steps {r['steps']}")
