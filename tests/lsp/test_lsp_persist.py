"""Saving does not absolve: unresolved verdicts come back from the ledger after a restart,
until approved (in any editor), reverted, or covered by an owning intent."""

from __future__ import annotations

from pathlib import Path

from lsp_harness import Editor, start_editor, stop_editor, uri_of
from lsprotocol import types

ROUTES = "src/api/routes.py"
ORDERS = "web/src/orders.ts"
JWT = "src/auth/jwt.py"
LEDGER = ".orchestration/agent_trace.jsonl"


def recorded(diags: list[types.Diagnostic], code: str) -> list[types.Diagnostic]:
    return [d for d in diags if d.code == code and "not resolved" in d.message]


async def save_edit(editor: Editor, rel: str, line: int, text: str) -> str:
    uri = editor.open(rel)
    editor.insert(uri, line, 0, text)
    since = editor.recorded_count()
    await editor.save(uri)
    await editor.wait_recorded(since)
    return uri


async def restart(editor: Editor, client_name: str, root: Path) -> Editor:
    await stop_editor(editor)
    return await start_editor(client_name, [root])


async def test_out_of_scope_verdict_survives_a_restart_until_approved(
    client_name: str, workspace: Path
) -> None:
    editor = await start_editor(client_name, [workspace])
    try:
        await editor.execute("intent.select", "INT-001")
        await save_edit(editor, ROUTES, 0, "# sneaky\n")
        await save_edit(editor, ORDERS, 0, "// control\n")  # stays unresolved throughout
        editor = await restart(editor, client_name, workspace)
        uri = editor.open(ROUTES)
        [diag] = await editor.wait_diagnostics(
            ROUTES, lambda d: bool(recorded(d, "out-of-scope")), "the recorded verdict"
        )
        assert diag.range.start.line == 0 and diag.range.end.line == 0
        assert diag.severity == types.DiagnosticSeverity.Error
        assert diag.message.startswith(f"{ROUTES} is outside the scope of active intent INT-001")
        actions = await editor.code_actions(uri, [diag])
        titles = [a.title for a in actions]
        assert "Switch to intent INT-002: Order API pagination" in titles
        approve = next(a for a in actions if a.title == "Approve out-of-scope edit")
        await editor.run_action(approve)
        await editor.wait_diagnostics(ROUTES, lambda d: d == [], "approved")
        editor = await restart(editor, client_name, workspace)
        editor.open(ROUTES)
        editor.open(ORDERS)  # analysed after ROUTES: once its verdict shows, ROUTES is done
        await editor.wait_diagnostics(
            ORDERS, lambda d: bool(recorded(d, "out-of-scope")), "the control verdict"
        )
        assert editor.diagnostics(ROUTES) == []
    finally:
        await stop_editor(editor)


async def test_reverting_the_lines_resolves_it(client_name: str, workspace: Path) -> None:
    editor = await start_editor(client_name, [workspace])
    try:
        await editor.execute("intent.select", "INT-001")
        await save_edit(editor, ROUTES, 3, "# sneaky\n")
        editor = await restart(editor, client_name, workspace)
        uri = editor.open(ROUTES)
        await editor.wait_diagnostics(
            ROUTES, lambda d: bool(recorded(d, "out-of-scope")), "the recorded verdict"
        )
        editor.insert(uri, 0, 0, "# above\n")  # the verdict moves with its line
        diags = await editor.wait_diagnostics(
            ROUTES,
            lambda d: [x.range.start.line for x in recorded(d, "out-of-scope")] == [4],
            "the verdict on its moved line",
        )
        assert [
            (d.code, d.range.start.line) for d in diags if d not in recorded(diags, "out-of-scope")
        ] == [("out-of-scope", 0)]
        editor.replace(uri, (4, 0), (5, 0), "")  # the saved line is taken out again
        await editor.wait_diagnostics(ROUTES, lambda d: not recorded(d, "out-of-scope"), "reverted")
    finally:
        await stop_editor(editor)


async def test_no_active_intent_is_covered_by_selecting_an_owner(
    client_name: str, workspace: Path
) -> None:
    editor = await start_editor(client_name, [workspace])
    try:
        await save_edit(editor, JWT, 0, "# no intent yet\n")
        editor = await restart(editor, client_name, workspace)
        editor.open(JWT)
        [diag] = await editor.wait_diagnostics(
            JWT, lambda d: bool(recorded(d, "no-active-intent")), "the recorded verdict"
        )
        assert diag.range.start.line == 0
        await editor.execute("intent.select", "INT-001")
        await editor.wait_diagnostics(JWT, lambda d: d == [], "covered by INT-001")
        await editor.execute("intent.select", "INT-002")
        await editor.wait_diagnostics(
            JWT, lambda d: bool(recorded(d, "no-active-intent")), "back under INT-002"
        )
    finally:
        await stop_editor(editor)


async def test_destructive_verdict_survives_a_restart(client_name: str, workspace: Path) -> None:
    editor = await start_editor(client_name, [workspace])
    try:
        await editor.execute("intent.select", "INT-001")
        uri = editor.open(JWT)
        editor.replace(uri, (22, 0), (32, 0), "")
        await editor.wait_diagnostics(
            JWT, lambda d: any(x.code == "destructive-edit" for x in d), "destructive"
        )
        since = editor.recorded_count()
        await editor.save(uri)
        await editor.wait_recorded(since)
        editor = await restart(editor, client_name, workspace)
        uri = editor.open(JWT)
        [diag] = await editor.wait_diagnostics(
            JWT, lambda d: bool(recorded(d, "destructive-edit")), "the recorded verdict"
        )
        assert diag.message.startswith("deletes method `JwtCodec.verify_token` (lines 23–31)")
        assert diag.range.start.line == 22
        actions = await editor.code_actions(uri, [diag])
        assert [a.title for a in actions][:1] == ["Approve destructive edit"]
        await editor.run_action(actions[0])
        await editor.wait_diagnostics(JWT, lambda d: d == [], "approved")
    finally:
        await stop_editor(editor)


async def test_approving_in_one_editor_clears_it_in_the_other(
    client_name: str, workspace: Path
) -> None:
    first = await start_editor(client_name, [workspace])
    second = await start_editor(client_name, [workspace])
    try:
        await first.execute("intent.select", "INT-001")
        uri = await save_edit(first, ROUTES, 0, "# sneaky\n")
        second.open(ROUTES)
        await second.wait_diagnostics(
            ROUTES, lambda d: bool(recorded(d, "out-of-scope")), "the verdict in the other editor"
        )
        [diag] = [d for d in first.diagnostics(ROUTES) if d.code == "out-of-scope"]
        actions = await first.code_actions(uri, [diag])
        await first.run_action(next(a for a in actions if a.title == "Approve out-of-scope edit"))
        if second.registrations:  # VS Code's watcher reports the ledger's append
            second.client.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(
                    changes=[
                        types.FileEvent(
                            uri=uri_of(workspace / LEDGER), type=types.FileChangeType.Changed
                        )
                    ]
                )
            )
        await second.wait_diagnostics(ROUTES, lambda d: d == [], "cleared there too")
    finally:
        await stop_editor(second)
        await stop_editor(first)
