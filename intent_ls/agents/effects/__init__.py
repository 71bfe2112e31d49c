"""What an agent's tool call did to the disk, judged after it ran.

A static classifier cannot know what ``npm test``, ``python gen.py`` or a ``sed`` script
writes, so every hooked tool call is also judged by its effects: the workspace's state
is taken just before the call (:mod:`.snapshot`), compared with the disk after it
(:mod:`.compare`), and each change is attributed (:mod:`.attribute`): a protected path
or an out-of-scope file is put back byte for byte (:mod:`.restore`), a destructive change
is put back until a human approves it, and an in-scope change is recorded in the ledger
as the session's. What was put back is logged
(:mod:`intent_ls.workspace.effects_log`) for the human and for ``intent-ls check``.
"""
