"""The classifier reads a command as bash does: line continuations dropped where bash
drops them (checked against bash itself), and a parse tree too deep to walk refused with
the reason, never an exception."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable

import pytest

from intent_ls.agents.approval_guard import is_approval_attempt
from intent_ls.agents.shell.classify import DESTRUCTIVE, classify_command
from intent_ls.agents.shell.reading import MAX_NESTING, join_continuations
from tests.support import intent_ls

ROOT = "/ws"
NL = "\\\n"  # a backslash-newline

# -- line continuations ------------------------------------------------------------------

#: What cannot be undone, hidden by backslash-newlines the parser would split words at.
HIDDEN_IRREVERSIBLE = [
    f"git push --for{NL}ce origin main",
    f"git push -{NL}f origin main",
    f"git push --force-with-le{NL}ase",
    f"git push origin :ma{NL}in",
    f"git push origin +ma{NL}in",
    f"git bra{NL}nch -D feature",
    f"git branch -{NL}D feature",
    f"git reflog ex{NL}pire --expire=now --all",
    f"git tag -{NL}d v1",
    f"git update-ref -{NL}d refs/heads/x",
    f"git reset --ha{NL}rd",
    f"git filter-bra{NL}nch -- --all",
    f"g{NL}i{NL}t p{NL}ush -{NL}-force",
    f"rm -r{NL}f /",
    f"rm -rf /ho{NL}me/user/other",
    f"echo x > /et{NL}c/hosts",
    f"cp secrets.txt ~/.ss{NL}h/authorized_keys",
    f"ki{NL}ll 1",
    f"pki{NL}ll python",
    f"dropd{NL}b prod",
    f"npm pub{NL}lish",
    f'git push "--for{NL}ce"',
    f"bash -c 'git push --for{NL}ce'",
    f"eval 'ki{NL}ll 1'",
    f"echo $(rm -r{NL}f /)",
    f"echo ${NL}(rm -rf /)",
    f"echo `rm -r{NL}f /`",
    f"cat <<EOF\n$(rm -r{NL}f /)\nEOF",
]


@pytest.mark.parametrize("command", HIDDEN_IRREVERSIBLE)
def test_continuations_do_not_hide_what_cannot_be_undone(command: str) -> None:
    found = classify_command(command, ROOT)
    assert found.klass == DESTRUCTIVE, (command, found)
    assert found == classify_command(join_continuations(command), ROOT)


#: Ordinary multi-line commands: classified as the same command on one line.
BENIGN = [
    (f"pytest {NL}  -q tests", "pytest -q tests", "safe", []),
    (f"python -m pytest {NL}  tests/core {NL}  -x", "python -m pytest tests/core -x", "safe", []),
    (f"ruff check {NL}  intent_ls tests", "ruff check intent_ls tests", "safe", []),
    (f"git log {NL}  --oneline -5", "git log --oneline -5", "safe", []),
    (f"git push {NL}  origin main", "git push origin main", "safe", []),
    (f'git commit -m "long {NL}message"', 'git commit -m "long message"', "safe", []),
    (f"mkdir -p {NL}  build/out", "mkdir -p build/out", "write", ["build/out"]),
    (f"echo hello > {NL}  notes.txt", "echo hello > notes.txt", "write", ["notes.txt"]),
    (f"ls -la {NL}  src && {NL}  wc -l src/*.py", "ls -la src && wc -l src/*.py", "safe", []),
]


@pytest.mark.parametrize(("command", "one_line", "klass", "writes"), BENIGN)
def test_ordinary_multiline_commands_classify_as_on_one_line(
    command: str, one_line: str, klass: str, writes: list[str]
) -> None:
    found = classify_command(command, ROOT)
    assert (found.klass, list(found.writes)) == (klass, writes)
    assert found == classify_command(one_line, ROOT)


#: (script, as bash reads it): what bash keeps and what it drops.
QUOTING = [
    ("printf '<%s>' a\\\nb", "printf '<%s>' ab"),
    ("printf '<%s>' 'a\\\nb'", None),  # single quotes: literal
    ("printf '<%s>' $'a\\\nb'", None),  # ANSI-C quotes: literal
    ("printf '<%s>' $'a\\'\\\nb'", None),  # ``\\'`` does not end them
    ('printf "<%s>" "a\\\nb"', 'printf "<%s>" "ab"'),  # double quotes: dropped
    ('printf "<%s>" "a\\\\\nb"', None),  # an escaped backslash, then a newline
    ("printf '<%s>' a\\\\\nprintf b", None),
    ("printf '<%s>' a\\\\\\\nb", "printf '<%s>' a\\\\b"),
    ("printf '<%s>' `echo 'a\\\nb'`", "printf '<%s>' `echo 'ab'`"),  # backquotes: dropped
    ("printf '<%s>' \"$(echo 'a\\\nb')\"", None),  # single quotes in $(…) in "…"
    ("printf '<%s>' \"$(echo a\\\nb)\"", "printf '<%s>' \"$(echo ab)\""),
    ("echo x # a comment \\\necho y", None),  # a comment ends at the newline
    ("echo x#y \\\necho y", "echo x#y echo y"),  # not a comment mid-word
    ("cat <<'EOF'\na\\\nb\nEOF", None),  # quoted heredoc: literal
    ("cat <<\\EOF\na\\\nb\nEOF", None),
    ("cat <<EOF\na\\\nb\nEOF", "cat <<EOF\nab\nEOF"),  # unquoted heredoc: dropped
    ("cat <<EOF\na\\\\\nb\nEOF", None),
    ("cat <<EOF\nfoo\\\nEOF\nEOF", "cat <<EOF\nfooEOF\nEOF"),  # no end of the body there
    ("cat <<-'EOF'\n\ta\\\n\tEOF\necho b\\\nc", "cat <<-'EOF'\n\ta\\\n\tEOF\necho bc"),
    ("cat <\\\n<EOF\nhi\nEOF", "cat <<EOF\nhi\nEOF"),
    ("printf '<%s>' $((1<<2))\nprintf '<%s>' 'a\\\nb'", None),  # a shift, no heredoc
    ("printf '<%s>' $((1<\\\n<2))", "printf '<%s>' $((1<<2))"),
    ("ech\\\no ${\\\nHOME:+set}", "echo ${HOME:+set}"),
]


@pytest.mark.parametrize(("script", "joined"), QUOTING)
def test_continuations_are_dropped_where_bash_drops_them(script: str, joined: str | None) -> None:
    assert join_continuations(script) == (script if joined is None else joined)


def test_a_quote_after_the_process_id_is_a_plain_one() -> None:
    """``$$'…'`` is ``$$`` then '…' (where ``\\'`` ends it); ``$$$'…'`` opens ``$'…'``
    (bash prints a different process id each run, so these are not compared with it)."""
    assert join_continuations("echo $$'a\\'\\\nb") == "echo $$'a\\'b"
    assert join_continuations("echo $$$'a\\'\\\nb'") == "echo $$$'a\\'\\\nb'"


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize(("script", "joined"), QUOTING)
def test_bash_reads_the_joined_text_as_the_original(script: str, joined: str | None) -> None:
    def run(text: str) -> str:
        done = subprocess.run(
            ["bash", "--norc", "--noprofile", "-c", text],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            env={"PATH": "/usr/bin:/bin", "HOME": "/home/someone"},
        )
        return done.stdout + done.stderr

    assert run(join_continuations(script)) == run(script)


# -- deep nesting --------------------------------------------------------------------------


def _nest(open_: str, inner: str, close: str) -> Callable[[int], str]:
    return lambda n: open_ * n + inner + close * n


#: Each builds a command nested ``n`` levels deep in one construct.
NESTINGS: dict[str, Callable[[int], str]] = {
    "command substitution": _nest("echo $(", "true", ")"),
    "bare command substitution": _nest("$(", "true", ")"),
    "quoted command substitution": _nest('echo "$(', "true", ')"'),
    "subshell": _nest("( ", "true", " )"),
    "brace group": _nest("{ ", "true", "; }"),
    "process substitution": _nest("cat <(", "true", ")"),
    "arithmetic": lambda n: "echo $((" + "(" * n + "1" + ")" * n + "))",
    "if": _nest("if true; then ", "true", "; fi"),
    "while": _nest("while true; do ", "break", "; done"),
    "for": _nest("for i in 1; do ", "true", "; done"),
    "case": _nest("case x in x) ", "true", ";; esac"),
    "function": _nest("f() { ", "true", "; }"),
    "parameter expansion": _nest("echo ${x:-", "1", "}"),
    "test parentheses": lambda n: "[[ " + "( " * n + "a" + " )" * n + " ]]",
    "and-chain": lambda n: " && ".join(["true"] * (n + 1)),
    "mixed": _nest("echo $( ( { ", "true", "; } ) )"),
    "arithmetic command": _nest("(( (", "1", ") ))"),
    "inside sh -c": lambda n: "sh -c 'echo " + "$(" * n + "true" + ")" * n + "'",
    "hidden by continuations": _nest(f"echo ${NL}(", "rm -rf /", ")"),
}


@pytest.mark.parametrize("build", NESTINGS.values(), ids=NESTINGS.keys())
def test_nesting_too_deep_to_read_is_held_with_the_reason(build: Callable[[int], str]) -> None:
    found = classify_command(build(3000), ROOT)
    assert found.klass == DESTRUCTIVE
    assert any(r.startswith("too deeply nested to read: more than") for r in found.reasons)
    assert not is_approval_attempt(build(3000))  # the classifier's refusal is the one said


@pytest.mark.parametrize("build", NESTINGS.values(), ids=NESTINGS.keys())
def test_every_depth_up_to_the_limit_is_read_without_error(build: Callable[[int], str]) -> None:
    for depth in (1, MAX_NESTING // 4, MAX_NESTING // 2, MAX_NESTING - 1, MAX_NESTING, 400):
        found = classify_command(build(depth), ROOT)
        assert found.klass in ("safe", "write", "unknown", "destructive")
        is_approval_attempt(build(depth))
        is_approval_attempt(build(depth) + "; intent-ls approve x")


def test_shallow_nesting_is_read_as_before() -> None:
    assert classify_command("echo $(echo $(date))", ROOT).klass == "safe"
    assert classify_command("(cd src && (rm -f a.txt))", ROOT).writes == ("src/a.txt",)
    assert classify_command(" && ".join(["true"] * 40), ROOT).klass == "safe"


def test_substitutions_in_an_unquoted_heredoc_run() -> None:
    assert classify_command("cat <<EOF\n$(rm -rf /)\nEOF", ROOT).klass == DESTRUCTIVE
    assert classify_command("cat <<'EOF'\n$(rm -rf /)\nEOF", ROOT).klass == "safe"


def test_a_deep_command_that_names_the_verb_is_still_refused_as_an_approval() -> None:
    assert is_approval_attempt("echo " + "$(" * 3000 + "intent-ls approve x" + ")" * 3000)


def test_the_reason_names_the_construct() -> None:
    (reason,) = classify_command(NESTINGS["subshell"](3000), ROOT).reasons
    assert reason == (
        f"too deeply nested to read: more than {MAX_NESTING} levels, mostly (…); "
        "spell the command out with less nesting"
    )


# -- the command line ----------------------------------------------------------------------


def test_cli_explains_a_continuation_and_a_nesting(tmp_path: object) -> None:
    done = intent_ls("shell", "classify", "--", f"git push --for{NL}ce origin main")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "destructive\nreason: git push rewrites or deletes remote history\n"
    done = intent_ls("shell", "classify", "--", NESTINGS["command substitution"](3000))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == (
        "destructive\nreason: too deeply nested to read: more than "
        f"{MAX_NESTING} levels, mostly $(…); spell the command out with less nesting\n"
    )
