"""``evaluate`` walks the registry: each rule that judges is asked, in order, and a
door that judged the path already asks the change rules only."""

from __future__ import annotations

from pathlib import Path

from intent_ls.policy.change import Change, FileOperation
from intent_ls.policy.judge import evaluate, judged
from intent_ls.policy.rules.rule import Subject
from intent_ls.policy.session import Session
from intent_ls.workspace.discover import Workspace

OLD = "".join(f"line {i}\n" for i in range(30))


def test_the_rules_answer_in_the_registry_order(workspace: Path) -> None:
    scope = Workspace(workspace).scope()
    codes = [v.code for v in evaluate(Session(), scope, "src/auth/notes.txt", Change(OLD, ""))]
    assert codes == ["no-active-intent", "destructive-edit"]


def test_path_rules_false_asks_the_change_rules_only(workspace: Path) -> None:
    scope = Workspace(workspace).scope()
    change = Change(OLD, "")
    codes = [v.code for v in evaluate(Session(), scope, "src/a.txt", change, path_rules=False)]
    assert codes == ["destructive-edit"]


def test_a_rename_is_judged_at_both_paths(workspace: Path) -> None:
    ws = Workspace(workspace)
    session = Session()
    session.select(ws.spec(), "INT-001")
    subject = Subject(session, ws.scope(), "src/auth/jwt.py", FileOperation("services/x.go"))
    assert subject.paths == ("src/auth/jwt.py", "services/x.go")
    found = [(v.code, v.details.get("path")) for v in judged(subject)]
    assert found == [("out-of-scope", "services/x.go"), ("destructive-edit", "src/auth/jwt.py")]


def test_every_verdict_knows_its_rule(workspace: Path) -> None:
    scope = Workspace(workspace).scope()
    (verdict,) = evaluate(Session(), scope, "src/auth/jwt.py")
    assert verdict.rule.code == verdict.code and verdict.rule.selects_intent
    assert not verdict.rule.approvable
