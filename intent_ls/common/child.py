"""Starting this interpreter on a piece of this package in a second process.

multiprocessing's spawn would re-import the caller's ``__main__``, which for ``python -m
intent_ls`` runs the CLI, so children are plain interpreters given the code to run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path
from typing import IO

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


def python_child(
    code: str,
    *args: str,
    stdin: int | IO[bytes] = subprocess.DEVNULL,
    pass_fds: Collection[int] = (),
) -> subprocess.Popen[bytes]:
    """This interpreter running ``code`` with this package importable, its stdout piped.
    ``-P``: ``-c`` would put the working directory first on the path, and that is often
    the workspace, where a repository's own ``intent_ls/`` directory would be imported in
    place of this one. ``PYTHONPATH`` still applies, after this tree."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-P", "-c", code, *args],
        stdin=stdin,
        stdout=subprocess.PIPE,
        pass_fds=tuple(pass_fds),
        env=env,
    )


def stop_child(proc: subprocess.Popen[bytes]) -> None:
    """Ends a child that may still be running (a build or check given up on, or failed)
    and releases its pipe, so nothing outlives the work it was started for."""
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
