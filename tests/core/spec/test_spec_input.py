"""Hostile and broken spec input: always positioned problems, never a hang or traceback."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from intent_ls.spec import load as S
from intent_ls.spec.load import load_spec_bytes, load_spec_file, load_spec_text
from tests.dependency_limits import BEYOND_EVERY_YAML_NESTING_LIMIT, YAML_LOADERS


def single_code(result: S.SpecResult) -> str:
    assert result.spec is None
    assert len(result.problems) == 1
    return result.problems[0].code


def test_binary_file() -> None:
    assert single_code(load_spec_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")) == S.NOT_TEXT


def test_invalid_utf8_is_positioned() -> None:
    result = load_spec_bytes(b"active_intents:\n  - id: caf\xe9\n")
    assert single_code(result) == S.NOT_TEXT
    assert (result.problems[0].span.start.line, result.problems[0].span.start.column) == (1, 11)


def test_five_megabyte_file() -> None:
    data = b"active_intents:\n" + b"# padding\n" * (5 * 1024 * 1024 // 10)
    assert single_code(load_spec_bytes(data)) == S.FILE_TOO_LARGE


def test_missing_file(tmp_path: Path) -> None:
    assert single_code(load_spec_file(tmp_path / "nope.yaml")) == S.SPEC_NOT_FOUND


def test_planted_symlink_or_fifo_is_refused_unread(tmp_path: Path) -> None:
    import os

    spec = tmp_path / "active_intents.yaml"
    spec.symlink_to("/dev/stdin")
    result = load_spec_file(spec)
    assert single_code(result) == S.UNSAFE_PATH
    assert "symlink (to /dev/stdin)" in result.problems[0].message
    spec.unlink()
    os.mkfifo(spec)  # opened without blocking, then refused
    assert single_code(load_spec_file(spec)) == S.UNSAFE_PATH


def test_alias_bomb_is_refused_quickly() -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for n in range(1, 14):
        refs = ",".join([f"*a{n - 1}"] * 9)
        lines.append(f"a{n}: &a{n} [{refs}]")
    lines.append("active_intents: *a13")
    started = time.perf_counter()
    result = load_spec_text("\n".join(lines) + "\n")
    assert time.perf_counter() - started < 2
    assert single_code(result) == S.TOO_COMPLEX
    assert result.problems[0].span.start.line > 0


def test_classic_billion_laughs_is_never_expanded() -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{n}: &a{n} [{','.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 9)]
    lines.append("active_intents: [{id: X, name: N, status: DRAFT, owned_scope: *a8}]")
    started = time.perf_counter()
    result = load_spec_text("\n".join(lines) + "\n")
    assert time.perf_counter() - started < 2
    assert result.has_errors and all(p.span.start.line >= 0 for p in result.problems)


@pytest.fixture(params=sorted(YAML_LOADERS))
def yaml_loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs a test with libyaml and with the pure-Python parser, as machines differ."""
    monkeypatch.setattr(S, "_LOADER", YAML_LOADERS[request.param])
    return request.param


DEEP = BEYOND_EVERY_YAML_NESTING_LIMIT


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("active_intents: " + "[" * DEEP + "]" * DEEP + "\n", (0, 47)),
        ("active_intents: " + "[" * DEEP + "\n", (0, 47)),
        ("a: " + "{a: " * DEEP + "1" + "}" * DEEP + "\n", (0, 127)),
        ("active_intents:\n" + "- " * 2000 + "x\n", (1, 62)),
        ("active_intents:\n" + "".join(" " * n + "k:\n" for n in range(40)), (33, 32)),
    ],
    ids=["flow-lists", "flow-unclosed", "flow-maps", "block-lists", "block-maps"],
)
def test_deep_nesting_is_too_complex_at_its_position_whichever_layer_sees_it(
    yaml_loader: str, text: str, position: tuple[int, int]
) -> None:
    result = load_spec_text(text)
    assert single_code(result) == S.TOO_COMPLEX
    start = result.problems[0].span.start
    assert (start.line, start.column) == position


def test_a_syntax_error_in_a_big_spec_stays_a_syntax_error_at_its_line(
    yaml_loader: str,
) -> None:
    intents = "".join(
        f"  - id: I-{n}\n    name: N\n    status: DRAFT\n    owned_scope: [a/{n}/**]\n"
        for n in range(1000)
    )
    result = load_spec_text("active_intents:\n" + intents + "  - id: [\n")
    assert single_code(result) == S.YAML_SYNTAX
    assert result.problems[0].span.start.line == 4002


def test_alias_to_a_whole_intent_is_fine() -> None:
    text = "base: &b {id: A, name: N, status: DRAFT, owned_scope: [a/**]}\nactive_intents: [*b]\n"
    result = load_spec_text(text)
    assert [i.id for i in result.spec.intents] == ["A"]


def test_python_tags_are_never_executed() -> None:
    result = load_spec_text("active_intents: !!python/object/apply:os.system ['true']\n")
    assert result.has_errors
    assert result.problems[0].code in (S.YAML_SYNTAX, S.WRONG_TYPE)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"ab:-[]{}&*!|>'\"\t\n #,?%@`", "id", "  ", "active_intents"])))
def test_fuzzed_text_never_raises(tokens: list[str]) -> None:
    result = load_spec_text("".join(tokens))
    for problem in result.problems:
        assert problem.code in S.ALL_CODES
        assert problem.span.start.line >= 0


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_fuzzed_bytes_never_raise(data: bytes) -> None:
    result = load_spec_bytes(data)
    assert all(p.code in S.ALL_CODES for p in result.problems)


def test_brackets_in_a_plain_scalar_do_not_turn_a_syntax_error_into_too_complex(
    yaml_loader: str,
) -> None:
    text = "active_intents:\n  - id: x" + "[" * 40 + "\n    name: [unclosed\n"
    result = load_spec_text(text)
    assert single_code(result) == S.YAML_SYNTAX
