"""The CLI as a user runs it: real subprocesses, exit codes, stdout vs stderr."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from intent_ls import __version__
from intent_ls.cli.main import VERB_MODULES
from tests.support import intent_ls

POSITIONED = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (error|warning|info): (?P<code>[a-z-]+): "
)


def write_spec(workspace: Path, data: bytes) -> None:
    (workspace / ".orchestration/active_intents.yaml").write_bytes(data)


def test_version_and_help() -> None:
    assert intent_ls("--version").stdout.strip() == f"intent-ls {__version__}"
    for module in VERB_MODULES:
        verb = module.rsplit(".", 1)[1].replace("_", "-")
        result = intent_ls(verb, "--help")
        assert result.returncode == 0, verb
        assert f"usage: intent-ls {verb}" in result.stdout


def test_validate_clean_workspace_from_cwd(workspace: Path) -> None:
    result = intent_ls("validate", cwd=workspace)
    assert result.returncode == 0
    assert result.stdout == ""
    assert "4 intent(s), 0 error(s)" in result.stderr


def test_repository_spec_validates() -> None:
    repo = Path(__file__).resolve().parents[2]
    assert intent_ls("validate", "--workspace", str(repo)).returncode == 0


ALIAS_BOMB = "\n".join(
    ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"a{n}: &a{n} [{','.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 14)]
    + ["active_intents: *a13"]
).encode()
DUPLICATES = (
    b"active_intents:\n"
    b"  - {id: A, name: One, status: DRAFT, owned_scope: [a/**]}\n"
    b"  - {id: A, name: Two, status: DRAFT, owned_scope: [b/**]}\n"
)


@pytest.mark.parametrize(
    ("data", "code", "line"),
    [
        (b"\x7fELF\x02\x01\x01\0\0\0\0", "not-text", 1),
        (b"active_intents:\n" + b"#" * (5 * 1024 * 1024), "file-too-large", 1),
        (ALIAS_BOMB, "too-complex", 13),
        (b"active_intents:\n\t- id: A\n", "yaml-syntax", 2),
        (b"active_intents:\n  - id: 12\n    name: [x]\n    owned_scope: a\n", "wrong-type", 2),
        (DUPLICATES, "duplicate-id", 3),
    ],
)
def test_validate_malformed_input(workspace: Path, data: bytes, code: str, line: int) -> None:
    write_spec(workspace, data)
    result = intent_ls("validate", "--workspace", str(workspace))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    first = POSITIONED.match(result.stdout.splitlines()[0])
    assert first is not None, result.stdout
    assert first["path"].endswith("active_intents.yaml")
    lines = result.stdout.splitlines()
    found = [(m["code"], int(m["line"])) for m in map(POSITIONED.match, lines) if m]
    assert (code, line) in found


def test_validate_json(workspace: Path) -> None:
    write_spec(workspace, DUPLICATES)
    result = intent_ls("validate", "--workspace", str(workspace), "--format", "json")
    data = json.loads(result.stdout)
    assert result.returncode == 1
    assert data["valid"] is False
    assert data["problems"][0]["code"] == "duplicate-id"
    assert data["problems"][0]["line"] == 3


def test_validate_missing_spec(tmp_path: Path) -> None:
    result = intent_ls("validate", "--workspace", str(tmp_path))
    assert result.returncode == 1
    assert "spec-not-found" in result.stdout


def test_bad_workspace_is_a_clear_error(tmp_path: Path) -> None:
    result = intent_ls("validate", "--workspace", str(tmp_path / "missing"))
    assert result.returncode == 2
    assert result.stderr.startswith("intent-ls: error: workspace")


def test_intents(workspace: Path) -> None:
    result = intent_ls("intents", "--workspace", str(workspace), "--format", "json")
    data = json.loads(result.stdout)
    assert [(i["id"], i["selectable"]) for i in data] == [
        ("INT-001", True),
        ("INT-002", True),
        ("INT-003", False),
        ("INT-004", False),
    ]
    text = intent_ls("intents", "--workspace", str(workspace)).stdout
    assert text.splitlines()[0].split("\t")[:2] == ["  INT-001", "IN_PROGRESS"]


def test_context_xml_and_json(workspace: Path) -> None:
    xml = intent_ls("context", "INT-002", "--workspace", str(workspace))
    assert xml.returncode == 0
    assert xml.stdout.startswith('<intent_context id="INT-002">')
    assert "<glob>web/src/**/*.ts</glob>" in xml.stdout
    data = json.loads(
        intent_ls("context", "INT-002", "-w", str(workspace), "--format", "json").stdout
    )
    assert data["constraints"] == ["Cursor-based pagination only; no OFFSET queries"]
    missing = intent_ls("context", "NOPE", "--workspace", str(workspace))
    assert missing.returncode == 2
    assert "INT-001" in missing.stderr and missing.stdout == ""


def test_which(workspace: Path) -> None:
    owned = intent_ls("which", "src/auth/jwt.py", cwd=workspace)
    assert (
        owned.stdout.strip()
        == "src/auth/jwt.py: INT-001\tIN_PROGRESS\tJWT authentication migration"
    )
    ignored = json.loads(
        intent_ls("which", "build/bundle.js", "--format", "json", cwd=workspace).stdout
    )
    assert (ignored["governed"], ignored["kind"]) == (False, "ignored")
    unowned = intent_ls("which", "setup.cfg", cwd=workspace)
    assert "owned by no intent" in unowned.stdout


def test_cli_paths_never_import_pygls(workspace: Path) -> None:
    probe = (
        "import sys\n"
        "from intent_ls.cli.main import main\n"
        f"ws = {str(workspace)!r}\n"
        "for argv in (['validate', '-w', ws], ['which', 'x', '-w', ws],\n"
        "             ['context', 'INT-001', '-w', ws], ['intents', '-w', ws],\n"
        "             ['schema'], ['editors', 'helix']):\n"
        "    main(argv)\n"
        "heavy = [m for m in ('pygls', 'lsprotocol', 'tree_sitter') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
