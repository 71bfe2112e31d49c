"""The newest value a session log names, read from its tail only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from intent_ls.agents.jsonl_tail import TAIL_BYTES, newest


def _model(entry: Any) -> str | None:
    return entry.get("model") if isinstance(entry, dict) else None


def test_the_newest_line_that_names_one_wins_and_bad_lines_are_passed_over(
    tmp_path: Path,
) -> None:
    log = tmp_path / "events.jsonl"
    lines = [
        json.dumps({"model": "old"}),
        json.dumps({"model": "new"}),
        '{"model": broken',
        json.dumps({"model": ""}),
        json.dumps({"other": 1}),
    ]
    log.write_text("\n".join(lines) + "\n")
    assert newest(str(log), b'"model"', _model) == "new"
    assert newest(str(tmp_path / "absent.jsonl"), b'"model"', _model) is None


def test_only_the_tail_is_read(tmp_path: Path) -> None:
    log = tmp_path / "long.jsonl"
    filler = json.dumps({"text": "x" * 1000}) + "\n"
    log.write_text(json.dumps({"model": "far back"}) + "\n" + filler * (TAIL_BYTES // 1000 + 5))
    assert newest(str(log), b'"model"', _model) is None
