"""Changes on disk (spec, .intentignore, a deleted sidecar) re-evaluate open documents.

With VS Code capabilities the server registers file watchers and the test reports the
change like VS Code would; with Neovim's it polls on its own.
"""

from __future__ import annotations

from lsp_harness import Editor

from intent_ls.spec.load import SPEC_RELPATH as SPEC

ROUTES = "src/api/routes.py"
ORDERS = "web/src/orders.ts"


async def test_watching_mode_follows_the_client(editor: Editor) -> None:
    await editor.execute("intent.list")  # the registration request precedes this answer
    if editor.name == "visual-studio-code":
        [registration] = editor.registrations
        assert registration.method == "workspace/didChangeWatchedFiles"
        options = registration.register_options
        watchers = options["watchers"] if isinstance(options, dict) else options.watchers  # type: ignore[union-attr]
        globs = [w["globPattern"] if isinstance(w, dict) else w.glob_pattern for w in watchers]
        assert "**/.orchestration/active_intents.yaml" in globs
        assert "**/.intentignore" in globs
    else:
        assert editor.registrations == []


async def test_scope_change_on_disk_clears_the_diagnostic(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(ROUTES)
    editor.insert(uri, 0, 0, "#\n")
    await editor.wait_diagnostics(ROUTES, bool, "out-of-scope")
    spec = editor.root / SPEC
    text = spec.read_text(encoding="utf-8")
    editor.write_file(
        spec,
        text.replace(
            "      - tests/auth/**\n", "      - tests/auth/**\n      - src/api/routes.py\n"
        ),
    )
    await editor.wait_diagnostics(ROUTES, lambda d: d == [], "reloaded scope")


async def test_intentignore_change_on_disk(editor: Editor) -> None:
    uri = editor.open(ORDERS)
    editor.insert(uri, 0, 0, "// x\n")
    await editor.wait_diagnostics(ORDERS, bool, "no-active-intent")
    ignore = editor.root / ".intentignore"
    editor.write_file(ignore, ignore.read_text(encoding="utf-8") + "web/\n")
    await editor.wait_diagnostics(ORDERS, lambda d: d == [], "ignored now")
    editor.write_file(ignore, "build/\n")
    await editor.wait_diagnostics(ORDERS, bool, "governed again")


async def test_active_intent_completed_on_disk_drops_the_selection(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-002")
    spec = editor.root / SPEC
    text = spec.read_text(encoding="utf-8")
    start = text.index("  - id: INT-002")
    text = text[:start] + text[start:].replace("status: IN_PROGRESS", "status: COMPLETED", 1)
    editor.write_file(spec, text)
    status = await editor.wait_status(
        lambda s: s["intent"] is None and s["spec"]["intents"] == 4, "selection dropped", since=1
    )
    assert status["state"] == "AWAITING_INTENT_SELECTION"
    await editor.wait_for(
        lambda: any("INT-002 is no longer selectable" in m.message for m in editor.client.messages),
        "a warning saying why",
    )


async def test_a_spec_left_empty_governs_once_it_stays_empty(editor: Editor) -> None:
    """An emptied spec waits a moment (a writer may be between truncating and writing
    it), then governs: with VS Code's watchers no second event comes, so the server looks
    again by itself."""
    await editor.execute("intent.select", "INT-001")
    seen = len(editor.statuses)
    editor.write_file(editor.root / SPEC, "")
    status = await editor.wait_status(
        lambda s: s["spec"]["intents"] == 0, "the empty spec governing", since=seen
    )
    assert status["intent"] is None and status["state"] == "AWAITING_INTENT_SELECTION"
    assert all(s["intent"] is not None for s in editor.statuses[seen:] if s["spec"]["intents"])


async def test_broken_spec_on_disk_keeps_the_last_valid_one(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    uri = editor.open(ROUTES)
    editor.insert(uri, 0, 0, "#\n")
    await editor.wait_diagnostics(ROUTES, bool, "out-of-scope")
    spec = editor.root / SPEC
    editor.write_file(spec, spec.read_text(encoding="utf-8") + "  - id: [broken\n")
    status = await editor.wait_status(lambda s: s["spec"]["stale"], "stale spec status")
    assert status["intent"]["id"] == "INT-001"
    assert status["spec"]["valid"] is False
    diags = await editor.wait_diagnostics(SPEC, bool, "the syntax error, file not open")
    assert [d.code for d in diags] == ["yaml-syntax"]
    assert [d.code for d in editor.diagnostics(ROUTES)] == ["out-of-scope"]


async def test_deleted_orchestration_stops_governing(editor: Editor) -> None:
    uri = editor.open(ORDERS)
    editor.insert(uri, 0, 0, "// x\n")
    await editor.wait_diagnostics(ORDERS, bool, "no-active-intent")
    sidecar = editor.root / ".orchestration"
    saved = (sidecar / "active_intents.yaml").read_text(encoding="utf-8")
    editor.write_file(sidecar, None)
    status = await editor.wait_status(lambda s: not s["governed"], "ungoverned status")
    assert "not governed" in status["message"]
    await editor.wait_diagnostics(ORDERS, lambda d: d == [], "no governance without a spec")
    assert "no .orchestration/active_intents.yaml" in str(
        await _error(editor, "intent.select", "INT-001")
    )
    editor.write_file(sidecar / "active_intents.yaml", saved)
    await editor.wait_status(lambda s: s["governed"], "governed again", since=len(editor.statuses))
    await editor.wait_diagnostics(ORDERS, bool, "the edit is flagged again")


async def _error(editor: Editor, command: str, *args: object) -> str:
    from pygls.exceptions import JsonRpcException

    try:
        await editor.execute(command, *args)
    except JsonRpcException as exc:
        return exc.message
    raise AssertionError(f"{command} did not fail")


async def test_settings_from_workspace_configuration(client_name: str, workspace) -> None:  # type: ignore[no-untyped-def]
    from lsp_harness import start_editor, stop_editor

    editor = await start_editor(
        client_name,
        [workspace],
        configuration={"severity": {"no-active-intent": "warning"}, "extraIgnores": ["web/"]},
    )
    try:
        orders = editor.open(ORDERS)
        editor.insert(orders, 0, 0, "// x\n")
        uri = editor.open(ROUTES)
        editor.insert(uri, 0, 0, "#\n")
        [diag] = await editor.wait_diagnostics(ROUTES, bool, "a warning")
        assert diag.severity == 2
        assert all(d == [] for d in editor.history.get(orders, []))
    finally:
        await stop_editor(editor)


async def test_invalid_settings_are_reported_and_defaults_used(client_name: str, workspace) -> None:  # type: ignore[no-untyped-def]
    from lsp_harness import start_editor, stop_editor

    editor = await start_editor(
        client_name, [workspace], options={"intentLs": {"severity": {"out-of-scope": "loud"}}}
    )
    try:
        message = await editor.wait_for(
            lambda: next(
                (m for m in editor.client.messages if "invalid intentLs" in m.message), None
            ),
            "an error message about the settings",
        )
        assert message.type == 2  # a warning: the other settings are kept
        assert "severity 'loud' is not one of" in message.message
        uri = editor.open(ROUTES)
        editor.insert(uri, 0, 0, "#\n")
        [diag] = await editor.wait_diagnostics(ROUTES, bool, "default severity")
        assert diag.severity == 1
    finally:
        await stop_editor(editor)
