"""Answers from a local parse (pending edits, no whole-file reparse) must equal the
answers of a fresh full parse of the same text, whatever the edit — and the local parse
must actually be used where it is meant to save the reparse."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from intent_ls.common.diff import changed_spans, diff_lines, split_lines
from intent_ls.ledger import mutation
from intent_ls.syntax.document import DocumentSyntax

PYTHON_UNIT = '''# section {i}
value_{i} = {i}  # trailing
@decorator
def func_{i}(a, b=2):
    """Doc {i}."""
    return a + b

class Klass_{i}(Base):
    x = {i}

    def method(self):
        if self.x:
            return 1
        else:
            return 2
'''
JS_UNIT = """// section {i}
function f_{i}(a) {{
  return a + {i};
}}
const c_{i} = () => {i};
class K_{i} {{
  m() {{ return `t ${{{i}}}`; }}
}}
let v_{i} = 1
"""
TS_UNIT = """interface I_{i} {{ a: number }}
type T_{i} = string;
function f_{i}(x: number): number {{
  return x + {i};
}}
export class C_{i} {{
  total(): number {{ return {i}; }}
}}
"""
TSX_UNIT = (
    TS_UNIT
    + """export const V_{i} = (p: {{ n: number }}) => <div title="v">{{p.n}}</div>;
"""
)
GO_UNIT = """// section {i}
type T_{i} struct {{
\ta int
}}

func (t *T_{i}) M() int {{
\treturn t.a + {i}
}}

var v_{i} = {i}
"""
RUST_UNIT = """struct S_{i};

impl S_{i} {{
    fn m(&self) -> i32 {{
        {i}
    }}
}}

const C_{i}: i32 = {i};
fn f_{i}() -> i32 {{ C_{i} }}
"""
JAVA_UNIT = """class K{i} {{
  int total() {{
    return {i};
  }}
}}
"""

SOURCES = {
    "python": "import os\n\n" + "".join(PYTHON_UNIT.format(i=i) for i in range(40)),
    "javascript": "".join(JS_UNIT.format(i=i) for i in range(40)),
    "typescript": "".join(TS_UNIT.format(i=i) for i in range(40)),
    "tsx": "".join(TSX_UNIT.format(i=i) for i in range(40)),
    "go": "package p\n\n" + "".join(GO_UNIT.format(i=i) for i in range(40)),
    "rust": "".join(RUST_UNIT.format(i=i) for i in range(40)),
    "java": "".join(JAVA_UNIT.format(i=i) for i in range(60)),
}

#: Per language: snippets that stand on their own, then ones that break the syntax.
SNIPPETS = {
    "python": (
        [
            "",
            "\n",
            "def added(x):\n    return x\n",
            "class Added:\n    pass\n",
            "# a comment\n",
            "value_new = 42\n",
            "    indented = 1\n",
            "    def inner(self):\n        return 0\n",
        ],
        ['"""\n', "x = (\n", "else:\n    pass\n", "@decorator\n", "if True:\n"],
    ),
    "javascript": (
        [
            "",
            "\n",
            "function added() { return 1; }\n",
            "const z = 1;\n",
            "class Z { n() {} }\n",
            "  return 3;\n",
            "let q = 2\n",
            "(foo)()\n",
        ],
        ["}\n", "/*\n", "`\n"],
    ),
    "typescript": (
        [
            "",
            "function added(): void {}\n",
            "interface J { b: string }\n",
            "type U = number\n",
            "  total(): number { return 0; }\n",
        ],
        ["}\n", "/*\n"],
    ),
    "tsx": (
        [
            "",
            "function Added(): JSX.Element { return <p/>; }\n",
            "const W = () => <span>w</span>;\n",
            "  total(): number { return 0; }\n",
        ],
        ["}\n", "<div>\n", "/*\n"],
    ),
    "go": (
        ["", "func Added() {}\n", "type U int\n", "\treturn 0\n", 'var s = "x"\n'],
        ["}\n", "/*\n"],
    ),
    "rust": (
        ["", "fn added() {}\n", "struct U;\n", "    fn inner(&self) {}\n", "const D: i32 = 1;\n"],
        ["}\n", "/*\n"],
    ),
    "java": (["", "class Added {}\n", "  void m() {}\n"], ["}\n", "/*\n"]),
}


def _edit(doc: DocumentSyntax, text: str, first: int, count: int, snippet: str) -> str:
    """Replaces ``count`` lines from ``first`` with ``snippet`` in ``doc`` (as an editor's
    range change) and returns the new text."""
    lines = text.splitlines(keepends=True)
    first = min(first, len(lines))
    last = min(first + count, len(lines))
    doc.apply_change((first, 0), (last, 0), snippet, "utf-16")
    return "".join(lines[:first]) + snippet + "".join(lines[last:])


