"""Every function in intent_ls/ keeps a cyclomatic complexity of at most 15, by radon's
measure (``radon cc``), which counts each ``if``/``elif``, loop, ``except``, boolean
operator, comprehension and ``case``: past that, a function is a switch nobody holds in
their head and its tests rarely reach every path. A function over the bar is split into
named helpers or a table, not contorted to fit.

Methods, nested functions and the methods of nested classes are held to it too: radon
measures a nested function apart (its branches do not count for the function around it),
so ``radon cc`` lists it only with ``--show-closures``. The example workspace shipped for
``intent-ls demo`` is a user's project, not this package's code (as in
``test_architecture``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class, Function

PACKAGE = Path(__file__).resolve().parents[2] / "intent_ls"
LIMIT = 15


def functions(source: str) -> Iterator[tuple[str, Function]]:
    """(qualified name, radon's block) of every function and method in ``source``."""
    for block in cc_visit(source):
        if isinstance(block, Class):
            yield from _class(block, "")
        elif not block.is_method:  # cc_visit lists each class's methods after the class too
            yield from _function(block, "")


def _function(block: Function, prefix: str) -> Iterator[tuple[str, Function]]:
    name = f"{prefix}{block.name}"
    yield name, block
    for inner in block.closures:
        yield from _function(inner, f"{name}.")


def _class(block: Class, prefix: str) -> Iterator[tuple[str, Function]]:
    name = f"{prefix}{block.name}."
    for method in block.methods:
        yield from _function(method, name)
    for inner in block.inner_classes:
        yield from _class(inner, name)


def over_limit(source: str) -> list[tuple[int, str, int]]:
    """(line, qualified name, complexity) of each function in ``source`` over the bar."""
    return sorted(
        (block.lineno, name, block.complexity)
        for name, block in functions(source)
        if block.complexity > LIMIT
    )


def modules() -> list[Path]:
    return sorted(
        path for path in PACKAGE.rglob("*.py") if path.relative_to(PACKAGE).parts[0] != "examples"
    )


def test_no_function_is_over_the_bar() -> None:
    over = [
        f"intent_ls/{path.relative_to(PACKAGE).as_posix()}:{line}: {name} has complexity "
        f"{complexity} (at most {LIMIT})"
        for path in modules()
        for line, name, complexity in over_limit(path.read_text(encoding="utf-8"))
    ]
    assert not over, "split these into named helpers or tables:\n" + "\n".join(over)


def _branches(name: str, count: int, indent: str = "") -> str:
    """A function of complexity ``count + 1``: ``count`` ifs in a row."""
    body = "".join(f"{indent}    if x == {n}:\n{indent}        return {n}\n" for n in range(count))
    return f"{indent}def {name}(x):\n{body}{indent}    return -1\n"


def test_the_bar_is_fifteen() -> None:
    source = _branches("at_the_bar", LIMIT - 1) + _branches("over_it", LIMIT)
    assert [name for _, name, _ in over_limit(source)] == ["over_it"]
    assert over_limit(source)[0][2] == LIMIT + 1


def test_boolean_operators_count() -> None:
    condition = " and ".join(f"x[{n}]" for n in range(LIMIT))  # LIMIT - 1 operators
    assert over_limit(f"def f(x):\n    return {condition}\n") == []
    assert over_limit(f"def f(x):\n    return {condition} or x\n") == [(1, "f", LIMIT + 1)]


def test_methods_nested_functions_and_nested_classes_are_measured() -> None:
    """Each is named where it sits; a nested function's branches are its own, not those
    of the function around it."""
    source = (
        "class Outer:\n"
        + _branches("method", LIMIT, "    ")
        + "    class Inner:\n"
        + _branches("deep", LIMIT, "        ")
        + "    async def fine(self):\n"
        "        return 1\n"
        "def outer(x):\n" + _branches("closure", LIMIT, "    ") + "    return closure(x)\n"
    )
    assert [name for _, name, _ in over_limit(source)] == [
        "Outer.method",
        "Outer.Inner.deep",
        "outer.closure",
    ]
    assert {name for name, _ in functions(source)} == {
        "Outer.method",
        "Outer.Inner.deep",
        "Outer.fine",
        "outer",
        "outer.closure",
    }
