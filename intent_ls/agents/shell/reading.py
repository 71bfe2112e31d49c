"""Reading a command as bash reads it, before anything judges it.

Two things stand between the text an agent sends and the parse tree the classifier and
the approval guard walk:

- bash drops a backslash-newline before it splits words, so ``rm -r\\<newline>f /`` is
  ``rm -rf /`` and ``git push --for\\<newline>ce`` is a force push, while
  tree-sitter-bash ends the word at the backslash. :func:`join_continuations` removes
  them where bash does (bare text, double quotes, backquotes, unquoted heredoc bodies)
  and keeps them where bash does (single quotes, ``$'…'``, comments, heredocs with a
  quoted delimiter), checked against bash 5 in tests/agents/shell/test_shell_classify_reading.py;
- a parse tree thousands of levels deep (``$($($(…)))``) cannot be walked by recursive
  code: :func:`too_deep` measures it without recursion, so a reader refuses it with the
  reason instead of failing on the way down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    import tree_sitter

#: Parse-tree levels a reader walks in one command. Real commands stay far below it (a
#: long ``a && b && …`` chain nests one level per operator). A string nested in another
#: (``bash -c '…'``) gets half its parent's budget, so all of them together stay far
#: below Python's recursion limit.
MAX_NESTING = 100
#: The least a nested string keeps of the budget.
_MIN_NESTING = 12
#: Characters after which ``#`` starts a comment.
_WORD_BREAK = frozenset(" \t\n;&|()<>")
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


@attrs.define
class _Context:
    """What is open at a point of the text: ``top`` (the command itself, or inside
    ``$(…)`` with its open parentheses counted), ``arith`` (``$((…))``, where ``<<`` is
    a shift), ``dq`` (double quotes) or ``bq`` (backquotes)."""

    kind: str
    parens: int = 0


def join_continuations(command: str) -> str:
    """``command`` with each backslash-newline bash would drop removed."""
    if "\\\n" not in command:
        return command
    out: list[str] = []
    stack = [_Context("top")]
    heredocs: list[tuple[str, bool, bool]] = []
    i, n = 0, len(command)
    while i < n:
        ch = command[i]
        kind = stack[-1].kind
        nxt = command[i + 1] if i + 1 < n else ""
        if ch == "\\":
            if nxt == "\n":
                i += 2
                continue
            out.append(command[i : i + 2])
            i += 2
            continue
        if kind == "dq":
            if ch == '"':
                stack.pop()
            elif ch == "`":
                stack.append(_Context("bq"))
            elif ch == "$" and nxt == "(":
                i = _open_substitution(command, i, out, stack)
                continue
            out.append(ch)
            i += 1
            continue
        # ``top``, ``arith`` or ``bq``: in backquotes bash drops the pair even inside single quotes.
        if ch == "'" and kind == "top" and not any(c.kind == "bq" for c in stack):
            i = _copy_single_quoted(command, i, out, ansi_c=_after_dollar(out))
            continue
        if ch == "#" and kind == "top" and (not out or out[-1][-1:] in _WORD_BREAK):
            end = command.find("\n", i)
            end = n if end < 0 else end
            out.append(command[i:end])
            i = end
            continue
        if ch == '"':
            stack.append(_Context("dq"))
        elif ch == "`":
            if kind == "bq":
                stack.pop()
            else:
                stack.append(_Context("bq"))
        elif ch == "$" and nxt == "(":
            i = _open_substitution(command, i, out, stack)
            continue
        elif ch == "(" and kind in ("top", "arith"):
            stack[-1].parens += 1
        elif ch == ")" and kind in ("top", "arith") and len(stack) > 1:
            stack[-1].parens -= 1
            if stack[-1].parens == 0:
                stack.pop()
        elif kind != "arith" and command.startswith("<<", i) and not command.startswith("<<<", i):
            i = _heredoc_operator(command, i, out, heredocs)
            continue
        elif ch == "\n" and heredocs:
            out.append("\n")
            i = _heredoc_bodies(command, i + 1, out, heredocs)
            heredocs.clear()
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _open_substitution(command: str, i: int, out: list[str], stack: list[_Context]) -> int:
    """Opens ``$(…)`` or ``$((…))`` at ``i``; returns where its text starts."""
    arith = command.startswith("$((", i)
    stack.append(_Context("arith", 2) if arith else _Context("top", 1))
    out.append("$((" if arith else "$(")
    return i + (3 if arith else 2)


def _after_dollar(out: list[str]) -> bool:
    """Whether a quote here opens ``$'…'``: after an odd run of bare ``$`` (``$$`` is the
    shell's process id, then a plain quote)."""
    run = 0
    while run < len(out) and out[-1 - run] == "$":
        run += 1
    return run % 2 == 1


def _copy_single_quoted(command: str, i: int, out: list[str], ansi_c: bool) -> int:
    """Copies ``'…'`` (or the body of ``$'…'``, where ``\\'`` does not end it) as is."""
    j = i + 1
    while j < len(command) and command[j] != "'":
        j += 2 if ansi_c and command[j] == "\\" else 1
    out.append(command[i : j + 1])
    return j + 1


def _heredoc_operator(
    command: str, i: int, out: list[str], heredocs: list[tuple[str, bool, bool]]
) -> int:
    """Reads ``<<[-] WORD`` (continuations inside it dropped, as bash does) and notes the
    heredoc whose body starts after the line ends."""
    j = i + 2
    strip = command.startswith("-", j)
    j += strip
    while j < len(command) and command[j] in " \t":
        j += 1
    word: list[str] = []
    quoted = False
    while j < len(command) and command[j] not in " \t\n;&|()<>":
        ch = command[j]
        if ch == "\\" and command.startswith("\n", j + 1):
            j += 2
            continue
        if ch in "'\"":
            end = command.find(ch, j + 1)
            end = len(command) - 1 if end < 0 else end
            word.append(command[j + 1 : end])
            quoted = True
            j = end + 1
            continue
        if ch == "\\":
            quoted = True
            word.append(command[j + 1 : j + 2])
            j += 2
            continue
        word.append(ch)
        j += 1
    out.append(command[i:j].replace("\\\n", ""))
    if word:
        heredocs.append(("".join(word), quoted, strip))
    return j


def _heredoc_bodies(
    command: str, i: int, out: list[str], heredocs: list[tuple[str, bool, bool]]
) -> int:
    """Copies the bodies of the heredocs opened on the line that just ended: a quoted
    delimiter keeps the body as written; an unquoted one drops backslash-newlines, which
    bash does while it reads the lines, so ``foo\\<newline>EOF`` does not end the body."""
    for delimiter, quoted, strip in heredocs:
        while i < len(command):
            end = command.find("\n", i)
            end = len(command) if end < 0 else end
            line = command[i:end]
            while not quoted and _ends_escaped(line) and end < len(command):
                nxt = command.find("\n", end + 1)
                nxt = len(command) if nxt < 0 else nxt
                line = line[:-1] + command[end + 1 : nxt]
                end = nxt
            out.append(line + command[end : end + 1])
            i = end + 1
            if (line.lstrip("\t") if strip else line) == delimiter:
                break
    return i


def _ends_escaped(line: str) -> bool:
    """Whether the line ends in a backslash that escapes its newline (an odd run)."""
    run = len(line) - len(line.rstrip("\\"))
    return run % 2 == 1


def nesting_budget(depth: int) -> int:
    """Parse-tree levels a string nested ``depth`` strings deep may have."""
    return max(MAX_NESTING >> depth, _MIN_NESTING)


def too_deep(root: tree_sitter.Node, budget: int) -> str | None:
    """Why the tree under ``root`` is deeper than ``budget`` levels, or None. Walked
    with a cursor, so no depth makes it fail; a tree with no more nodes than ``budget``
    cannot be deeper, and most commands are that small."""
    if root.descendant_count <= budget:
        return None
    cursor = root.walk()
    depth = 0
    while depth <= budget:
        if cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return None
            depth -= 1
    kinds: dict[str, int] = {}
    node = cursor.node
    while node is not None:
        if node.type in _SPELLING:
            kinds[node.type] = kinds.get(node.type, 0) + 1
        node = node.parent
    kind = max(kinds, key=lambda k: kinds[k]) if kinds else "nesting"
    return (
        f"too deeply nested to read: more than {budget} levels, mostly "
        f"{_SPELLING.get(kind, kind)}; spell the command out with less nesting"
    )