#: Up to three edits close to one another (a burst of typing between two saves), each
#: replacing 0-3 lines, anywhere in the file; one snippet in ten breaks the syntax.
edits = st.tuples(
    st.integers(0, 10_000),
    st.lists(
        st.tuples(st.integers(-6, 6), st.integers(0, 3), st.integers(0, 100), st.integers(0, 9)),
        min_size=1,
        max_size=3,
    ),
)
Plan = tuple[int, list[tuple[int, int, int, int]]]


def _apply_all(doc: DocumentSyntax, text: str, language: str, plan: Plan) -> str:
    valid, broken = SNIPPETS[language]
    anchor, steps = plan
    for offset, count, pick, odds in steps:
        pool = broken if odds == 0 else valid
        lines = len(text.splitlines())
        first = min(max(anchor % max(lines, 1) + offset, 0), lines)
        text = _edit(doc, text, first, count, pool[pick % len(pool)])
    return text


@pytest.mark.parametrize("language", sorted(SOURCES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=edits)
def test_local_answers_equal_a_full_parse(language: str, plan: Plan) -> None:
    old_text = SOURCES[language]
    old = DocumentSyntax.parse(old_text, language)
    new = old.copy()
    new_text = _apply_all(new, old_text, language, plan)
    assert new.source == new_text.encode()
    hunks = diff_lines(split_lines(old_text), split_lines(new_text))
    spans = changed_spans(hunks)
    got = (
        new.definitions_for_spans(spans),
        [new.definitions_at(span.start) for span in spans[:2]],
        mutation.classify(
            old_text, new_text, language, old_syntax=old, new_syntax=new, hunks=hunks
        ),
    )
    fresh = DocumentSyntax.parse(new_text, language)
    if _comparable(fresh, new):
        assert got == (
            fresh.definitions_for_spans(spans),
            [fresh.definitions_at(span.start) for span in spans[:2]],
            mutation.classify(old_text, new_text, language),
        )
        assert str(new.tree.root_node) == str(fresh.tree.root_node)


def _comparable(fresh: DocumentSyntax, *used: DocumentSyntax) -> bool:
    """Whether answers must equal the fresh parse's: always when they came from local
    parses (nothing was reparsed); after a fallback to the full incremental reparse
    only for valid text, as tree-sitter's error recovery may differ between an
    incremental and a fresh parse of the same broken text."""
    return all(doc.reparses == 0 for doc in used) or not fresh.tree.root_node.has_error


@pytest.mark.parametrize("language", sorted(SOURCES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=edits, after=edits)
def test_both_sides_pending(language: str, before: Plan, after: Plan) -> None:
    """The server's record snapshot is itself an edited, unparsed tree: the old side of
    the next record has pending edits too."""
    live = DocumentSyntax.parse(SOURCES[language], language)
    recorded_text = _apply_all(live, SOURCES[language], language, before)
    recorded = live.copy()
    new_text = _apply_all(live, recorded_text, language, after)
    hunks = diff_lines(split_lines(recorded_text), split_lines(new_text))
    spans = changed_spans(hunks)
    got = (
        mutation.classify(
            recorded_text, new_text, language, old_syntax=recorded, new_syntax=live, hunks=hunks
        ),
        live.definitions_for_spans(spans),
    )
    fresh_old = DocumentSyntax.parse(recorded_text, language)
    fresh = DocumentSyntax.parse(new_text, language)
    if _comparable(fresh_old, recorded, live) and _comparable(fresh, recorded, live):
        assert got == (
            mutation.classify(recorded_text, new_text, language),
            fresh.definitions_for_spans(spans),
        )


FLAT = "".join(f"value_{i} = {i}  # line {i}\n" for i in range(10_000))


def _flat_edit(text: str, line: int, new: str) -> tuple[DocumentSyntax, DocumentSyntax, str]:
    old = DocumentSyntax.parse(text, "python")
    live = old.copy()
    return old, live, _edit(live, text, line, 1, new)


def test_a_save_in_a_flat_module_reparses_nothing() -> None:
    """The save benchmark's shape: tree-sitter reuses no node there, so the record's
    questions must be answered without any whole-file parse."""
    old, live, new_text = _flat_edit(FLAT, 5000, "def added(x):\n    return x\n")
    hunks = diff_lines(split_lines(FLAT), split_lines(new_text))
    spans = changed_spans(hunks)
    nodes = live.definitions_for_spans(spans)
    cls = mutation.classify(FLAT, new_text, "python", old_syntax=old, new_syntax=live, hunks=hunks)
    assert [(n.kind, n.name, n.start_line) for n in nodes] == [("function", "added", 5001)]
    assert cls is mutation.MutationClass.INTENT_EVOLUTION
    assert (live.reparses, old.reparses) == (0, 0)
    assert live.dirty is not None
    fresh = DocumentSyntax.parse(new_text, "python")
    assert nodes == fresh.definitions_for_spans(spans)


def test_a_rename_in_a_flat_module_is_a_refactor_without_a_reparse() -> None:
    old, live, new_text = _flat_edit(FLAT, 7000, "value_7000 = 7000  # line 7000 (reworded)\n")
    cls = mutation.classify(FLAT, new_text, "python", old_syntax=old, new_syntax=live)
    assert cls is mutation.MutationClass.AST_REFACTOR
    assert live.reparses == 0


def test_an_edit_that_swallows_the_rest_falls_back_to_the_full_parse() -> None:
    """An unclosed string turns the rest of the file into one token: no local stretch
    can stand on its own, and the answer must still be the full parse's."""
    _, live, new_text = _flat_edit(FLAT, 5000, 'doc = """\n')
    spans = changed_spans(diff_lines(split_lines(FLAT), split_lines(new_text)))
    fresh = DocumentSyntax.parse(new_text, "python")
    assert live.definitions_for_spans(spans) == fresh.definitions_for_spans(spans)
    assert live.reparses == 1
    assert str(live.tree.root_node) == str(fresh.tree.root_node)


def test_whole_document_changes_are_edited_not_reparsed() -> None:
    """Clients that send the full text on every change get the same shortcut: the text
    is diffed against the tree's source into one edit."""
    doc = DocumentSyntax.parse(FLAT, "python")
    lines = FLAT.splitlines(keepends=True)
    lines[4000] = "def replaced():\n    return 1\n"
    text = "".join(lines)
    doc.replace_all(text)
    spans = changed_spans(diff_lines(split_lines(FLAT), split_lines(text)))
    assert [n.name for n in doc.definitions_for_spans(spans)] == ["replaced"]
    assert doc.reparses == 0
    assert doc.dirty is not None
    assert str(doc.tree.root_node) == str(DocumentSyntax.parse(text, "python").tree.root_node)
    doc.replace_all(text)
    assert doc.dirty is None  # nothing differs: no edit


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("abc", "abc"),
        ("", "x"),
        ("x", ""),
        ("abcdef", "abXdef"),
        ("aaaa", "aaaaa"),
        ("line\nline\n", "line\nlinx\nline\n"),
        ("é€😀", "é😀"),
    ],
)
def test_replace_all_keeps_the_tree_exact(old: str, new: str) -> None:
    doc = DocumentSyntax.parse(old, "python")
    doc.replace_all(new)
    assert doc.source == new.encode()
    assert str(doc.tree.root_node) == str(DocumentSyntax.parse(new, "python").tree.root_node)


