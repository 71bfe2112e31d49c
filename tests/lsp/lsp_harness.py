"""pytest-lsp harness: the real server in a subprocess, driven like an editor would.

Every test runs twice, with VS Code's and Neovim's client capabilities (UTF-16 vs UTF-8
positions, client-side file watching vs the server's own poller), on a fresh copy of
``examples/workspace``. Waiting is always for a message: :meth:`Editor.wait_for` wakes
on every publishDiagnostics / intent/status notification and re-checks its condition.
"""

from __future__ import annotations

import asyncio
import errno
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path
from pygls.workspace.position_codec import PositionCodec
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from intent_ls.cli.demo import client_converter
from intent_ls.ledger.store import LEDGER_RELPATH

#: The ledger, workspace-relative, as tests open and read it.
LEDGER = LEDGER_RELPATH.as_posix()

EXAMPLE = Path(__file__).parents[2] / "examples" / "workspace"
CLIENTS = ("visual-studio-code", "neovim")
#: The ``clientInfo`` each of them sends in ``initialize``.
CLIENT_INFO = {
    "visual-studio-code": types.ClientInfo(name="Visual Studio Code"),
    "neovim": types.ClientInfo(name="Neovim"),
}
TIMEOUT = 30.0
SERVER = [sys.executable, "-m", "intent_ls", "serve"]
#: Settings that keep the tests quick: fast polling, analysis and map regeneration.
FAST: dict[str, Any] = {"pollInterval": 0.05, "analysisDelay": 0.02, "ledger": {"mapDelay": 0.05}}


def uri_of(path: Path) -> str:
    uri = from_fs_path(str(path))
    assert uri is not None
    return uri


