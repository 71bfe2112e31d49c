from __future__ import annotations

import sys

import pytest

from intent_ls.common.diff import LineSpan
from intent_ls.common.hashing import content_hash
from intent_ls.syntax.document import DocumentSyntax, definitions
from intent_ls.syntax.languages import language_for
from intent_ls.syntax.positions import position_to_byte

# (language, source, changed line, expected qualified names overlapping that line)
CASES = [
    (
        "python",
        "class Cart:\n    def total(self):\n        return 1\n\ndef free():\n    pass\n",
        3,
        ["Cart", "Cart.total"],
    ),
    (
        "javascript",
        "class Cart {\n  total() {\n    return 1;\n  }\n}\nconst free = () => 0;\n",
        3,
        ["Cart", "Cart.total"],
    ),
    (
        "typescript",
        "class Cart {\n  total(): number {\n    return 1;\n  }\n}\ninterface Shape { a: number }\n",
        3,
        ["Cart", "Cart.total"],
    ),
    (
        "tsx",
        "class Cart {\n  total(): number {\n    return 1;\n  }\n}\nconst V = () => <div/>;\n",
        3,
        ["Cart", "Cart.total"],
    ),
    (
        "go",
        "package p\n\ntype Cart struct{}\n\nfunc (c *Cart) Total() int {\n\treturn 1\n}\n",
        6,
        ["Cart.Total"],
    ),
    (
        "rust",
        "struct Cart;\n\nimpl Cart {\n    fn total(&self) -> i32 {\n        1\n    }\n}\n",
        5,
        ["Cart", "Cart.total"],
    ),
    (
        "java",
        "class Cart {\n  int total() {\n    return 1;\n  }\n}\n",
        3,
        ["Cart", "Cart.total"],
    ),
]


@pytest.mark.parametrize(("language", "source", "line", "names"), CASES, ids=[c[0] for c in CASES])
def test_definitions_for_changed_span(
    language: str, source: str, line: int, names: list[str]
) -> None:
    doc = DocumentSyntax.parse(source, language)
    nodes = doc.definitions_for_spans([LineSpan(line, line)])
    assert [n.name for n in nodes] == names
    lines = source.splitlines()
    for node in nodes:
        assert node.start_line <= line <= node.end_line
        # whole-line nodes hash exactly like the ledger's line ranges
        if lines[node.start_line - 1].lstrip() == lines[node.start_line - 1]:
            assert node.content_hash == content_hash(lines[node.start_line - 1 : node.end_line])
    assert nodes[-1].kind == "method"


@pytest.mark.parametrize(("language", "source", "line", "names"), CASES, ids=[c[0] for c in CASES])
def test_incremental_edit_equals_full_reparse(
    language: str, source: str, line: int, names: list[str]
) -> None:
    doc = DocumentSyntax.parse(source, language)
    # insert text with a non-BMP character (2 UTF-16 units, 4 UTF-8 bytes) mid-line, then
    # replace across a line break: exercises the position conversion too
    doc.apply_change(
        (line - 1, 0), (line - 1, 0), "// 😀 x\n" if language != "python" else "# 😀 x\n"
    )
    doc.apply_change((line - 1, 3), (line - 1, 5), "ab", "utf-16")
    doc.apply_change((0, 0), (1, 0), doc.text.splitlines(keepends=True)[0], "utf-16")
    full = DocumentSyntax.parse(doc.text, language)
    assert str(doc.tree.root_node) == str(full.tree.root_node)
    assert doc.definitions() == full.definitions()
    assert "ab" in doc.text.splitlines()[line - 1]


def test_position_encodings() -> None:
    source = "a😀b\nxyz".encode()
    assert position_to_byte(source, 0, 3, "utf-16") == (5, (0, 5))  # after the emoji
    assert position_to_byte(source, 0, 2, "utf-32") == (5, (0, 5))
    assert position_to_byte(source, 0, 5, "utf-8") == (5, (0, 5))
    assert position_to_byte(source, 1, 99, "utf-16") == (len(source), (1, 3))


def test_language_registry() -> None:
    assert language_for(language="typescriptreact") == "tsx"
    assert language_for(path="x/y.tsx") == "tsx"
    assert language_for(path="a.jsx") == "javascript"
    assert language_for(language="plaintext", path="notes.txt") is None


def test_unsupported_language_yields_no_nodes() -> None:
    assert definitions("anything at all", None) == []
    assert definitions("x", "cobol") == []


def test_broken_source_does_not_crash() -> None:
    doc = DocumentSyntax.parse("def f(:\n  class\n)))", "python")
    assert isinstance(doc.definitions_for_spans([LineSpan(1, 3)]), list)


def test_importing_syntax_root_does_not_load_tree_sitter() -> None:
    import subprocess

    code = (
        "import intent_ls.syntax, intent_ls.ledger.records, intent_ls.ledger.store, sys; "
        "print('tree_sitter' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_batched_changes_equal_one_by_one() -> None:
    text = "class A:\n    def f(self):\n        return 'é😀'\n\ndef g():\n    pass\n"
    changes = [
        ((2, 16), (2, 17), "x"),  # after the emoji: UTF-16 units differ from code points
        ((4, 4), (4, 5), "h"),
        ((0, 0), (0, 0), "import os\n"),
        ((5, 0), (6, 8), "def k():\n    return 1\n"),
    ]
    batched = DocumentSyntax.parse(text, "python")
    batched.apply_changes(changes, "utf-16")
    single = DocumentSyntax.parse(text, "python")
    for start, end, new in changes:
        single.apply_change(start, end, new, "utf-16")
    assert batched.source == single.source
    assert str(batched.tree.root_node) == str(single.tree.root_node)
    fresh = DocumentSyntax.parse(batched.source, "python")
    assert batched.definitions() == fresh.definitions()
    assert [n.name for n in fresh.definitions()] == ["A", "A.f", "k"]  # h was replaced
