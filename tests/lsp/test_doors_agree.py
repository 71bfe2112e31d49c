"""The same situation through every front door gets the same answer: the editor (a real
server over pytest-lsp), Claude Code's hook, ``intent-ls record`` and ``intent-ls check``.

The situation: a repository whose spec sets ``policy: {maxDeletedLines: 5}`` and a
change that deletes six lines of a governed file under the owning intent. Six lines is
below the built-in threshold (20), so only a door that reads the repository's policy
calls it destructive; the control runs the same change in a repository that sets none.

The second half: a verdict already recorded, then a human's approval. Whether the saved
verdict is still open is one rule (policy/approvals.py ``recorded_approval``) for the
editor and ``check``; the hook and ``record`` answer the same change made again by the
same approval key.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lsp_harness import Editor, meta, start_editor, stop_editor

from intent_ls.common.hashing import content_hash
from tests import support
from tests.agents.conftest import Hook, decision
from tests.support import records

REL = "src/auth/notes.txt"
OLD = "".join(f"note {i}\n" for i in range(1, 21))
#: Lines 5–10 deleted: six lines.
NEW = "".join(f"note {i}\n" for i in range(1, 21) if not 5 <= i <= 10)
SELECT = "mcp__intent-ls__select_active_intent"
DESTRUCTIVE = "deletes 6 lines (5–10)"


def intent_ls(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return support.intent_ls(*args, "--workspace", str(root))


def committed(workspace: Path, policy: bool) -> Path:
    spec = workspace / ".orchestration" / "active_intents.yaml"
    if policy:
        spec.write_text(spec.read_text() + "\npolicy:\n  maxDeletedLines: 5\n")
    (workspace / REL).write_text(OLD)
    return support.committed(workspace)


@pytest.fixture(params=["repository policy", "no policy"])
def repository(request: pytest.FixtureRequest, workspace: Path, git_identity: None) -> Path:
    return committed(workspace, request.param == "repository policy")


def expected(repository: Path) -> bool:
    return "maxDeletedLines" in (repository / ".orchestration/active_intents.yaml").read_text()


async def editor_deletes(repository: Path, destructive: bool) -> list[str]:
    """What the editor shows after the six-line deletion (waiting for the diagnostic, or
    for the analysis to settle when none is expected)."""
    editor = await start_editor("visual-studio-code", [repository])
    try:
        await editor.execute("intent.select", "INT-001")
        uri = editor.open(REL)
        editor.replace(uri, (4, 0), (10, 0), "")
        if destructive:
            await editor.wait_diagnostics(REL, lambda d: bool(editor_says(editor)), "destructive")
        else:
            await editor.settled()
        return editor_says(editor)
    finally:
        await stop_editor(editor)


def editor_says(editor: Editor) -> list[str]:
    return [d.message for d in editor.diagnostics(REL) if d.code == "destructive-edit"]


async def test_every_door_applies_the_repository_policy(repository: Path) -> None:
    destructive = expected(repository)
    assert await editor_deletes(repository, destructive) == ([DESTRUCTIVE] if destructive else [])

    hook = Hook(repository)
    hook("PreToolUse", SELECT, {"intent_id": "INT-001"})
    hook("PostToolUse", "Read", {"file_path": str(repository / REL)})
    write = {"file_path": str(repository / REL), "content": NEW}
    answer: dict[str, Any] = hook("PreToolUse", "Write", write)
    if destructive:
        verdict, reason = decision(answer)
        assert verdict == "ask" and DESTRUCTIVE in reason
    else:
        assert answer == {}

    (repository / REL).write_text(NEW)
    recorded = intent_ls(repository, "record", REL, "--intent", "INT-001")
    codes = " [destructive-edit]" if destructive else ""
    assert recorded.stdout == f"{REL}: recorded{codes}\n", recorded.stderr
    assert recorded.returncode == (1 if destructive else 0)

    checked = intent_ls(repository, "check", "--base", "HEAD", "--format", "json")
    findings = json.loads(checked.stdout)["findings"]
    assert checked.returncode == (1 if destructive else 0), checked.stderr
    # The recorded save carries an unapproved destructive-edit, so it cannot vouch for
    # the deletion: check reports the deleted lines until a human approves.
    wanted = [("uncovered-deletion", REL, 5)] if destructive else []
    assert [(f["rule"], f["path"], f["start_line"]) for f in findings] == wanted


async def test_an_approval_lifts_the_verdict_at_every_door(
    workspace: Path, git_identity: None
) -> None:
    """One approval, recorded with the command the hook names, is the same approval for
    every door (policy/approvals.py holds the rule)."""
    repository = committed(workspace, policy=True)
    hook = Hook(repository)
    hook("PreToolUse", SELECT, {"intent_id": "INT-001"})
    hook("PostToolUse", "Read", {"file_path": str(repository / REL)})
    write = {"file_path": str(repository / REL), "content": NEW}
    verdict, reason = decision(hook("PreToolUse", "Write", write))
    assert verdict == "ask"
    [command] = re.findall(r"`intent-ls (approve [^`]+)`", reason)
    approved = intent_ls(repository, *shlex.split(command))
    assert approved.returncode == 0, approved.stderr

    assert await editor_deletes(repository, destructive=False) == []
    assert hook("PreToolUse", "Write", write) == {}
    (repository / REL).write_text(NEW)
    recorded = intent_ls(repository, "record", REL, "--intent", "INT-001")
    assert (recorded.returncode, recorded.stdout) == (0, f"{REL}: recorded [destructive-edit]\n")
    checked = intent_ls(repository, "check", "--base", "HEAD", "--format", "json")
    assert checked.returncode == 0, checked.stdout + checked.stderr


# -- a verdict already recorded, and an approval that comes after it ------------------

#: A control file with a recorded verdict nobody approves: the editor analyses it after
#: the file under test, so once its verdict shows, the answer for the other is final.
CONTROL = "src/api/routes.py"
#: The six-line deletion with line 11 reworded: the save leaves a range. The deletion
#: alone (``NEW``, in a file without definitions) leaves none; the trace index names
#: such a record by its path all the same (a file row), so both shapes get one answer.
REWORDED = NEW.replace("note 11\n", "note eleven\n")
#: The saved contents under test: a pure deletion (no range) and one that leaves a range.
SHAPES = {"a pure deletion": NEW, "a deletion and a reworded line": REWORDED}
#: Approvals as ``intent-ls approve CODE PATH --hash H --lines A-B`` takes them.
Key = tuple[str, int, int]


def approve(root: Path, code: str, key: Key) -> None:
    digest, start, end = key
    done = intent_ls(root, "approve", code, REL, "--hash", digest, "--lines", f"{start}-{end}")
    assert done.returncode == 0, done.stderr


def recorded_control(root: Path) -> None:
    """An out-of-scope save of the control file (INT-002's) under INT-001."""
    path = root / CONTROL
    path.write_text("# control\n" + path.read_text())
    assert intent_ls(root, "record", CONTROL, "--intent", "INT-001").returncode == 1


async def editor_shows_open(root: Path, code: str) -> list[int]:
    """The lines (1-based) at which an editor opening the file shows a recorded ``code``
    verdict as still open."""
    editor = await start_editor("visual-studio-code", [root])
    try:
        editor.open(REL)
        editor.open(CONTROL)
        await editor.wait_diagnostics(
            CONTROL, lambda d: any(x.code == "out-of-scope" for x in d), "the control's verdict"
        )
        return [d.range.start.line + 1 for d in editor.diagnostics(REL) if d.code == code]
    finally:
        await stop_editor(editor)


def check_reports(root: Path) -> list[tuple[str, int]]:
    checked = intent_ls(root, "check", "--base", "HEAD", "--format", "json")
    findings = json.loads(checked.stdout)["findings"]
    return [(f["rule"], f["start_line"]) for f in findings if f["path"] == REL]


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("key", ["the verdict's key", "another content's hash"])
async def test_a_later_approval_closes_a_recorded_destructive_verdict_at_every_door(
    workspace: Path, git_identity: None, key: str, shape: str
) -> None:
    """The six-line deletion (alone, or with one line reworded) is recorded with its verdict open
    (a formatter's change, by ``intent-ls record``); a human then approves, naming the
    deleted lines' content or the content next to it. Every door gives the same answer:
    the editor's and check's answer for the saved verdict (policy/approvals.py
    ``recorded_approval``), and the hook's and ``record``'s answer when the same change
    is made again (``approval_for``: the same key)."""
    saved = SHAPES[shape]
    repository = committed(workspace, policy=True)
    recorded_control(repository)
    (repository / REL).write_text(saved)
    recorded = intent_ls(repository, "record", REL, "--intent", "INT-001")
    assert (recorded.returncode, recorded.stdout) == (1, f"{REL}: recorded [destructive-edit]\n")
    [verdict] = meta(records(repository)[-1])["verdicts"]
    named = verdict["details"]["approval"]
    start, end = named["start_line"], named["end_line"]
    matching = key == "the verdict's key"
    if matching:
        approve(repository, "destructive-edit", (named["content_hash"], start, end))
    else:  # the same number of lines, one above: not what went
        neighbour = content_hash(OLD.splitlines()[start - 2 : end - 1])
        approve(repository, "destructive-edit", (neighbour, start - 1, end - 1))

    editor = await editor_shows_open(repository, "destructive-edit")
    check = check_reports(repository)

    hook = Hook(repository)
    hook("PreToolUse", SELECT, {"intent_id": "INT-001"})
    hook("PostToolUse", "Read", {"file_path": str(repository / REL)})
    restore = {"file_path": str(repository / REL), "content": OLD}
    assert hook("PreToolUse", "Write", restore) == {}
    (repository / REL).write_text(OLD)
    hook("PostToolUse", "Write", restore)
    redo = {"file_path": str(repository / REL), "content": saved}
    again = hook("PreToolUse", "Write", redo)
    (repository / REL).write_text(saved)
    redone = intent_ls(repository, "record", REL, "--intent", "INT-001")

    if matching:
        assert editor == [] and check == []
        assert again == {}
        assert (redone.returncode, redone.stdout) == (0, f"{REL}: recorded [destructive-edit]\n")
    else:
        # check names the rule by what it proves: the deleted lines when the save left no
        # range (as in the first test), the verdict when it did; both at line 5.
        rule = "uncovered-deletion" if saved == NEW else "unapproved-verdict"
        assert editor == [5] and check == [(rule, 5)], (editor, check)
        assert decision(again)[0] == "ask"
        assert redone.returncode == 1, redone.stdout


#: Saves that leave no range, and the line their destructive verdict shows at.
RANGELESS = {"a pure deletion": (NEW, 5), "the file emptied": ("", 1)}


@pytest.mark.parametrize("shape", list(RANGELESS))
async def test_the_whole_file_key_closes_a_recorded_verdict_in_the_editor_and_check(
    workspace: Path, git_identity: None, shape: str
) -> None:
    """``intent-ls approve CODE PATH`` without ``--hash`` (what check's message offers)
    keys the approval on the file as the save left it. The editor used to keep such a
    verdict open while check let it pass; both now take it (``recorded_approval``). The
    saves leave no range: the editor finds them by path as check does, so both show the
    verdict open until the approval."""
    saved, line = RANGELESS[shape]
    repository = committed(workspace, policy=True)
    recorded_control(repository)
    (repository / REL).write_text(saved)
    recorded = intent_ls(repository, "record", REL, "--intent", "INT-001")
    assert (recorded.returncode, recorded.stdout) == (1, f"{REL}: recorded [destructive-edit]\n")
    [file] = records(repository)[-1]["files"]
    assert [conv["ranges"] for conv in file["conversations"]] == [[]]
    assert check_reports(repository) == [("uncovered-deletion", line)]
    assert await editor_shows_open(repository, "destructive-edit") == [line]
    approved = intent_ls(repository, "approve", "destructive-edit", REL)
    assert approved.returncode == 0, approved.stderr
    assert await editor_shows_open(repository, "destructive-edit") == []
    assert check_reports(repository) == []


@pytest.mark.parametrize("key", ["the range's key", "another content's hash"])
async def test_a_later_approval_closes_a_recorded_out_of_scope_verdict_at_every_door(
    workspace: Path, git_identity: None, key: str
) -> None:
    """A change of line 3 recorded under INT-002, which does not own the file, then a
    human's approval of those lines or of other content. The editor and check give the
    same answer; the hook, asked for the next such write, refuses it either way: a scope
    verdict is resolved before a write by selecting an owner, never by an approval."""
    repository = committed(workspace, policy=False)
    recorded_control(repository)
    (repository / REL).write_text(OLD.replace("note 3\n", "changed 3\n"))
    recorded = intent_ls(repository, "record", REL, "--intent", "INT-002")
    assert (recorded.returncode, recorded.stdout) == (1, f"{REL}: recorded [out-of-scope]\n")
    matching = key == "the range's key"
    approve(
        repository, "out-of-scope", (content_hash(["changed 3" if matching else "note 3"]), 3, 3)
    )

    editor = await editor_shows_open(repository, "out-of-scope")
    check = check_reports(repository)
    if matching:
        assert editor == [] and check == []
    else:
        assert editor == [3] and check == [("unapproved-verdict", 3)]

    hook = Hook(repository)
    hook("PreToolUse", SELECT, {"intent_id": "INT-002"})
    write = {"file_path": str(repository / REL), "content": OLD.replace("note 4\n", "x\n")}
    assert decision(hook("PreToolUse", "Write", write))[0] == "deny"
