"""The CLI as a newcomer meets it (issue 8): real subprocesses, from the directory a user
would be in, with the inputs a user's repository really has."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from intent_ls.cli.main import VERB_MODULES, build_parser
from intent_ls.ledger.store import LEDGER_RELPATH
from intent_ls.spec.load import SPEC_RELPATH as SPEC
from tests.support import committed, intent_ls

LEDGER = LEDGER_RELPATH.as_posix()
NEW_FORMAT = re.compile(r"^[^:]+:\d+:\d+: (error|warning|info): [a-z-]+: \S")


def save_one_record(workspace: Path) -> None:
    """One genuine record, written as the editor writes it."""
    from intent_ls.ledger.records import build_mutation_record
    from intent_ls.ledger.store import Ledger, ledger_path
    from intent_ls.policy.approvals import Contributor

    record = build_mutation_record(
        workspace,
        "src/auth/jwt.py",
        "a = 1\n",
        "a = 2\n",
        intent_id="INT-001",
        session_id="s",
        contributor=Contributor("human", None),
    )
    assert record is not None
    Ledger(ledger_path(workspace), fsync=False).append(record)


# -- errors without tracebacks ---------------------------------------------------------


def test_trace_show_skips_a_non_json_line_and_says_so(workspace: Path) -> None:
    save_one_record(workspace)
    with (workspace / LEDGER).open("a", encoding="utf-8") as f:
        f.write("<<<<<<< HEAD\n")
    result = intent_ls("trace", "show", cwd=workspace)
    assert "Traceback" not in result.stderr
    assert result.returncode == 1
    assert "src/auth/jwt.py" in result.stdout  # the good record is still shown
    assert f"{LEDGER}:2: not a JSON record (skipped)" in result.stderr


@pytest.mark.parametrize("verb", [("trace", "verify"), ("trace", "show"), ("map",)])
def test_ledger_that_is_a_directory(workspace: Path, verb: tuple[str, ...]) -> None:
    (workspace / LEDGER).mkdir()
    result = intent_ls(*verb, cwd=workspace)
    assert "Traceback" not in result.stderr
    assert result.returncode == 2
    assert "agent_trace.jsonl is not a regular file" in result.stderr


def _hostile(kind: str, workspace: Path) -> None:
    orchestration = workspace / ".orchestration"
    if kind == "spec is a directory":
        (workspace / SPEC).unlink()
        (workspace / SPEC).mkdir()
    elif kind == "ledger with conflict markers":
        save_one_record(workspace)
        text = (workspace / LEDGER).read_text(encoding="utf-8")
        (workspace / LEDGER).write_text(f"<<<<<<< ours\n{text}=======\n>>>>>>> theirs\n")
    elif kind == "ledger of JSON that is not records":
        (workspace / LEDGER).write_text('[1]\n{"files": 3, "metadata": []}\n"x"\n')
    elif kind == ".orchestration is a file":
        for child in orchestration.iterdir():
            child.unlink()
        orchestration.rmdir()
        orchestration.write_text("x\n")
    elif kind == "intent map is a directory":
        save_one_record(workspace)
        (orchestration / "intent_map.md").mkdir()
    elif kind == "binary spec":
        (workspace / SPEC).write_bytes(b"\xff\xfe\x00garbage")


HOSTILE = [
    "spec is a directory",
    "ledger with conflict markers",
    "ledger of JSON that is not records",
    ".orchestration is a file",
    "intent map is a directory",
    "binary spec",
]
VERBS = [
    ("validate",),
    ("intents",),
    ("context", "INT-001"),
    ("which", "src/auth/jwt.py"),
    ("trace", "verify"),
    ("trace", "show"),
    ("map",),
    ("check",),
]


@pytest.mark.parametrize("kind", HOSTILE)
def test_no_verb_tracebacks_on_hostile_input(workspace: Path, kind: str) -> None:
    _hostile(kind, workspace)
    for verb in VERBS:
        result = intent_ls(*verb, cwd=workspace)
        assert "Traceback" not in result.stderr, (verb, result.stderr)
        assert result.returncode in (0, 1, 2), (verb, result.returncode)
        if result.returncode:
            assert result.stderr.strip(), verb  # a failure always says why


@pytest.mark.parametrize(
    "args",
    [
        ("which",),
        ("context",),
        ("trace",),
        ("check", "--format", "xml"),
        ("validate", "--file"),
        ("--workspace", "missing-dir", "intents"),
        ("which", "x", "--workspace", "also-missing"),
        ("serve", "--tcp", "127.0.0.1:99999"),
    ],
)
def test_bad_arguments_are_usage_errors(tmp_path: Path, args: tuple[str, ...]) -> None:
    result = intent_ls(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "error" in result.stderr


# -- workspace discovery ----------------------------------------------------------------


def test_verbs_find_the_workspace_from_a_subdirectory(workspace: Path) -> None:
    src = workspace / "src"
    which = intent_ls("which", "auth/jwt.py", cwd=src)
    assert which.stdout.startswith("src/auth/jwt.py: INT-001\tIN_PROGRESS"), which.stdout
    assert intent_ls("validate", cwd=src / "auth").returncode == 0
    listed = intent_ls("intents", "--format", "json", cwd=workspace / "web" / "src")
    assert [i["id"] for i in json.loads(listed.stdout)] == [
        "INT-001",
        "INT-002",
        "INT-003",
        "INT-004",
    ]


def test_workspace_flag_wins_over_discovery(workspace: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / ".orchestration").mkdir(parents=True)
    (other / SPEC).write_text(
        "active_intents:\n  - {id: X-1, name: x, status: IN_PROGRESS, owned_scope: [x/**]}\n"
    )
    result = intent_ls("intents", "--workspace", str(other), cwd=workspace / "src")
    assert result.stdout.split("\t")[0].strip() == "X-1"


def test_discovery_stops_at_the_repository_root(tmp_path: Path) -> None:
    """A spec in a directory above a checkout does not govern the checkout."""
    (tmp_path / ".orchestration").mkdir()
    (tmp_path / SPEC).write_text(
        "active_intents:\n  - {id: X-1, name: x, status: IN_PROGRESS, owned_scope: ['**']}\n"
    )
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    inside = intent_ls("which", "a.py", cwd=repo / "sub")
    assert "not governed" in inside.stdout and "X-1" not in inside.stdout
    outside = tmp_path / "plain" / "sub"
    outside.mkdir(parents=True)
    assert "X-1" in intent_ls("which", "a.py", cwd=outside).stdout


def test_trace_show_file_is_relative_to_the_current_directory(workspace: Path) -> None:
    save_one_record(workspace)
    result = intent_ls(
        "trace", "show", "--file", "jwt.py", "--format", "json", cwd=workspace / "src/auth"
    )
    assert [r["files"][0]["path"] for r in json.loads(result.stdout)] == ["src/auth/jwt.py"]


def test_check_advice_from_a_subdirectory_names_the_owner(workspace: Path) -> None:
    committed(workspace)
    (workspace / "src/auth/jwt.py").write_text("changed = True\n", encoding="utf-8")
    result = intent_ls("check", "--base", "HEAD", cwd=workspace / "src")
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("src/auth/jwt.py:1:1: error: uncovered-change: ")
    assert "src/auth/jwt.py is owned by INT-001" in result.stdout


# -- which DIR ---------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["src/auth", "src/auth/", "services/billing"])
def test_which_names_the_owners_of_a_directory(workspace: Path, typed: str) -> None:
    expected = "INT-003" if typed.startswith("services") else "INT-001"
    result = intent_ls("which", typed, cwd=workspace)
    assert result.returncode == 0
    assert result.stdout.startswith(typed.rstrip("/") + "/: " + expected), result.stdout


def test_which_directory_does_not_claim_partial_owners(workspace: Path) -> None:
    """web/src/**/*.ts owns only the .ts files of web/src, not the directory."""
    result = intent_ls("which", "web/src", cwd=workspace)
    assert "owned by no intent" in result.stdout


# -- a spec with errors, or none ----------------------------------------------------------


def test_intents_without_a_spec_says_so(tmp_path: Path) -> None:
    result = intent_ls("intents", cwd=tmp_path)
    assert result.returncode == 1
    assert "no intent spec at" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_intents_with_an_unparseable_spec_says_why(workspace: Path) -> None:
    (workspace / SPEC).write_text("active_intents: [\n", encoding="utf-8")
    result = intent_ls("intents", cwd=workspace)
    assert result.returncode == 1
    assert NEW_FORMAT.match(result.stderr.splitlines()[0]), result.stderr
    assert "yaml-syntax" in result.stderr


def test_a_misspelled_status_is_reported_not_silently_dropped(workspace: Path) -> None:
    spec = workspace / SPEC
    spec.write_text(spec.read_text().replace("IN_PROGRESS", "DARFT", 1), encoding="utf-8")
    for verb in (("intents",), ("which", "src/auth/jwt.py"), ("context", "INT-002")):
        result = intent_ls(*verb, cwd=workspace)
        assert "unknown-status: unknown status 'DARFT'; did you mean 'DRAFT'?" in result.stderr
    which = intent_ls("which", "src/auth/jwt.py", cwd=workspace)
    assert which.returncode == 1
    assert "owned by no valid intent (the spec has errors" in which.stdout


def test_a_folder_without_a_spec_is_not_governed_and_stays_untouched(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    which = intent_ls("which", "a.py", cwd=tmp_path)
    assert which.stdout.startswith("a.py: not governed: the workspace has no usable intent spec")
    assert "governed," not in which.stdout
    data = json.loads(intent_ls("which", "a.py", "--format", "json", cwd=tmp_path).stdout)
    assert (data["governed"], data["kind"], data["owners"]) == (False, "no-spec", [])
    mapped = intent_ls("map", cwd=tmp_path)
    assert mapped.returncode == 2 and "not governed" in mapped.stderr
    for verb in VERBS:
        intent_ls(*verb, cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


# -- output formats ------------------------------------------------------------------------


def test_validate_prints_path_line_col_severity_code_message(workspace: Path) -> None:
    (workspace / SPEC).write_text(
        "active_intents:\n  - {id: A, name: a, status: DARFT, owned_scope: [a/**]}\n"
    )
    result = intent_ls("validate", cwd=workspace)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        ".orchestration/active_intents.yaml:2:30: error: unknown-status: unknown status "
        "'DARFT'; did you mean 'DRAFT'? (one of DRAFT, IN_PROGRESS, BLOCKED, COMPLETED, "
        "ARCHIVED)"
    ]


def test_validate_github_annotations(workspace: Path) -> None:
    (workspace / SPEC).write_text(
        "active_intents:\n  - {id: A, name: a, status: DARFT, owned_scope: [a/**]}\n"
        "  - {id: B, name: b, status: DRAFT, owned_scope: [b/**], colour: red}\n"
    )
    result = intent_ls("validate", "--format", "github", cwd=workspace)
    assert result.returncode == 1
    error, warning = result.stdout.splitlines()
    assert error.startswith(
        "::error file=.orchestration/active_intents.yaml,line=2,col=30,endLine=2,endColumn=35,"
        "title=intent-ls unknown-status::unknown status 'DARFT'"
    ), error
    assert warning.startswith("::warning file=.orchestration/active_intents.yaml,line=3,")
    assert "title=intent-ls unknown-key::" in warning


# -- flags and help --------------------------------------------------------------------------


def test_workspace_flag_before_the_verb(workspace: Path, tmp_path: Path) -> None:
    before = intent_ls("-w", str(workspace), "validate", cwd=tmp_path)
    assert before.returncode == 0 and "4 intent(s)" in before.stderr
    long_form = intent_ls("--workspace", str(workspace), "which", "src/api/routes.py", cwd=tmp_path)
    assert "INT-002" in long_form.stdout


def _parsers() -> list[tuple[tuple[str, ...], object]]:
    import argparse

    found = []

    def walk(prefix: tuple[str, ...], parser: argparse.ArgumentParser) -> None:
        found.append((prefix, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk((*prefix, name), sub)

    walk((), build_parser())
    return found


def test_every_help_describes_every_argument(tmp_path: Path) -> None:
    import argparse

    assert len(VERB_MODULES) >= 9
    for prefix, parser in _parsers():
        assert isinstance(parser, argparse.ArgumentParser)
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            name = "/".join(action.option_strings) or action.dest
            assert action.help and action.help != argparse.SUPPRESS, (prefix, name)
        shown = intent_ls(*prefix, "--help", cwd=tmp_path)
        assert shown.returncode == 0, prefix
        for action in parser._actions:
            if action.option_strings:
                assert action.option_strings[0] in shown.stdout, (prefix, action.option_strings)
            elif not isinstance(action, argparse._SubParsersAction):
                assert (action.metavar or action.dest) in shown.stdout, (prefix, action.dest)
