"""One truth: after select, switch, clear and a spec reload, the ``intent/status`` state
agrees with the diagnostics the open documents show (and with what typing would give).

Each transition's status is sent before the command's response, so the latest status
once the command returned (or once the diagnostics changed) is the one a status bar shows.
"""

from __future__ import annotations

from lsp_harness import Editor

from intent_ls.spec.load import SPEC_RELPATH as SPEC

JWT = "src/auth/jwt.py"
ROUTES = "src/api/routes.py"


def codes(diags: list) -> list[str]:
    return [d.code for d in diags]


async def test_selecting_with_an_out_of_scope_edit_open_is_blocked(editor: Editor) -> None:
    uri = editor.open(ROUTES)
    editor.insert(uri, 0, 0, "#\n")
    await editor.wait_diagnostics(ROUTES, lambda d: codes(d) == ["no-active-intent"], "no intent")
    await editor.execute("intent.select", "INT-001")
    await editor.wait_diagnostics(ROUTES, lambda d: codes(d) == ["out-of-scope"], "out of scope")
    assert editor.statuses[-1]["state"] == "BLOCKED"
    # Typing the same kind of edit agrees.
    editor.insert(uri, 0, 0, "#\n")
    await editor.settled()
    assert editor.statuses[-1]["state"] == "BLOCKED"


async def test_switching_follows_the_open_documents(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    jwt = editor.open(JWT)
    editor.insert(jwt, 0, 0, "#\n")
    await editor.wait_status(lambda s: s["state"] == "ACTION_ALLOWED", "allowed")
    await editor.execute("intent.select", "INT-002")
    await editor.wait_diagnostics(JWT, lambda d: codes(d) == ["out-of-scope"], "out of scope")
    assert editor.statuses[-1]["state"] == "BLOCKED"
    assert editor.statuses[-1]["intent"]["id"] == "INT-002"
    await editor.execute("intent.select", "INT-001")
    await editor.wait_diagnostics(JWT, lambda d: d == [], "in scope again")
    assert editor.statuses[-1]["state"] == "CONTEXT_LOADED"
    await editor.execute("intent.clear")
    await editor.wait_diagnostics(JWT, lambda d: codes(d) == ["no-active-intent"], "cleared")
    assert editor.statuses[-1]["state"] == "AWAITING_INTENT_SELECTION"


async def test_a_spec_reload_that_drops_the_scope_blocks(editor: Editor) -> None:
    await editor.execute("intent.select", "INT-001")
    jwt = editor.open(JWT)
    editor.insert(jwt, 0, 0, "#\n")
    await editor.wait_status(lambda s: s["state"] == "ACTION_ALLOWED", "allowed")
    spec = editor.root / SPEC
    original = spec.read_text()
    since = len(editor.statuses)
    editor.write_file(spec, original.replace("      - src/auth/**\n", "", 1))
    await editor.wait_diagnostics(JWT, lambda d: codes(d) == ["out-of-scope"], "out of scope")
    status = await editor.wait_status(lambda s: True, "status after the reload", since)
    assert status["state"] == "BLOCKED"
    since = len(editor.statuses)
    editor.write_file(spec, original)
    await editor.wait_diagnostics(JWT, lambda d: d == [], "in scope again")
    status = await editor.wait_status(lambda s: True, "status after the second reload", since)
    assert status["state"] == "CONTEXT_LOADED"
