"""Pending-change classification: the destructive findings, per language and per rule."""

from __future__ import annotations

import time

import pytest

from intent_ls.common.diff import LineSpan
from intent_ls.common.hashing import content_hash, text_hash
from intent_ls.policy.destructive import (
    DEFINITION_DELETED,
    FILE_DELETED,
    FILE_EMPTIED,
    FILE_RENAMED,
    MASS_DELETION,
    PROTECTED_EDIT,
    Finding,
    classify_change,
    classify_file_operation,
)
from intent_ls.scope.protected import ProtectedPaths
from intent_ls.syntax.document import DocumentSyntax, definitions
from tests.support import apply_edits

PY = """import os


def helper(x):
    return x + 1


def verify_token(token):
    if not token:
        raise ValueError("empty")
    return token.count(".") == 2


class Auth:
    def login(self, user):
        return user

    def logout(self, user):
        return None
"""

JS = """import fs from "fs";

function helper(x) {
  return x + 1;
}

function verifyToken(token) {
  if (!token) {
    throw new Error("empty");
  }
  return token.split(".").length === 3;
}

class Auth {
  login(user) {
    return user;
  }

  logout(user) {
    return null;
  }
}
"""

TS = """import fs from "fs";

export function helper(x: number): number {
  return x + 1;
}

export function verifyToken(token: string): boolean {
  if (!token) {
    throw new Error("empty");
  }
  return token.split(".").length === 3;
}

export class Auth {
  login(user: string): string {
    return user;
  }

  logout(user: string): string | null {
    return null;
  }
}
"""

TSX = """import React from "react";

export function helper(x: number): number {
  return x + 1;
}

export function verifyToken(token: string): boolean {
  if (!token) {
    return false;
  }
  return <b>{token}</b> !== null;
}

export class Auth extends React.Component<{ user: string }> {
  login(user: string): JSX.Element {
    return <span>{user}</span>;
  }

  logout(user: string): null {
    return null;
  }
}
"""

GO = """package auth

import "strings"

func helper(x int) int {
\treturn x + 1
}

func VerifyToken(token string) bool {
\tif token == "" {
\t\treturn false
\t}
\treturn strings.Count(token, ".") == 2
}

type Auth struct {
\tname string
}

func (a *Auth) Login(user string) string {
\treturn user
}

func (a *Auth) Logout(user string) string {
\treturn ""
}
"""

RUST = """use std::fmt;

fn helper(x: i32) -> i32 {
    x + 1
}

fn verify_token(token: &str) -> bool {
    if token.is_empty() {
        return false;
    }
    token.matches('.').count() == 2
}

struct Auth {
    name: String,
}

impl Auth {
    fn login(&self, user: &str) -> String {
        user.to_string()
    }

    fn logout(&self, _user: &str) -> Option<String> {
        None
    }
}
"""

JAVA = """package auth;

import java.util.List;

public class Auth {
    private String name;

    public String login(String user) {
        return user;
    }

    public String logout(String user) {
        return null;
    }

    static boolean verifyToken(String token) {
        if (token == null) {
            return false;
        }
        return token.split("\\\\.").length == 3;
    }
}

class Helper {
    int helper(int x) {
        return x + 1;
    }
}
"""


def delete_lines(text: str, start: int, end: int) -> str:
    """Removes 1-based inclusive lines ``start..end``."""
    lines = text.splitlines(keepends=True)
    return "".join(lines[: start - 1] + lines[end:])


def kinds(findings: tuple[Finding, ...]) -> list[str]:
    return [f.kind for f in findings]


