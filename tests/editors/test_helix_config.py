"""`intent-ls editors helix` and editors/helix/languages.toml (its output): valid TOML
that adds intent-ls to every language and keeps each language's default
servers (Helix replaces the whole list a user file sets).

Helix itself cannot be installed here (not in Debian 12, PyPI or npm); when an ``hx``
binary is on PATH, its ``--health`` check also reads the file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from editor_harness import EDITORS

HELIX = EDITORS / "helix"
DEFAULTS = Path(__file__).parents[2] / "intent_ls" / "data" / "helix-defaults.toml"
VERB = [sys.executable, "-m", "intent_ls", "editors", "helix"]


def _load(path: Path) -> dict:
    with path.open("rb") as f:
        return tomllib.load(f)


def _name(entry: str | dict) -> str:
    return entry if isinstance(entry, str) else entry["name"]


def test_languages_toml_is_what_the_generator_writes() -> None:
    generated = subprocess.run(VERB, capture_output=True, text=True, check=True).stdout
    assert generated == (HELIX / "languages.toml").read_text(), (
        "editors/helix/languages.toml is stale: run intent-ls editors helix > "
        "editors/helix/languages.toml"
    )


def test_every_language_keeps_its_defaults_and_gets_intent_ls_once() -> None:
    ours = _load(HELIX / "languages.toml")
    defaults = {lang["name"]: lang for lang in _load(DEFAULTS)["language"]}
    server = ours["language-server"]["intent-ls"]
    assert server["command"] == "intent-ls"
    assert server["args"] == ["serve"]
    assert isinstance(server["config"]["intentLs"], dict)

    languages = ours["language"]
    names = [lang["name"] for lang in languages]
    assert len(names) == len(set(names)), "a language is listed twice"
    assert set(names) == set(defaults)
    for lang in languages:
        servers = lang["language-servers"]
        assert [_name(s) for s in servers].count("intent-ls") == 1, lang
        assert servers[-1] == "intent-ls", lang
        assert servers[:-1] == defaults[lang["name"]].get("language-servers", []), lang
        assert set(lang) == {"name", "language-servers"}, "only the server list is overridden"
    # The languages intent-ls's own tests and example workspace use.
    assert {"python", "go", "typescript", "javascript", "rust", "java", "markdown"} <= set(names)


def test_generator_skips_injection_only_languages_and_existing_entries(tmp_path: Path) -> None:
    source = tmp_path / "languages.toml"
    source.write_text(
        '[[language]]\nname = "a"\nfile-types = ["a"]\nlanguage-servers = ["x", "intent-ls"]\n'
        '[[language]]\nname = "b"\nfile-types = []\n'
        '[[language]]\nname = "c"\nfile-types = ["c"]\n'
        'language-servers = [{ name = "y", only-features = ["diagnostics"] }]\n'
    )
    out = subprocess.run(
        [*VERB, "--defaults", str(source)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    langs = {lang["name"]: lang["language-servers"] for lang in tomllib.loads(out)["language"]}
    assert langs == {
        "a": ["x", "intent-ls"],
        "c": [{"name": "y", "only-features": ["diagnostics"]}, "intent-ls"],
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("[[language]\n", "is not a valid TOML file"),
        ("[[language]]\nfile-types = ['a']\n", "is not shaped like Helix's languages.toml"),
    ],
)
def test_a_bad_defaults_file_is_one_clear_error(
    tmp_path: Path, content: str | None, message: str
) -> None:
    source = tmp_path / "languages.toml"
    if content is not None:
        source.write_text(content)
    proc = subprocess.run([*VERB, "--defaults", str(source)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("intent-ls: error: ") and message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_helix_reads_it(tmp_path: Path) -> None:
    hx = shutil.which("hx") or shutil.which("helix")
    if hx is None:
        pytest.skip("Helix (hx) is not installed: not in Debian 12, PyPI or npm")
    config = tmp_path / "config" / "helix"
    config.mkdir(parents=True)
    shutil.copy(HELIX / "languages.toml", config / "languages.toml")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path)}
    proc = subprocess.run(
        [hx, "--health", "python"], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "intent-ls" in proc.stdout
