"""The "add to scope" text edit keeps the spec's comments and layout, and stays valid YAML."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from intent_ls.scope.index import ScopeIndex
from intent_ls.spec.edit import (
    SpecEditError,
    add_to_scope,
    apply_edit,
    apply_edits,
    glob_for_path,
    set_status,
)
from intent_ls.spec.load import load_spec_text

EXAMPLE = Path(__file__).parents[3] / "examples/workspace/.orchestration/active_intents.yaml"


def added(text: str, intent_id: str, pattern: str) -> str:
    edit = add_to_scope(text, intent_id, pattern)
    assert edit is not None
    return apply_edit(text, edit)


def patterns(text: str, intent_id: str) -> tuple[str, ...]:
    result = load_spec_text(text)
    assert result.spec is not None, result.problems
    intent = result.spec.get(intent_id)
    assert intent is not None
    return intent.patterns


def test_block_list_gets_a_line_after_its_last_item_and_keeps_everything_else() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    new = added(text, "INT-001", "src/api/routes.py")
    old_lines, new_lines = text.splitlines(), new.splitlines()
    at = old_lines.index("      - tests/auth/**") + 1
    assert new_lines == [*old_lines[:at], "      - src/api/routes.py", *old_lines[at:]]
    assert patterns(new, "INT-001") == ("src/auth/**", "tests/auth/**", "src/api/routes.py")
    assert patterns(new, "INT-002") == patterns(text, "INT-002")


def test_block_list_indentation_and_dash_spacing_are_copied() -> None:
    text = (
        "active_intents:\n- id: A\n  name: a\n  owned_scope:\n  -   x/**   # keep me\n  name2: 1\n"
    )
    new = added(text, "A", "y/**")
    assert "  -   x/**   # keep me\n  -   y/**\n" in new


def test_last_item_on_unterminated_last_line() -> None:
    text = "active_intents:\n  - id: A\n    name: a\n    owned_scope:\n      - x/**"
    new = added(text, "A", "y/z.py")
    assert new == text + "\n      - y/z.py"


def test_crlf_files_keep_crlf() -> None:
    text = "active_intents:\r\n  - id: A\r\n    name: a\r\n    owned_scope:\r\n      - x/**\r\n"
    new = added(text, "A", "y.txt")
    assert new.endswith("      - x/**\r\n      - y.txt\r\n")
    assert "\n" not in new.replace("\r\n", "")


def test_quote_style_of_the_last_item_is_mirrored() -> None:
    text = "active_intents:\n  - id: A\n    name: a\n    owned_scope:\n      - 'x/**'\n"
    assert added(text, "A", "it's/**").endswith("      - 'it''s/**'\n")
    text = 'active_intents:\n  - id: A\n    name: a\n    owned_scope:\n      - "x/**"\n'
    assert added(text, "A", "y/**").endswith('      - "y/**"\n')


def test_patterns_that_need_quotes_are_quoted() -> None:
    text = "active_intents:\n  - id: A\n    name: a\n    owned_scope:\n      - x/**\n"
    new = added(text, "A", "*.py")
    assert new.endswith('      - "*.py"\n')
    assert patterns(new, "A") == ("x/**", "*.py")


def test_flow_list_gets_an_item_before_its_bracket() -> None:
    text = "active_intents:\n  - id: A\n    name: a\n    owned_scope: [x/**, y/**]  # two\n"
    new = added(text, "A", "z/a.py")
    assert "    owned_scope: [x/**, y/**, z/a.py]  # two\n" in new
    assert patterns(new, "A") == ("x/**", "y/**", "z/a.py")


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ("['x/**', 'y/**']", "['x/**', 'y/**', 'z/a.py']"),
        ('["x/**", "y/**"]', '["x/**", "y/**", "z/a.py"]'),
        ("[x/**, 'y/**']", "[x/**, 'y/**', 'z/a.py']"),
        ("['x/**', y/**]", "['x/**', y/**, z/a.py]"),
        ("'x/**'", "['x/**', 'z/a.py']"),
    ],
)
def test_flow_list_keeps_the_quote_style_of_its_last_item(items: str, expected: str) -> None:
    text = f"active_intents:\n  - id: A\n    name: a\n    owned_scope: {items}\n"
    new = added(text, "A", "z/a.py")
    assert f"    owned_scope: {expected}\n" in new
    assert patterns(new, "A")[-1] == "z/a.py"


def test_flow_list_items_with_commas_are_quoted() -> None:
    text = "active_intents:\n  - id: A\n    name: a\n    owned_scope: [x/**]\n"
    new = added(text, "A", "a,b/c")
    assert patterns(new, "A") == ("x/**", "a,b/c")


def test_empty_flow_list() -> None:
    text = "active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    owned_scope: []\n"
    new = added(text, "A", "x/y")
    assert "owned_scope: [x/y]\n" in new
    assert patterns(new, "A") == ("x/y",)


def test_legacy_scope_paths_flow_mapping() -> None:
    text = "intents:\n  - intent_id: A\n    title: a\n    scope: {paths: [src/**]}  # old\n"
    new = added(text, "A", "lib/x.py")
    assert "    scope: {paths: [src/**, lib/x.py]}  # old\n" in new
    assert patterns(new, "A") == ("src/**", "lib/x.py")


def test_legacy_scope_paths_block() -> None:
    text = "intents:\n  - intent_id: A\n    title: a\n    scope:\n      paths:\n        - src/**\n"
    new = added(text, "A", "lib/x.py")
    assert new.endswith("        - src/**\n        - lib/x.py\n")


@pytest.mark.parametrize(
    ("value", "expected"),
    [("~", "owned_scope: [x/y]\n"), ("", "owned_scope: [x/y]\n"), ("null", "owned_scope: [x/y]\n")],
)
def test_empty_value_becomes_a_flow_list(value: str, expected: str) -> None:
    text = f"active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    owned_scope: {value}\n"
    text = text.replace("owned_scope: \n", "owned_scope:\n")
    new = added(text, "A", "x/y")
    assert expected in new
    assert patterns(new, "A") == ("x/y",)


def test_single_string_scope_becomes_a_list() -> None:
    text = "active_intents:\n  - id: A\n    name: a\n    owned_scope: src/**\n"
    new = added(text, "A", "x/y")
    assert "owned_scope: [src/**, x/y]\n" in new


def test_existing_pattern_needs_no_edit() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert add_to_scope(text, "INT-001", "src/auth/**") is None


def test_non_ascii_positions_are_code_points() -> None:
    text = "active_intents:\n  - id: A\n    name: 日本😀\n    owned_scope: [ü/**]\n"
    new = added(text, "A", "x/y")
    assert "owned_scope: [ü/**, x/y]\n" in new


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("active_intents: [", "not valid YAML"),
        ("- a\n", "no 'active_intents:' mapping"),
        ("active_intents: 3\n", "no 'active_intents:' list"),
        ("active_intents:\n  - id: A\n    name: a\n    owned_scope: [x]\n", "no intent 'B'"),
        ("active_intents:\n  - id: B\n    name: a\n", "no owned_scope"),
        ("active_intents:\n  - id: B\n    owned_scope: {a: 1}\n", "not a list of globs"),
    ],
)
def test_errors_are_explained(text: str, message: str) -> None:
    with pytest.raises(SpecEditError, match=message):
        add_to_scope(text, "B", "x")


@pytest.mark.parametrize(
    ("rel", "glob"),
    [
        ("src/api/routes.py", "src/api/routes.py"),
        ("README.md", "/README.md"),
        ("a/b[1]*.py", "a/b\\[1\\]\\*.py"),
        ("!x/#y", "\\!x/\\#y"),
        ("~/x", "\\~/x"),
        ("tmp", "/[t]mp"),
    ],
)
def test_glob_for_path_matches_exactly_that_file(rel: str, glob: str) -> None:
    assert glob_for_path(rel) == glob
    text = "active_intents:\n  - id: A\n    name: a\n    owned_scope: [zzz/**]\n"
    new = added(text, "A", glob)
    result = load_spec_text(new)
    assert result.spec is not None
    index = ScopeIndex(result.spec)
    assert index.owns("A", rel)
    assert not index.owns("A", "other/" + rel)


def test_glob_for_empty_path_is_refused() -> None:
    with pytest.raises(SpecEditError):
        glob_for_path("/")


_segment = st.text(
    alphabet=st.characters(
        min_codepoint=32, max_codepoint=0x1F600, blacklist_categories=("Cs", "Cc", "Zl", "Zp")
    ),
    min_size=1,
    max_size=8,
).filter(lambda s: s.strip() == s and s not in (".", ".."))


@given(st.lists(_segment, min_size=1, max_size=3), st.sampled_from(["block", "flow"]))
def test_any_path_round_trips_through_the_spec(segments: list[str], style: str) -> None:
    rel = "/".join(s.replace("/", "_").replace("\\", "_") for s in segments)
    scope = "\n      - keep/**\n" if style == "block" else " [keep/**]\n"
    text = f"# top comment\nactive_intents:\n  - id: A\n    name: a\n    owned_scope:{scope}"
    new = added(text, "A", glob_for_path(rel))
    result = load_spec_text(new)
    assert result.spec is not None, result.problems
    assert new.startswith("# top comment\n")
    intent = result.spec.get("A")
    assert intent is not None and intent.patterns[0] == "keep/**"
    assert ScopeIndex(result.spec).owns("A", rel)


def lifecycle(text: str, intent_id: str, status: str, when: str = "2026-11-23T10:00:00Z") -> str:
    return apply_edits(text, set_status(text, intent_id, status, when))


def test_set_status_replaces_in_place_and_adds_updated_at_after_it() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    new = lifecycle(text, "INT-001", "COMPLETED")
    old_lines, new_lines = text.splitlines(), new.splitlines()
    at = old_lines.index("    status: IN_PROGRESS")
    assert new_lines[at] == "    status: COMPLETED"
    assert new_lines[at + 1] == '    updated_at: "2026-11-23T10:00:00Z"'
    assert new_lines[:at] + new_lines[at + 2 :] == old_lines[:at] + old_lines[at + 1 :]
    result = load_spec_text(new)
    assert result.spec is not None and not result.has_errors
    intent = result.spec.get("INT-001")
    assert intent is not None and intent.status.value == "COMPLETED"
    assert intent.updated_at == "2026-11-23T10:00:00Z"
    assert patterns(new, "INT-002") == patterns(text, "INT-002")


@pytest.mark.parametrize(
    ("status_line", "updated_line", "expected_status", "expected_updated"),
    [
        (
            "status: 'DRAFT'  # c",
            "updated_at: '2020-01-01'",
            "status: 'IN_PROGRESS'  # c",
            "updated_at: '2026-11-23T10:00:00Z'",
        ),
        (
            'status: "DRAFT"',
            'updated_at: "x"',
            'status: "IN_PROGRESS"',
            'updated_at: "2026-11-23T10:00:00Z"',
        ),
        (
            "status: DRAFT",
            "updated_at: 2020-01-01",
            "status: IN_PROGRESS",
            "updated_at: 2026-11-23T10:00:00Z",
        ),
    ],
)
def test_set_status_keeps_each_values_quote_style(
    status_line: str, updated_line: str, expected_status: str, expected_updated: str
) -> None:
    text = (
        f"active_intents:\n  - id: A\n    name: a\n    {status_line}\n    {updated_line}\n"
        "    owned_scope: [x/**]\n"
    )
    new = lifecycle(text, "A", "IN_PROGRESS")
    assert new == text.replace(status_line, expected_status).replace(updated_line, expected_updated)
    assert patterns(new, "A") == ("x/**",)


def test_set_status_adds_both_lines_after_the_id_when_missing() -> None:
    text = "active_intents:\n- id: A\n  name: a\n  owned_scope: [x/**]"
    new = lifecycle(text, "A", "COMPLETED")
    assert new == (
        'active_intents:\n- id: A\n  status: COMPLETED\n  updated_at: "2026-11-23T10:00:00Z"\n'
        "  name: a\n  owned_scope: [x/**]"
    )


def test_set_status_crlf_and_unterminated_last_line() -> None:
    text = (
        "active_intents:\r\n  - id: A\r\n    name: a\r\n    owned_scope: [x]\r\n    status: DRAFT"
    )
    new = lifecycle(text, "A", "IN_PROGRESS")
    assert new.endswith('    status: IN_PROGRESS\r\n    updated_at: "2026-11-23T10:00:00Z"')
    assert "\n" not in new.replace("\r\n", "")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("active_intents:\n  - {id: A, name: a, owned_scope: [x]}\n", "flow mapping"),
        ("active_intents:\n  - id: B\n    name: b\n    owned_scope: [x]\n", "no intent 'A'"),
        ("active_intents:\n  - id: A\n    status: [DRAFT]\n    owned_scope: [x]\n", "not a plain"),
        ("active_intents: [\n", "not valid YAML"),
    ],
)
def test_set_status_refuses_what_it_cannot_edit(text: str, message: str) -> None:
    with pytest.raises(SpecEditError, match=re.escape(message)):
        set_status(text, "A", "COMPLETED", "t")


@pytest.mark.parametrize("name", ["a\ufffeb", "a\uffff", "a\x85b", "a\u2028b", "a\x7fb", "a\x9fb"])
@pytest.mark.parametrize("style", ["block", "flow"])
def test_a_path_yaml_cannot_hold_raw_is_added_escaped(name: str, style: str) -> None:
    """YAML refuses U+FFFE, U+FFFF, DEL and C1 controls raw, and reads NEL and U+2028 as
    line breaks: added as they are, such a file name would break the whole spec."""
    scope = "\n      - keep/**\n" if style == "block" else " [keep/**]\n"
    text = f"active_intents:\n  - id: A\n    name: a\n    owned_scope:{scope}"
    for quoted in ("", "'", '"'):
        quoted_text = text.replace("keep/**", f"{quoted}keep/**{quoted}")
        new = added(quoted_text, "A", glob_for_path(f"src/{name}"))
        result = load_spec_text(new)
        assert result.spec is not None, (quoted, new, result.problems)
        assert ScopeIndex(result.spec).owns("A", f"src/{name}"), new