class Editor:
    """A scripted editor session: open, type, undo, save, ask for actions, run commands."""

    def __init__(
        self,
        client: LanguageClient,
        name: str,
        roots: list[Path],
        capabilities: types.ClientCapabilities,
    ) -> None:
        self.client = client
        self.name = name
        #: What this editor announced in ``initialize``.
        self.capabilities = capabilities
        self.roots = roots
        self.root = roots[0]
        self.statuses: list[dict[str, Any]] = []
        self.history: dict[str, list[list[types.Diagnostic]]] = {}
        self.registrations: list[types.Registration] = []
        self.applied_edits: list[types.WorkspaceEdit] = []
        self.pick: str | None = None
        #: When set, workspace/applyEdit is answered with this error.
        self.apply_error: str | None = None
        self.message_requests: list[types.ShowMessageRequestParams] = []
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.codec = PositionCodec()
        self.init_result: types.InitializeResult | None = None
        self.recorded: list[dict[str, Any]] = []
        self.lens_refreshes = 0
        self._waiters: list[asyncio.Event] = []

    # -- waiting --------------------------------------------------------------------

    def poke(self) -> None:
        for event in self._waiters:
            event.set()

    async def wait_for(
        self, predicate: Callable[[], Any], what: str, timeout: float = TIMEOUT
    ) -> Any:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out waiting for {what}")
            event = asyncio.Event()
            self._waiters.append(event)
            try:
                await asyncio.wait_for(event.wait(), remaining)
            except TimeoutError:
                pass
            finally:
                self._waiters.remove(event)

    def diagnostics(self, rel: str, root: Path | None = None) -> list[types.Diagnostic]:
        return list(self.client.diagnostics.get(self.uri(rel, root), []))

    async def wait_diagnostics(
        self,
        rel: str,
        predicate: Callable[[list[types.Diagnostic]], bool],
        what: str,
        root: Path | None = None,
    ) -> list[types.Diagnostic]:
        uri = self.uri(rel, root)

        def check() -> list[types.Diagnostic] | None:
            if uri not in self.client.diagnostics:
                return None
            diags = list(self.client.diagnostics[uri])
            return diags if predicate(diags) else None

        result = await self.wait_for(lambda: (check(),) if check() is not None else None, what)
        return result[0]

    async def wait_status(
        self, predicate: Callable[[dict[str, Any]], bool], what: str, since: int = 0
    ) -> dict[str, Any]:
        def check() -> dict[str, Any] | None:
            for status in reversed(self.statuses[since:]):
                if predicate(status):
                    return status
            return None

        return await self.wait_for(check, what)

    # -- documents ------------------------------------------------------------------

    def uri(self, rel: str, root: Path | None = None) -> str:
        return uri_of((root or self.root) / rel)

    def open(self, rel: str, root: Path | None = None, text: str | None = None) -> str:
        path = (root or self.root) / rel
        uri = uri_of(path)
        if text is None:
            text = path.read_bytes().decode("utf-8", "replace")
        self.texts[uri] = text
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="plaintext", version=1, text=text
                )
            )
        )
        return uri

    def edits_in(self, edit: types.WorkspaceEdit | None, uri: str) -> list[types.TextEdit]:
        """The TextEdits ``edit`` makes to ``uri``, checking its form: a client that
        supports ``documentChanges`` must get one TextDocumentEdit pinned to the version
        it has (None for a file it has not opened), so a stale edit is refused."""
        assert edit is not None
        caps = self.capabilities.workspace
        versioned = bool(caps and caps.workspace_edit and caps.workspace_edit.document_changes)
        if not versioned:
            assert edit.document_changes is None and edit.changes is not None
            assert list(edit.changes) == [uri]
            return list(edit.changes[uri])
        assert edit.changes is None and edit.document_changes is not None
        [change] = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == uri
        assert change.text_document.version == self.versions.get(uri)
        return [e for e in change.edits if isinstance(e, types.TextEdit)]

    async def settled(self) -> None:
        """Returns once the server has handled every message sent so far (it handles
        them in order, and this request is answered after them)."""
        await self.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri("no/such/file")),
                position=types.Position(line=0, character=0),
            )
        )

    def lines(self, uri: str) -> list[str]:
        return self.texts[uri].splitlines(keepends=True)

    def position(self, uri: str, line: int, column: int) -> types.Position:
        """Client units for a code-point column, as this editor counts them."""
        lines = self.lines(uri)
        text = lines[line] if line < len(lines) else ""
        return types.Position(line=line, character=self.codec.client_num_units(text[:column]))

    def replace(self, uri: str, start: tuple[int, int], end: tuple[int, int], new: str) -> None:
        """Types over code-point range ``start``..``end`` (incremental didChange)."""
        rng = types.Range(start=self.position(uri, *start), end=self.position(uri, *end))
        text = self.texts[uri]
        offsets = [0]
        for line in self.lines(uri):
            offsets.append(offsets[-1] + len(line))

        def offset(pos: tuple[int, int]) -> int:
            return offsets[min(pos[0], len(offsets) - 1)] + pos[1]

        self.texts[uri] = text[: offset(start)] + new + text[offset(end) :]
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangePartial(range=rng, text=new)],
            )
        )

    def insert(self, uri: str, line: int, column: int, new: str) -> None:
        self.replace(uri, (line, column), (line, column), new)

    def set_text(self, uri: str, text: str) -> None:
        """Full-document change, as after an undo to a given text."""
        self.texts[uri] = text
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def save(self, uri: str, will_save: bool = True) -> None:
        """Saves like VS Code and Neovim do: willSaveWaitUntil (answered before the file
        is written, when the server asked for it), the write, then didSave."""
        from pygls.uris import to_fs_path

        if will_save and self.server_wants_will_save():
            await self.client.text_document_will_save_wait_until_async(
                types.WillSaveTextDocumentParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    reason=types.TextDocumentSaveReason.Manual,
                )
            )
        Path(to_fs_path(uri) or "").write_text(self.texts[uri], encoding="utf-8", newline="")
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    def server_wants_will_save(self) -> bool:
        assert self.init_result is not None
        sync = self.init_result.capabilities.text_document_sync
        return bool(getattr(sync, "will_save_wait_until", False))

    def recorded_count(self) -> int:
        return len(self.recorded)

    async def wait_recorded(
        self, since: int, what: str = "a trace record", count: int = 1
    ) -> list[dict[str, Any]]:
        """The ``intent/recorded`` notifications after the first ``since``."""
        await self.wait_for(lambda: len(self.recorded) >= since + count, what)
        return self.recorded[since:]

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    def write_file(self, path: Path, data: str | bytes | None) -> None:
        """Changes a file on disk behind the server's back, as git or another tool would;
        a client that watches files for the server then reports it."""
        existed = path.exists()
        if data is None:
            if path.is_dir():
                _remove_tree(path)
            else:
                path.unlink()
            kind = types.FileChangeType.Deleted
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(data, bytes):
                path.write_bytes(data)
            else:
                path.write_text(data, encoding="utf-8")
            kind = types.FileChangeType.Changed if existed else types.FileChangeType.Created
        if self.registrations:
            self.client.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(
                    changes=[types.FileEvent(uri=uri_of(path), type=kind)]
                )
            )

    # -- requests -------------------------------------------------------------------

    async def code_actions(
        self, uri: str, diagnostics: list[types.Diagnostic], only: list[str] | None = None
    ) -> list[types.CodeAction]:
        rng = (
            diagnostics[0].range
            if diagnostics
            else types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
        )
        result = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=rng,
                context=types.CodeActionContext(diagnostics=diagnostics, only=only),
            )
        )
        return [a for a in result or [] if isinstance(a, types.CodeAction)]

    async def execute(self, command: str, *arguments: Any) -> Any:
        result = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=list(arguments))
        )
        return plain(result)

    async def run_action(self, action: types.CodeAction) -> Any:
        assert action.command is not None
        return await self.execute(action.command.command, *(action.command.arguments or []))


