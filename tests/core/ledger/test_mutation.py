from __future__ import annotations

import pytest

from intent_ls.ledger.mutation import MutationClass, classify

REFACTOR, EVOLUTION = MutationClass.AST_REFACTOR, MutationClass.INTENT_EVOLUTION

BASE = """import os

class A:
    x = 1

    def f(self, a):
        y = a + 1
        return y

    def g(self):
        pass

def top():
    return 2
"""

PY_CASES = {
    "whitespace": (BASE.replace("y = a + 1", "y  =  a+1"), REFACTOR),
    "comment added": (
        BASE.replace("        return y", "        # why\n        return y"),
        REFACTOR,
    ),
    "comment at block end": (
        BASE.replace("        return y\n", "        return y\n        # trailing\n"),
        REFACTOR,
    ),
    "methods reordered": (
        BASE.replace(
            "    def f(self, a):\n        y = a + 1\n        return y\n\n"
            "    def g(self):\n        pass\n",
            "    def g(self):\n        pass\n\n"
            "    def f(self, a):\n        y = a + 1\n        return y\n",
        ),
        REFACTOR,
    ),
    "function moved to top": (
        "def top():\n    return 2\n\n" + BASE.replace("def top():\n    return 2\n", ""),
        REFACTOR,
    ),
    "consistent local rename": (
        BASE.replace("y = a + 1", "res = a + 1").replace("return y", "return res"),
        REFACTOR,
    ),
    "operator changed": (BASE.replace("a + 1", "a - 1"), EVOLUTION),
    "signature changed": (BASE.replace("def f(self, a)", "def f(self, a, b)"), EVOLUTION),
    "definition added": (BASE + "\ndef extra():\n    pass\n", EVOLUTION),
    "definition removed": (BASE.replace("def top():\n    return 2\n", ""), EVOLUTION),
    "statement dedented": (BASE.replace("        return y", "    return y"), EVOLUTION),
    "statement appended": (
        BASE.replace("        return y\n", "        return y\n        print(y)\n"),
        EVOLUTION,
    ),
    "rename onto an existing name": (
        BASE.replace("y = a + 1", "a = a + 1").replace("return y", "return a"),
        EVOLUTION,
    ),
    "statements swapped": (
        BASE.replace("        y = a + 1\n        return y", "        return y\n        y = a + 1"),
        EVOLUTION,
    ),
}


@pytest.mark.parametrize(("new", "expected"), PY_CASES.values(), ids=PY_CASES.keys())
def test_python_rules(new: str, expected: MutationClass) -> None:
    assert classify(BASE, new, "python") is expected


JS = "function f(a) {\n  const y = a + 1;\n  return y;\n}\n\nfunction g() {\n  return 0;\n}\n"


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        (JS.replace("a + 1", "a+1 /* c */"), REFACTOR),
        (JS.replace("const y = a + 1;\n  return y;", "const z = a + 1;\n  return z;"), REFACTOR),
        ("function g() {\n  return 0;\n}\n\n" + JS.split("\n\n")[0] + "\n", REFACTOR),
        (JS.replace("return 0", "return 1"), EVOLUTION),
    ],
)
def test_javascript_rules(new: str, expected: MutationClass) -> None:
    assert classify(JS, new, "javascript") is expected


def test_unsupported_language_whitespace_only() -> None:
    assert classify("a b\nc", "a   b\n\n c", None) is REFACTOR
    assert classify("a b", "a c", "plaintext") is EVOLUTION


def test_identical_text_is_refactor() -> None:
    assert classify(BASE, BASE, "python") is REFACTOR


def test_live_trees_are_used_and_agree_with_fresh_parse() -> None:
    from intent_ls.syntax.document import DocumentSyntax

    new = PY_CASES["operator changed"][0]
    old_doc, new_doc = DocumentSyntax.parse(BASE, "python"), DocumentSyntax.parse(new, "python")
    assert classify(BASE, new, "python", old_syntax=old_doc, new_syntax=new_doc) is EVOLUTION
