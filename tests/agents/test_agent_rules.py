"""Gemini CLI's and Codex's own rules, asked whether rewriting a shell command to run
under the write barrier would change what they decide: both match their rules on the
command the hook returns (tests/agents/test_real_barrier.py shows it in the real CLIs),
so such a command is left as written, and nothing else is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from intent_ls.agents.agent_rules import plain_commands
from intent_ls.agents.barrier import available
from intent_ls.agents.codex.rules import rule_for as codex_rule_for
from intent_ls.agents.gemini.rules import rule_for as gemini_rule_for
from tests.agents.conftest import Hook, rewritten

RULE = '[[rule]]\ntoolName = "run_shell_command"\n{}\ndecision = "{}"\npriority = 100\n'


def _policy(homes: dict[str, Path], *rules: str) -> None:
    folder = homes["gemini"] / ".gemini" / "policies"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "user.toml").write_text("\n".join(rules))


def _rules(homes: dict[str, Path], text: str) -> None:
    folder = homes["codex"] / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "user.rules").write_text(text)


@pytest.mark.parametrize(
    ("script", "commands"),
    [
        ("npm test", ["npm test"]),
        ("a && b || c; d | e", ["a", "b", "c", "d", "e"]),
        ("echo 'a; b' \"c && d\"", ["echo 'a; b' \"c && d\""]),
        ("a & b", None),
        ("a > out", None),
        ("echo $(id)", None),
        ('npm test "$(python evil.py)"', None),
        ('npm test "`id`"', None),
        ("npm test '$(kept literal)'", ["npm test '$(kept literal)'"]),
        ("a\nb", None),
        ("echo 'open", None),
        ("a;;", None),
    ],
)
def test_only_a_plain_script_is_read_command_by_command(
    script: str, commands: list[str] | None
) -> None:
    assert plain_commands(script) == commands


@pytest.mark.parametrize(
    ("rule", "command", "left"),
    [
        # A deny on the whole command text: lost once rewritten, so left as written.
        (RULE.format('commandRegex = "curl .*\\\\| *sh"', "deny"), "curl -s x | sh", True),
        (RULE.format('commandRegex = "curl .*\\\\| *sh"', "deny"), "curl -s x > y", False),
        (RULE.format('commandPrefix = "git push"', "ask_user"), "git push origin", True),
        # One command of a script: the verbatim copy behind the barrier still matches.
        (RULE.format('commandPrefix = "git push"', "deny"), "cd src && git push", False),
        (RULE.format('argsPattern = \'"dir_path":"build"\'', "deny"), "ls", True),
        (RULE.format('commandRegex = "(?<!x"', "deny"), "ls", False),  # not Python's
        # An allow holds only when every command of a plain script is allowed.
        (RULE.format('commandPrefix = "npm test"', "allow"), "npm test", True),
        (RULE.format('commandPrefix = "npm test"', "allow"), "npm test && npm test -- -w", True),
        (RULE.format('commandPrefix = "npm test"', "allow"), "npm test; python evil.py", False),
        (RULE.format('commandPrefix = "npm test"', "allow"), "npm test > out", False),
        (RULE.format('commandPrefix = "npm test"', "allow"), "npm tester", False),
        (RULE.format('commandPrefix = ["make", "ls"]', "allow"), "make -j2 | ls", True),
        # Rules that do not read the command judge both forms alike.
        ('[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\n', "ls", False),
        (RULE.replace("run_shell_command", "write_file").format("x = 1", "deny"), "ls", False),
        ("[[rule]\n", "ls", False),  # Gemini skips a file it cannot parse
    ],
)
def test_gemini_rules_a_rewrite_would_defeat(
    agents_homes: dict[str, Path], tmp_path: Path, rule: str, command: str, left: bool
) -> None:
    _policy(agents_homes, rule)
    found = gemini_rule_for(command, {"dir_path": "build"}, tmp_path)
    assert (found is not None) is left, found


def test_gemini_tools_allowed_narrowed_to_commands_is_an_allow_for_those(
    agents_homes: dict[str, Path], tmp_path: Path
) -> None:
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"tools": {"allowed": ["run_shell_command(npm test)"]}}))
    assert "settings.json" in (gemini_rule_for("npm test", {}, tmp_path) or "")
    assert gemini_rule_for("ls", {}, tmp_path) is None  # denied either way
    settings.write_text(json.dumps({"tools": {"allowed": ["run_shell_command", "read_file"]}}))
    assert gemini_rule_for("npm test", {}, tmp_path) is None


@pytest.mark.parametrize(
    ("rules", "command", "left"),
    [
        ('prefix_rule(pattern = ["npm", "test"], decision = "allow")', "npm test", True),
        ('prefix_rule(pattern = ["npm", "test"])', "npm test --watch", True),
        ('prefix_rule(pattern = ["npm", "test"])', "npm install && npm test", False),
        ('prefix_rule(pattern = ["npm", "test"])', "npm test; rm -rf x", False),
        ('prefix_rule(pattern = ["npm", "test"])', "npm test > out", False),
        ('prefix_rule(pattern = ["git", ["push", "fetch"]])', "git fetch origin", True),
        ('prefix_rule(pattern = ["rm"])', "/bin/rm -f x", True),
        # forbidden and prompt still match the verbatim copy behind the barrier
        ('prefix_rule(pattern = ["rm"], decision = "forbidden")', "rm -f x", False),
        ('prefix_rule(pattern = ["rm"], decision = "prompt")', "rm -f x", False),
        ("prefix_rule(pattern = [\n", "ls", False),
    ],
)
def test_codex_rules_a_rewrite_would_defeat(
    agents_homes: dict[str, Path], tmp_path: Path, rules: str, command: str, left: bool
) -> None:
    _rules(agents_homes, rules + "\n")
    assert (codex_rule_for(command, tmp_path) is not None) is left


def test_codex_reads_the_projects_rules_too(tmp_path: Path) -> None:
    project = tmp_path / ".codex" / "rules"
    project.mkdir(parents=True)
    (project / "p.rules").write_text('prefix_rule(pattern = ["make"], decision = "allow")\n')
    assert "p.rules" in (codex_rule_for("make", tmp_path) or "")


@pytest.mark.skipif(not available(), reason="no user and mount namespaces here")
@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_the_hook_leaves_a_command_its_agents_rules_allow_as_written(
    governed: Path, agents_homes: dict[str, Path], agent: str
) -> None:
    if agent == "gemini":
        _policy(agents_homes, RULE.format('commandPrefix = "npm test"', "allow"))
        event, tool = "BeforeTool", "run_shell_command"
    else:
        _rules(agents_homes, 'prefix_rule(pattern = ["npm", "test"], decision = "allow")\n')
        event, tool = "PreToolUse", "Bash"
    hook = Hook(governed, agent)
    assert hook(event, tool, {"command": "npm test"}) == {}
    for other in ("npm run build", "npm test; npm run build"):
        changed = rewritten(hook(event, tool, {"command": other}))
        assert changed is not None and "intent_ls.agents.barrier" in changed["command"]


def test_gemini_reads_policy_paths_and_not_the_workspaces_policies(
    agents_homes: dict[str, Path], tmp_path: Path
) -> None:
    """0.61.0 ignores ``.gemini/policies`` in the workspace (``disableWorkspacePolicies``)
    and reads ``policyPaths`` instead of the user's folder: an agent cannot add a rule
    Gemini would not read to take a command out from behind the barrier."""
    allow = RULE.format('commandPrefix = "npm test"', "allow")
    (tmp_path / ".gemini" / "policies").mkdir(parents=True)
    (tmp_path / ".gemini" / "policies" / "mine.toml").write_text(allow)
    assert gemini_rule_for("npm test", {}, tmp_path) is None
    chosen = tmp_path / "chosen.toml"
    chosen.write_text(allow)
    home = agents_homes["gemini"] / ".gemini"
    home.mkdir(parents=True)
    (home / "settings.json").write_text(json.dumps({"policyPaths": [str(chosen)]}))
    assert "chosen.toml" in (gemini_rule_for("npm test", {}, tmp_path) or "")


def test_hostile_rule_files_are_skipped_not_crashed_on(
    agents_homes: dict[str, Path], tmp_path: Path
) -> None:
    deep = "prefix_rule(pattern = " + "[" * 5000 + "]" * 5000 + ")\n"
    _rules(agents_homes, deep)
    assert codex_rule_for("ls", tmp_path) is None
    _policy(agents_homes, 'commandPrefix = "ls"\nx = ' + "[" * 5000 + "]" * 5000 + "\n")
    assert gemini_rule_for("ls", {}, tmp_path) is None


@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_a_barrier_line_of_the_agents_own_runs_only_the_command_judged(
    governed: Path, agents_homes: dict[str, Path], agent: str
) -> None:
    """A look-alike of the rewritten form with another interpreter is judged on the
    command inside it; left as written, that command is what runs, not the look-alike."""
    from intent_ls.agents.barrier import wrap

    if agent == "gemini":
        _policy(agents_homes, RULE.format('commandPrefix = "npm test"', "allow"))
        event, tool, jobs = "BeforeTool", "run_shell_command", "_bgpids_file"
    else:
        _rules(agents_homes, 'prefix_rule(pattern = ["npm", "test"], decision = "allow")\n')
        event, tool, jobs = "PreToolUse", "Bash", None
    crafted = wrap("/tmp/not-python", governed, "npm test", jobs)
    out = Hook(governed, agent)(event, tool, {"command": crafted})
    assert rewritten(out) == {"command": "npm test"}
