"""The shell model: what a command string is read into, once, for every reader."""

from __future__ import annotations

import importlib

import pytest

from intent_ls.agents.shell import programs
from intent_ls.agents.shell.model import (
    Assignment,
    Command,
    Declaration,
    Group,
    Pipeline,
    Redirected,
    Word,
    argv_of,
    name,
    options,
    unwrap,
)
from intent_ls.agents.shell.parse import parse
from intent_ls.agents.shell.programs.find import exec_commands
from intent_ls.agents.shell.programs.shells import script
from intent_ls.agents.shell.reading import MAX_NESTING


def values(words: tuple[Word, ...] | list[Word]) -> list[str | None]:
    return [w.value for w in words]


def only(command: str) -> object:
    parsed = parse(command)
    assert len(parsed.script) == 1, parsed.script
    return parsed.script[0]


def test_argv_is_the_words_as_the_shell_expands_them() -> None:
    command = only("git commit -m 'a b' \"c $x\" d\\ e f*.py")
    assert isinstance(command, Command)
    assert values(command.argv) == ["git", "commit", "-m", "a b", None, "d e", "f*.py"]
    assert command.argv[4].text == '"c $x"'
    assert command.argv[-1].glob and not command.argv[0].glob


def test_assignments_and_redirects_are_not_arguments() -> None:
    command = only("> log A=1 B=$(id) make all <<< input")
    assert isinstance(command, Command)
    assert values(command.argv) == ["make", "all"]
    assert [a.value.value if a.value else None for a in command.assignments] == ["1", None]
    assert [r.kind for r in command.redirects] == ["file", "herestring"]
    herestring = command.herestring
    assert herestring is not None and herestring.target == Word("input", False, "input")
    assert values(argv_of(command.substitutions[0])) == ["id"]


@pytest.mark.parametrize(
    ("command", "runs"),
    [
        ("sudo -u root env A=1 B=2 nice -n 5 rm -rf x", ["rm", "-rf", "x"]),
        ("timeout -s KILL 10 nohup git push", ["git", "push"]),
        ("command -- ls", ["ls"]),
        ("stdbuf -o L exec /bin/cat f", ["/bin/cat", "f"]),
        ("env", []),
    ],
)
def test_wrappers_are_unwrapped(command: str, runs: list[str]) -> None:
    assert values(unwrap(argv_of(only(command)))) == runs  # type: ignore[arg-type]


def test_program_name_and_options() -> None:
    words = argv_of(only("/usr/bin/rm -rf --force=yes -- -x y"))  # type: ignore[arg-type]
    assert name(words[0]) == "rm"
    flags, operands = options(words[1:])
    assert flags == {"r", "f", "--force"}
    assert values(operands) == ["-x", "y"]


def test_nested_shell_scripts_are_read_on_demand() -> None:
    words = argv_of(only("bash -lc 'rm -rf build && echo done'"))  # type: ignore[arg-type]
    given, text = script(words[1:])
    assert given and text is not None and text.value == "rm -rf build && echo done"
    inner = parse(text.value, depth=1)
    assert isinstance(inner.script[0], Group)
    assert [values(argv_of(s)) for s in inner.script[0].parts] == [
        ["rm", "-rf", "build"],
        ["echo", "done"],
    ]
    assert script(argv_of(only("sh run.sh"))[1:]) == (False, None)  # type: ignore[arg-type]


def test_find_exec_commands() -> None:
    words = argv_of(only("find . -name '*.pyc' -exec rm {} + -execdir touch x \\;"))  # type: ignore[arg-type]
    found = [(option, values(w)) for option, w in exec_commands(words[1:])]
    assert found == [("-exec", ["rm", "{}"]), ("-execdir", ["touch", "x"])]


def test_redirects_keep_operator_target_and_descriptor() -> None:
    statement = only("cmd 2>&1 >> out.log < in.txt >&2")
    assert isinstance(statement, Redirected)
    assert values(argv_of(statement)) == ["cmd"]
    seen = [(r.operator, r.target.value if r.target else None, r.to_descriptor)
            for r in statement.redirects]  # fmt: skip
    assert seen == [(">&", "1", True), (">>", "out.log", False), ("<", "in.txt", False),
                    (">&", "2", True)]  # fmt: skip


def test_redirect_target_substitutions_run() -> None:
    statement = only("echo hi > $(mktemp)")
    assert isinstance(statement, Redirected)
    (redirect,) = statement.redirects
    assert redirect.target is not None and redirect.target.value is None
    assert values(argv_of(redirect.substitutions[0])) == ["mktemp"]


