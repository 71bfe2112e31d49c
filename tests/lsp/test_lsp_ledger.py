"""Saves become Agent Trace records: one per language, approvals, the append-only ledger,
the intent map, and the index build's progress."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lsp_harness import LEDGER, Editor, meta, records, start_editor, stop_editor
from lsprotocol import types

from intent_ls.common.hashing import content_hash, text_hash
from intent_ls.ledger.store import GENESIS
from intent_ls.ledger.verify import verify_ledger
from intent_ls.syntax.document import DocumentSyntax

MAP = ".orchestration/intent_map.md"
SCHEMA = Path(__file__).resolve().parents[3] / "shared" / "agent-trace" / "trace-record.schema.json"

#: language → (file under src/auth/, text, 0-based line edited, expected node names)
FIXTURES: dict[str, tuple[str, str, int, list[str]]] = {
    "python": (
        "greet.py",
        'class Greeter:\n    def greet(self, name):\n        return "😀 hi " + name\n',
        2,
        ["Greeter", "Greeter.greet"],
    ),
    "javascript": (
        "greet.js",
        'class Greeter {\n  greet(name) {\n    return "😀 hi " + name;\n  }\n}\n',
        2,
        ["Greeter", "Greeter.greet"],
    ),
    "typescript": (
        "greet.ts",
        'export class Greeter {\n  greet(name: string): string {\n    return "😀 hi " + name;\n'
        "  }\n}\n",
        2,
        ["Greeter", "Greeter.greet"],
    ),
    "tsx": (
        "hello.tsx",
        "export function Hello(props: { name: string }) {\n"
        "  return <div>😀 hi {props.name}</div>;\n}\n",
        1,
        ["Hello"],
    ),
    "go": (
        "greet.go",
        "package greet\n\ntype Greeter struct{}\n\n"
        'func (g Greeter) Greet(name string) string {\n\treturn "😀 hi " + name\n}\n',
        5,
        ["Greeter.Greet"],
    ),
    "rust": (
        "greet.rs",
        "pub struct Greeter;\n\nimpl Greeter {\n    pub fn greet(&self, name: &str) -> String {\n"
        '        format!("😀 hi {}", name)\n    }\n}\n',
        4,
        ["Greeter", "Greeter.greet"],
    ),
    "java": (
        "Greeter.java",
        "public class Greeter {\n    public String greet(String name) {\n"
        '        return "😀 hi " + name;\n    }\n}\n',
        2,
        ["Greeter", "Greeter.greet"],
    ),
}


def schema_validator() -> Any:
    if not SCHEMA.exists():
        pytest.skip(f"Agent Trace schema not found at {SCHEMA}")
    from jsonschema import Draft202012Validator

    from intent_ls.ledger.verify import validator

    return Draft202012Validator(
        json.loads(SCHEMA.read_text()), format_checker=validator().format_checker
    )


def check_valid(root: Path) -> list[dict[str, Any]]:
    found = records(root)
    validate = schema_validator()
    for record in found:
        errors = list(validate.iter_errors(record))
        assert not errors, errors[0].message
    assert verify_ledger(root / LEDGER).ok
    return found


async def select(editor: Editor, intent: str = "INT-001") -> dict[str, Any]:
    await editor.execute("intent.select", intent)
    return await editor.wait_status(lambda s: (s["intent"] or {}).get("id") == intent, intent)


@pytest.mark.parametrize("language", list(FIXTURES))
async def test_save_appends_a_schema_valid_record(editor: Editor, language: str) -> None:
    name, text, line, nodes = FIXTURES[language]
    rel = f"src/auth/{name}"
    (editor.root / rel).write_text(text, encoding="utf-8")
    status = await select(editor)
    uri = editor.open(rel)
    old_line = editor.lines(uri)[line]
    at = old_line.index("hi")  # after the emoji: client units differ from code points
    editor.replace(uri, (line, at), (line, at + 2), "hello")
    since = editor.recorded_count()
    await editor.save(uri)
    [note] = await editor.wait_recorded(since)
    assert note["kind"] == "mutation" and note["path"] == rel and note["verdicts"] == []
    [record] = check_valid(editor.root)
    assert record["id"] == note["id"]
    assert record["version"] == "0.1.0"
    assert record["timestamp"].endswith("Z")
    assert record["tool"]["name"] == "intent-ls"
    [file] = record["files"]
    assert file["path"] == rel
    [conv] = file["conversations"]
    assert conv["contributor"] == {"type": "unknown"}  # the editor default (README)
    assert conv["related"] == [{"type": "specification", "url": "urn:intent:INT-001"}]
    new_line = editor.lines(uri)[line].rstrip("\n")
    assert conv["ranges"] == [
        {"start_line": line + 1, "end_line": line + 1, "content_hash": content_hash([new_line])}
    ]
    m = meta(record)
    assert m["kind"] == "mutation"
    assert m["intent_id"] == "INT-001"
    assert m["session_id"] == status["sessionId"]
    assert m["mutation_class"] == "INTENT_EVOLUTION"
    assert [n["name"] for n in m["ast_nodes"]] == nodes
    assert all(n["path"] == rel for n in m["ast_nodes"])
    # The live, incrementally edited tree gave what a fresh parse of the saved text gives.
    fresh = DocumentSyntax.parse(editor.texts[uri], language).definitions_at(line + 1)
    assert m["ast_nodes"] == [{"path": rel, **n.to_json()} for n in fresh]
    assert m["before_hash"] == text_hash(text)
    assert m["after_hash"] == text_hash(editor.texts[uri])
    assert m["verdicts"] == [] and m["approvals"] == [] and m["deleted_lines"] == 0
    assert m["prev"] == GENESIS


async def test_unchanged_save_writes_nothing_and_each_change_chains(editor: Editor) -> None:
    await select(editor)
    uri = editor.open("src/auth/jwt.py")
    since = editor.recorded_count()
    await editor.save(uri)  # nothing changed since open
    editor.insert(uri, 0, 0, "# one\n")
    await editor.save(uri)
    await editor.wait_recorded(since)
    await editor.save(uri)  # again unchanged
    editor.insert(uri, 1, 0, "# two\n")
    await editor.save(uri)
    await editor.wait_recorded(since, count=2)
    first, second = check_valid(editor.root)
    assert first["files"][0]["conversations"][0]["ranges"][0]["start_line"] == 1
    assert second["files"][0]["conversations"][0]["ranges"] == [
        {"start_line": 2, "end_line": 2, "content_hash": content_hash(["# two"])}
    ]
    assert meta(second)["before_hash"] == meta(first)["after_hash"]
    assert len(editor.recorded) == since + 2


async def test_out_of_scope_save_records_the_verdict_and_approval_is_a_record(
    editor: Editor,
) -> None:
    await select(editor)
    rel = "src/api/routes.py"
    uri = editor.open(rel)
    editor.insert(uri, 0, 0, "# sneaky\n")
    [diag] = await editor.wait_diagnostics(rel, bool, "out-of-scope")
    since = editor.recorded_count()
    await editor.save(uri)
    await editor.wait_recorded(since)
    [saved] = check_valid(editor.root)
    [verdict] = meta(saved)["verdicts"]
    assert verdict["code"] == "out-of-scope"
    assert "outside the scope of active intent INT-001" in verdict["message"]
    # Approving it appends an approval record, keyed on the approved lines' content.
    actions = await editor.code_actions(uri, [diag])
    approve = next(a for a in actions if a.title == "Approve out-of-scope edit")
    result = await editor.run_action(approve)
    assert result["approved"][0]["content_hash"] == content_hash(["# sneaky"])
    await editor.wait_diagnostics(rel, lambda d: d == [], "approval clears it")
    saved, approval = check_valid(editor.root)
    m = meta(approval)
    assert m["kind"] == "approval" and m["intent_id"] == "INT-001"
    assert m["verdicts"][0]["code"] == "out-of-scope"
    assert m["approvals"] == [
        {
            "verdict_code": "out-of-scope",
            "path": rel,
            "start_line": 1,
            "end_line": 1,
            "content_hash": content_hash(["# sneaky"]),
            "approver": {"type": "human"},
        }
    ]
    assert approval["files"][0]["conversations"][0]["contributor"] == {"type": "human"}


async def test_configured_contributor_and_fsync_off(client_name: str, workspace: Path) -> None:
    options = {
        "intentLs": {
            "pollInterval": 0.05,
            "analysisDelay": 0.02,
            "contributor": {"type": "ai", "modelId": "anthropic/claude-test"},
            "ledger": {"fsync": False, "mapDelay": 0.05},
        }
    }
    editor = await start_editor(client_name, [workspace], options=options)
    try:
        await select(editor)
        uri = editor.open("src/auth/jwt.py")
        editor.insert(uri, 0, 0, "# by the agent\n")
        since = editor.recorded_count()
        await editor.save(uri)
        await editor.wait_recorded(since)
        [record] = check_valid(workspace)
        assert record["files"][0]["conversations"][0]["contributor"] == {
            "type": "ai",
            "model_id": "anthropic/claude-test",
        }
    finally:
        await stop_editor(editor)


async def test_editing_the_ledger_is_an_error(editor: Editor) -> None:
    await select(editor)
    jwt = editor.open("src/auth/jwt.py")
    editor.insert(jwt, 0, 0, "# one\n")
    since = editor.recorded_count()
    await editor.save(jwt)
    await editor.wait_recorded(since)
    ledger = editor.open(LEDGER)
    original = editor.texts[ledger]
    editor.replace(ledger, (0, 2), (0, 3), "X")
    [diag] = await editor.wait_diagnostics(LEDGER, bool, "ledger-edited")
    assert diag.code == "ledger-edited" and diag.source == "intent-ls"
    assert diag.severity == types.DiagnosticSeverity.Error
    assert "append-only" in diag.message
    assert diag.range.start.line == 0
    editor.set_text(ledger, original)
    await editor.wait_diagnostics(LEDGER, lambda d: d == [], "undo clears it")
    # Another append on disk, and the editor reloads the file: not an edit.
    editor.insert(jwt, 1, 0, "# two\n")
    await editor.save(jwt)
    await editor.wait_recorded(since, count=2)
    editor.set_text(ledger, (editor.root / LEDGER).read_text(encoding="utf-8"))
    editor.insert(jwt, 2, 0, "# three\n")  # a later message the server answers in order
    await editor.wait_diagnostics("src/auth/jwt.py", lambda d: True, "a later publish")
    await editor.execute("intent.list")
    assert editor.diagnostics(LEDGER) == []


async def test_intent_map_is_regenerated_after_appends(editor: Editor) -> None:
    await select(editor)
    uri = editor.open("src/auth/jwt.py")
    at = editor.lines(uri).index("    def verify_token(self, token: str) -> dict:\n")
    editor.insert(uri, at + 1, 0, "        token = token.strip()\n")
    since = editor.recorded_count()
    await editor.save(uri)
    await editor.wait_recorded(since)
    path = editor.root / MAP

    def written() -> str | None:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        return text if "`JwtCodec.verify_token`" in text else None

    text = await poll_file(editor, written, "intent_map.md with the saved definition")
    assert "## INT-001: JWT authentication migration" in text
    assert "| `src/auth/jwt.py` | `JwtCodec.verify_token` | method |" in text
    assert "```mermaid" in text


async def poll_file(editor: Editor, check: Any, what: str) -> Any:
    """Waits for a file's state: the server writes it with no message to wake on, so this
    re-checks on every message and at least every 50 ms, up to the harness timeout."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while (value := check()) is None:
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)
    return value


