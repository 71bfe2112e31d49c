"""The one write workflow (judge, then record) and the verdict vocabulary it shares."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from intent_ls import workflow
from intent_ls.agents.gate import governance
from intent_ls.common.hashing import text_hash
from intent_ls.ledger.records import build_approval_record
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.ledger.verify import verify_ledger
from intent_ls.policy import approvals, verdicts
from intent_ls.policy.approvals import Approval, Contributor
from intent_ls.policy.session import Session
from intent_ls.policy.stale import DiskState
from intent_ls.spec import cache as spec_cache
from intent_ls.spec import load as spec
from intent_ls.spec.model import RepoPolicy
from intent_ls.workspace.discover import Workspace

OLD = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
WITHOUT_B = "def a():\n    return 1\n"


def test_one_definition_of_each_gated_set() -> None:
    assert verdicts.APPROVABLE < verdicts.GATED
    assert verdicts.NO_ACTIVE_INTENT not in verdicts.APPROVABLE
    assert approvals.approval_key({"approval": {"content_hash": "sha256:x"}}) == "sha256:x"
    assert approvals.approval_key({"approval": None}) is None


def test_constants_repeated_for_speed_stay_equal() -> None:
    assert governance.SPEC_RELPATH == spec.SPEC_RELPATH
    from intent_ls.workspace.discover import MAX_IGNORE_BYTES

    assert governance.MAX_IGNORE_BYTES == MAX_IGNORE_BYTES
    assert spec_cache.MAX_SPEC_BYTES == spec.MAX_SPEC_BYTES


@pytest.fixture
def selected(workspace: Path) -> tuple[Workspace, Session]:
    ws = Workspace(workspace)
    session = Session()
    session.select(ws.spec(), "INT-001")
    return ws, session


def test_in_scope_write_is_allowed(selected: tuple[Workspace, Session]) -> None:
    ws, session = selected
    decision = workflow.judge_write(session, ws.scope(), "src/auth/x.py", "", "x = 1\n")
    assert decision.allowed and decision.verdicts == () and decision.approvals == ()


def test_scope_verdicts_block(selected: tuple[Workspace, Session]) -> None:
    ws, session = selected
    decision = workflow.judge_write(session, ws.scope(), "services/billing/a.go", "", "x\n")
    assert [v.code for v in decision.blocking()] == ["out-of-scope"]
    assert not decision.scope_allowed
    none = workflow.judge_write(Session(), ws.scope(), "src/auth/x.py", "", "x\n")
    assert [v.code for v in none.blocking()] == ["no-active-intent"]


def test_destructive_edit_blocks_until_approved(selected: tuple[Workspace, Session]) -> None:
    ws, session = selected
    rel = "src/auth/mod.py"
    first = workflow.judge_write(session, ws.scope(), rel, OLD, WITHOUT_B, language="python")
    [verdict] = first.blocking()
    assert verdict.code == "destructive-edit" and "`b`" in verdict.message
    key = approvals.approval_key(verdict)
    assert key is not None
    approval = Approval("destructive-edit", rel, 4, 6, key)
    second = workflow.judge_write(
        session, ws.scope(), rel, OLD, WITHOUT_B, language="python", approvals=[approval]
    )
    assert second.allowed
    assert second.approvals == (approval,)
    assert [v.code for v in second.verdicts] == ["destructive-edit"]  # still recorded


def test_stale_blocks_agents_not_editors(selected: tuple[Workspace, Session]) -> None:
    ws, session = selected
    disk = DiskState(text_hash("seen\n"), text_hash("theirs\n"))
    decision = workflow.judge_write(
        session, ws.scope(), "src/auth/x.py", "theirs\n", "mine\n", disk=disk
    )
    assert [v.code for v in decision.blocking()] == ["stale-file"]
    assert decision.blocking(stale_blocks=False) == ()


def test_record_appends_with_verdicts_and_approvals(
    selected: tuple[Workspace, Session],
) -> None:
    ws, session = selected
    rel = "src/auth/mod.py"
    ledger = Ledger(ledger_path(ws.root), fsync=False)
    approval = Approval("destructive-edit", rel, 4, 6, "sha256:" + "1" * 64)
    ledger.append(build_approval_record(ws.root, approval, intent_id=None, session_id=None))
    found = workflow.recorded_approvals(ws.root, rel)
    assert found.find("destructive-edit", rel, approval.content_hash) == approval
    decision = workflow.judge_write(session, ws.scope(), rel, OLD, WITHOUT_B, language="python")
    record = workflow.record(
        ledger,
        ws.root,
        rel,
        OLD,
        WITHOUT_B,
        decision,
        intent_id="INT-001",
        session_id="agent-session",
        contributor=Contributor("ai", "model-x"),
        extra_approvals=[approval],
    )
    assert record is not None
    meta = record["metadata"]["intent_ls"]
    assert [v["code"] for v in meta["verdicts"]] == ["destructive-edit"]
    assert meta["approvals"] == [approval.to_json()]
    assert meta["session_id"] == "agent-session" and meta["deleted_lines"] == 4
    assert workflow.record(
        ledger, ws.root, rel, OLD, OLD, None, intent_id=None, session_id=None,
        contributor=Contributor(),
    ) is None  # fmt: skip
    assert verify_ledger(ledger.path).problem is None


def test_record_write_finds_the_ledger_approval_of_a_destructive_edit(
    selected: tuple[Workspace, Session],
) -> None:
    """The one write path of the hooks and ``intent-ls record``: judge, then the ledger's
    approvals (read only because a verdict they could lift is open), build, append."""
    ws, session = selected
    rel = "src/auth/mod.py"
    ledger = Ledger(ledger_path(ws.root), fsync=False)
    kwargs: dict[str, Any] = {
        "session": session, "scope": ws.scope(), "contributor": Contributor("human"),
        "language": "python",
    }  # fmt: skip
    first = workflow.record_write(ledger, ws.root, rel, OLD, WITHOUT_B, **kwargs)
    [verdict] = first.decision.open
    assert first.record is not None and first.decision.approvals == ()
    approval = Approval("destructive-edit", rel, 4, 6, approvals.approval_key(verdict) or "")
    workflow.record_approval(ledger, ws.root, approval, intent_id="INT-001", session_id=None)
    second = workflow.record_write(ledger, ws.root, rel, OLD, WITHOUT_B, **kwargs)
    assert second.decision.open == () and second.decision.approvals == (approval,)
    assert second.record is not None
    assert second.record["metadata"]["intent_ls"]["approvals"] == [approval.to_json()]
    assert workflow.record_write(ledger, ws.root, rel, OLD, OLD, **kwargs).record is None
    assert verify_ledger(ledger.path).problem is None


def test_spec_cache_round_trip(workspace: Path) -> None:
    path = workspace / spec.SPEC_RELPATH
    first, problems = spec_cache.load_spec_cached(workspace, path)
    cached, again = spec_cache.load_spec_cached(workspace, path)
    assert first is not None and cached is not None
    assert problems == () and again == ()
    assert [(i.id, i.patterns, i.status) for i in cached.intents] == [
        (i.id, i.patterns, i.status) for i in first.intents
    ]
    path.write_text(path.read_text() + "policy: {maxDeletedLines: 3, protectedPaths: [a/**]}\n")
    spec_cache.load_spec_cached(workspace, path)
    with_policy, _ = spec_cache.load_spec_cached(workspace, path)
    assert with_policy is not None and with_policy.policy == RepoPolicy(3, ("a/**",))
    path.write_text("active_intents: [\n")  # a broken spec is never served from the cache
    broken, errors = spec_cache.load_spec_cached(workspace, path)
    assert broken is None and errors


def test_path_and_change_judged_apart_equal_judged_together(
    selected: tuple[Workspace, Session],
) -> None:
    """The editor judges the path at once and the change off the loop; together they
    are exactly one ``judge_write`` — no verdict twice, none lost."""
    ws, session = selected
    for rel in ("src/auth/mod.py", "services/billing/mod.py"):
        whole = workflow.judge_write(session, ws.scope(), rel, OLD, WITHOUT_B, language="python")
        path = workflow.judge_path(session, ws.scope(), rel)
        change = workflow.judge_write(
            session, ws.scope(), rel, OLD, WITHOUT_B, language="python", path_rules=False
        )
        assert [v.code for v in whole.verdicts] == [
            v.code for v in (*path.verdicts, *change.verdicts)
        ]
        assert all(v.code == "destructive-edit" for v in change.verdicts)


def test_scope_verdicts_are_never_waved_through_by_a_path_approval(
    selected: tuple[Workspace, Session],
) -> None:
    ws, session = selected
    rel = "services/billing/a.go"
    approval = Approval("out-of-scope", rel, 1, 1, text_hash("old\n"))
    decision = workflow.judge_write(session, ws.scope(), rel, "", "new\n", approvals=[approval])
    assert [v.code for v in decision.blocking()] == ["out-of-scope"]


def test_a_door_without_approvals_reads_the_ledgers_once_a_verdict_could_be_lifted(
    selected: tuple[Workspace, Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-deciding with recorded approvals happens in one place, for every judgement a
    door passes its root to: a write nothing could lift reads no ledger."""
    ws, session = selected
    rel = "src/auth/mod.py"
    ledger = Ledger(ledger_path(ws.root), fsync=False)
    first = workflow.judge_write(session, ws.scope(), rel, OLD, WITHOUT_B, language="python")
    [verdict] = first.open
    approval = Approval("destructive-edit", rel, 4, 6, approvals.approval_key(verdict) or "")
    ledger.append(build_approval_record(ws.root, approval, intent_id=None, session_id=None))
    lifted = workflow.judge_write(
        session, ws.scope(), rel, OLD, WITHOUT_B, language="python", root=ws.root
    )
    assert lifted.open == () and lifted.approvals == (approval,)
    gone = workflow.judge_file_operation(session, ws.scope(), rel, text=OLD, root=ws.root)
    assert gone.open == gone.verdicts  # the approval named other content than the file's

    def no_ledger(root: Path, rel: str) -> Any:
        raise AssertionError("read the ledger for a write nothing could lift")

    monkeypatch.setattr(workflow, "recorded_approvals", no_ledger)
    quiet = workflow.judge_write(session, ws.scope(), rel, "", "x = 1\n", root=ws.root)
    assert quiet.allowed


def test_a_writes_inputs_are_one_value(selected: tuple[Workspace, Session]) -> None:
    ws, session = selected
    rel = "src/auth/mod.py"
    write = workflow.Write(
        ws.root, rel, OLD, WITHOUT_B, session, ws.scope(), Contributor("human"), language="python"
    )
    built = workflow.build_write(write)
    assert [v.code for v in built.decision.open] == ["destructive-edit"]
    assert built.record is not None
    assert built.record["metadata"]["intent_ls"]["session_id"] == session.id
    judged = workflow.build_write(write._replace(judged=()))
    assert judged.decision.verdicts == ()
