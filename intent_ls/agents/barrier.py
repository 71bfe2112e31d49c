"""A write barrier for an agent's shell command: read-only bind mounts, before it runs.

Verification after the call (:mod:`.effects`) puts files back, but a change that runs
code within the same command — a git hook written and triggered by one ``bash -c`` — is
over before any after-tool check. Where the agent lets a hook rewrite the command
(Claude Code's and Codex's PreToolUse ``updatedInput``, Gemini CLI's BeforeTool
``tool_input``), it runs as ``python -I -m intent_ls.agents.barrier ROOT CWD_FILE
COMMAND`` (:func:`wrap`): this process enters a new user and mount namespace
(unprivileged, where the kernel allows it), bind-mounts every existing protected path
onto itself read-only, then becomes ``bash -c COMMAND``. Everything the
command runs sees those paths read-only: writes fail with EROFS, removing or renaming
over them with EBUSY. The rest of the file system, and the rest of the host, are as
they were; the mounts vanish with the command's last process.

Landlock was tried first and cannot do this: its rules are allow-lists of whole trees,
so a read-only ``.orchestration/`` leaves the workspace root (its parent) without
removes, renames and writes to new files, and ``git add`` or an atomic save at the root
fails. Where no namespace can be made, :func:`available` says so and the hooks fall
back to verification alone.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Any

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNS = 0x00020000
_MS_RDONLY = 1
_MS_REMOUNT = 32
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18


@functools.cache
def _libc() -> Any:
    """The C library, loaded by the barrier process only: every hook process imports
    this module for :func:`wrap` and :func:`unwrap`, and ctypes would cost it ~2 ms."""
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


class BarrierError(OSError):
    pass


def _check(result: int, what: str) -> None:
    if result != 0:
        import ctypes

        err = ctypes.get_errno()
        raise BarrierError(err, f"{what}: {os.strerror(err)}")


def available() -> bool:
    """Whether this process may make a user and mount namespace and map itself into it
    (tried in a short-lived child, so the caller is left as it was). Inside an agent's
    own sandbox (Codex's ``workspace-write`` and ``read-only``) the namespace is made but
    the map is refused: a process that went on would run as an unmapped user."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child only reports through its status
        try:
            _enter_namespace()
        except OSError:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _confined() -> bool:
    """Whether this process runs with ``no_new_privs``, as agents' sandboxes set it
    (Codex's): only then is :func:`available` asked again, which costs a fork."""
    try:
        with open("/proc/self/status", "rb") as fh:
            return b"\nNoNewPrivs:\t1" in fh.read()
    except OSError:
        return True


def _enter_namespace() -> None:
    uid, gid = os.getuid(), os.getgid()
    _check(_libc().unshare(_CLONE_NEWUSER | _CLONE_NEWNS), "unshare")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):  # fmt: skip
        with open(f"/proc/self/{name}", "w") as fh:
            fh.write(text)


def _mount(source: bytes | None, target: bytes, flags: int) -> None:
    import ctypes

    _check(_libc().mount(source, target, None, ctypes.c_ulong(flags), None), "mount")


def restrict(protected: list[str]) -> int:
    """Makes every existing path of ``protected`` read-only for this process and what it
    runs; returns how many were. Raises :class:`BarrierError`."""
    try:
        _enter_namespace()
    except OSError as exc:
        raise BarrierError(exc.errno, f"namespace: {exc.strerror}") from exc
    _mount(None, b"/", _MS_REC | _MS_PRIVATE)  # nothing leaks back to the host
    count = 0
    for path in sorted(set(protected)):
        if not os.path.lexists(path) or os.path.islink(path):
            continue  # created during the call: verification removes it
        target = os.fsencode(path)
        _mount(target, target, _MS_BIND | _MS_REC)
        _mount(None, target, _MS_REMOUNT | _MS_BIND | _MS_RDONLY)
        count += 1
    return count


def protected_paths(root: Path) -> list[str]:
    """What the barrier keeps read-only: the effects' protected set, their store and the
    existing files the repository's ``policy.agentProtectedPaths`` names (files it
    creates there are removed by verification after the call)."""
    from intent_ls.agents.effects.protected_set import roots
    from intent_ls.agents.effects.store import state_home

    files, trees = roots(root)
    return [*files, *trees, str(state_home()), *_policy_files(root)]


def _policy_files(root: Path) -> list[str]:
    """Read before the command starts, so as the before-tool event read them: the spec is
    read-only from then on. A spec that does not name the key costs one read."""
    from intent_ls.agents.effects.protected_set import SIDECAR, PolicyPaths

    spec_path = root / SIDECAR / "active_intents.yaml"
    try:
        if b"agentProtectedPaths" not in spec_path.read_bytes():
            return []
    except OSError:
        return []
    from intent_ls.spec.cache import load_spec_cached

    spec, _ = load_spec_cached(root, spec_path)
    globs = spec.policy.agent_protected_paths if spec is not None else ()
    return [path for path, _, _ in PolicyPaths(globs).walk(root)]


