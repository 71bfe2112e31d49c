"""`intent-ls demo` from an installed wheel, not a source checkout (issue 8): the example
workspace must travel inside the package. Built and installed offline: the wheel from a
copy of the sources with the current environment's setuptools, into a fresh venv that
borrows this environment's dependencies through a path file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import venv
from pathlib import Path

import pytest
from test_readme import wheel_command

REPO = Path(__file__).resolve().parents[2]


def _sh(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run away from the checkout (``python -c`` and ``-m`` put the current directory
    first on sys.path) and without PYTHONPATH, so only the installed wheel is found."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd or Path(tempfile.gettempdir()),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(
        REPO / "intent_ls", source / "intent_ls", ignore=shutil.ignore_patterns("__pycache__")
    )
    # The README's command as written, plus what keeps it offline.
    pip, *command = wheel_command()
    assert pip == "pip"
    built = _sh(
        sys.executable, "-m", "pip", *command, "--no-build-isolation", "--no-index", cwd=source
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = (source / "dist").glob("intent_ls-*.whl")
    # The README names the file to install; a version bump must update it.
    assert f"pip install dist/{wheel.name}" in (REPO / "README.md").read_text(encoding="utf-8")
    env = base / "venv"
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    purelib = Path(_sh(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
                   .stdout.strip())  # fmt: skip
    # The dependencies, not this checkout: a plain path line does not run the editable
    # install's finder that lives in the same directory.
    (purelib / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = _sh(
        sys.executable, "-m", "pip", "--python", python, "install", "--no-deps",
        "--no-index", wheel,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return env


def test_the_wheel_carries_the_example(installed: Path) -> None:
    probe = _sh(installed / "bin" / "python", "-c", "import intent_ls; print(intent_ls.__file__)")
    assert probe.stdout.startswith(str(installed)), probe.stdout  # not this checkout
    example = next((installed / "lib").glob("python*/site-packages/intent_ls/examples/workspace"))
    assert (example / ".orchestration" / "active_intents.yaml").is_file()
    assert (example / ".intentignore").is_file()
    installed_files = (p for p in example.rglob("*") if "__pycache__" not in p.parts)
    assert sorted(p.relative_to(example) for p in installed_files if p.is_file()) == sorted(
        p.relative_to(REPO / "examples" / "workspace")
        for p in (REPO / "examples" / "workspace").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )


def test_demo_runs_from_the_installed_wheel(installed: Path, tmp_path: Path) -> None:
    result = _sh(installed / "bin" / "intent-ls", "demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "src/auth/jwt.py:6: error [no-active-intent]" in result.stdout
    assert "Traceback" not in result.stderr
