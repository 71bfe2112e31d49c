"""Plain value types of the syntax layer, importable without tree-sitter."""

from __future__ import annotations

from typing import Any, NamedTuple


class AstNode(NamedTuple):
    """A named definition: ``name`` is qualified by enclosing definitions (``Class.method``);
    lines are 1-based inclusive; ``content_hash`` hashes the node's text by the ledger's
    line rule, so it matches wherever the definition moves."""

    kind: str
    name: str
    start_line: int
    end_line: int
    content_hash: str

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "content_hash": self.content_hash,
        }
