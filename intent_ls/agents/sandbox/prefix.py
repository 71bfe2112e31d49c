"""``intent-ls-sandbox SCRIPT``: the command prefix an agent puts before
every shell command it runs (Claude Code's ``CLAUDE_CODE_SHELL_PREFIX``, which
``intent-ls hooks install claude-code`` sets in the project's settings).

The agent checks its permissions on the command as the model wrote it, shows that
command to the human, and only then runs ``intent-ls-sandbox SCRIPT``,
where SCRIPT is its own shell line around the command. So the agent's permission
system is untouched — a command it ran unprompted before still runs unprompted, a
``Bash(npm test:*)`` rule still matches — and the command, with everything it starts,
runs in the sandbox of the workspace it is in.

The agent puts the same prefix before the hook and MCP server commands of its settings
(an MCP server it starts with the prefix as the program, so the prefix is one word).
Those lines come from files no agent command can write (the settings are read-only in
the sandbox), and a shell command of the agent always reaches here wrapped in the
agent's own script, never as a bare line: so exactly intent-ls's own ``hook NAME`` and
``mcp`` lines run as they are — the hook must write the ledger — and every other line
(another MCP server, the user's own hooks) runs in the sandbox too.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

#: Claude Code ends its script by writing the shell's working directory to a file in
#: the host's ``/tmp``, which it reads after the command; the sandbox's ``/tmp`` is its
#: own, so that file is copied out when the command ends.
_CWD_FILE = re.compile(r"&& pwd -P >\| ('?)(/[^'\s]+)\1\s*$")
_USAGE = "usage: intent-ls-sandbox SCRIPT\n"


def _own_line(script: str) -> list[str] | None:
    """intent-ls's own hook or MCP server line, as its settings hold it, else None (the
    hook checks the agent name it is given)."""
    try:
        words = shlex.split(script)
    except ValueError:
        return None
    if not words or os.path.basename(words[0]) != "intent-ls":
        return None
    if words[1:] == ["mcp"] or (len(words) == 3 and words[1] == "hook"):
        return words
    return None


def _root(agent: str, session_id: str) -> Path | None:
    """The session's workspace: the one its first hook event pinned, else the nearest
    spec above the working directory. A decoy deeper down only narrows what the command
    may write: the workspace is the one writable tree."""
    from intent_ls.agents import session_root
    from intent_ls.workspace.locate import discover_workspace

    pinned = session_root.pinned(agent, session_id)
    return pinned if pinned is not None else discover_workspace(Path.cwd())


def main(agent: str, session_var: str, argv: list[str] | None = None) -> int:
    """The prefix of ``agent``, whose shell commands hold its session id in
    ``session_var`` (the agent's folder names both: ``intent-ls-sandbox`` is its entry)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write(_USAGE)
        return 2
    script = args[0]
    own = _own_line(script)
    if own is not None:
        found = shutil.which(own[0]) or own[0]
        os.execv(found, own)
    return run_script(agent, os.environ.get(session_var, ""), script)


def run_script(agent: str, session_id: str, script: str) -> int:
    from intent_ls.agents.sandbox import availability

    root = _root(agent, session_id)
    bash = shutil.which("bash") or "/bin/bash"
    if root is None:
        sys.stderr.write(
            "intent-ls: this command is outside every governed workspace, and the shell "
            "prefix runs commands only inside one; it did not run\n"
        )
        return 126
    bwrap, paths = availability.for_session(root, agent, session_id)
    if bwrap is None:  # no sandbox here: verified after the call, as doctor says
        os.execv(bash, [bash, "-c", script])
    return _confined(bwrap, root, session_id or str(root), script, bash, paths)


def _confined(
    bwrap: str, root: Path, key: str, script: str, bash: str, paths: dict[str, list[str]]
) -> int:
    from intent_ls.agents.sandbox import gather
    from intent_ls.agents.sandbox.run import needs_pid_namespace, wait_confined

    try:
        pid_ns = needs_pid_namespace()
        plan = gather.build(root, os.getcwd(), key, pid_namespace=pid_ns, paths=paths, bwrap=bwrap)
    except OSError as exc:
        sys.stderr.write(f"intent-ls: the sandbox could not be planned ({exc}); ")
        sys.stderr.write("the command did not run\n")
        return 126
    status = wait_confined(bwrap, plan, bash, script)
    _copy_cwd_file(script, plan.tmp)
    return status


def _copy_cwd_file(script: str, tmp: str) -> None:
    match = _CWD_FILE.search(script)
    if match is None:
        return
    host = match.group(2)
    top = os.path.realpath(tempfile.gettempdir())
    if os.path.dirname(os.path.realpath(host)) != top:
        return
    inside = os.path.join(tmp, os.path.basename(host))
    try:
        with open(inside, "rb") as fh:
            data = fh.read(4096)
        os.unlink(inside)
    except OSError:
        return
    fd = os.open(host, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
