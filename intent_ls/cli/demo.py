"""``intent-ls demo``: a scripted editor session against the real server, narrated.

It starts ``python -m intent_ls serve`` as a subprocess, speaks LSP to it like an editor
and prints what the editor would show. It works on a temporary copy of the workspace so
the demo never leaves a trace (selection state, edits) in the original.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

#: The bundled example workspace, shipped inside the package so an installed wheel has
#: it too (the repository's examples/workspace is a link to it, not a second copy).
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "workspace"
TIMEOUT = 15.0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="drive the language server through a scripted editor session",
        description="Start the language server, play a scripted editor session on a "
        "temporary copy of the bundled example workspace and print what the editor shows. "
        "The script edits the example's own files, so the demo takes no --workspace.",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.cli.errors import CliError

    if args.workspace_given:
        raise CliError(
            "demo always plays on a copy of the bundled example workspace; it takes no "
            "--workspace (try `intent-ls validate --workspace DIR` on your own)"
        )
    if not (EXAMPLE / ".orchestration" / "active_intents.yaml").is_file():
        raise CliError(f"the bundled example is missing from this installation ({EXAMPLE})")
    with tempfile.TemporaryDirectory(prefix="intent-ls-demo-") as tmp:
        root = Path(tmp) / "workspace"
        shutil.copytree(
            EXAMPLE, root, ignore=shutil.ignore_patterns(".local", ".git", "__pycache__")
        )
        try:
            return asyncio.run(_Session(root).play())
        except (RuntimeError, OSError) as exc:
            raise CliError(f"demo failed: {exc}") from None


class _Session:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.statuses: list[dict[str, Any]] = []
        self.recorded: list[dict[str, Any]] = []
        self._changed = asyncio.Event()

    async def play(self) -> int:
        from lsprotocol import types
        from pygls.lsp.client import LanguageClient
        from pygls.uris import from_fs_path

        self.types = types
        client = LanguageClient("intent-ls-demo", "1", converter_factory=client_converter)
        self.client = client
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.root_uri = from_fs_path(str(self.root)) or ""

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self._changed.set()

        @client.feature("intent/status")
        def on_status(params: Any) -> None:
            self.statuses.append(_plain(params))
            self._changed.set()

        @client.feature(types.WINDOW_SHOW_MESSAGE)
        def on_message(params: types.ShowMessageParams) -> None:
            print(f"  [editor popup] {params.message}")

        @client.feature("intent/recorded")
        def on_recorded(params):  # type: ignore[no-untyped-def]  # untyped payload
            self.recorded.append(_plain(params))
            self._changed.set()

        # -P: the demo may be started from any folder, which -m would put on the path first
        await client.start_io(sys.executable, "-P", "-m", "intent_ls", "serve")
        try:
            await self.script()
        finally:
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()
        return 0

    # -- the script -------------------------------------------------------------------

    async def script(self) -> None:
        types = self.types
        result = await self.client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(
                    workspace=types.WorkspaceClientCapabilities(apply_edit=True),
                ),
                root_uri=self.root_uri,
                workspace_folders=[types.WorkspaceFolder(uri=self.root_uri, name=self.root.name)],
            )
        )
        self.client.initialized(types.InitializedParams())
        info = result.server_info
        print(f"Workspace: copy of the example at {self.root}")
        print(f"Server:    {info.name if info else '?'} {info.version if info else ''}")
        await self.wait(lambda: self.statuses, "the first status")
        self.show_status()

        self.step("Open src/auth/jwt.py (no edit yet)")
        jwt = self.open("src/auth/jwt.py")
        print("  Problems: none (opening a file is not a change)")
        self.edit(jwt, 5, "import os\n")
        self.step("Type `import os` on line 6 with no active intent")
        diags = await self.wait(lambda: self.diagnostics.get(jwt), "a diagnostic")
        self.show_diagnostics(jwt, diags)

        self.step("Ctrl+. on that line: the quick fixes")
        actions = await self.actions(jwt, diags)
        preferred = next(a for a in actions if a.is_preferred)
        self.step(f"Choose the preferred fix: {preferred.title}")
        answer = await self.execute(preferred.command.command, *preferred.command.arguments)
        await self.wait(lambda: self.diagnostics.get(jwt) == [], "the diagnostic to clear")
        self.show_status()
        context = answer["context"].splitlines()
        print("  intent.select returned the handshake context:")
        for line in context[:6]:
            print(f"    {line}")
        print(f"    … ({len(context)} lines)")
        self.show_diagnostics(jwt, self.diagnostics[jwt])

        self.step("Save src/auth/jwt.py: the server appends an Agent Trace record")
        await self.save(jwt)
        await self.wait(lambda: self.recorded, "the record of the save")
        await self.show_record()

        self.step("Hover on line 6: which intents changed it, when, by whom")
        await self.show_hover(jwt, 5)

        self.step("Now edit src/api/routes.py, which INT-002 owns")
        routes = self.open("src/api/routes.py")
        self.edit(routes, 11, "# TODO: cap the page size\n")
        diags = await self.wait(lambda: self.diagnostics.get(routes), "out-of-scope")
        self.show_diagnostics(routes, diags)
        self.step("Quick fixes offered for it")
        await self.actions(routes, diags)

        self.step("Undo the edit")
        self.undo(routes, 11)
        await self.wait(lambda: self.diagnostics.get(routes) == [], "the diagnostic to go")
        self.show_diagnostics(routes, [])

        self.step("intent.list")
        for intent in await self.execute("intent.list"):
            mark = "*" if intent["active"] else " "
            pick = "selectable" if intent["selectable"] else "not selectable"
            print(f"  {mark} {intent['id']}  {intent['status']:<12} {pick:<15} {intent['name']}")
        print("\nDone: the server ran as a subprocess over stdio, exactly as an editor runs it.")

    # -- helpers ----------------------------------------------------------------------

    async def save(self, uri: str) -> None:
        types = self.types
        rel = uri[len(self.root_uri) + 1 :]
        (self.root / rel).write_text(self.texts[uri], encoding="utf-8")
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    async def show_record(self) -> None:
        import json

        note = self.recorded[-1]
        ledger = self.root / ".orchestration" / "agent_trace.jsonl"
        records = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
        record = next(r for r in records if r["id"] == note["id"])
        meta = record["metadata"]["intent_ls"]
        conv = record["files"][0]["conversations"][0]
        print(f"  .orchestration/agent_trace.jsonl: record {record['id'][:8]}…")
        print(
            f"    file {record['files'][0]['path']}, intent {meta['intent_id']}, "
            f"contributor {conv['contributor']['type']}, {meta['mutation_class']}"
        )
        for rng in conv["ranges"]:
            print(f"    lines {rng['start_line']}–{rng['end_line']}  {rng['content_hash'][:19]}…")
        names = ", ".join(n["name"] for n in meta["ast_nodes"]) or "(module level)"
        print(f"    AST nodes: {names}; chained to {meta['prev'][:19]}…")

    async def show_hover(self, uri: str, line: int) -> None:
        types = self.types
        hover = await self.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=1),
            )
        )
        value = getattr(getattr(hover, "contents", None), "value", "") if hover else ""
        for text in value.splitlines() or ["(no history)"]:
            print(f"  {text}")

    def step(self, title: str) -> None:
        print(f"\n▶ {title}")

    def show_status(self) -> None:
        status = self.statuses[-1]
        intent = status["intent"]
        active = f"{intent['id']} ({intent['name']})" if intent else "none"
        print(f"  status bar: {status['message']}   [state {status['state']}, active {active}]")

    def show_diagnostics(self, uri: str, diags: list[Any]) -> None:
        rel = uri[len(self.root_uri) + 1 :]
        if not diags:
            print(f"  Problems: none in {rel}")
        lines = self.texts[uri].splitlines()
        for d in diags:
            severity = {1: "error", 2: "warning", 3: "info", 4: "hint"}.get(d.severity, "?")
            line = d.range.start.line
            print(f"  {rel}:{line + 1}: {severity} [{d.code}] {d.message}")
            print(f"      {line + 1:>4} | {lines[line] if line < len(lines) else ''}")
            for rel_info in d.related_information or []:
                where = rel_info.location.range.start.line + 1
                print(f"           ↳ active_intents.yaml:{where}: {rel_info.message}")

    async def wait(self, predicate: Any, what: str) -> Any:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while not (value := predicate()):
            self._changed.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise RuntimeError(f"the server did not send {what} within {TIMEOUT:.0f}s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)
        return value

    def open(self, rel: str) -> str:
        types = self.types
        uri = f"{self.root_uri}/{rel}"
        text = (self.root / rel).read_text(encoding="utf-8")
        self.texts[uri], self.versions[uri] = text, 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="plaintext", version=1, text=text
                )
            )
        )
        return uri

    def _change(self, uri: str, start: int, end: int, text: str) -> None:
        types = self.types
        lines = self.texts[uri].splitlines(keepends=True)
        lines[start:end] = [text] if text else []
        self.texts[uri] = "".join(lines)
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line=start, character=0),
                            end=types.Position(line=end, character=0),
                        ),
                        text=text,
                    )
                ],
            )
        )

    def edit(self, uri: str, line: int, text: str) -> None:
        self._change(uri, line, line, text)

    def undo(self, uri: str, line: int) -> None:
        self._change(uri, line, line + 1, "")

    async def actions(self, uri: str, diags: list[Any]) -> list[Any]:
        types = self.types
        result = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=diags[0].range,
                context=types.CodeActionContext(diagnostics=diags),
            )
        )
        actions = [a for a in result or [] if isinstance(a, types.CodeAction)]
        for action in actions:
            star = "★" if action.is_preferred else " "
            print(f"  {star} {action.title}   ({action.kind})")
        return actions

    async def execute(self, command: str, *arguments: Any) -> Any:
        types = self.types
        result = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=list(arguments))
        )
        return _plain(result)


def client_converter() -> Any:
    """pygls' converter, except that a CodeAction carrying a ``command`` object is not
    taken for a Command: lsprotocol only checks that the key exists, while editors check
    that it is a string. Without this, a pygls client drops every command-only action."""
    import typing

    from lsprotocol import types
    from pygls.protocol import default_converter

    converter = default_converter()

    def action_or_command(obj: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)

    converter.register_structure_hook(
        typing.Union[types.Command, types.CodeAction],  # noqa: UP007 - lsprotocol's key
        action_or_command,
    )
    return converter


def _plain(value: Any) -> Any:
    """Plain JSON data from the namedtuples pygls builds for untyped payloads."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