def run(root: Path, command: str, cwd_out: str | None, jobs_out: str | None = None) -> int:
    """Restricts this process, then becomes ``bash -c command``; returns 2 (after
    saying why on stderr) when the barrier cannot be set up: the command does not run.

    Where no namespace can be made at all although the hook found one (the agent runs
    its commands in a sandbox of its own, as Codex does unless given full access), the
    command runs without the barrier, saying so: what it changes is verified after it
    ran, as for an agent that cannot rewrite commands. With ``jobs_out`` (Gemini CLI)
    the shell lists the jobs it leaves running there at exit, as Gemini's own wrapper
    around the command would have (an ``exec`` leaves that wrapper no shell to ask).
    """
    import shlex
    import sys

    if _confined() and not available():
        sys.stderr.write(
            "intent-ls: no write barrier inside this agent's sandbox; what the command "
            "changes is verified after it ran\n"
        )
    else:
        try:
            restrict(protected_paths(root))
        except BarrierError as exc:
            sys.stderr.write(f"intent-ls: the write barrier could not be set up ({exc}); ")
            sys.stderr.write("the command did not run\n")
            return 2
    script = command
    if jobs_out:
        trap = "trap 'jobs -p > \"$__ils_jobs\"' EXIT"
        script = f"__ils_jobs={shlex.quote(jobs_out)}\n{trap}\n{script}"
    if cwd_out:
        script = f'{script}\n__ils_status=$?; pwd -P > "$__ILS_CWD_OUT"; exit $__ils_status'
        os.environ["__ILS_CWD_OUT"] = cwd_out
    os.execvp("bash", ["bash", "-c", script])
    return 2  # not reached: exec replaced this process


def wrap(
    python: str, root: Path, command: str, cwd_out: str | None, jobs_var: str | None = None
) -> str:
    """The agent's shell command, run under the barrier, with the same status.

    With ``cwd_out`` (Claude Code, whose shell persists between calls) the agent shell's
    working directory follows a ``cd`` in the command, as it would unwrapped. Without it
    (Gemini CLI, Codex: a fresh shell per call) the shell becomes the barrier, and the
    command follows verbatim, never reached: the agent's own checks of the command text
    (Codex refusing ``rm -f``, Gemini refusing command substitution, both agents' rules
    on each command of the script) still see it. ``jobs_var`` names the agent shell's
    variable holding the file its wrapper lists background jobs into (see :func:`run`).
    """
    import shlex

    q = shlex.quote
    head = f"{q(python)} -I -m {_MODULE} {q(str(root))}"
    if cwd_out is None:
        jobs = f' "${{{jobs_var}-}}"' if jobs_var else ""
        return f"exec {head} '' {q(command)}{jobs}{_ONCE}{command}"
    return (
        f"{head} {q(cwd_out)} {q(command)}; "
        f'__ils=$?; cd "$(cat {q(cwd_out)} 2>/dev/null || pwd)"; rm -f {q(cwd_out)}; '
        "(exit $__ils)"
    )


_MODULE = "intent_ls.agents.barrier"
#: Ends the barrier's line in :func:`wrap`'s single-shot form: should ``exec`` fail,
#: the shell stops there and the verbatim copy after it never runs.
_ONCE = " || exit 126\n"
_JOBS_WORD = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)-\}")


def unwrap(command: str) -> str:
    """The agent's own command inside :func:`wrap`'s, or ``command`` itself. Only an
    exact :func:`wrap` output is unwrapped: a look-alike with more after it is judged
    whole, since all of it would run."""
    import shlex

    if f" -m {_MODULE} " not in command:
        return command
    heads = []
    if command.startswith("exec "):
        at = command.find(_ONCE)
        while at >= 0:
            heads.append(command[len("exec ") : at])
            at = command.find(_ONCE, at + 1)
    else:
        heads.append(command.split("; __ils=$?;", 1)[0])
    for head in heads:
        try:
            words = shlex.split(head)
        except ValueError:
            continue
        if len(words) not in (7, 8) or words[1:4] != ["-I", "-m", _MODULE]:
            continue
        jobs = _JOBS_WORD.fullmatch(words[7]) if len(words) == 8 else None
        if len(words) == 8 and jobs is None:
            continue
        python, root, cwd_out, inner = words[0], Path(words[4]), words[5] or None, words[6]
        if wrap(python, root, inner, cwd_out, jobs.group(1) if jobs else None) == command:
            return inner
    return command


if __name__ == "__main__":
    import sys

    if len(sys.argv) not in (4, 5):
        sys.stderr.write(
            "usage: python -m intent_ls.agents.barrier ROOT CWD_OUT COMMAND [JOBS_OUT]\n"
        )
        sys.exit(2)
    jobs_out = sys.argv[4] if len(sys.argv) == 5 else ""
    sys.exit(run(Path(sys.argv[1]), sys.argv[3], sys.argv[2] or None, jobs_out or None))