# language, path, function, method, container, where to move the function, rename
LANGUAGES = [
    pytest.param(
        "python",
        "src/auth/jwt.py",
        PY,
        ("function", "verify_token", 8, 11),
        ("method", "Auth.logout", 18, 19),
        ("class", "Auth", 14, 19),
        4,
        ("verify_token", "check_token"),
        id="python",
    ),
    pytest.param(
        "javascript",
        "web/auth.js",
        JS,
        ("function", "verifyToken", 7, 12),
        ("method", "Auth.logout", 19, 21),
        ("class", "Auth", 14, 22),
        3,
        ("verifyToken", "checkToken"),
        id="javascript",
    ),
    pytest.param(
        "typescript",
        "web/auth.ts",
        TS,
        ("function", "verifyToken", 7, 12),
        ("method", "Auth.logout", 19, 21),
        ("class", "Auth", 14, 22),
        3,
        ("verifyToken", "checkToken"),
        id="typescript",
    ),
    pytest.param(
        "tsx",
        "web/Auth.tsx",
        TSX,
        ("function", "verifyToken", 7, 12),
        ("method", "Auth.logout", 19, 21),
        ("class", "Auth", 14, 22),
        3,
        ("verifyToken", "checkToken"),
        id="tsx",
    ),
    pytest.param(
        "go",
        "services/auth/auth.go",
        GO,
        ("function", "VerifyToken", 9, 14),
        ("method", "Auth.Logout", 24, 26),
        ("struct", "Auth", 16, 18),
        5,
        ("VerifyToken", "CheckToken"),
        id="go",
    ),
    pytest.param(
        "rust",
        "crates/auth/src/lib.rs",
        RUST,
        ("function", "verify_token", 7, 12),
        ("method", "Auth.logout", 23, 25),
        ("impl", "Auth", 18, 26),
        3,
        ("verify_token", "check_token"),
        id="rust",
    ),
    pytest.param(
        "java",
        "src/main/java/auth/Auth.java",
        JAVA,
        ("method", "Auth.verifyToken", 16, 21),
        ("method", "Auth.logout", 12, 14),
        ("class", "Helper", 24, 28),
        8,
        ("verifyToken", "checkToken"),
        id="java",
    ),
]
LANGUAGE_ARGS = "language,path,source,function,method,container,move_before,rename"


@pytest.mark.parametrize(LANGUAGE_ARGS, LANGUAGES)
@pytest.mark.parametrize("which", ["function", "method", "container"])
def test_deleting_a_definition_names_it_and_restores_it(
    language, path, source, function, method, container, move_before, rename, which
) -> None:
    kind, name, start, end = {"function": function, "method": method, "container": container}[which]
    new = delete_lines(source, start, end)
    (finding,) = classify_change(path, source, new, language)
    assert finding.kind == DEFINITION_DELETED
    assert finding.message == f"deletes {kind} `{name}` (lines {start}–{end})"
    assert finding.baseline == LineSpan(start, end)
    (node,) = finding.nodes
    assert (node.kind, node.name, node.start_line, node.end_line) == (kind, name, start, end)
    assert finding.content_hash == node.content_hash
    assert node in definitions(source, language)
    # the anchor is the line now standing where the definition was (or the last line)
    anchor = min(start, len(new.splitlines()))
    assert finding.anchor == LineSpan(anchor, anchor)
    # "Restore deleted code" puts back exactly the baseline
    assert apply_edits(new, finding.restore) == source


@pytest.mark.parametrize(LANGUAGE_ARGS, LANGUAGES)
def test_moving_a_definition_is_not_a_deletion(
    language, path, source, function, method, container, move_before, rename
) -> None:
    _, _, start, end = function
    lines = source.splitlines(keepends=True)
    block = lines[start - 1 : end]
    rest = lines[: start - 2] + lines[end:]  # also drops the blank line before it
    moved = "".join(rest[: move_before - 1] + block + ["\n"] + rest[move_before - 1 :])
    assert moved != source
    function_hash = next(d for d in definitions(source, language) if d.name == function[1])
    assert function_hash.content_hash in {d.content_hash for d in definitions(moved, language)}
    assert classify_change(path, source, moved, language) == ()


@pytest.mark.parametrize(LANGUAGE_ARGS, LANGUAGES)
def test_renaming_a_definition_is_not_a_deletion(
    language, path, source, function, method, container, move_before, rename
) -> None:
    old_name, new_name = rename
    renamed = source.replace(old_name, new_name)
    assert new_name in {d.name.rsplit(".", 1)[-1] for d in definitions(renamed, language)}
    assert classify_change(path, source, renamed, language) == ()


