"""Noticing when ``active_intents.yaml`` or ``.intentignore`` change on disk.

Clients that can watch files for us get a dynamic ``workspace/didChangeWatchedFiles``
registration (cheap, immediate). Others (Neovim before 0.10 without the capability, most
batch clients), or a client that refuses the registration, get a polling task: each
tick asks every folder to refresh, which costs two ``stat`` calls when nothing changed
because the core's Workspace caches on file identity.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.capabilities import get_capability

if TYPE_CHECKING:
    from intent_ls.server.server import IntentLanguageServer

logger = logging.getLogger(__name__)

WATCHED_GLOBS = (
    "**/.orchestration/active_intents.yaml",
    "**/.orchestration",
    "**/.intentignore",
)


class Watcher:
    def __init__(self, ls: IntentLanguageServer) -> None:
        self.ls = ls
        self.mode = "off"
        self._poller: asyncio.Task[None] | None = None

    async def start(self) -> None:
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
                last_error = ""
            except Exception as exc:  # keep polling whatever one refresh hit
                if str(exc) != last_error:  # say it once, not every tick
                    last_error = str(exc)
                    self.ls.report_failure("reloading the intent spec", exc)

    def stop(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            self._poller = None
