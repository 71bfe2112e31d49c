"""pygls' text synchronisation, hardened and converted once.

Notifications a client may legitimately send out of order never surface as "internal
error", and a change to a document the server tracks is applied by the server alone.

pygls keeps its own copy of each open document and updates it before any handler of
ours runs; for a ``didChange`` or ``didClose`` of a document that is not open that update
raises ``KeyError``, which pygls reports as an internal error. Such a notification (the
client's state and ours disagree, e.g. a didChange racing a didClose) is ignored here,
with one log line.

pygls would also apply every change to its copy, converting each position character by
character in Python (hundreds of milliseconds on a 1,000,000-character line) before our
handler converts it again; for documents the server tracks, the handler applies the
change to its own copy and :func:`mirror` sets pygls' copy to the result.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.protocol.language_server import lsp_method
from pygls.workspace.text_document import TextDocument

from intent_ls.server.guard import brief
from intent_ls.server.transport import BoundedProtocol

logger = logging.getLogger(__name__)


def mirror(document: TextDocument, text: str, version: int | None) -> None:
    """Sets pygls' copy of a document to ``text`` (already changed by the server)."""
    document.apply_change(types.TextDocumentContentChangeWholeDocument(text=text))
    document.version = version


class IntentProtocol(BoundedProtocol):
    def _unknown(self, uri: str, method: str) -> bool:
        if unquote(uri) in self.workspace.text_documents:
            return False
        message = f"intent-ls: ignored {method} for {brief(uri)}: the document is not open"
        logger.info(message)
        self.notify(
            types.WINDOW_LOG_MESSAGE,
            types.LogMessageParams(type=types.MessageType.Log, message=message),
        )
        return True

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, Any]:
        if self._unknown(params.text_document.uri, "didChange"):
            return
        if params.text_document.uri in getattr(self._server, "documents", {}):
            # The server's own copy takes the change (converting positions once) and
            # sets pygls' copy to the result: see TrackedDocument.follow.
            handler = self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)
            if handler is not None:
                yield handler, (params,), None
            return
        yield from super().lsp_text_document__did_change(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, Any]:
        if self._unknown(params.text_document.uri, "didClose"):
            return
        yield from super().lsp_text_document__did_close(params)