@pytest.mark.parametrize(LANGUAGE_ARGS, LANGUAGES)
def test_editing_a_body_or_signature_is_not_a_deletion(
    language, path, source, function, method, container, move_before, rename
) -> None:
    start = function[2]
    lines = source.splitlines(keepends=True)
    lines[start] = lines[start].replace("token", "tkn")  # first body line
    lines[start - 1] = lines[start - 1].replace("token", "tkn")  # the signature
    assert classify_change(path, source, "".join(lines), language) == ()


@pytest.mark.parametrize(LANGUAGE_ARGS, LANGUAGES)
def test_rename_and_rewrite_of_the_header_keeps_the_body(
    language, path, source, function, method, container, move_before, rename
) -> None:
    """A header retyped beyond recognition (new name *and* new parameters) is an edit
    while the body is still there."""
    start = function[2]
    lines = source.splitlines(keepends=True)
    old_name, new_name = rename
    lines[start - 1] = lines[start - 1].replace(old_name, new_name).replace("token", "raw")
    assert classify_change(path, source, "".join(lines), language) == ()


def test_renamed_and_rewritten_definition_is_a_deletion() -> None:
    new = PY.replace(
        'def verify_token(token):\n    if not token:\n        raise ValueError("empty")\n'
        '    return token.count(".") == 2\n',
        "def decode(raw):\n    return raw\n",
    )
    (finding,) = classify_change("a.py", PY, new)
    assert finding.message == "deletes function `verify_token` (lines 8–11)"
    restored = apply_edits(new, finding.restore)
    assert "def decode(raw):" in restored  # the replacement text is kept
    assert finding.content_hash in {d.content_hash for d in definitions(restored, "python")}


def test_deleting_two_definitions_reports_each_outermost_one() -> None:
    new = delete_lines(delete_lines(PY, 14, 19), 4, 5)
    found = classify_change("a.py", PY, new, "python")
    assert [f.message for f in found] == [
        "deletes function `helper` (lines 4–5)",
        "deletes class `Auth` (lines 14–19)",
    ]
    assert apply_edits(new, tuple(e for f in found for e in f.restore)) == PY


def test_deleting_an_overload_is_caught_though_the_name_survives() -> None:
    source = (
        "class A {\n"
        "    int f(int x) {\n        return x;\n    }\n\n"
        "    int f(int x, int y) {\n        return x + y;\n    }\n"
        "}\n"
    )
    new = delete_lines(source, 6, 8)
    (finding,) = classify_change("A.java", source, new)
    assert finding.message == "deletes method `A.f` (lines 6–8)"


@pytest.mark.parametrize(
    ("rel", "old", "new", "message"),
    [
        (
            "a.py",
            "def foo():\n    return 1\n\n\ndef bar():\n    return 2\n",
            'x = """\ndef foo():\n    return 1\n"""\n\n\ndef bar():\n    return 2\n',
            "deletes function `foo` (lines 1–2)",
        ),
        (
            "a.py",
            "class A:\n    def m(self):\n        return 1\n",
            '"""class A:\n    def m(self):\n        return 1\n"""\n',
            "deletes class `A` (lines 1–3)",
        ),
        (
            "a.js",
            "function foo() {\n  return 1;\n}\nfunction bar() { return 2; }\n",
            "/*\nfunction foo() {\n  return 1;\n}\n*/\nfunction bar() { return 2; }\n",
            "deletes function `foo` (lines 1–3)",
        ),
        (
            "a.ts",
            "function foo(): number {\n  return 1;\n}\n",
            "const kept = `\nfunction foo(): number {\n  return 1;\n}\n`;\n",
            "deletes function `foo` (lines 1–3)",
        ),
    ],
)
def test_a_definition_turned_into_text_is_deleted(
    rel: str, old: str, new: str, message: str
) -> None:
    """Wrapped in a string literal or a block comment, every line of it survives, yet
    the definition is gone: one finding, the outermost."""
    assert [f.message for f in classify_change(rel, old, new)] == [message]


@pytest.mark.parametrize(
    "new",
    [
        'def foo():\n    """Doc."""\n    return 1\n',
        'def food():\n    """Renamed, with a docstring."""\n    return 1\n',
        '"""The module."""\n\n\ndef foo():\n    return 1\n',
    ],
)
def test_a_docstring_added_deletes_nothing(new: str) -> None:
    assert classify_change("a.py", "def foo():\n    return 1\n", new) == ()


