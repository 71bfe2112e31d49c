"""Nothing waits for the trace index: a fresh clone of a ledger big enough to be indexed
in a child process, whose build the test holds open (``INTENT_LS_INDEX_BUILD_GATE``)
and ends when it chooses, so every request below is known to arrive during the build."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsp_harness import Editor, fresh_workspace, start_editor, stop_editor
from lsprotocol import types
from test_lsp_blame import hover, lenses, line_of

from intent_ls.ledger.background import GATE_ENV
from intent_ls.ledger.index import CACHE_RELPATH
from intent_ls.ledger.records import build_mutation_record
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.policy.approvals import Contributor
from intent_ls.server.trace import BACKLOG_LIMIT

JWT = "src/auth/jwt.py"
#: Records of another file and intent, as many as make the ledger worth a child process.
FILLER = (
    '{{"files":[{{"conversations":[{{"contributor":{{"type":"human"}},"ranges":[{{'
    '"content_hash":"sha256:{h}","end_line":3,"start_line":1}}]}}],"path":"src/api/orders.py"}}],'
    '"id":"{id}","metadata":{{"intent_ls":{{"approvals":[],"ast_nodes":[],"deleted_lines":0,'
    '"digest":"sha256:{h}","intent_id":"INT-002","kind":"mutation","mutation_class":"AST_REFACTOR",'
    '"pad":"{pad}","prev":"sha256:{h}","session_id":null,"verdicts":[]}}}},'
    '"timestamp":"2026-01-01T00:00:00Z","tool":{{"name":"intent-ls","version":"0.1.0"}},'
    '"version":"0.1.0"}}\n'
)


def cold_clone(tmp_path: Path) -> Path:
    """The example workspace with a ledger of filler records and, last, one real record
    of INT-001 changing ``verify_token`` in jwt.py (on disk as recorded), and no index."""
    root = fresh_workspace(tmp_path)
    path = ledger_path(root)
    pad = "x" * 900
    with path.open("w", encoding="utf-8") as f:
        n = 0
        while f.tell() <= 2 * BACKLOG_LIMIT:
            f.write(FILLER.format(h=f"{n:064x}", id=uuid.UUID(int=n), pad=pad))
            n += 1
    old = (root / JWT).read_text()
    lines = old.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("    def verify_token"))
    lines.insert(at + 1, "        token = token.strip()\n")
    new = "".join(lines)
    record = build_mutation_record(
        root,
        JWT,
        old,
        new,
        intent_id="INT-001",
        session_id="s",
        contributor=Contributor("ai", "anthropic/claude-test"),
        revision=None,
    )
    assert record is not None
    Ledger(path, fsync=False).append(record)
    (root / JWT).write_text(new)
    assert not (root / CACHE_RELPATH).exists()
    return root


@pytest_asyncio.fixture
async def building(client_name: str, tmp_path: Path) -> AsyncIterator[tuple[Editor, Path]]:
    """An editor on a cold clone whose index build is held open until ``gate`` exists."""
    root = cold_clone(tmp_path)
    gate = tmp_path / "gate"
    editor = await start_editor(client_name, [root], env={**os.environ, GATE_ENV: str(gate)})
    await editor.wait_for(lambda: reports(editor), "a progress report of the build")
    yield editor, gate
    gate.touch()
    await stop_editor(editor)


def index_progress(editor: Editor) -> list[Any]:
    found = [
        v for t, v in editor.client.progress_reports.items() if str(t).startswith("intent-ls-index")
    ]
    return found[0] if found else []


def reports(editor: Editor) -> list[types.WorkDoneProgressReport]:
    return [v for v in index_progress(editor) if isinstance(v, types.WorkDoneProgressReport)]


def ended(editor: Editor) -> bool:
    return any(isinstance(v, types.WorkDoneProgressEnd) for v in index_progress(editor))


async def finish(editor: Editor, gate: Path) -> None:
    gate.touch()
    await editor.wait_for(lambda: ended(editor), "the end of the index build")


async def test_the_build_reports_a_percentage_and_ends_once(
    building: tuple[Editor, Path],
) -> None:
    editor, gate = building
    first = reports(editor)[0]
    assert first.percentage is not None and 0 <= first.percentage < 100
    assert not ended(editor)
    await finish(editor, gate)
    values = index_progress(editor)
    assert isinstance(values[0], types.WorkDoneProgressBegin)
    assert isinstance(values[-1], types.WorkDoneProgressEnd)
    assert values[-1].message == "trace index ready"
    assert (editor.root / CACHE_RELPATH).is_file()


async def test_select_answers_during_the_build_with_the_exact_recent_history(
    building: tuple[Editor, Path],
) -> None:
    editor, gate = building
    during = await editor.execute("intent.select", "INT-001")
    assert not ended(editor)
    assert 'file="src/auth/jwt.py"' in during["context"]
    assert "note=" not in during["context"]  # the tail held the whole answer
    await finish(editor, gate)
    after = await editor.execute("intent.select", "INT-001")
    assert after["context"] == during["context"]


async def test_hover_during_the_build_is_marked_then_complete(
    building: tuple[Editor, Path],
) -> None:
    editor, gate = building
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    verify = line_of(editor, uri, "    def verify_token")
    during = await hover(editor, uri, verify + 1)
    assert not ended(editor)
    assert during is not None and "history is being indexed: " in during
    assert "INT-001 JWT authentication migration" in during  # the tail's record
    await finish(editor, gate)
    after = await hover(editor, uri, verify + 1)
    assert after is not None and "being indexed" not in after
    assert "INT-001 JWT authentication migration" in after


async def test_code_lenses_are_marked_during_the_build_and_refreshed_after(
    building: tuple[Editor, Path],
) -> None:
    editor, gate = building
    uri = editor.open(JWT)
    verify = line_of(editor, uri, "    def verify_token")
    during = await lenses(editor, uri)
    assert not ended(editor)
    assert during[verify].startswith("history is being indexed: ")
    refreshes = editor.lens_refreshes
    await finish(editor, gate)
    if editor.name == "visual-studio-code":  # advertises workspace/codeLens/refresh
        await editor.wait_for(lambda: editor.lens_refreshes > refreshes, "a code lens refresh")
    after = await lenses(editor, uri)
    assert after[verify] == "INT-001 · 1 change"


async def test_analyses_that_need_no_history_do_not_wait(building: tuple[Editor, Path]) -> None:
    editor, _ = building
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    start = line_of(editor, uri, "    def verify_token")
    end = line_of(editor, uri, "    def _mac")
    editor.replace(uri, (start, 0), (end, 0), "")
    diags = await editor.wait_diagnostics(
        JWT, lambda d: any(x.code == "destructive-edit" for x in d), "destructive-edit"
    )
    assert not ended(editor)
    assert any("verify_token" in d.message for d in diags if d.code == "destructive-edit")


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_a_hook_during_the_build_answers_without_the_index(
    building: tuple[Editor, Path],
) -> None:
    """A destructive edit makes the hook look up the file's approvals: it reads them
    from the ledger and neither builds nor waits for the index the server is building."""
    editor, _ = building
    root = editor.root

    def hook(event: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        payload = {
            "session_id": "agent",
            "cwd": str(root),
            "hook_event_name": event,
            "tool_name": tool,
            "tool_input": args,
        }
        done = subprocess.run(
            [sys.executable, "-m", "intent_ls", "hook", "claude-code"],
            input=json.dumps(payload).encode(),
            capture_output=True,
            timeout=60,
            check=True,
        )
        out: dict[str, Any] = json.loads(done.stdout)
        return out

    hook("PreToolUse", "mcp__intent-ls__select_active_intent", {"intent_id": "INT-001"})
    path = str(root / JWT)
    hook("PostToolUse", "Read", {"file_path": path})
    text = (root / JWT).read_text()
    start = text.index("    def verify_token")
    gone = text[start : text.index("    def _mac")]
    out = hook("PreToolUse", "Edit", {"file_path": path, "old_string": gone, "new_string": ""})
    decision = out["hookSpecificOutput"]
    assert decision["permissionDecision"] == "ask"
    assert "destructive-edit" in decision["permissionDecisionReason"]
    assert not ended(editor)
    assert not (root / CACHE_RELPATH).exists()
