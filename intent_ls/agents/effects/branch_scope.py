"""A commit the call put on the branch that changes a path the session may not change.

The after-tool event puts an out-of-scope file back as it was on disk; a commit holding
the change stayed on the branch, ready to be pushed, with the working tree showing it
undone — and a ``git commit -a`` after it committed the undoing as the agent's change.
A teammate's commits pulled by the agent met the same: their files in other intents'
scopes were put back on disk while the branch moved on to them. So when the call moved
the branch ``HEAD`` is on and the commits it added change a path the session's intent
does not own, the branch goes back where it was, with the index entries of those paths;
when git itself moved it (a pull, merge or rebase: :mod:`.brought_in`), so do the files
it brought. Judged by the path alone, as a write through any tool would be first: the
change itself (a destructive edit in scope) is judged on disk afterwards, as always.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intent_ls.agents.effects import brought_in, git_objects, protected_set
from intent_ls.agents.effects.git import git, git_top
from intent_ls.agents.effects.snapshot import dirty_before
from intent_ls.common.safe_git import real_git_dir


def take_off(gov: Any, session: Any, snapshot: dict[str, Any]) -> list[str]:
    """Lines for the agent when the branch was taken back; none when it stays."""
    top = git_top(gov.root)
    moved = _moved_branch(top, snapshot.get("refs")) if top is not None else None
    if top is None or moved is None:
        return []
    from intent_ls import workflow  # the policy's path rules: only for a call that committed
    from intent_ls.agents.effects.compare import policy_of

    ref, head, now = moved
    out = git(top, "diff", "--name-only", "-z", "--no-renames", head, now, "--") or b""
    disk = git_objects.Disk(gov.root, top)
    policy = policy_of(snapshot)
    rels = [rel for rel in map(disk.rel, out.decode("utf-8", "surrogateescape").split("\0")) if rel]
    refused = [
        rel
        for rel in rels
        if not protected_set.is_protected_rel(rel, policy)  # judged before: git_objects
        and not gov.scope.is_ignored(rel)
        and workflow.judge_path(session, gov.scope, rel).blocking()
    ]
    if not refused:
        return []
    found = git_objects.Forged(ref, head, now, refused[0])
    files: list[str] = []
    if brought_in.brought_in(gov.root, found):
        files = brought_in.put_back_files(gov.root, found, policy, dirty_before(snapshot))
    _unstage(top, head, disk, refused)
    if not git_objects.put_back(gov.root, found):
        return [f"{refused[0]}: out of scope, in commit {now[:12]}; {ref} could not be put back"]
    shown = ", ".join(refused[:3]) + (f" and {len(refused) - 3} more" if len(refused) > 3 else "")
    back = f"{shown}: out of scope, in commit {now[:12]}; {ref} is back at {head[:12]}"
    return [back + _how(files)]


def _moved_branch(top: Path, before: object) -> tuple[str, str, str] | None:
    """(ref, its tip before, its tip now) when ``HEAD`` is on the branch it was on and the
    call moved that branch; None otherwise (a switch to another branch included)."""
    if not isinstance(before, dict):
        return None
    head, head_ref = before.get("head"), before.get("head_ref")
    dirs = real_git_dir(top)
    if not isinstance(head, str) or not isinstance(head_ref, str) or dirs is None:
        return None
    if git_objects.read_ref(dirs[0] / "HEAD") != head_ref:
        return None
    ref = head_ref[4:].strip()
    now = git_objects.branch_tip(top, ref)
    return None if now is None or now == head else (ref, head, now)


def _unstage(top: Path, head: str, disk: git_objects.Disk, rels: list[str]) -> None:
    """The paths' index entries as ``head`` holds them (a later plain ``git commit``
    would otherwise take the change again)."""
    base = "" if disk.prefix == "." else disk.prefix + "/"
    specs = "".join(f":(top,literal){base}{rel}\0" for rel in rels).encode()
    git(top, "reset", "-q", head, "--pathspec-from-file=-", "--pathspec-file-nul", input=specs)


def _how(files: list[str]) -> str:
    if files:
        return (
            f", with the {len(files)} file{'' if len(files) == 1 else 's'} git brought put "
            "back (others' commits touching other intents' files: ask the human to pull "
            "or merge them in a terminal)"
        )
    return " (the commit's other changes are still in the index and the files)"
