"""Destructive edits: the diagnostic, its two quick fixes, protected paths, and deleting or
renaming files."""

from __future__ import annotations

from lsp_harness import Editor, meta, records, uri_of
from lsprotocol import types
from test_lsp_actions import apply_text_edits

from intent_ls.common.hashing import text_hash
from intent_ls.syntax.document import DocumentSyntax

JWT = "src/auth/jwt.py"


def destructive(diags: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diags if d.code == "destructive-edit"]


async def delete_verify_token(editor: Editor) -> tuple[str, types.Diagnostic]:
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(JWT)
    start = next(i for i, t in enumerate(editor.lines(uri)) if "def verify_token" in t)
    end = next(i for i, t in enumerate(editor.lines(uri)) if "def _mac" in t)
    assert (start, end) == (22, 32)
    editor.replace(uri, (start, 0), (end, 0), "")
    diags = await editor.wait_diagnostics(JWT, lambda d: bool(destructive(d)), "destructive")
    [diag] = destructive(diags)
    return uri, diag


async def test_deleting_a_method_is_flagged_with_what_it_destroys(editor: Editor) -> None:
    uri, diag = await delete_verify_token(editor)
    assert diag.severity == types.DiagnosticSeverity.Error and diag.source == "intent-ls"
    assert diag.message == "deletes method `JwtCodec.verify_token` (lines 23–31)"
    assert diag.range.start.line == 22
    actions = await editor.code_actions(uri, [diag])
    assert [a.title for a in actions][:2] == ["Restore deleted code", "Approve destructive edit"]
    restore = actions[0]
    assert restore.is_preferred
    edits = editor.edits_in(restore.edit, uri)
    before = (editor.root / JWT).read_text()
    restored = apply_text_edits(editor.texts[uri], list(edits), editor.codec)
    # The definition comes back where it was (the blank line after it was not part of it).
    method = "".join(before.splitlines(keepends=True)[22:31])
    assert restored == before.replace(method + "\n", method, 1)
    editor.set_text(uri, restored)  # the editor applies the edit
    await editor.wait_diagnostics(JWT, lambda d: d == [], "restored")


