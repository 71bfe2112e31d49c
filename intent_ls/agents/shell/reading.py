"""Reading a command as bash reads it, before anything judges it.

Two things stand between the text an agent sends and the shell model the classifier and
the approval guard read (:mod:`.parse`):

- bash drops a backslash-newline before it splits words, so ``rm -r\\<newline>f /`` is
  ``rm -rf /`` and ``git push --for\\<newline>ce`` is a force push, while
  tree-sitter-bash ends the word at the backslash. :func:`join_continuations` removes
  them where bash does (bare text, double quotes, backquotes, unquoted heredoc bodies)
  and keeps them where bash does (single quotes, ``$'…'``, comments, heredocs with a
  quoted delimiter), checked against bash 5 in tests/agents/shell/test_shell_classify_reading.py;
- a parse tree thousands of levels deep (``$($($(…)))``) cannot be walked by recursive
  code: :func:`nesting_budget` says how deep a string may be, which
  :func:`intent_ls.agents.shell.parse.too_deep` measures without recursion, so a reader
  refuses it with the reason instead of failing on the way down.
"""

from __future__ import annotations

#: Parse-tree levels a reader walks in one command. Real commands stay far below it (a
#: long ``a && b && …`` chain nests one level per operator). A string nested in another
#: (``bash -c '…'``) gets half its parent's budget, so all of them together stay far
#: below Python's recursion limit.
MAX_NESTING = 100
#: The least a nested string keeps of the budget.
_MIN_NESTING = 12
#: Characters after which ``#`` starts a comment.
_WORD_BREAK = frozenset(" \t\n;&|()<>")


class _Context:
    """What is open at a point of the text: ``top`` (the command itself, or inside
    ``$(…)`` with its open parentheses counted), ``arith`` (``$((…))``, where ``<<`` is
    a shift), ``dq`` (double quotes) or ``bq`` (backquotes)."""

    __slots__ = ("kind", "parens")

    def __init__(self, kind: str, parens: int = 0) -> None:
        self.kind = kind
        self.parens = parens


def join_continuations(command: str) -> str:
    """``command`` with each backslash-newline bash would drop removed."""
    if "\\\n" not in command:
        return command
    return _Joiner(command).run()


class _Joiner:
    """One pass over a command, copying it to ``out`` without the continuations bash
    drops, with what is open at each point on ``stack``. Plain classes here: a hook
    process creates them at import, where an attrs class costs a millisecond."""

    __slots__ = ("command", "heredocs", "out", "stack")

    def __init__(self, command: str) -> None:
        self.command = command
        self.out: list[str] = []
        self.stack = [_Context("top")]
        #: Heredocs opened on the current line: (delimiter, quoted, ``<<-``).
        self.heredocs: list[tuple[str, bool, bool]] = []

    def run(self) -> str:
        i = 0
        while i < len(self.command):
            i = self._step(i)
        return "".join(self.out)

    def _step(self, i: int) -> int:
        """Copies what starts at ``i``; returns where the next thing starts."""
        ch = self.command[i]
        if ch == "\\":
            if self.command.startswith("\n", i + 1):
                return i + 2
            self.out.append(self.command[i : i + 2])
            return i + 2
        if ch == "$" and self.command.startswith("(", i + 1):
            return _open_substitution(self.command, i, self.out, self.stack)
        if self.stack[-1].kind == "dq":
            self._in_double_quotes(ch)
        else:
            at = self._outside_double_quotes(ch, i)
            if at is not None:
                return at
        self.out.append(ch)
        return i + 1

    def _in_double_quotes(self, ch: str) -> None:
        if ch == '"':
            self.stack.pop()
        elif ch == "`":
            self.stack.append(_Context("bq"))

    def _outside_double_quotes(self, ch: str, i: int) -> int | None:
        """In ``top``, ``arith`` or ``bq``: where the next thing starts when what starts
        at ``i`` was copied whole, else None (after noting what ``ch`` opens or closes)."""
        kind = self.stack[-1].kind
        command = self.command
        # In backquotes bash drops the pair even inside single quotes.
        if ch == "'" and kind == "top" and not any(c.kind == "bq" for c in self.stack):
            return _copy_single_quoted(command, i, self.out, ansi_c=_after_dollar(self.out))
        if ch == "#" and kind == "top" and (not self.out or self.out[-1][-1:] in _WORD_BREAK):
            end = command.find("\n", i)
            end = len(command) if end < 0 else end
            self.out.append(command[i:end])
            return end
        if kind != "arith" and command.startswith("<<", i) and not command.startswith("<<<", i):
            return _heredoc_operator(command, i, self.out, self.heredocs)
        if ch == "\n" and self.heredocs:
            self.out.append("\n")
            at = _heredoc_bodies(command, i + 1, self.out, self.heredocs)
            self.heredocs.clear()
            return at
        self._nest(ch, kind)
        return None

    def _nest(self, ch: str, kind: str) -> None:
        """Opens or closes quotes, backquotes and parentheses."""
        if ch == '"':
            self.stack.append(_Context("dq"))
        elif ch == "`":
            if kind == "bq":
                self.stack.pop()
            else:
                self.stack.append(_Context("bq"))
        elif ch == "(" and kind in ("top", "arith"):
            self.stack[-1].parens += 1
        elif ch == ")" and kind in ("top", "arith") and len(self.stack) > 1:
            self.stack[-1].parens -= 1
            if self.stack[-1].parens == 0:
                self.stack.pop()


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
