"""Properties of the classifier: it never raises, its positions are always in range,
and its restore edits really bring the deleted code back."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from intent_ls.policy.destructive import (
    DEFINITION_DELETED,
    MASS_DELETION,
    classify_change,
)
from intent_ls.syntax.document import definitions
from intent_ls.syntax.languages import GRAMMARS
from tests.support import apply_edits

SEED = {
    "python": "import os\n\n\ndef a(x):\n    return x\n\n\nclass B:\n    def c(self):\n"
    "        return 1\n\n    def d(self):\n        pass\n",
    "javascript": "function a(x) {\n  return x;\n}\n\nclass B {\n  c() {\n    return 1;\n  }\n"
    "  d() {}\n}\nconst e = () => 2;\n",
    "typescript": "export function a(x: number): number {\n  return x;\n}\n\ninterface I {\n"
    "  n: number;\n}\n\nclass B {\n  c(): number {\n    return 1;\n  }\n}\n",
    "tsx": "export function A(): JSX.Element {\n  return <div />;\n}\n\nclass B {\n  c() {\n"
    "    return <span>{1}</span>;\n  }\n}\n",
    "go": "package p\n\nfunc a(x int) int {\n\treturn x\n}\n\ntype B struct {\n\tn int\n}\n\n"
    "func (b *B) C() int {\n\treturn 1\n}\n",
    "rust": "fn a(x: i32) -> i32 {\n    x\n}\n\nstruct B {\n    n: i32,\n}\n\nimpl B {\n"
    "    fn c(&self) -> i32 {\n        1\n    }\n}\n",
    "java": "class B {\n    int c() {\n        return 1;\n    }\n\n    void d() {\n    }\n}\n\n"
    "interface I {\n    void e();\n}\n",
}
LANGUAGES = sorted(GRAMMARS)
PIECES = st.sampled_from(
    ["", "\n", "\r\n", "\r", "}", "{", "def ", "class X:", "  ", "\t", "é", "😀", "\x0c", "(", ")"]
)
NOISE = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=12).map("".join)


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, str, str]:
    language = draw(st.sampled_from(LANGUAGES))
    old = draw(st.one_of(st.just(SEED[language]), NOISE))
    new = old
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(new)))
        j = draw(st.integers(i, min(len(new), i + 80)))
        new = new[:i] + draw(NOISE) + new[j:]
    return language, old, new


def check_positions(old: str, new: str, findings: tuple) -> None:
    old_lines, new_lines = max(1, len(old.splitlines())), max(1, len(new.splitlines()))
    new_keep = new.splitlines(keepends=True)
    for finding in findings:
        assert finding.message and finding.content_hash
        assert 1 <= finding.anchor.start <= finding.anchor.end <= new_lines
        assert 1 <= finding.baseline.start <= finding.baseline.end <= old_lines
        for edit in finding.restore:
            assert edit.start <= edit.end
            for line, column in (edit.start, edit.end):
                assert 0 <= line <= len(new_keep)
                assert column == 0 or column <= len(new_keep[line])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited(), st.integers(0, 30))
def test_classify_never_raises_and_stays_in_range(case: tuple[str, str, str], limit: int) -> None:
    language, old, new = case
    findings = classify_change("db/migrations/x", old, new, language, max_deleted_lines=limit)
    check_positions(old, new, findings)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(LANGUAGES), st.data())
def test_restore_brings_back_what_a_pure_deletion_removed(
    language: str, data: st.DataObject
) -> None:
    old = SEED[language]
    lines = old.splitlines(keepends=True)
    start = data.draw(st.integers(0, len(lines) - 1))
    end = data.draw(st.integers(start + 1, len(lines)))
    new = "".join(lines[:start] + lines[end:])
    findings = classify_change("x", old, new, language, max_deleted_lines=0)
    check_positions(old, new, findings)
    by_kind = {f.kind: f for f in findings}
    # with a zero threshold every deleted line outside a deleted definition is mass deletion
    mass = by_kind.get(MASS_DELETION)
    if mass is not None:
        assert apply_edits(new, mass.restore) == old
    old_defs = definitions(old, language)
    for finding in findings:
        if finding.kind == DEFINITION_DELETED:
            (node,) = finding.nodes
            assert node in old_defs and finding.content_hash == node.content_hash
            # the exact baseline lines go back (whether they parse again depends on
            # what else the deletion took, e.g. the enclosing block's closing brace)
            block = "".join(lines[node.start_line - 1 : node.end_line])
            assert block in apply_edits(new, finding.restore)
    # every definition the deletion took whole is reported, itself or through an
    # enclosing definition that went too
    if new.strip():
        reported = [n for f in findings if f.kind == DEFINITION_DELETED for n in f.nodes]
        for d in old_defs:
            if d.start_line > start and d.end_line <= end:
                assert any(
                    n.start_line <= d.start_line and d.end_line <= n.end_line for n in reported
                ), d
