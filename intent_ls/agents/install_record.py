"""What ``hooks install`` pointed the agents at, recorded outside every workspace, so that
``doctor`` and each session start can say when the hook's own installation changed.

The hook runs with the user's rights outside any barrier: a ``.pth`` file or a
``sitecustomize`` dropped into the site-packages its interpreter reads runs first in
every hook process, and an edited module of intent-ls runs in its place. The record
holds the interpreter, the package's folder and one digest of the package's source
files and of every start-up file the interpreter's site folders hold (``*.pth``,
``sitecustomize.py``, ``usercustomize.py``). It lives under
``$XDG_STATE_HOME/intent-ls/installs.json``, keyed by the package's folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

_STARTUP = ("sitecustomize.py", "usercustomize.py")


def _record_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "intent-ls" / "installs.json"


def _package() -> Path:
    import intent_ls

    return Path(os.path.realpath(Path(intent_ls.__file__).parent))


def site_dirs() -> list[Path]:
    """The folders whose start-up files this interpreter runs."""
    import site

    found = [*site.getsitepackages(), site.getusersitepackages()]
    return [Path(p) for p in dict.fromkeys(found)]


def digest(package: Path, sites: list[Path]) -> str:
    """One digest of the package's ``.py`` files and the sites' start-up files."""
    whole = hashlib.sha256()
    files = sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    for folder in sites:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        files += [folder / n for n in names if n.endswith(".pth") or n in _STARTUP]
    for path in files:
        try:
            content = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            content = "-"
        whole.update(f"{path}\0{content}\n".encode("utf-8", "surrogateescape"))
    return whole.hexdigest()


def current() -> dict[str, str]:
    """This installation, as the record keeps one."""
    package = _package()
    return {
        "interpreter": os.path.realpath(sys.executable),
        "package": str(package),
        "digest": digest(package, site_dirs()),
    }


def _read() -> dict[str, dict[str, str]]:
    try:
        data = json.loads(_record_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record() -> None:
    """Called by ``hooks install``: this installation is what the agents now run."""
    now = current()
    data = _read()
    data[now["package"]] = now
    path = _record_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def changed() -> str | None:
    """What changed in this installation since ``hooks install`` recorded it, or None
    (also when it never recorded one)."""
    now = current()
    then = _read().get(now["package"])
    if not isinstance(then, dict):
        return None
    if then.get("interpreter") != now["interpreter"]:
        return f"its interpreter is now {now['interpreter']} (was {then.get('interpreter')})"
    if then.get("digest") != now["digest"]:
        return (
            f"its files or its interpreter's start-up files (*.pth, sitecustomize) under "
            f"{now['package']} and its site-packages changed"
        )
    return None


def changed_note() -> str:
    """Said at session start (and by ``doctor``) when :func:`changed` found something."""
    found = changed()
    if found is None:
        return ""
    return (
        "\n\nintent-ls: the installation these hooks run changed since `intent-ls hooks "
        f"install` recorded it: {found}. If you did not upgrade it, something else wrote "
        "there; check it, then run `intent-ls hooks install` again to record it."
    )
