"""Settings: the contributor's model under both spellings, and a bad key that costs only
itself (a warning naming it and the nearest valid key, once; every valid key kept)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsp_harness import FAST, start_editor, stop_editor

from intent_ls.server.config import Config, Contributor, SeverityOption, parse_config

LEDGER = ".orchestration/agent_trace.jsonl"


@pytest.mark.parametrize("key", ["model_id", "modelId"])
def test_the_model_is_accepted_under_both_spellings(key: str) -> None:
    config, problem = parse_config({"contributor": {"type": "ai", key: "anthropic/claude"}})
    assert problem is None
    assert config.contributor == Contributor(type="ai", model_id="anthropic/claude")


def test_a_bad_key_costs_only_itself() -> None:
    config, problem = parse_config(
        {
            "extraIgnore": ["vendor/"],
            "pollInterval": 0.25,
            "severity": {"out-of-scope": "loud", "empty-scope": "off"},
            "contributor": {"type": "robot", "model_id": "anthropic/claude"},
            "ledger": {"fsync": False, "mapDelai": 2},
            "analysisDelay": -1,
        }
    )
    assert config.poll_interval == 0.25
    assert config.severity == {"empty-scope": SeverityOption.OFF}
    assert config.contributor == Contributor(type="unknown", model_id="anthropic/claude")
    assert config.ledger.fsync is False and config.ledger.map_delay == 1.0
    assert config.analysis_delay == Config().analysis_delay
    assert config.extra_ignores == ()
    assert problem is not None
    assert "unknown setting intentLs.extraIgnore (did you mean intentLs.extraIgnores?)" in problem
    assert "unknown setting intentLs.ledger.mapDelai (did you mean intentLs.ledger.mapDelay?)" in (
        problem
    )
    assert "intentLs.severity.out-of-scope" in problem
    assert "intentLs.contributor.type" in problem
    assert "analysisDelay must be >= 0" in problem


def test_an_unknown_key_far_from_any_gets_no_guess() -> None:
    _, problem = parse_config({"zzzzzz": 1})
    assert problem is not None and "unknown setting intentLs.zzzzzz;" in problem


async def test_the_readme_contributor_is_recorded_and_a_typo_warned_once(
    client_name: str, workspace: Path
) -> None:
    settings = {
        **FAST,
        "contributor": {"type": "ai", "model_id": "anthropic/claude-sonnet-4"},
        "extraIgnore": ["vendor/"],
    }
    editor = await start_editor(
        client_name, [workspace], options={"intentLs": settings}, configuration=settings
    )
    try:
        await editor.execute("intent.select", "INT-001")
        uri = editor.open("src/auth/jwt.py")
        editor.insert(uri, 0, 0, "# typed\n")
        await editor.save(uri)
        await editor.wait_recorded(0)
        [line] = (workspace / LEDGER).read_text(encoding="utf-8").splitlines()
        conv = json.loads(line)["files"][0]["conversations"][0]
        assert conv["contributor"] == {"type": "ai", "model_id": "anthropic/claude-sonnet-4"}
        warnings = [m for m in editor.client.messages if "extraIgnore" in m.message]
        assert len(warnings) == 1
        assert warnings[0].type == 2
        assert "did you mean intentLs.extraIgnores?" in warnings[0].message
    finally:
        await stop_editor(editor)
