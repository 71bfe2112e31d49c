"""The README's Quick start is a contract with CI: .ci/run runs its test command verbatim."""

from __future__ import annotations

import re

from tests.support import REPO, readme_section, sh_blocks


def quick_start_commands() -> list[str]:
    return sh_blocks(readme_section("## Quick start"))


def test_exactly_two_quick_start_commands() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)
    assert commands[0].endswith("intent-ls demo")


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert quick_start_commands()[1] in ci


def test_ci_runs_the_readme_lowest_dependencies_command_verbatim() -> None:
    (command,) = sh_blocks(readme_section("## Dependency ranges"))
    assert "tools/lowest_constraints.py" in command
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci


def wheel_command() -> list[str]:
    """The README's command for building a wheel (tests/cli/test_wheel.py runs it, plus
    the flags that keep it offline)."""
    (command,) = sh_blocks(readme_section("## Installing it elsewhere"))
    return command.split()


def test_readme_does_not_promise_a_pypi_install() -> None:
    for doc in ("README.md", "editors/README.md"):
        text = (REPO / doc).read_text(encoding="utf-8")
        for line in text.splitlines():
            if "pip install intent-ls" in line:
                assert "does not work" in line or "not published" in line, (doc, line)


def cli_table_rows() -> dict[str, str]:
    """Verb (with sub-verb) → the usage cell of the README's CLI table."""
    section = readme_section("\n## CLI")
    rows = {}
    for cell in re.findall(r"^\| `intent-ls ([^`]+)` \|", section, flags=re.M):
        words = [w for w in cell.split() if re.fullmatch(r"[a-z][a-z-]*", w)]
        if not words:  # `intent-ls --version`
            continue
        rows[" ".join(words[:2] if words[:1] in NESTED else words[:1])] = cell
    return rows


#: Verbs whose sub-verbs have rows (and options) of their own.
NESTED = (["trace"], ["shell"], ["hooks"], ["editors"])


def test_cli_table_shows_every_option_of_every_verb() -> None:
    import argparse

    from intent_ls.cli.main import build_parser

    rows = cli_table_rows()
    top = build_parser()
    (verbs,) = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    parsers = dict(verbs.choices)
    for [verb] in NESTED:
        nested = parsers.pop(verb)
        (sub,) = [a for a in nested._actions if isinstance(a, argparse._SubParsersAction)]
        parsers.update({f"{verb} {name}": p for name, p in sub.choices.items()})
    assert set(rows) == set(parsers)
    for verb, parser in parsers.items():
        options = {
            a.option_strings[0]
            for a in parser._actions
            if a.option_strings and a.option_strings[0] not in ("-h", "--workspace")
        }
        shown = set(re.findall(r"--[a-z-]+", rows[verb]))
        assert shown == options, verb
        for action in parser._actions:
            if action.choices and action.option_strings:
                for choice in action.choices:
                    assert choice in rows[verb], (verb, choice)


def test_quick_start_sends_users_to_init_in_every_clone() -> None:
    section = readme_section("## Quick start")
    assert "`intent-ls init`" in section and "once in every clone" in section


def test_the_readme_policy_example_is_a_valid_policy_section() -> None:
    from intent_ls.spec.load import load_spec_text
    from tests.support import SPEC

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n### The repository's policy", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    result = load_spec_text(SPEC + block)
    assert result.problems == ()
    policy = result.spec.policy
    assert policy.max_deleted_lines == 5
    assert policy.protected_paths == ("**/migrations/**", "deploy/**")
    assert policy.agent_protected_paths == ("deploy/prod/**", "/Makefile")