def plain(value: Any) -> Any:
    """JSON-ish data back from pygls' namedtuples (what untyped params arrive as)."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def make_client(editor_box: list[Editor]) -> LanguageClient:
    client = LanguageClient(converter_factory=client_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)

    def on_diagnostics(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        if editor_box:
            editor_box[0].history.setdefault(params.uri, []).append(list(params.diagnostics))
            editor_box[0].poke()

    def on_status(client: LanguageClient, params: Any) -> None:
        if editor_box:
            editor_box[0].statuses.append(plain(params))
            editor_box[0].poke()

    def on_show_message(client: LanguageClient, params: types.ShowMessageParams) -> None:
        client.messages.append(params)
        if editor_box:
            editor_box[0].poke()

    def on_recorded(client: LanguageClient, params: Any) -> None:
        if editor_box:
            editor_box[0].recorded.append(plain(params))
            editor_box[0].poke()

    def on_lens_refresh(client: LanguageClient, params: None) -> None:
        if editor_box:
            editor_box[0].lens_refreshes += 1
            editor_box[0].poke()

    def on_register(client: LanguageClient, params: types.RegistrationParams) -> None:
        if editor_box:
            editor_box[0].registrations.extend(params.registrations)

    def on_apply_edit(
        client: LanguageClient, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        if editor_box:
            editor_box[0].applied_edits.append(params.edit)
            editor_box[0].poke()
            if editor_box[0].apply_error is not None:
                # Like eglot refusing an edit made for another version: an error reply.
                raise ValueError(editor_box[0].apply_error)
        return types.ApplyWorkspaceEditResult(applied=True)

    def on_message_request(
        client: LanguageClient, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None:
        editor = editor_box[0]
        editor.message_requests.append(params)
        editor.poke()
        for action in params.actions or []:
            if editor.pick and action.title.startswith(editor.pick):
                return action
        return None

    default_progress = features[types.PROGRESS]

    def on_progress(client: LanguageClient, params: types.ProgressParams) -> None:
        default_progress(client, params)
        if editor_box:
            editor_box[0].poke()

    features[types.PROGRESS] = on_progress
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = on_diagnostics
    features[types.WINDOW_SHOW_MESSAGE] = on_show_message
    features["intent/status"] = on_status
    features["intent/recorded"] = on_recorded
    features[types.WORKSPACE_CODE_LENS_REFRESH] = on_lens_refresh
    features[types.CLIENT_REGISTER_CAPABILITY] = on_register
    features[types.WORKSPACE_APPLY_EDIT] = on_apply_edit
    features[types.WINDOW_SHOW_MESSAGE_REQUEST] = on_message_request
    register_lsp_features(client, features)
    return client


def fresh_workspace(tmp_path: Path, name: str = "ws") -> Path:
    root = tmp_path / name
    shutil.copytree(EXAMPLE, root)
    return root


async def start_editor(
    name: str,
    roots: list[Path],
    options: dict[str, Any] | None = None,
    configuration: dict[str, Any] | None = None,
    apply_edit: bool = True,
    experimental: Any = None,
    env: dict[str, str] | None = None,
    capabilities: types.ClientCapabilities | None = None,
    client_info: types.ClientInfo | None = None,
) -> Editor:
    """``capabilities`` and ``client_info`` replace what the editor ``name`` sends (a
    client pytest-lsp does not know sends no ``clientInfo`` unless given one)."""
    box: list[Editor] = []
    client = make_client(box)
    await client.start_io(*SERVER, env=env)
    caps = client_capabilities(name) if capabilities is None else capabilities
    editor = Editor(client, name, roots, caps)
    box.append(editor)
    if configuration is not None:
        client.set_configuration(configuration, section="intentLs")
    if not apply_edit and caps.workspace is not None:
        caps.workspace.apply_edit = False
    if experimental is not None:
        caps.experimental = experimental
    init_options = {"intentLs": FAST} if options is None else options
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            client_info=client_info or CLIENT_INFO.get(name),
            workspace_folders=[types.WorkspaceFolder(uri=uri_of(r), name=r.name) for r in roots],
            root_uri=uri_of(roots[0]),
            initialization_options=init_options,
        )
    )
    encoding = result.capabilities.position_encoding or types.PositionEncodingKind.Utf16
    editor.codec = PositionCodec(encoding)
    editor.init_result = result
    # The server is ready once it has announced every folder's status.
    await editor.wait_for(
        lambda: {s["folder"] for s in editor.statuses} >= {uri_of(r) for r in roots},
        "the initial intent/status of every folder",
    )
    return editor


async def stop_editor(editor: Editor) -> None:
    await editor.client.shutdown_session()
    await editor.client.stop()


def meta(record: dict[str, Any]) -> dict[str, Any]:
    return record["metadata"]["intent_ls"]


def stale_of(diags: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diags if d.code == "stale-file"]


def _remove_tree(path: Path) -> None:
    """``rm -rf``, as a user repeats it: the server may be writing its index into the
    tree (a journal file appears between listing and removing a directory) until it
    hears the tree is gone."""
    for _ in range(20):
        try:
            shutil.rmtree(path)
            return
        except OSError as exc:
            if exc.errno != errno.ENOTEMPTY:
                raise
    shutil.rmtree(path)
