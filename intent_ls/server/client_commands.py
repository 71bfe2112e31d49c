"""Commands a client runs itself, announced in its capabilities.

A client lists them under ``capabilities.experimental.intentLs.clientCommands`` (as
rust-analyzer's clients list theirs under ``experimental.commands``); the server then
offers such a command in a code action where it would otherwise send an edit.

The project's Emacs clients announce "Reload from disk": applying the replacement edit
to a modified buffer whose file changed on disk makes Emacs ask "discard your edits?",
and reverting the buffer themselves spares the user that question. A client announcing
nothing (plain eglot, Neovim, VS Code) gets the edit; in Emacs it is one that is right
whether or not Emacs reverted the buffer on the way
(:func:`intent_ls.server.stale.reload_buffer`).
"""

from __future__ import annotations

from lsprotocol import types

#: Reverts the buffer of the one argument (a document URI) from disk.
RELOAD_FROM_DISK = "intent.reloadFromDisk"


def runs_itself(caps: types.ClientCapabilities | None, command: str) -> bool:
    """Whether the client announced that it runs ``command`` itself. Anything but a list
    of strings there announces nothing."""
    experimental = caps.experimental if caps is not None else None
    ours = experimental.get("intentLs") if isinstance(experimental, dict) else None
    commands = ours.get("clientCommands") if isinstance(ours, dict) else None
    return isinstance(commands, list) and command in commands
