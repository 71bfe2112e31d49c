"""Every spec problem code, with its position, and the legacy shape's normalisation."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from intent_ls.scope.conflicts import with_scope_conflicts
from intent_ls.spec import load as S
from intent_ls.spec.load import load_spec_text
from intent_ls.spec.model import RepoPolicy, Severity, Status


def load(text: str) -> S.SpecResult:
    return with_scope_conflicts(load_spec_text(textwrap.dedent(text)))


def codes(result: S.SpecResult) -> list[str]:
    return [p.code for p in result.problems]


def only(result: S.SpecResult, code: str):
    found = [p for p in result.problems if p.code == code]
    assert len(found) == 1, result.problems
    return found[0]


GOOD = """\
active_intents:
  - id: INT-001
    name: Auth
    status: IN_PROGRESS
    owned_scope: [src/auth/**]
    constraints: [no external providers]
    acceptance_criteria: [tests pass]
    related_files: [src/app.py]
    recent_history: [started]
    created_at: 2026-01-02
"""


def test_canonical_spec_loads_into_typed_model() -> None:
    result = load(GOOD)
    assert result.problems == ()
    (intent,) = result.spec.intents
    assert intent.id == "INT-001"
    assert intent.status is Status.IN_PROGRESS
    assert intent.patterns == ("src/auth/**",)
    assert intent.constraints == ("no external providers",)
    assert intent.created_at == "2026-01-02"
    assert intent.scope_span.start.line == 4


def test_legacy_shape_is_normalised() -> None:
    result = load(
        """\
        active_intent_id: INT-7
        intents:
          - intent_id: INT-7
            title: Legacy intent
            scope:
              paths: [lib/**]
            constraints: [keep it]
        """
    )
    assert result.problems == ()
    assert result.spec.legacy
    assert result.spec.active_intent_id == "INT-7"
    (intent,) = result.spec.intents
    assert (intent.id, intent.name, intent.patterns) == ("INT-7", "Legacy intent", ("lib/**",))
    assert intent.status is Status.IN_PROGRESS


def test_yaml_syntax_error_is_positioned() -> None:
    problem = only(load("active_intents:\n  - id: [unclosed\n"), S.YAML_SYNTAX)
    assert problem.severity is Severity.ERROR
    assert problem.span.start.line >= 1


def test_tabs_are_explained() -> None:
    problem = only(load("active_intents:\n\t- id: X\n"), S.YAML_SYNTAX)
    assert "tab" in problem.message
    assert problem.span.start.line == 1


@pytest.mark.parametrize(
    ("snippet", "needle"),
    [
        ("id: 7", "quote it"),
        ("id: [a]", "must be a string"),
        ("owned_scope: {a: 1}", "list of strings"),
    ],
)
def test_wrong_types(snippet: str, needle: str) -> None:
    base = {"id": "id: X", "owned_scope": "owned_scope: [a/**]"}
    key = snippet.split(":")[0]
    base[key] = snippet
    text = (
        f"active_intents:\n  - {base['id']}\n    name: N\n    status: DRAFT\n"
        f"    {base['owned_scope']}\n"
    )
    problem = only(load_spec_text(text), S.WRONG_TYPE)
    assert needle in problem.message


def test_top_level_must_be_mapping() -> None:
    problem = only(load("- a\n- b\n"), S.WRONG_TYPE)
    assert problem.span.start.line == 0


@pytest.mark.parametrize("field", ["id", "name", "owned_scope"])
def test_missing_required_field(field: str) -> None:
    lines = {"id": "    id: X", "name": "    name: N", "owned_scope": "    owned_scope: [a/**]"}
    del lines[field]
    text = "active_intents:\n  - status: DRAFT\n" + "\n".join(lines.values()) + "\n"
    problem = only(load_spec_text(text), S.MISSING_FIELD)
    assert field in problem.message
    assert problem.span.start.line == 1


def test_duplicate_ids_point_at_both() -> None:
    text = GOOD + "  - id: INT-001\n    name: Again\n    status: DRAFT\n    owned_scope: [x/**]\n"
    problem = only(load_spec_text(text), S.DUPLICATE_ID)
    assert problem.span.start.line == 10
    assert "line 2" in problem.message
    assert problem.related[0][1].start.line == 1


def test_unknown_status_suggests_nearest() -> None:
    problem = only(load(GOOD.replace("IN_PROGRESS", "in progres")), S.UNKNOWN_STATUS)
    assert "did you mean 'IN_PROGRESS'" in problem.message
    assert (problem.span.start.line, problem.span.start.column) == (3, 12)


def test_unknown_key_is_a_warning_with_did_you_mean() -> None:
    result = load(GOOD.replace("constraints:", "constraint:"))
    problem = only(result, S.UNKNOWN_KEY)
    assert problem.severity is Severity.WARNING
    assert "did you mean 'constraints'" in problem.message
    assert not result.has_errors


def test_duplicate_key_is_reported() -> None:
    problem = only(load(GOOD + "    name: Twice\n"), S.DUPLICATE_KEY)
    assert problem.span.start.line == 10


@pytest.mark.parametrize(
    ("glob", "code"),
    [
        ("src/[abc", S.INVALID_GLOB),
        ("src\\\\\\", S.INVALID_GLOB),
        ("' src/x '", S.INVALID_GLOB),
        ("../outside/**", S.GLOB_ESCAPES),
        ("src/../../etc", S.GLOB_ESCAPES),
        ("/etc/passwd", S.GLOB_ESCAPES),
        ("~/notes", S.GLOB_ESCAPES),
        ("C:/Users/me", S.GLOB_ESCAPES),
    ],
)
def test_bad_globs(glob: str, code: str) -> None:
    quoted = glob if glob.startswith("'") else f'"{glob}"'.replace("\\", "\\\\")
    problem = only(load(GOOD.replace("[src/auth/**]", f"\n      - ok/**\n      - {quoted}")), code)
    assert (problem.span.start.line, problem.span.start.column) == (6, 8)


def test_anchored_glob_is_not_an_escape() -> None:
    assert load(GOOD.replace("src/auth/**", "/src/auth/**")).problems == ()


def test_empty_scope_is_an_error_for_live_intents_only() -> None:
    live = only(load(GOOD.replace("[src/auth/**]", "[]")), S.EMPTY_SCOPE)
    assert live.severity is Severity.ERROR
    draft = only(
        load(GOOD.replace("[src/auth/**]", "[]").replace("IN_PROGRESS", "DRAFT")), S.EMPTY_SCOPE
    )
    assert draft.severity is Severity.WARNING


def test_scope_conflict_names_both_intents() -> None:
    text = (
        GOOD
        + "  - id: INT-002\n    name: Other\n    status: IN_PROGRESS\n    owned_scope: [src/**]\n"
    )
    problem = only(load(text), S.SCOPE_CONFLICT)
    assert problem.severity is Severity.WARNING
    assert "INT-001" in problem.message and "INT-002" in problem.message


def test_no_conflict_when_one_intent_is_not_live_or_disjoint() -> None:
    draft = GOOD + "  - id: INT-002\n    name: O\n    status: DRAFT\n    owned_scope: [src/**]\n"
    assert S.SCOPE_CONFLICT not in codes(load(draft))
    disjoint = (
        GOOD + "  - id: INT-002\n    name: O\n    status: IN_PROGRESS\n    owned_scope: [web/**]\n"
    )
    assert S.SCOPE_CONFLICT not in codes(load(disjoint))


def test_negation_removes_a_conflict() -> None:
    text = (
        GOOD
        + "  - id: INT-002\n    name: O\n    status: IN_PROGRESS\n"
        + "    owned_scope: [src/**, '!src/auth/', '!src/auth/**']\n"
    )
    assert S.SCOPE_CONFLICT not in codes(load(text))


def test_empty_spec_warns() -> None:
    assert codes(load("")) == [S.EMPTY_SPEC]
    assert codes(load("active_intents: []\n")) == [S.EMPTY_SPEC]


def test_unknown_active_intent_id() -> None:
    problem = only(
        load(
            "active_intent_id: INT-9\nintents:\n  - intent_id: INT-1\n    title: T\n"
            "    scope: {paths: [a]}\n"
        ),
        S.UNKNOWN_ACTIVE_INTENT,
    )
    assert problem.span.start == S.Position(0, 18)


def test_missing_list() -> None:
    assert codes(load("version: 1\n")) == [S.MISSING_FIELD]


def test_policy_section_is_read_into_the_spec() -> None:
    result = load(
        GOOD + "policy:\n  maxDeletedLines: 5\n  protectedPaths: [db/**, '!db/seed.sql']\n"
    )
    assert result.problems == ()
    assert result.spec.policy == RepoPolicy(5, ("db/**", "!db/seed.sql"))
    assert load(GOOD).spec.policy == RepoPolicy()  # unset: every door uses the defaults
    assert load(GOOD + "policy:\n").spec.policy == RepoPolicy()


@pytest.mark.parametrize(
    ("snippet", "line", "column", "message"),
    [
        ("policy: 5", 11, 9, "'policy' must be a mapping, not a number"),
        ("policy:\n  maxDeletedLines: -1", 12, 20, "whole number, 0 or more"),
        ("policy:\n  maxDeletedLines: '5'", 12, 20, "whole number, 0 or more"),
        ("policy:\n  protectedPaths: db/**", 12, 19, "list of strings"),
    ],
)
def test_bad_policy_values_are_positioned_errors_and_left_unset(
    snippet: str, line: int, column: int, message: str
) -> None:
    result = load(GOOD + snippet + "\n")
    problem = only(result, S.WRONG_TYPE)
    assert problem.severity is Severity.ERROR and message in problem.message
    assert (problem.span.start.line + 1, problem.span.start.column + 1) == (line, column)
    assert result.spec.policy == RepoPolicy()


def test_policy_globs_are_checked_like_owned_scope() -> None:
    result = load(GOOD + "policy:\n  protectedPaths: [db/**, ../secrets/**]\n")
    problem = only(result, S.GLOB_ESCAPES)
    assert problem.span.start.line + 1 == 12
    assert result.spec.policy.protected_paths is None  # never half-read
    unknown = only(load(GOOD + "policy:\n  maxDeletedLine: 5\n"), S.UNKNOWN_KEY)
    assert "did you mean 'maxDeletedLines'" in unknown.message


def test_agent_protected_paths_are_bounded_globs_with_positions() -> None:
    good = load(GOOD + "policy:\n  agentProtectedPaths: [deploy/**, /Makefile, '!deploy/x']\n")
    assert good.problems == ()
    assert good.spec.policy.agent_protected_paths == ("deploy/**", "/Makefile", "!deploy/x")
    assert load(GOOD).spec.policy.agent_protected_paths == ()
    # A glob that could match anywhere would need the whole tree walked around every call.
    result = load(GOOD + "policy:\n  agentProtectedPaths:\n    - deploy/**\n    - '*.pem'\n")
    problem = only(result, S.INVALID_GLOB)
    assert "must start with a literal directory or file" in problem.message
    assert (problem.span.start.line + 1, problem.span.start.column + 1) == (14, 7)
    assert result.spec.policy.agent_protected_paths == ()  # never half-read
    escape = only(load(GOOD + "policy:\n  agentProtectedPaths: [../x/**]\n"), S.GLOB_ESCAPES)
    assert escape.span.start.line + 1 == 12


def test_the_sandboxs_writable_trees_and_task_limit_are_read_and_bounded() -> None:
    good = load(
        GOOD + "policy:\n  agentWritablePaths: ['~/.rustup', /opt/sdk]\n  agentMaxTasks: 64\n"
    )
    assert good.problems == ()
    assert good.spec.policy.agent_writable_paths == ("~/.rustup", "/opt/sdk")
    assert good.spec.policy.agent_max_tasks == 64
    assert load(GOOD).spec.policy.agent_max_tasks is None  # the sandbox's default
    result = load(GOOD + "policy:\n  agentWritablePaths:\n    - ~/.rustup\n    - ~/../etc\n")
    problem = only(result, S.UNSAFE_PATH)
    assert "must not hold '..'" in problem.message
    assert (problem.span.start.line + 1, problem.span.start.column + 1) == (14, 7)
    assert result.spec.policy.agent_writable_paths == ()  # never half-read
    for whole in ("/", "~/", "'//'", "~/."):
        found = only(load(GOOD + f"policy:\n  agentWritablePaths: [{whole}]\n"), S.UNSAFE_PATH)
        assert "whole file system or home folder" in found.message
    relative = only(load(GOOD + "policy:\n  agentWritablePaths: [build]\n"), S.UNSAFE_PATH)
    assert "absolute path or start with '~/'" in relative.message
    few = only(load(GOOD + "policy:\n  agentMaxTasks: 8\n"), S.WRONG_TYPE)
    assert "at least 32" in few.message and (few.span.start.line + 1) == 12


def test_every_code_is_exercised_by_this_module() -> None:
    """Guards the contract: a new code must come with a test here or in test_spec_input."""
    here = Path(__file__)
    source = here.read_text() + here.with_name("test_spec_input.py").read_text()
    for name in ("YAML_SYNTAX", "NOT_TEXT", "FILE_TOO_LARGE", "TOO_COMPLEX", "WRONG_TYPE",
                 "MISSING_FIELD", "DUPLICATE_ID", "DUPLICATE_KEY", "UNKNOWN_STATUS", "UNKNOWN_KEY",
                 "INVALID_GLOB", "GLOB_ESCAPES", "EMPTY_SCOPE", "SCOPE_CONFLICT", "EMPTY_SPEC",
                 "UNKNOWN_ACTIVE_INTENT", "SPEC_NOT_FOUND", "UNSAFE_PATH"):  # fmt: skip
        assert f"S.{name}" in source, name
    assert len(S.ALL_CODES) == 18
