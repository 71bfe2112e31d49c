"""The write barrier for an agent's shell command, where the agent lets a hook rewrite
it: the command runs in the sandbox (:mod:`intent_ls.agents.sandbox`).

Verification after the call (:mod:`.effects`) puts files back, but a change that runs
code within the same command — a git hook written and triggered by one ``bash -c`` — is
over before any after-tool check. Where the agent lets a hook rewrite the command
(Codex's PreToolUse ``updatedInput``, Gemini CLI's BeforeTool ``tool_input``), it runs
as ``python -I -m intent_ls.agents.barrier ROOT SESSION COMMAND`` (:func:`wrap`), which
becomes bubblewrap around ``bash -c COMMAND``: the workspace, a private ``/tmp`` and
the caches are writable, the protected paths and everything else are not, for the
command and everything it starts, for as long as they live. Claude Code needs no
rewrite: it runs every command through a prefix (:mod:`intent_ls.agents.sandbox.prefix`).
Where no sandbox can be made, :func:`available` says so and the hooks fall back to
verification alone.
"""

from __future__ import annotations

import os
import re
from pathlib import Path


def available() -> bool:
    """Whether bubblewrap can build a sandbox here (tried in a short-lived child)."""
    from intent_ls.agents.sandbox import bwrap

    return bwrap.works()[0]


def _confined() -> bool:
    """Whether this process runs with ``no_new_privs``, as agents' sandboxes set it
    (Codex's): only then is :func:`available` asked again, which costs a sandbox."""
    try:
        with open("/proc/self/status", "rb") as fh:
            return b"\nNoNewPrivs:\t1" in fh.read()
    except OSError:
        return True


def _touched(paths: list[str | None]) -> tuple[str, ...]:
    """The agent's out-files, made on the host so that the sandbox writes through to them."""
    made = []
    for path in paths:
        if path:
            with open(path, "ab"):
                pass
            made.append(path)
    return tuple(made)


def _script(command: str, cwd_out: str | None, jobs_out: str | None) -> str:
    import shlex

    script = command
    if jobs_out:
        trap = "trap 'jobs -p > \"$__ils_jobs\"' EXIT"
        script = f"__ils_jobs={shlex.quote(jobs_out)}\n{trap}\n{script}"
    if cwd_out:
        script = f'{script}\n__ils_status=$?; pwd -P > "$__ILS_CWD_OUT"; exit $__ils_status'
        os.environ["__ILS_CWD_OUT"] = cwd_out
    return script


def run(
    root: Path,
    command: str,
    cwd_out: str | None,
    jobs_out: str | None = None,
    session: str = "",
) -> int:
    """Becomes ``bash -c command`` in the sandbox; returns 2 (after saying why on
    stderr) when the sandbox cannot be planned: the command does not run.

    Where no sandbox can be made at all although the hook found one (the agent runs
    its commands in a sandbox of its own, as Codex does unless given full access), the
    command runs without it, saying so: what it changes is verified after it ran, as
    for an agent that cannot rewrite commands. With ``jobs_out`` (Gemini CLI) the shell
    lists the jobs it leaves running there at exit, as Gemini's own wrapper around the
    command would have (an ``exec`` leaves that wrapper no shell to ask). The processes
    it leaves running count for ``session`` (:mod:`.sandbox.liveness`), for the
    workspace when none is given.
    """
    import shutil
    import sys

    from intent_ls.agents.sandbox import bwrap, gather
    from intent_ls.agents.sandbox.run import exec_confined, needs_pid_namespace

    bash = shutil.which("bash") or "/bin/bash"
    script = _script(command, cwd_out, jobs_out)
    found = bwrap.binary()
    if found is None or (_confined() and not available()):
        sys.stderr.write(
            "intent-ls: no sandbox inside this agent's sandbox; what the command "
            "changes is verified after it ran\n"
        )
        os.execv(bash, [bash, "-c", script])
    try:
        out_files = _touched([cwd_out, jobs_out])
        plan = gather.build(
            root, os.getcwd(), session or str(root), out_files, needs_pid_namespace(), bwrap=found
        )
        exec_confined(found, plan, bash, script)
    except OSError as exc:
        sys.stderr.write(f"intent-ls: the sandbox could not be set up ({exc}); ")
        sys.stderr.write("the command did not run\n")
    return 2


def wrap(
    python: str, root: Path, command: str, jobs_var: str | None = None, session: str = ""
) -> str:
    """The agent's shell command, run in the sandbox, with the same status.

    The agent's shell (a fresh one per call) becomes the sandbox, and the command
    follows verbatim, never reached: the agent's own checks of the command text (Codex
    refusing ``rm -f``, Gemini refusing command substitution, both agents' rules on
    each command of the script) still see it. ``jobs_var`` names the agent shell's
    variable holding the file its wrapper lists background jobs into (see :func:`run`);
    ``session``, the agent session the processes it leaves running belong to (none: the
    workspace, for the form a model writes itself).
    """
    import shlex

    q = shlex.quote
    head = f"{q(python)} -I -m {_MODULE} {q(str(root))}"
    jobs = f' "${{{jobs_var}-}}"' if jobs_var else ""
    return f"exec {head} {q(session)} {q(command)}{jobs}{_ONCE}{command}"


_MODULE = "intent_ls.agents.barrier"
#: Ends the barrier's line in :func:`wrap`'s single-shot form: should ``exec`` fail,
#: the shell stops there and the verbatim copy after it never runs.
_ONCE = " || exit 126\n"
_JOBS_WORD = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)-\}")


def unwrap(command: str) -> str:
    """The agent's own command inside :func:`wrap`'s, or ``command`` itself. Only an
    exact :func:`wrap` output is unwrapped: a look-alike with more after it is judged
    whole, since all of it would run."""
    if f" -m {_MODULE} " not in command or not command.startswith("exec "):
        return command
    at = command.find(_ONCE)
    while at >= 0:
        inner = _inner(command, command[len("exec ") : at])
        if inner is not None:
            return inner
        at = command.find(_ONCE, at + 1)
    return command


def _inner(command: str, head: str) -> str | None:
    import shlex

    try:
        words = shlex.split(head)
    except ValueError:
        return None
    if len(words) not in (7, 8) or words[1:4] != ["-I", "-m", _MODULE]:
        return None
    jobs = _JOBS_WORD.fullmatch(words[7]) if len(words) == 8 else None
    if len(words) == 8 and jobs is None:
        return None
    python, root, session, inner = words[0], Path(words[4]), words[5], words[6]
    if wrap(python, root, inner, jobs.group(1) if jobs else None, session) == command:
        return inner
    return None


if __name__ == "__main__":
    import sys

    if len(sys.argv) not in (4, 5):
        sys.stderr.write(
            "usage: python -m intent_ls.agents.barrier ROOT SESSION COMMAND [JOBS_OUT]\n"
        )
        sys.exit(2)
    jobs_out = sys.argv[4] if len(sys.argv) == 5 else ""
    sys.exit(run(Path(sys.argv[1]), sys.argv[3], None, jobs_out or None, sys.argv[2]))
