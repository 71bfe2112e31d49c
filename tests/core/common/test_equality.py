"""The shared values' equality: the fields left out of it, and nothing but their class."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from intent_ls.agents.events import FileChange
from intent_ls.policy.rules.rule import Verdict
from intent_ls.spec.model import Glob, Intent, Position, Span, Status


def _intent(line: int) -> Intent:
    glob = Glob("src/**", Span.point(3))
    return Intent(
        "A", "a", Status.IN_PROGRESS, (glob,), span=Span(Position(line, 0), Position(line, 9))
    )


def test_where_an_intent_is_written_is_not_part_of_it() -> None:
    moved = _intent(7)
    assert moved == _intent(0) and moved.__ne__(_intent(0)) is False
    assert hash(moved) == hash(_intent(0)) and {_intent(0): 1}[moved] == 1
    assert moved != moved._replace(name="b") and moved.__eq__(moved._replace(name="b")) is False


def test_a_value_equals_its_own_class_only() -> None:
    intent = _intent(0)
    assert intent != tuple(intent) and tuple(intent) != intent
    assert intent.__eq__(tuple(intent)) is False
    change = FileChange("a.py", "x")
    assert change != ("a.py", "x", None, False, None)


def test_a_callback_is_not_part_of_a_file_change() -> None:
    assert FileChange("a.py", transform=str.upper) == FileChange("a.py", transform=str.lower)
    assert FileChange("a.py", transform=str.upper) != FileChange("b.py", transform=str.upper)


def test_a_verdicts_details_are_compared_but_not_hashed() -> None:
    one = Verdict("out-of-scope", "m", details={"path": "a"}, finding=object())
    assert one == Verdict("out-of-scope", "m", details={"path": "a"}, finding=object())
    other = Verdict("out-of-scope", "m", details={"path": "b"})
    assert one != other and hash(one) == hash(other)
    assert len({one, other}) == 2


def test_defaults_that_hold_a_mapping_are_shared_and_cannot_be_changed() -> None:
    details = Verdict("x", "m").details
    assert details == {} and isinstance(details, MappingProxyType)
    with pytest.raises(TypeError):
        details["k"] = 1  # type: ignore[index]
