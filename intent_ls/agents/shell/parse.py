"""Reading a command string into the shell model (:mod:`.model`), once.

The command is read as bash reads it (line continuations dropped: :mod:`.reading`) and
parsed with the tree-sitter-bash grammar, never matched with regexes over its text, so
quoting, pipelines, lists, subshells, ``$(...)``, heredocs and redirects are seen as the
shell sees them. This is the only module that walks tree-sitter nodes. A hook judges
one command several ways (the approve-verb guard, the effect classifier, the record
after it ran), and ``bash -c`` strings inside it are read by each of them: every string
is parsed once per process (:func:`parse` keeps the last few hundred).

A parse tree too deep to walk with recursive code (``$($($(…)))``) is measured without
recursion (:func:`too_deep`) and not turned into statements: readers refuse it with the
reason instead of failing on the way down.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from intent_ls.agents.shell.model import (
    Assignment,
    Command,
    Declaration,
    Group,
    Parsed,
    Pipeline,
    Redirect,
    Redirected,
    Script,
    Statement,
    Word,
)
from intent_ls.agents.shell.reading import join_continuations, nesting_budget

if TYPE_CHECKING:
    import tree_sitter

#: Command strings kept parsed (a hook reads a handful; a test run thousands).
CACHED = 512
_SUBSTITUTIONS = frozenset(["command_substitution", "process_substitution"])
_REDIRECTS = {
    "file_redirect": "file",
    "heredoc_redirect": "heredoc",
    "herestring_redirect": "herestring",
}
#: Statements that run their parts in order (or under control flow).
_GROUPS = frozenset(
    [
        "program", "list", "compound_statement", "subshell", "for_statement",
        "c_style_for_statement", "while_statement", "if_statement", "elif_clause",
        "else_clause", "case_statement", "case_item", "do_group", "negated_command",
        "function_definition", "variable_assignments", "ERROR",
    ]
)  # fmt: skip
_DECLARATIONS = frozenset(["declaration_command", "unset_command", "test_command"])
#: What may follow a heredoc's start on its line and runs on (``cat <<EOF | sh``).
_HEREDOC_STATEMENTS = frozenset(["pipeline", "command", "list", "redirected_statement"])
_HEREDOC_PARTS = frozenset(["file_descriptor", "heredoc_start", "heredoc_end", "heredoc_content"])
#: How the deepest nodes are spelled in a refusal.
_SPELLING = {
    "command_substitution": "$(…)",
    "process_substitution": "<(…)",
    "subshell": "(…)",
    "compound_statement": "{ …; }",
    "list": "&& / || chain",
    "pipeline": "pipeline",
    "arithmetic_expansion": "$((…))",
    "expansion": "${…}",
    "parenthesized_expression": "parentheses",
    "if_statement": "if … fi",
    "while_statement": "while … done",
    "for_statement": "for … done",
    "case_statement": "case … esac",
    "function_definition": "function definitions",
}


def parse(command: str, depth: int = 0) -> Parsed:
    """``command`` read into statements; ``depth`` is how many strings it is nested in
    (``bash -c '…'``), each of which halves the parse-tree depth it may have."""
    return _parse(command, nesting_budget(depth))


@functools.lru_cache(maxsize=CACHED)
def _parse(command: str, budget: int) -> Parsed:
    text = join_continuations(command)  # bash drops a backslash-newline; the parser not
    root = _parser().parse(text.encode("utf-8", "surrogateescape")).root_node
    deep = too_deep(root, budget)
    if deep is not None:
        return Parsed(text, (), root.has_error, deep)
    return Parsed(text, _parts(root), root.has_error)


def forget() -> None:
    """Drops every parsed string (a benchmark's fresh start)."""
    _parse.cache_clear()


@functools.cache
def _parser() -> tree_sitter.Parser:
    import tree_sitter

    return tree_sitter.Parser(tree_sitter.Language(_bash_language()))


def _bash_language() -> object:
    """The Bash grammar. Its package module imports ``importlib.resources`` for highlight
    queries a classifier never reads, which costs a hook process more than the grammar
    itself: the compiled binding is loaded alone where it is found, else the package."""
    from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec, PathFinder

    found = PathFinder.find_spec("tree_sitter_bash")
    for folder in (found.submodule_search_locations or ()) if found else ():
        for suffix in EXTENSION_SUFFIXES:
            path = os.path.join(folder, "_binding" + suffix)
            if os.path.isfile(path):
                loader = ExtensionFileLoader("tree_sitter_bash._binding", path)
                binding = loader.create_module(ModuleSpec(loader.name, loader, origin=path))
                loader.exec_module(binding)
                return binding.language()
    import tree_sitter_bash

    return tree_sitter_bash.language()


# -- statements ---------------------------------------------------------------------------


def _statement(node: tree_sitter.Node) -> Script:
    """The statements ``node`` stands for: one, or none (a word with no ``$(…)``), or
    those of the ``$(…)`` in a word where statements go (``for x in $(…)``)."""
    kind = node.type
    builder = _BUILDERS.get(kind)
    if builder is not None:
        return (builder(node),)
    if kind in _REDIRECTS:
        return (_redirect(node),)
    if kind == "function_definition":
        defined = node.child_by_field_name("name")
        return (Group(_parts(node), defines=_text(defined) if defined is not None else ""),)
    if kind in _GROUPS:
        return (Group(_parts(node), subshell=kind == "subshell"),)
    if kind in _DECLARATIONS:
        return (Declaration(_parts(node), tuple(word(c) for c in node.named_children)),)
    if kind in _SUBSTITUTIONS:
        return _parts(node)
    return _substitutions(node)


def _parts(node: tree_sitter.Node) -> Script:
    return tuple(s for child in node.named_children for s in _statement(child))


def _command(node: tree_sitter.Node) -> Command:
    argv: list[Word] = []
    assignments: list[Assignment] = []
    redirects: list[Redirect] = []
    for child in node.named_children:
        if child.type == "variable_assignment":
            assignments.append(_assignment(child))
        elif child.type.endswith("redirect"):
            redirects.append(_redirect(child))
        else:
            argv.append(word(child))
    return Command(tuple(argv), tuple(assignments), tuple(redirects), _substitutions(node))


def _assignment(node: tree_sitter.Node) -> Assignment:
    value = node.child_by_field_name("value")
    return Assignment(word(value) if value is not None else None, _substitutions(node))


def _pipeline(node: tree_sitter.Node) -> Pipeline:
    return Pipeline(tuple(_one(child) for child in node.named_children))


def _redirected(node: tree_sitter.Node) -> Redirected:
    body = node.child_by_field_name("body")
    redirects = tuple(_redirect(c) for c in node.named_children if c.type in _REDIRECTS)
    return Redirected(_one(body) if body is not None else None, redirects)


def _one(node: tree_sitter.Node) -> Statement:
    """The statement at a place that holds one (a pipeline's stage, a body)."""
    found = _statement(node)
    return found[0] if len(found) == 1 else Group(found)


_BUILDERS = {
    "command": _command,
    "pipeline": _pipeline,
    "redirected_statement": _redirected,
    "variable_assignment": _assignment,
}


def _redirect(node: tree_sitter.Node) -> Redirect:
    operator = ""
    target: tree_sitter.Node | None = None
    then: list[Statement] = []
    body: Script = ()
    heredoc: str | None = None
    words: list[tree_sitter.Node] = []
    for child in node.children:
        if not child.is_named:
            operator = child.type
        elif child.type in ("file_redirect", "heredoc_redirect"):
            then.append(_redirect(child))
        elif child.type == "heredoc_body":
            body = _substitutions(child)
            heredoc = _text(child)
        elif child.type in _HEREDOC_STATEMENTS:
            then.extend(_statement(child))
        elif child.type not in _HEREDOC_PARTS:
            target = child
            words.append(child)
    kind = _REDIRECTS[node.type]
    if kind == "heredoc" and heredoc is None:
        heredoc = ""
    return Redirect(
        kind,
        operator,
        word(target) if target is not None else None,
        target is not None and target.type == "number",
        heredoc,
        tuple(then),
        body,
        tuple(s for w in words for s in _substitutions(w, itself=True)),
    )


def _substitutions(node: tree_sitter.Node, itself: bool = False) -> Script:
    """The statements of every ``$(…)``/``<(…)`` under ``node`` (and ``node`` itself,
    with ``itself``), in order, not those nested in them (their statements hold them)."""
    if itself and node.type in _SUBSTITUTIONS:
        return _parts(node)
    return tuple(s for found in _found_substitutions(node) for s in _parts(found))


def _found_substitutions(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    for child in node.children:
        if child.type in _SUBSTITUTIONS:
            yield child
        else:
            yield from _found_substitutions(child)


# -- words --------------------------------------------------------------------------------


def _text(node: tree_sitter.Node) -> str:
    return node.text.decode("utf-8", "replace") if node.text is not None else ""


def word(node: tree_sitter.Node) -> Word:
    """A node where a word stands, as the shell would expand it."""
    text = _text(node)
    reader = _WORDS.get(node.type)
    return reader(node, text) if reader is not None else Word(None, text=text)


def _command_name(node: tree_sitter.Node, text: str) -> Word:
    return word(node.named_children[0]) if node.named_children else Word(None, text=text)


def _bare(node: tree_sitter.Node, text: str) -> Word:
    glob = any(ch in text for ch in "*?[") and not text.startswith("-")
    return Word(unescape(text), glob, text)


def _raw_string(node: tree_sitter.Node, text: str) -> Word:
    return Word(text[1:-1], False, text)


def _string(node: tree_sitter.Node, text: str) -> Word:
    parts = []
    for child in node.named_children:
        if child.type != "string_content":
            return Word(None, text=text)
        parts.append(_text(child))
    return Word(unescape("".join(parts), '"\\$`'), False, text)


def _concatenation(node: tree_sitter.Node, text: str) -> Word:
    words = [word(c) for c in node.named_children]
    if any(w.value is None for w in words):
        return Word(None, text=text)
    return Word("".join(w.value or "" for w in words), any(w.glob for w in words), text)


_WORDS = {
    "command_name": _command_name,
    "word": _bare,
    "number": _bare,
    "raw_string": _raw_string,
    "string": _string,
    "concatenation": _concatenation,
}


def unescape(text: str, escapable: str | None = None) -> str:
    """Drops the backslash before any character (bare words), or only before those in
    ``escapable`` (inside double quotes, where the rest keep their backslash)."""
    if "\\" not in text:
        return text
    out, i = [], 0
    while i < len(text):
        nxt = text[i + 1] if i + 1 < len(text) else None
        if text[i] == "\\" and nxt is not None and (escapable is None or nxt in escapable):
            out.append(nxt)
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


# -- depth --------------------------------------------------------------------------------


def too_deep(root: tree_sitter.Node, budget: int) -> str | None:
    """Why the tree under ``root`` is deeper than ``budget`` levels, or None. Walked
    with a cursor, so no depth makes it fail; a tree with no more nodes than ``budget``
    cannot be deeper, and most commands are that small."""
    if root.descendant_count <= budget or not _deeper(root.walk(), budget):
        return None
    return _refusal(root, budget)


def _deeper(cursor: tree_sitter.TreeCursor, budget: int) -> bool:
    """Whether the cursor reaches below ``budget`` levels (it is left there)."""
    depth = 0
    while depth <= budget:
        if cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return False
            depth -= 1
    return True


def _refusal(root: tree_sitter.Node, budget: int) -> str:
    cursor = root.walk()
    _deeper(cursor, budget)
    kinds: dict[str, int] = {}
    node: tree_sitter.Node | None = cursor.node
    while node is not None:
        if node.type in _SPELLING:
            kinds[node.type] = kinds.get(node.type, 0) + 1
        node = node.parent
    kind = max(kinds, key=lambda k: kinds[k]) if kinds else "nesting"
    return (
        f"too deeply nested to read: more than {budget} levels, mostly "
        f"{_SPELLING.get(kind, kind)}; spell the command out with less nesting"
    )