async def test_restore_is_exact_after_non_ascii_text(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    rel = "src/auth/unicode_defs.py"
    text = 'A = "😀😀"; B = "日本"\n\ndef keep():\n    return 1\n\n\ndef gone(x):\n    return x\n'
    (editor.root / rel).write_text(text, encoding="utf-8")
    uri = editor.open(rel)
    editor.replace(uri, (0, 7), (6, 0), "")  # from after the emoji on line 1 to `def gone`
    diags = await editor.wait_diagnostics(rel, lambda d: bool(destructive(d)), "destructive")
    [diag] = destructive(diags)
    assert diag.message == "deletes function `keep` (lines 3–4)"
    actions = await editor.code_actions(uri, [diag])
    restore = next(a for a in actions if a.title == "Restore deleted code")
    edits = editor.edits_in(restore.edit, uri)
    restored = apply_text_edits(editor.texts[uri], list(edits), editor.codec)
    assert "def keep():\n    return 1\n" in restored
    assert restored.startswith('A = "😀')


async def test_approving_records_the_nodes_and_the_save_carries_it(editor: Editor) -> None:
    uri, diag = await delete_verify_token(editor)
    actions = await editor.code_actions(uri, [diag])
    approve = next(a for a in actions if a.title == "Approve destructive edit")
    result = await editor.run_action(approve)
    assert result["code"] == "destructive-edit"
    await editor.wait_diagnostics(JWT, lambda d: not destructive(d), "approved")
    [approval] = records(editor.root)
    m = meta(approval)
    assert m["kind"] == "approval"
    [item] = m["approvals"]
    old = DocumentSyntax.parse((editor.root / JWT).read_text(), "python")
    node = next(n for n in old.definitions() if n.name == "JwtCodec.verify_token")
    assert item["verdict_code"] == "destructive-edit"
    assert item["content_hash"] == node.content_hash
    assert (item["start_line"], item["end_line"]) == (23, 31)
    assert [n["name"] for n in m["ast_nodes"]] == ["JwtCodec.verify_token"]
    assert m["ast_nodes"][0]["content_hash"] == node.content_hash
    since = editor.recorded_count()
    await editor.save(uri)
    await editor.wait_recorded(since)
    _, saved = records(editor.root)
    assert [v["code"] for v in meta(saved)["verdicts"]] == ["destructive-edit"]
    assert [a["content_hash"] for a in meta(saved)["approvals"]] == [node.content_hash]
    assert meta(saved)["deleted_lines"] == 10
    # Approved, so the save moved the baseline: a later edit is judged on its own.
    editor.insert(uri, 0, 0, "# later\n")
    await editor.wait_for(lambda: editor.history.get(uri), "a publish")
    await editor.settled()
    assert not destructive(editor.diagnostics(JWT))


async def test_protected_paths_and_mass_deletion(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    rel = "src/auth/migrations/0001_init.py"
    (editor.root / rel).parent.mkdir()
    (editor.root / rel).write_text("".join(f"step_{i} = {i}\n" for i in range(30)))
    uri = editor.open(rel)
    editor.insert(uri, 0, 0, "# tweak\n")
    diags = await editor.wait_diagnostics(rel, lambda d: bool(destructive(d)), "protected")
    [diag] = destructive(diags)
    assert diag.message == f"edits protected path `{rel}` (matches `**/migrations/**`)"
    editor.replace(uri, (0, 0), (1, 0), "")
    await editor.wait_diagnostics(rel, lambda d: d == [], "reverted")
    editor.replace(uri, (2, 0), (27, 0), "")
    diags = await editor.wait_diagnostics(
        rel, lambda d: len(destructive(d)) == 2, "mass deletion too"
    )
    messages = sorted(d.message for d in destructive(diags))
    assert messages[0] == "deletes 25 lines (3–27)"


async def test_will_delete_asks_and_records_the_approval(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    target = editor.root / JWT
    text = target.read_text()
    editor.pick = "Approve"
    since = editor.recorded_count()
    result = await editor.client.workspace_will_delete_files_async(
        types.DeleteFilesParams(files=[types.FileDelete(uri=uri_of(target))])
    )
    assert result is None
    [question] = editor.message_requests
    assert f"deletes file `{JWT}` (38 lines)" in question.message
    await editor.wait_recorded(since)
    [approval] = records(editor.root)
    [item] = meta(approval)["approvals"]
    assert item["verdict_code"] == "destructive-edit"
    assert item["content_hash"] == text_hash(text)
    assert {n["name"] for n in meta(approval)["ast_nodes"]} >= {"JwtCodec", "TokenError"}
    target.unlink()
    editor.client.workspace_did_delete_files(
        types.DeleteFilesParams(files=[types.FileDelete(uri=uri_of(target))])
    )
    await editor.settled()
    assert not any("without approval" in m.message for m in editor.client.messages)


async def test_an_unapproved_rename_is_reported(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    old = editor.root / JWT
    new = editor.root / "src/auth/tokens.py"
    editor.pick = None  # dismissed
    await editor.client.workspace_will_rename_files_async(
        types.RenameFilesParams(files=[types.FileRename(old_uri=uri_of(old), new_uri=uri_of(new))])
    )
    assert "renames `src/auth/jwt.py` to `src/auth/tokens.py`" in editor.message_requests[0].message
    await editor.wait_for(
        lambda: any("renaming without approval" in m.message for m in editor.client.messages),
        "the warning",
    )
    assert records(editor.root) == []


async def test_a_deletion_nobody_announced_is_reported(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    target = editor.root / "src/auth/jwt.py"
    target.unlink()
    editor.client.workspace_did_delete_files(
        types.DeleteFilesParams(files=[types.FileDelete(uri=uri_of(target))])
    )
    await editor.wait_for(
        lambda: any("deleted without approval" in m.message for m in editor.client.messages),
        "the warning",
    )


async def test_saving_an_unapproved_destructive_edit_keeps_it(editor: Editor) -> None:
    uri, diag = await delete_verify_token(editor)
    since = editor.recorded_count()
    await editor.save(uri)
    [note] = await editor.wait_recorded(since)
    assert note["verdicts"] == ["destructive-edit"] and note["approvals"] == 0
    [saved] = records(editor.root)
    [verdict] = meta(saved)["verdicts"]
    assert verdict["message"] == diag.message
    assert verdict["details"]["approval"]["content_hash"]
    # Not allowed: the baseline stays, so the edit itself is still flagged (live).
    editor.insert(uri, 0, 0, "# later\n")
    diags = await editor.wait_diagnostics(
        JWT, lambda d: [x.range.start.line for x in destructive(d)] == [23], "moved with the edit"
    )
    [live] = [d for d in destructive(diags) if "not resolved" not in d.message]
    assert live.message == diag.message
