"""Equality for the immutable values that leave some of their fields out of it.

The values every front door shares (intents, tool calls, verdicts…) are
``typing.NamedTuple`` classes: each agent tool call starts a fresh hook process, and
importing attrs and building its classes cost that process about 70 ms of its 200, where
a NamedTuple costs next to nothing. A few fields are not part of a value's identity (a
live parse tree, where the text was written, a callback); :func:`compared_without` gives
such a class the ``==``, ``!=`` and ``hash`` of its other fields, as attrs' ``eq=False``
did. Its values equal values of their own class only, never a plain tuple of the same
fields, as a NamedTuple's own ``==`` would have it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from operator import attrgetter
from typing import Any

Comparison = Callable[[Any, Any], bool]


def compared_without(
    *left_out: str, unhashed: tuple[str, ...] = ()
) -> tuple[Comparison, Comparison, Callable[[Any], int]]:
    """``__eq__``, ``__ne__`` and ``__hash__`` on every field but ``left_out`` (the hash
    leaves ``unhashed`` out too: a compared field that cannot be hashed)."""

    @cache
    def keys(cls: type) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
        fields: tuple[str, ...] = cls._fields  # type: ignore[attr-defined]
        kept = [f for f in fields if f not in left_out]
        return attrgetter(*kept), attrgetter(*(f for f in kept if f not in unhashed))

    def __eq__(self: Any, other: Any) -> bool:
        if other.__class__ is not self.__class__:
            return False
        key = keys(self.__class__)[0]
        return key(self) == key(other)

    def __ne__(self: Any, other: Any) -> bool:
        if other.__class__ is not self.__class__:
            return True
        key = keys(self.__class__)[0]
        return key(self) != key(other)

    def __hash__(self: Any) -> int:
        return hash(keys(self.__class__)[1](self))

    return __eq__, __ne__, __hash__
