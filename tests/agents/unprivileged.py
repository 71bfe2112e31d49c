"""Running intent-ls, its sandbox's launcher and a real agent CLI as an unprivileged user
(``nobody``), as the tests that replay attacks as root and as such a user need them
(tests/agents/sandbox/test_attacks.py, tests/agents/test_real_routes.py).

CI runs as root, so another user is switched to with ``setpriv``. What root installed
under ``/root`` (pyenv's Python, the agents' npm folder) is out of that user's reach:
the interpreter is copied out, the checkout is put on ``PYTHONPATH``, and an agent's
binary is hard-linked into a folder the user can enter.
"""

from __future__ import annotations

import atexit
import functools
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import intent_ls

NOBODY = 65534
#: The system's Python, which an unprivileged user can run (a pyenv Python under /root
#: cannot be reached by another user).
SYSTEM_PYTHON = "/usr/bin/python3"


def skip_reason() -> str | None:
    """Why no test can run as another user here; None when one can."""
    if os.getuid() != 0 or shutil.which("setpriv") is None:
        return "an unprivileged user needs root to switch to (CI runs as root)"
    if not Path(SYSTEM_PYTHON).exists():
        return f"no {SYSTEM_PYTHON} for the unprivileged user to run the launcher with"
    closed = closed_to_others(Path(intent_ls.__file__).parent)
    if closed is not None:
        return f"the checkout is not reachable by another user ({closed} is private)"
    return None


def closed_to_others(path: Path) -> Path | None:
    """The first folder above ``path`` other users cannot enter (``mktemp -d``'s 0700)."""
    return next((p for p in (path, *path.parents) if not p.stat().st_mode & 0o001), None)


def as_user(argv: list[str], uid: int = NOBODY) -> list[str]:
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *argv]


def on_this_checkout() -> str:
    """PYTHONPATH for another user: this checkout and the environment's packages."""
    purelib = sysconfig.get_paths()["purelib"]
    return f"PYTHONPATH={Path(intent_ls.__file__).parent.parent}:{purelib}"


def launcher() -> list[str]:
    """The sandbox's launcher as another user can run it: the system's Python on this
    checkout. It imports no compiled package, so any Python 3 runs it."""
    code = (
        "import sys; sys.argv[0] = 'intent-ls-sandbox'\n"
        "from intent_ls.agents.claude_code.shell_prefix import main\n"
        "sys.exit(main())"
    )
    return ["env", on_this_checkout(), SYSTEM_PYTHON, "-c", code]


@functools.cache
def python() -> list[str]:
    """This interpreter where another user can run it, for the hook, whose compiled
    packages (tree-sitter, PyYAML) are built for this Python's version: its binary, its
    shared library and its standard library (not the tests) copied out of /root."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    base = Path(sys.base_prefix)
    dest = Path(tempfile.mkdtemp(prefix="intent-ls-python-"))
    os.chmod(dest, 0o755)
    atexit.register(shutil.rmtree, dest, True)
    (dest / "bin").mkdir()
    shutil.copy2(os.path.realpath(sys.executable), dest / "bin" / version)
    skipped = shutil.ignore_patterns("test", "site-packages", "idlelib", "tkinter", "turtledemo")
    shutil.copytree(base / "lib" / version, dest / "lib" / version, ignore=skipped)
    for shared in (base / "lib").glob(f"lib{version}*.so*"):
        shutil.copy2(shared, dest / "lib" / shared.name)
    env = [f"LD_LIBRARY_PATH={dest / 'lib'}", on_this_checkout()]
    return ["env", *env, str(dest / "bin" / version)]


@functools.cache
def environment() -> tuple[str, dict[str, str]]:
    """A virtual environment of :func:`python`'s interpreter that another user can run
    intent-ls from, as an agent's hooks and its barrier do (``python -I -m …``, which
    reads no ``PYTHONPATH``: a ``.pth`` file names this checkout and its packages), and
    the variables its interpreter needs (its shared library)."""
    interpreter = python()
    lib = interpreter[1].removeprefix("LD_LIBRARY_PATH=")
    dest = Path(tempfile.mkdtemp(prefix="intent-ls-venv-"))
    os.chmod(dest, 0o755)
    atexit.register(shutil.rmtree, dest, True)
    env = {**os.environ, "LD_LIBRARY_PATH": lib}
    subprocess.run([interpreter[-1], "-m", "venv", "--without-pip", str(dest)], env=env, check=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    paths = on_this_checkout().removeprefix("PYTHONPATH=").split(":")
    (dest / "lib" / version / "site-packages" / "intent-ls-checkout.pth").write_text(
        "".join(f"{p}\n" for p in paths)
    )
    return str(dest / "bin" / "python"), {"LD_LIBRARY_PATH": lib}


def commands_bin(folder: Path, log: Path) -> Path:
    """A folder holding ``intent-ls`` and ``intent-ls-sandbox`` as the user runs them
    (from :func:`environment`), for the front of that user's ``PATH``; ``intent-ls``
    appends its stderr to ``log`` (a traceback there is a crash the agent failed open
    on), the sandbox's launcher leaves the command's own to the agent."""
    folder.mkdir(parents=True, exist_ok=True)
    venv, env = environment()
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    sandbox = (
        "import sys; sys.argv[0] = 'intent-ls-sandbox'\n"
        "from intent_ls.agents.claude_code.shell_prefix import main\n"
        "sys.exit(main())"
    )
    for name, args, logged in (
        ("intent-ls", "-m intent_ls", True),
        ("intent-ls-sandbox", f"-c {shlex.quote(sandbox)}", False),  # a command's stderr
    ):
        into = f" 2>>{shlex.quote(str(log))}" if logged else ""
        script = folder / name
        script.write_text(
            f'#!/bin/sh\nexport {exports}\nexec {shlex.quote(venv)} {args} "$@"{into}\n'
        )
        script.chmod(0o755)
    return folder


@functools.cache
def reachable_cli(binary: str) -> str:
    """An agent's CLI installed by npm under /root, where another user can run it: its
    whole ``node_modules`` hard-linked (or else copied), once per test session."""
    modules = Path(binary).parent.parent
    if modules.name != "node_modules":
        raise RuntimeError(f"{binary} is not in an npm folder's node_modules/.bin")
    folder = Path(tempfile.mkdtemp(prefix="intent-ls-agent-"))
    os.chmod(folder, 0o755)
    atexit.register(shutil.rmtree, folder, True)
    dest = folder / "node_modules"
    if subprocess.run(["cp", "-al", str(modules), str(dest)], capture_output=True).returncode:
        shutil.rmtree(dest, ignore_errors=True)
        subprocess.run(["cp", "-a", str(modules), str(dest)], check=True)
    return str(dest / ".bin" / Path(binary).name)


def give(path: Path, uid: int = NOBODY) -> None:
    """``path`` and everything under it made the user's."""
    for folder, dirs, files in os.walk(path):
        for name in (folder, *(os.path.join(folder, n) for n in dirs + files)):
            os.lchown(name, uid, uid)
