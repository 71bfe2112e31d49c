"""`intent-ls demo` from an installed wheel, not a source checkout (issue 8): the example
workspace must travel inside the package. Built and installed offline: the wheel from a
copy of the sources with the current environment's setuptools, into a fresh venv that
borrows this environment's dependencies through a path file."""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import venv
from pathlib import Path

import pytest
from test_readme import wheel_command

from intent_ls.ledger.index import native
from tests.support import readme_section

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
    for name in ("pyproject.toml", "setup.py", "README.md"):
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
    (named,) = re.findall(r"pip install (dist/\S+\.whl)", readme_section("## Installing it"))
    assert fnmatch.fnmatch(f"dist/{wheel.name}", named), (named, wheel.name)
    # With the C writer compiled here, the wheel carries it (and is platform-specific).
    assert wheel.name.endswith("-py3-none-any.whl") == (not native.compiled()), wheel.name
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


def test_the_wheel_carries_the_c_writer_when_it_was_compiled(installed: Path) -> None:
    probe = _sh(
        installed / "bin" / "python",
        "-c",
        "from intent_ls.ledger.index import native; print(native.available())",
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == str(native.compiled())


def test_demo_runs_from_the_installed_wheel(installed: Path, tmp_path: Path) -> None:
    result = _sh(installed / "bin" / "intent-ls", "demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "src/auth/jwt.py:6: error [no-active-intent]" in result.stdout
    assert "Traceback" not in result.stderr


def test_editor_verbs_run_from_the_installed_wheel(installed: Path, tmp_path: Path) -> None:
    helix = _sh(installed / "bin" / "intent-ls", "editors", "helix", cwd=tmp_path)
    assert helix.returncode == 0, helix.stderr
    assert helix.stdout == (REPO / "editors" / "helix" / "languages.toml").read_text()
    schema = _sh(installed / "bin" / "intent-ls", "schema", cwd=tmp_path)
    assert schema.returncode == 0, schema.stderr
    assert '"$schema": "https://json-schema.org/draft/2020-12/schema"' in schema.stdout