async def test_index_build_reports_work_done_progress(editor: Editor) -> None:
    await editor.wait_for(
        lambda: any(
            any(isinstance(v, types.WorkDoneProgressEnd) for v in values)
            for values in editor.client.progress_reports.values()
        ),
        "the index build's progress to end",
    )
    [values] = [
        v for t, v in editor.client.progress_reports.items() if str(t).startswith("intent-ls-index")
    ]
    assert isinstance(values[0], types.WorkDoneProgressBegin)
    assert "indexing the trace ledger" in values[0].title
    assert isinstance(values[-1], types.WorkDoneProgressEnd)


async def test_a_failing_append_is_reported_and_retried(editor: Editor) -> None:
    await select(editor)
    uri = editor.open("src/auth/jwt.py")
    blocker = editor.root / LEDGER
    blocker.mkdir()  # the ledger cannot be opened for appending
    editor.insert(uri, 0, 0, "# one\n")
    await editor.save(uri)
    failing = "cannot append to the trace ledger"
    await editor.wait_for(
        lambda: any(failing in m.message for m in editor.client.messages), "the error message"
    )
    assert records(editor.root) == [] and editor.recorded == []
    blocker.rmdir()
    editor.insert(uri, 1, 0, "# two\n")
    await editor.save(uri)
    notes = await editor.wait_recorded(0, "both records", count=2)
    first, second = check_valid(editor.root)
    assert [n["id"] for n in notes] == [first["id"], second["id"]]
    assert first["files"][0]["conversations"][0]["ranges"][0]["content_hash"] == content_hash(
        ["# one"]
    )
    assert meta(second)["before_hash"] == meta(first)["after_hash"]
    await editor.wait_for(
        lambda: any("writable again" in m.message for m in editor.client.messages), "recovery"
    )