#: Lines before the repeated units, and lines per unit, of each source.
LAYOUT = {
    "python": (2, PYTHON_UNIT.count("\n")),
    "javascript": (0, JS_UNIT.count("\n")),
    "typescript": (0, TS_UNIT.count("\n")),
    "tsx": (0, TSX_UNIT.count("\n")),
    "go": (2, GO_UNIT.count("\n")),
    "rust": (0, RUST_UNIT.count("\n")),
    "java": (0, JAVA_UNIT.count("\n")),
}


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_a_definition_added_between_two_others_is_answered_locally(language: str) -> None:
    head, unit = LAYOUT[language]
    text = SOURCES[language]
    old = DocumentSyntax.parse(text, language)
    live = old.copy()
    new_text = _edit(live, text, head + 20 * unit, 0, SNIPPETS[language][0][2])
    hunks = diff_lines(split_lines(text), split_lines(new_text))
    spans = changed_spans(hunks)
    fresh = DocumentSyntax.parse(new_text, language)
    nodes = live.definitions_for_spans(spans)
    assert nodes and nodes == fresh.definitions_for_spans(spans)
    assert (
        mutation.classify(text, new_text, language, old_syntax=old, new_syntax=live, hunks=hunks)
        is mutation.MutationClass.INTENT_EVOLUTION
    )
    assert (live.reparses, old.reparses) == (0, 0)


def test_a_node_the_edit_cut_into_is_no_boundary() -> None:
    """Deleting whole statements and the head of the next one leaves zero-width and
    partly deleted nodes at the edit's end; the remaining body lines belong to the new
    function, so the stretch must not end there."""
    filler = "".join(f"v_{i} = {i}\n" for i in range(200))
    text = (
        filler + '# one\ny = 1  # trailing\n@decorator\ndef b(v):\n    """Doc."""\n    return v\n'
    )
    text += filler.replace("v_", "w_")
    old = DocumentSyntax.parse(text, "python")
    live = old.copy()
    new_text = _edit(live, text, 200, 4, "def added(a):\n    return a\n")
    hunks = diff_lines(split_lines(text), split_lines(new_text))
    spans = changed_spans(hunks)
    nodes = live.definitions_for_spans(spans)
    assert [(n.name, n.start_line, n.end_line) for n in nodes] == [("added", 201, 204)]
    fresh = DocumentSyntax.parse(new_text, "python")
    assert nodes == fresh.definitions_for_spans(spans)
    assert live.definitions_at(201) == fresh.definitions_at(201) == nodes
    assert live.reparses == 0
