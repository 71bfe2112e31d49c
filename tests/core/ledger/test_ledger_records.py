from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from intent_ls.common.hashing import content_hash, text_hash
from intent_ls.ledger.records import (
    RecordedVerdict,
    build_approval_record,
    build_mutation_record,
    git_revision,
)
from intent_ls.ledger.store import Ledger
from intent_ls.policy.approvals import Approval, Contributor
from tests.core.ledger.ledger_helpers import counter_ids, external_validator, fixed_clock

OLD = "class A:\n    def m(self):\n        return 1\n\n\ndef gone():\n    pass\n"
NEW = "class A:\n    def m(self):\n        return 2\n\n"


def _mutation(root: Path, **kw: object) -> dict:
    record = build_mutation_record(
        root,
        root / "pkg" / "a.py",
        OLD,
        NEW,
        intent_id="INT-007",
        session_id="s-1",
        contributor=Contributor("ai", "anthropic/claude-test"),
        verdicts=[RecordedVerdict("out-of-scope", "pkg/a.py is outside INT-007", {"x": 1})],
        clock=fixed_clock,
        new_id=counter_ids(),
        **kw,
    )
    assert record is not None
    return record


def test_mutation_record_fields(tmp_path: Path) -> None:
    record = _mutation(tmp_path, revision="abc123")
    assert record["version"] == "0.1.0"
    assert record["timestamp"] == "2026-01-02T03:04:05.678901Z"
    assert record["tool"]["name"] == "intent-ls"
    assert record["vcs"] == {"type": "git", "revision": "abc123"}
    (file,) = record["files"]
    assert file["path"] == "pkg/a.py"
    (conv,) = file["conversations"]
    assert conv["contributor"] == {"type": "ai", "model_id": "anthropic/claude-test"}
    assert conv["related"] == [{"type": "specification", "url": "urn:intent:INT-007"}]
    assert conv["ranges"] == [
        {"start_line": 3, "end_line": 3, "content_hash": content_hash(["        return 2"])}
    ]
    meta = record["metadata"]["intent_ls"]
    assert meta["intent_id"] == "INT-007"
    assert meta["kind"] == "mutation"
    assert meta["mutation_class"] == "INTENT_EVOLUTION"
    assert meta["deleted_lines"] == 3
    assert meta["before_hash"] == text_hash(OLD) and meta["after_hash"] == text_hash(NEW)
    assert [n["name"] for n in meta["ast_nodes"]] == ["A", "A.m"]
    assert meta["verdicts"][0]["code"] == "out-of-scope"
    assert set(record["metadata"]) == {"intent_ls"}


def test_unchanged_text_makes_no_record(tmp_path: Path) -> None:
    assert (
        build_mutation_record(
            tmp_path, "a.py", "x", "x", intent_id=None, session_id=None, contributor=Contributor()
        )
        is None
    )


def test_every_record_kind_validates_against_agent_trace_schema(tmp_path: Path) -> None:
    schema = external_validator()
    approval = build_approval_record(
        tmp_path,
        Approval("destructive", "pkg/a.py", 2, 3, content_hash(["x"]), reason="ok"),
        intent_id="INT-007",
        session_id="s-1",
        verdict_message="deletes 3 lines",
        revision=None,
    )
    plain = build_mutation_record(
        tmp_path,
        "notes.txt",
        "a\n",
        "b\n",
        intent_id=None,
        session_id=None,
        contributor=Contributor("human"),
        revision=None,
    )
    ledger = Ledger(tmp_path / "t.jsonl", fsync=False)
    for record in (_mutation(tmp_path, revision="abc"), approval, plain):
        assert record is not None
        written = ledger.append(record)
        errors = [e.message for e in schema.iter_errors(written)]
        assert errors == []
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", written["timestamp"])
    # the schema really does check formats: a bad record is rejected
    bad = dict(json.loads((tmp_path / "t.jsonl").read_text().splitlines()[0]), id="nope")
    assert list(schema.iter_errors(bad))


def test_approval_record_shape(tmp_path: Path) -> None:
    record = build_approval_record(
        tmp_path,
        Approval("out-of-scope", "a.py", 4, 9, "sha256:" + "1" * 64, Contributor("human")),
        intent_id="INT-001",
        session_id=None,
        revision=None,
    )
    meta = record["metadata"]["intent_ls"]
    assert meta["kind"] == "approval"
    assert meta["approvals"][0]["verdict_code"] == "out-of-scope"
    assert record["files"][0]["conversations"][0]["ranges"][0]["start_line"] == 4


def test_git_revision_without_spawning_git(tmp_path: Path) -> None:
    assert git_revision(tmp_path) is None
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert git_revision(tmp_path) is None  # no commit yet
    (tmp_path / "f").write_text("x")
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "PATH": "/usr/bin:/bin",
    }
    subprocess.run(["git", "-C", str(tmp_path), "add", "f"], check=True, env=env)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-qm", "x"], check=True, env=env)
    head = subprocess.run(
        ["git", "-C", str(tmp_path), "rev-parse", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert git_revision(tmp_path) == head
    subprocess.run(["git", "-C", str(tmp_path), "pack-refs", "--all"], check=True)
    assert git_revision(tmp_path) == head


@pytest.mark.parametrize("path", ["/abs/outside.py"])
def test_paths_outside_workspace_are_rejected(tmp_path: Path, path: str) -> None:
    with pytest.raises(ValueError):
        build_mutation_record(
            tmp_path, path, "a", "b", intent_id=None, session_id=None, contributor=Contributor()
        )
