"""The rule registry: every rule found once, in order, and the tables the doors used to
keep by hand derived from it with the same contents."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from intent_ls.policy import rules
from intent_ls.policy.rules import rule_of
from intent_ls.policy.rules.rule import Approvable, Door, Rule, register
from intent_ls.spec.model import Severity
from tests.toy_rule import CODE as TOY
from tests.toy_rule import plugin

BUILT_IN = (
    "no-active-intent",
    "out-of-scope",
    "stale-file",
    "destructive-edit",
    "protected-path",
    "destructive-command",
    "unanalysable-command",
    "scope-widened",
    "governance-error",
)


def test_every_rule_file_is_registered_once_in_its_order() -> None:
    assert tuple(r.code for r in rules.REGISTRY) == BUILT_IN
    folder = Path(rules.__file__).parent
    files = sorted(p.stem for p in folder.glob("*.py") if p.stem not in {"__init__", "rule"})
    assert files == sorted(code.replace("-", "_") for code in BUILT_IN)


def test_the_derived_tables_hold_what_the_hand_kept_ones_did() -> None:
    assert {"out-of-scope", "no-active-intent", "destructive-edit", "stale-file"} == rules.GATED
    assert {"out-of-scope", "destructive-edit", "stale-file"} == rules.APPROVABLE
    assert {"out-of-scope", "no-active-intent"} == rules.SCOPE_CODES
    assert (
        rules.APPROVABLE
        | {
            "destructive-command",
            "unanalysable-command",
            "scope-widened",
        }
        == rules.TERMINAL_APPROVABLE
    )
    warnings = {"stale-file", "unanalysable-command"}
    assert dict(rules.DEFAULT_SEVERITY) == {
        code: Severity.WARNING if code in warnings else Severity.ERROR for code in BUILT_IN
    }


def test_a_code_no_rule_has_is_an_error_nobody_approves() -> None:
    unknown = rule_of("from-a-newer-version")
    assert unknown.severity is Severity.ERROR
    assert not (unknown.gates or unknown.approvable or unknown.terminal_approvable)
    assert unknown.approval is Approvable.NEVER and unknown.judge is None


def test_two_rules_cannot_share_a_code() -> None:
    twin = Rule("stale-file", "another", Severity.ERROR, 1, approvers=frozenset({Door.EDITOR}))
    with pytest.raises(ValueError, match="two rules have the code 'stale-file'"):
        register(twin)
    assert rule_of("stale-file") is not twin


def run(code: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env=env,
    )
    return done.stdout.strip()


def test_a_rule_file_in_a_named_rules_folder_joins_in_its_order(tmp_path: Path) -> None:
    env = {**os.environ, **plugin(tmp_path)}
    listed = run(
        "from intent_ls.policy.rules import REGISTRY; print(*(r.code for r in REGISTRY))", env
    )
    assert listed.split() == [*BUILT_IN[:4], TOY, *BUILT_IN[4:]]
    assert TOY not in {r.code for r in rules.REGISTRY}  # this process never saw the file


def test_the_registry_loads_no_heavy_rule_module() -> None:
    """The agent hooks import the policy on every call: finding the rules must not load
    what a rule needs only to judge a change (the destructive classifier, tree-sitter)."""
    loaded = run(
        "import sys, intent_ls.policy.judge, intent_ls.policy.verdicts; "
        "print(*sorted(m for m in sys.modules if m.startswith(('intent_ls', 'tree_sitter'))))"
    ).split()
    assert "intent_ls.policy.destructive" not in loaded
    assert "intent_ls.policy.stale" not in loaded
    assert not [m for m in loaded if m.startswith(("intent_ls.syntax", "tree_sitter"))]


def test_a_rules_folder_elsewhere_on_sys_path_is_not_imported(tmp_path: Path) -> None:
    """An ``intent_ls/policy/rules/`` folder in another entry of ``sys.path`` (the
    working directory of ``python -m``, a folder an agent can write) is never imported,
    nor does a relative ``INTENT_LS_RULE_PATH`` entry follow the working directory: only
    absolute folders that whoever starts intent-ls names add rules."""
    marker = tmp_path / "ran"
    planted = tmp_path / "elsewhere" / "intent_ls" / "policy" / "rules"
    planted.mkdir(parents=True)
    (planted / "planted.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "relative.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    code = (
        "import sys, intent_ls; "
        f"sys.path.insert(0, {str(tmp_path / 'elsewhere')!r}); "
        "from intent_ls.policy.rules import REGISTRY; print(len(REGISTRY))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "INTENT_LS_RULE_PATH": "rules"},
    )
    assert int(done.stdout) == len(rules.REGISTRY)
    assert not marker.exists()