def test_moving_a_function_into_a_class_is_not_a_deletion() -> None:
    source = "def util(x):\n    return x\n\n\nclass C:\n    pass\n"
    new = "class C:\n    def util(x):\n        return x\n"
    assert kinds(classify_change("a.py", source, new)) == []


def test_deleting_the_last_definition_without_final_newline_restores_exactly() -> None:
    source = "def a():\n    return 1\n\ndef b():\n    return 2"
    new = "def a():\n    return 1\n"
    (finding,) = classify_change("a.py", source, new)
    assert finding.message == "deletes function `b` (lines 4–5)"
    assert finding.anchor == LineSpan(2, 2)  # clamped to the last line
    assert definitions(apply_edits(new, finding.restore), "python")[-1].name == "b"
    unterminated = "def a():\n    return 1"
    (finding,) = classify_change("a.py", source, unterminated)
    restored = apply_edits(unterminated, finding.restore)
    assert [d.name for d in definitions(restored, "python")] == ["a", "b"]
    assert restored == "def a():\n    return 1\ndef b():\n    return 2"


def test_crlf_baseline_restores_with_crlf() -> None:
    source = PY.replace("\n", "\r\n")
    new = delete_lines(source, 8, 11)
    (finding,) = classify_change("a.py", source, new)
    assert finding.kind == DEFINITION_DELETED
    assert apply_edits(new, finding.restore) == source


def test_languages_without_grammar_get_no_definition_findings() -> None:
    source = "fn a() {}\n" * 5
    assert classify_change("notes.txt", source, "fn a() {}\n") == ()
    assert kinds(classify_change("script.rb", "def a\nend\n", "")) == [FILE_EMPTIED]


def test_live_trees_are_used_instead_of_parsing() -> None:
    new = delete_lines(PY, 8, 11)
    old_tree, new_tree = DocumentSyntax.parse(PY, "python"), DocumentSyntax.parse(new, "python")
    found = classify_change("a.py", PY, new, old_syntax=old_tree, new_syntax=new_tree)
    assert kinds(found) == [DEFINITION_DELETED]
    # the trees win over the texts: a tree without the definition finds nothing
    assert (
        classify_change(
            "a.py", PY, new, old_syntax=DocumentSyntax.parse(new, "python"), new_syntax=new_tree
        )
        == ()
    )


# -- mass deletion ------------------------------------------------------------------

PLAIN = "".join(f"line {n}\n" for n in range(1, 61))


def test_mass_deletion_threshold_is_exclusive() -> None:
    assert classify_change("notes.txt", PLAIN, delete_lines(PLAIN, 11, 30)) == ()
    new = delete_lines(PLAIN, 11, 31)
    (finding,) = classify_change("notes.txt", PLAIN, new)
    assert finding.kind == MASS_DELETION
    assert finding.message == "deletes 21 lines (11–31)"
    assert finding.baseline == LineSpan(11, 31)
    assert finding.anchor == LineSpan(11, 11)
    assert finding.content_hash == content_hash(PLAIN.splitlines()[10:31])
    assert apply_edits(new, finding.restore) == PLAIN


def test_mass_deletion_threshold_is_configurable() -> None:
    new = delete_lines(PLAIN, 1, 6)
    assert classify_change("notes.txt", PLAIN, new) == ()
    (finding,) = classify_change("notes.txt", PLAIN, new, max_deleted_lines=5)
    assert finding.message == "deletes 6 lines (1–6)"
    assert classify_change("notes.txt", PLAIN, new, max_deleted_lines=6) == ()


def test_mass_deletion_adds_up_hunks_of_one_save() -> None:
    new = delete_lines(delete_lines(PLAIN, 40, 50), 5, 15)
    (finding,) = classify_change("notes.txt", PLAIN, new)
    assert finding.message == "deletes 22 lines (5–15, 40–50)"
    assert finding.baseline == LineSpan(5, 50)
    assert apply_edits(new, finding.restore) == PLAIN


