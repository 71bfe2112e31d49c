"""pygls' text synchronisation, hardened: notifications a client may legitimately send
out of order or malformed never surface as "internal error".

pygls keeps its own copy of each open document and updates it before any handler of
ours runs; for a ``didChange`` or ``didClose`` of a document that is not open that update
raises ``KeyError``, which pygls reports as an internal error. Such a notification (the
client's state and ours disagree, e.g. a didChange racing a didClose) is ignored here,
with one log line.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from intent_ls.server.guard import brief

logger = logging.getLogger(__name__)


class IntentProtocol(LanguageServerProtocol):
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
        yield from super().lsp_text_document__did_change(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, Any]:
        if self._unknown(params.text_document.uri, "didClose"):
            return
        yield from super().lsp_text_document__did_close(params)