async def test_saves_right_after_changes_in_a_large_file_record_exact_nodes(
    editor: Editor,
) -> None:
    """Each save comes at once after its change, so the tree has pending edits and the
    record's nodes and mutation class come from local parses: they must be exactly what
    a fresh parse of each saved text gives."""
    from intent_ls.ledger.records import build_mutation_record
    from intent_ls.policy.approvals import Contributor

    rel = "src/auth/big.py"
    text = "".join(f"def f_{i}(x):\n    y = x + {i}\n    return y\n" for i in range(400))
    (editor.root / rel).write_text(text, encoding="utf-8")
    await select(editor)
    uri = editor.open(rel)
    edits = [
        ((600, 0), (600, 0), "def added(a):\n    return a\n"),
        ((303, 10), (303, 11), "*"),
        ((1000, 0), (1000, 0), "# a note\n"),
        ((901, 4), (903, 12), "return x + 300"),
        ((5, 0), (8, 0), ""),
    ]
    saved = [text]
    since = editor.recorded_count()
    for start, end, new in edits:
        editor.replace(uri, start, end, new)
        await editor.save(uri)
        saved.append(editor.texts[uri])
    await editor.wait_recorded(since, count=len(edits))
    records = check_valid(editor.root)
    assert len(records) == len(edits)
    for record, old, new in zip(records, saved[:-1], saved[1:], strict=True):
        expected = build_mutation_record(
            editor.root,
            rel,
            old,
            new,
            intent_id=None,
            session_id=None,
            contributor=Contributor("unknown"),
            language="python",
            revision=None,
        )
        assert expected is not None
        got, want = meta(record), meta(expected)
        assert got["ast_nodes"] == want["ast_nodes"]
        assert got["mutation_class"] == want["mutation_class"]
        assert got["after_hash"] == text_hash(new)
    added = meta(records[0])["ast_nodes"]
    assert [(n["name"], n["start_line"], n["end_line"]) for n in added] == [("added", 601, 602)]