def test_mass_deletion_counts_net_lines_of_a_replacement() -> None:
    lines = PLAIN.splitlines(keepends=True)
    new = "".join(lines[:10] + ["new\n"] * 9 + lines[40:])  # 30 lines → 9
    (finding,) = classify_change("notes.txt", PLAIN, new)
    assert finding.message == "deletes 21 lines (11–40)"
    assert finding.anchor == LineSpan(11, 19)
    # the baseline goes back in before the replacement, which is kept
    assert apply_edits(new, finding.restore) == "".join(lines[:40] + ["new\n"] * 9 + lines[40:])
    new = "".join(lines[:10] + ["new\n"] * 10 + lines[40:])  # 30 → 10: net 20
    assert classify_change("notes.txt", PLAIN, new) == ()


def test_a_long_deleted_function_is_one_finding_not_two() -> None:
    body = "".join(f"    x{n} = {n}\n" for n in range(30))
    source = f"import os\n\n\ndef long():\n{body}    return 0\n\n\ndef tail():\n    pass\n"
    new = source.replace(f"def long():\n{body}    return 0\n\n\n", "")
    assert kinds(classify_change("a.py", source, new)) == [DEFINITION_DELETED]
    extra = "".join(f"y{n} = {n}\n" for n in range(21))
    source2 = source.replace("import os\n", f"import os\n{extra}")
    new2 = new.replace("import os\n", "import os\n")
    found = classify_change("a.py", source2, new2)
    assert kinds(found) == [DEFINITION_DELETED, MASS_DELETION]
    # the 21 extra lines and the two blank lines that separated the function
    assert found[1].message == "deletes 23 lines (2–56)"
    assert {n.name for n in found[1].nodes} == {"long"}


# -- emptied files --------------------------------------------------------------------


@pytest.mark.parametrize("empty", ["", "\n", "   \n\t\n"])
def test_emptying_a_file(empty: str) -> None:
    source = "".join(f"x{n} = {n}\n" for n in range(118)) + "def f():\n    pass\n"
    (finding,) = classify_change("src/a.py", source, empty)
    assert finding.kind == FILE_EMPTIED
    assert finding.message == "empties the file (120 lines)"
    assert finding.baseline == LineSpan(1, 120)
    assert finding.content_hash == text_hash(source)
    assert [n.name for n in finding.nodes] == ["f"]
    assert apply_edits(empty, finding.restore) == source


def test_a_blank_file_cannot_be_emptied() -> None:
    assert classify_change("a.py", "\n\n  \n", "") == ()
    assert classify_change("a.py", "", "") == ()


# -- protected paths ------------------------------------------------------------------


@pytest.mark.parametrize(
    "path,pattern",
    [
        ("db/migrations/0003.sql", "**/migrations/**"),
        ("migrations/0001_init.py", "**/migrations/**"),
        ("app/alembic/versions/abc.py", "**/alembic/versions/**"),
        ("Cargo.lock", "*.lock"),
        ("frontend/yarn.lock", "*.lock"),
        ("poetry.lock", "*.lock"),
        ("package-lock.json", "package-lock.json"),
        ("web/pnpm-lock.yaml", "pnpm-lock.yaml"),
        ("go.sum", "go.sum"),
        (".github/workflows/ci.yml", ".github/workflows/**"),
        (".gitlab-ci.yml", ".gitlab-ci.yml"),
    ],
)
def test_default_protected_paths(path: str, pattern: str) -> None:
    assert ProtectedPaths().match(path) == pattern
    (finding,) = classify_change(path, "a\nb\nc\n", "a\nB\nc\n")
    assert finding.kind == PROTECTED_EDIT
    assert finding.message == f"edits protected path `{path}` (matches `{pattern}`)"
    assert finding.anchor == LineSpan(2, 2)
    assert finding.baseline == LineSpan(1, 3)
    assert finding.content_hash == text_hash("a\nb\nc\n")
    assert finding.restore == ()


@pytest.mark.parametrize(
    "path", ["src/migrations.py", "docs/workflows/ci.yml", "src/lock.py", "sub/.github/workflows/x"]
)
def test_unprotected_paths(path: str) -> None:
    assert ProtectedPaths().match(path) is None
    assert classify_change(path, "a\n", "b\n") == ()


