"""Gemini CLI's and Codex's own rules, asked whether one speaks to a shell command as
the model wrote it: such a command is left unwrapped, since both agents match their
rules on the command the hook returns (tests/agents/test_real_barrier.py shows why)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from intent_ls.agents import codex_rules, gemini_rules
from intent_ls.agents.barrier import available
from tests.agents.conftest import Hook, rewritten


def _policy(homes: dict[str, Path], text: str) -> None:
    folder = homes["gemini"] / ".gemini" / "policies"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "user.toml").write_text(text)


def _rules(homes: dict[str, Path], text: str) -> None:
    folder = homes["codex"] / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "user.rules").write_text(text)


RULE = '[[rule]]\ntoolName = "run_shell_command"\n{}\ndecision = "{}"\npriority = 100\n'


@pytest.mark.parametrize(
    ("condition", "command", "speaks"),
    [
        ('commandPrefix = "git push"', "git push origin main", True),
        ('commandPrefix = "git push"', "cd src && git push", True),
        ('commandPrefix = "git push"', "git pushy", False),
        ('commandPrefix = "git push"', "git status", False),
        ('commandPrefix = ["npm test", "make"]', "make -j2", True),
        ('commandRegex = "curl .*\\\\| *sh"', "curl -s x | sh", True),
        ('commandRegex = "curl .*\\\\| *sh"', "curl -s x > y", False),
        ('argsPattern = \'"dir_path":"build"\'', "ls", True),
        ('commandRegex = "(?<!x"', "ls", True),  # unreadable as a Python regex: counts
        ('commandPrefix = "rm"', "bash -c 'rm -rf x'", True),
    ],
)
def test_a_gemini_rule_on_the_command_text_speaks_to_it(
    agents_homes: dict[str, Path], tmp_path: Path, condition: str, command: str, speaks: bool
) -> None:
    _policy(agents_homes, RULE.format(condition, "deny"))
    found = gemini_rules.rule_for(command, {"dir_path": "build"}, tmp_path)
    assert (found is not None) is speaks, found


def test_gemini_rules_that_do_not_read_the_command_are_left_to_gemini(
    agents_homes: dict[str, Path], tmp_path: Path
) -> None:
    """A rule on the whole tool judges the rewritten command as the written one."""
    _policy(agents_homes, '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\n')
    assert gemini_rules.rule_for("rm -rf x", {}, tmp_path) is None
    _policy(
        agents_homes, '[[rule]]\ntoolName = "write_file"\ncommandPrefix = "x"\ndecision = "deny"\n'
    )
    assert gemini_rules.rule_for("x", {}, tmp_path) is None


def test_an_unreadable_gemini_policy_or_a_narrowed_tools_allowed_speaks_to_every_command(
    agents_homes: dict[str, Path], tmp_path: Path
) -> None:
    _policy(agents_homes, "[[rule]\n")
    assert "unreadable" in (gemini_rules.rule_for("ls", {}, tmp_path) or "")
    _policy(agents_homes, "")
    assert gemini_rules.rule_for("ls", {}, tmp_path) is None
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"tools": {"allowed": ["run_shell_command(npm test)"]}}))
    assert "tools.allowed" in (gemini_rules.rule_for("ls", {}, tmp_path) or "")
    settings.write_text(json.dumps({"tools": {"allowed": ["run_shell_command", "read_file"]}}))
    assert gemini_rules.rule_for("ls", {}, tmp_path) is None


@pytest.mark.parametrize(
    ("pattern", "command", "speaks"),
    [
        ('["npm", "test"]', "npm test", True),
        ('["npm", "test"]', "npm install && npm test --watch", True),
        ('["npm", "test"]', "npm run", False),
        ('["git", ["push", "fetch"]]', "git fetch origin", True),
        ('["rm"]', "/bin/rm -rf x", True),
        ('["rm"]', "echo rm", False),
    ],
)
def test_a_codex_prefix_rule_speaks_to_any_command_of_the_script(
    agents_homes: dict[str, Path], tmp_path: Path, pattern: str, command: str, speaks: bool
) -> None:
    _rules(agents_homes, f'prefix_rule(pattern = {pattern}, decision = "allow")\n')
    assert (codex_rules.rule_for(command, tmp_path) is not None) is speaks


def test_codex_rules_that_cannot_be_read_speak_to_every_command(
    agents_homes: dict[str, Path], tmp_path: Path
) -> None:
    _rules(agents_homes, "prefix_rule(pattern = [\n")
    assert "unreadable" in (codex_rules.rule_for("ls", tmp_path) or "")
    _rules(agents_homes, 'prefix_rule(pattern = ["ls"], decision = "allow")\n')
    assert "cannot be read" in (codex_rules.rule_for("ls 'unclosed", tmp_path) or "")
    project = tmp_path / ".codex" / "rules"
    project.mkdir(parents=True)
    (project / "p.rules").write_text('prefix_rule(pattern = ["make"], decision = "prompt")\n')
    assert "p.rules" in (codex_rules.rule_for("make", tmp_path) or "")


@pytest.mark.skipif(not available(), reason="no user and mount namespaces here")
@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_the_hook_leaves_a_command_a_rule_speaks_to_as_written(
    governed: Path, agents_homes: dict[str, Path], agent: str
) -> None:
    if agent == "gemini":
        _policy(agents_homes, RULE.format('commandPrefix = "npm test"', "allow"))
        tool, args = "run_shell_command", {"command": "npm test"}
        other = {"command": "npm run build"}
    else:
        _rules(agents_homes, 'prefix_rule(pattern = ["npm", "test"], decision = "allow")\n')
        tool, args, other = "Bash", {"command": "npm test"}, {"command": "npm run build"}
    event = "BeforeTool" if agent == "gemini" else "PreToolUse"
    hook = Hook(governed, agent)
    assert hook(event, tool, args) == {}
    changed = rewritten(hook(event, tool, other))
    assert changed is not None and "intent_ls.agents.barrier" in changed["command"]
