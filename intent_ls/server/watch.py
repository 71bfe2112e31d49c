"""Noticing changes on disk: the spec, ``.intentignore``, the ledger, open documents.

Clients that can watch files for us get a dynamic ``workspace/didChangeWatchedFiles``
registration (cheap, immediate) for the sidecar and for every file (``**/*``), so that
another editor's or an agent's write to an open document, and another process's append
to the ledger, are reported. Others (Neovim 0.11 advertises no dynamic registration,
most batch clients), or a client that refuses the registration, get a polling task:
each tick asks every folder to refresh (two ``stat`` calls when nothing changed, the
core's Workspace caches on file identity), ``stat``s each folder's ledger and each open
governed document, and reads a file only when its (mtime, size, inode) changed.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path

from lsprotocol import types
from pygls.capabilities import get_capability

from intent_ls.common.uris import path_of_uri
from intent_ls.ledger.store import ledger_path
from intent_ls.server import stale
from intent_ls.server.disk import stamp_of
from intent_ls.server.hub import Hub
from intent_ls.server.trace import LEDGER_REL

LEDGER_SUFFIX = "/" + LEDGER_REL

logger = logging.getLogger(__name__)

WATCHED_GLOBS = (
    "**/.orchestration/active_intents.yaml",
    "**/.orchestration",
    "**/.intentignore",
    "**/*",
)


class Watcher:
    def __init__(self, ls: Hub) -> None:
        self.ls = ls
        self.mode = "off"
        self._poller: asyncio.Task[None] | None = None
        self._ledgers: dict[str, tuple[int, int, int] | None] = {}

    def changed(self, uris: list[str]) -> None:
        """Files the client saw change: open documents and ledgers."""
        for uri in uris:
            doc = self.ls.documents.get(uri)
            if doc is not None:
                stale.disk_changed(self.ls, doc)
            folder = self.ls.folder_for_uri(uri)
            if folder is not None and folder.governed and uri.endswith(LEDGER_SUFFIX):
                path = path_of_uri(uri)
                if path and Path(path) == ledger_path(folder.root):
                    self.ls.spawn(self.ls.recorder.ledger_changed(folder))

    def _poll_files(self) -> None:
        stale.poll(self.ls)
        for folder in self.ls.folders:
            if not folder.governed:
                continue
            stamp = stamp_of(ledger_path(folder.root))
            if self._ledgers.setdefault(folder.uri, stamp) != stamp:
                self._ledgers[folder.uri] = stamp
                self.ls.spawn(self.ls.recorder.ledger_changed(folder))

    async def start(self) -> None:
        # The ledgers as they are now: any later append is a change to pick up.
        for folder in self.ls.folders:
            self._ledgers[folder.uri] = stamp_of(ledger_path(folder.root))
        caps = self.ls.client_capabilities
        if get_capability(caps, "workspace.did_change_watched_files.dynamic_registration", False):
            registration = types.Registration(
                id=f"intent-ls-watch-{uuid.uuid4().hex[:8]}",
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern=g) for g in WATCHED_GLOBS]
                ),
            )
            try:
                await self.ls.client_register_capability_async(
                    types.RegistrationParams(registrations=[registration])
                )
            except Exception as exc:  # any refusal means: watch ourselves
                logger.info("client refused file watching (%s); polling instead", exc)
            else:
                self.mode = "client"
                return
        self.mode = "poll"
        self._poller = self.ls.spawn(self._poll())

    async def _poll(self) -> None:
        last_error = ""
        while True:
            await asyncio.sleep(self.ls.config.poll_interval)
            try:
                self.ls.refresh_all()
                self._poll_files()
                last_error = ""
            except Exception as exc:  # keep polling whatever one refresh hit
                if str(exc) != last_error:  # say it once, not every tick
                    last_error = str(exc)
                    self.ls.report_failure("reloading the intent spec", exc)

    def stop(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            self._poller = None