def test_protected_paths_are_configurable_with_negation() -> None:
    protected = ProtectedPaths(("secrets/**", "!secrets/README.md"))
    assert protected.match("secrets/prod.env") == "secrets/**"
    assert protected.match("secrets/README.md") is None
    assert protected.match("db/migrations/1.sql") is None  # the defaults are replaced
    found = classify_change("secrets/prod.env", "a\n", "b\n", protected=protected)
    assert kinds(found) == [PROTECTED_EDIT]
    assert ProtectedPaths(()).match("Cargo.lock") is None


def test_new_protected_files_and_unchanged_ones_are_not_flagged() -> None:
    assert classify_change("db/migrations/0004.sql", "", "create table t;\n") == ()
    assert classify_change("Cargo.lock", "a\n", "a\n") == ()
    assert classify_change("Cargo.lock", "a\n", "a") == ()  # final newline only


def test_protected_path_and_destruction_are_both_reported() -> None:
    found = classify_change("db/migrations/0003.py", PY, delete_lines(PY, 8, 11))
    assert kinds(found) == [DEFINITION_DELETED, PROTECTED_EDIT]


# -- file operations ------------------------------------------------------------------


def test_file_deletion() -> None:
    finding = classify_file_operation("src/auth/jwt.py", text=PY)
    assert finding.kind == FILE_DELETED
    assert finding.message == "deletes file `src/auth/jwt.py` (19 lines)"
    assert finding.path == "src/auth/jwt.py"
    assert finding.anchor is None
    assert finding.baseline == LineSpan(1, 19)
    assert finding.content_hash == text_hash(PY)
    assert [n.name for n in finding.nodes] == ["helper", "verify_token", "Auth"]


def test_file_rename() -> None:
    finding = classify_file_operation("src/a.go", "src/b.go", text=GO)
    assert finding.kind == FILE_RENAMED
    assert finding.message == "renames `src/a.go` to `src/b.go` (26 lines)"
    assert [n.name for n in finding.nodes] == [
        "helper",
        "VerifyToken",
        "Auth",
        "Auth.Login",
        "Auth.Logout",
    ]


def test_file_operation_without_content() -> None:
    finding = classify_file_operation("data/blob.bin")
    assert finding.message == "deletes file `data/blob.bin`"
    assert (finding.baseline, finding.content_hash, finding.nodes) == (None, None, ())
    empty = classify_file_operation("empty.py", "e2.py", text="")
    assert empty.baseline == LineSpan(1, 1)  # approvals need a range of at least one line
    assert empty.content_hash == text_hash("")


def test_finding_json_has_no_restore_text() -> None:
    (finding,) = classify_change("a.py", PY, delete_lines(PY, 8, 11))
    data = finding.to_json()
    assert data == {
        "kind": DEFINITION_DELETED,
        "path": "a.py",
        "range": {"start_line": 8, "end_line": 8},
        "baseline_range": {"start_line": 8, "end_line": 11},
        "content_hash": finding.content_hash,
        "nodes": [finding.nodes[0].to_json()],
    }


# -- speed ----------------------------------------------------------------------------


def test_a_keystroke_in_a_10k_line_file_with_live_trees_is_cheap() -> None:
    source = "".join(
        f"class C{i}:\n    def m(self, x):\n        y = x + 1\n        return y\n\n\n"
        for i in range(1700)
    )
    assert source.count("\n") > 10_000
    lines = source.splitlines(keepends=True)
    retyped = list(lines)
    retyped[4999] = retyped[4999].replace("m(self", "n(self")  # retyping a header
    deleted = lines[:4999] + lines[5002:]  # deleting that method
    old_tree = DocumentSyntax.parse(source, "python")
    for new, expected in [
        ("".join(retyped), []),
        ("".join(deleted), ["deletes method `C833.m` (lines 5000–5002)"]),
    ]:
        new_tree = DocumentSyntax.parse(new, "python")
        started = time.perf_counter()
        for _ in range(10):
            found = classify_change("big.py", source, new, old_syntax=old_tree, new_syntax=new_tree)
        elapsed = (time.perf_counter() - started) / 10
        assert [f.message for f in found] == expected
        assert elapsed < 0.05, f"{elapsed * 1000:.1f} ms per keystroke"