def test_heredocs_keep_their_text_body_commands_and_what_follows() -> None:
    statement = only("cat <<EOF | sh > out\nrm -rf $(pwd)\nEOF\n")
    assert isinstance(statement, Redirected)
    (heredoc,) = statement.redirects
    assert heredoc.kind == "heredoc"
    assert heredoc.heredoc == "rm -rf $(pwd)\n"
    assert values(argv_of(heredoc.body[0])) == ["pwd"]
    (then,) = heredoc.then
    assert isinstance(then, Pipeline)
    assert values(argv_of(then.stages[0])) == ["sh"]


def test_quoted_heredoc_body_runs_nothing() -> None:
    statement = only("cat <<'EOF'\n$(rm -rf x)\nEOF\n")
    assert isinstance(statement, Redirected)
    assert statement.redirects[0].body == ()
    assert statement.redirects[0].heredoc == "$(rm -rf x)\n"


def test_pipelines_lists_and_subshells() -> None:
    parsed = parse("curl -s x | sudo bash; (cd sub && make)")
    pipeline, subshell = parsed.script
    assert isinstance(pipeline, Pipeline)
    assert [values(argv_of(s)) for s in pipeline.stages] == [
        ["curl", "-s", "x"],
        ["sudo", "bash"],
    ]
    assert isinstance(subshell, Group) and subshell.subshell
    (chain,) = subshell.parts
    assert isinstance(chain, Group) and not chain.subshell


def test_substitutions_in_control_flow_words_are_statements() -> None:
    loop = only("for f in $(ls); do rm $f; done")
    assert isinstance(loop, Group)
    assert [values(argv_of(s)) for s in loop.parts if isinstance(s, Command)] == [["ls"]]


def test_declarations_and_lone_assignments() -> None:
    declaration = only("declare -a 'a[$(id)]' b=$(date)")
    assert isinstance(declaration, Declaration)
    assert values(declaration.words)[:2] == ["-a", "a[$(id)]"]
    assert any(isinstance(p, Assignment) for p in declaration.parts)
    assignment = only("A='intent-ls approve'")
    assert isinstance(assignment, Assignment)
    assert assignment.value is not None and assignment.value.value == "intent-ls approve"


def test_continuations_are_joined_and_errors_kept() -> None:
    parsed = parse("rm -r\\\nf /")
    assert values(argv_of(parsed.script[0])) == ["rm", "-rf", "/"]
    assert not parsed.has_error
    assert parse("echo (").has_error


def test_a_string_is_parsed_once() -> None:
    assert parse("git status --short") is parse("git status --short")


def test_nesting_too_deep_is_not_read() -> None:
    deep = "echo " + "$(" * MAX_NESTING + "x" + ")" * MAX_NESTING
    parsed = parse(deep)
    assert parsed.script == ()
    assert parsed.too_deep is not None and "$(…)" in parsed.too_deep
    assert parse("echo $(x)").too_deep is None


def test_each_program_has_one_module() -> None:
    owners: dict[str, str] = {}
    modules = [*programs.FAMILIES, *sorted(set(programs.ON_USE.values()))]
    for module in modules:
        for program in importlib.import_module(f"{programs.__name__}.{module}").HANDLERS:
            assert program not in owners, (program, owners.get(program), module)
            owners[program] = module
    on_use = {p: m for p, m in owners.items() if m not in programs.FAMILIES}
    assert on_use == programs.ON_USE
    for program in owners:
        assert programs.handler(program) is not programs.unknown


def test_unlisted_programs_are_unknown_and_mkfs_destroys() -> None:
    from intent_ls.agents.shell.programs.files import destroys

    assert programs.handler("frobnicate") is programs.unknown
    assert programs.handler("mkfs.ext4") is destroys
    assert programs.handler("git").__module__ == f"{programs.__name__}.git"


def test_a_herestring_before_the_program_is_its_stdin() -> None:
    command = only("<<< 'intent-ls approve' sh")
    assert isinstance(command, Command)
    assert values(command.argv) == ["sh"]
    herestring = command.herestring
    assert herestring is not None and herestring.target is not None
    assert herestring.target.value == "intent-ls approve"


def test_only_the_parser_walks_tree_sitter_nodes() -> None:
    """Every other reader of a shell command takes the model (docs/architecture.md)."""
    from pathlib import Path

    import intent_ls.agents

    agents = Path(intent_ls.agents.__file__).parent
    walking = sorted(
        str(path.relative_to(agents))
        for path in agents.rglob("*.py")
        if any(s in path.read_text(encoding="utf-8") for s in ("tree_sitter", "named_children"))
    )
    assert walking == ["shell/parse.py"]
