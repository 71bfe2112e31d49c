"""What changed on disk since a snapshot (:mod:`.snapshot`) was taken."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from intent_ls.agents.effects import hidden, protected_set
from intent_ls.agents.effects.git import GitStatus, git, git_ignored
from intent_ls.agents.effects.snapshot import tail_digest
from intent_ls.agents.effects.store import Store, signature


class Before(NamedTuple):
    """A path as it was before the call."""

    exists: bool
    #: Digest of its bytes in the store (a regular file whose content was kept).
    blob: str | None = None
    link: str | None = None
    mode: int = 0o644
    #: Derived data: put back by deleting it.
    cache: bool = False
    #: A ledger too large to copy: its size and the digest of its last bytes.
    size: int | None = None
    tail: str | None = None

    @property
    def restorable(self) -> bool:
        return not self.exists or self.cache or self.blob is not None or self.link is not None


class Effect(NamedTuple):
    path: str
    before: Before
    #: Workspace-relative POSIX path, None outside the workspace.
    rel: str | None = None


def _before(entry: dict[str, Any] | None) -> Before:
    if entry is None or entry.get("sig") is None:
        return Before(False)
    return Before(
        True,
        blob=entry.get("blob"),
        link=entry.get("link"),
        mode=int(entry.get("mode", 0o644)),
        cache=bool(entry.get("cache")),
        size=entry.get("size"),
        tail=entry.get("tail"),
    )


def _sig(path: str) -> list[int] | None:
    try:
        return signature(os.lstat(path))
    except OSError:
        return None


def _rel(root: Path, path: str) -> str | None:
    prefix = str(root) + os.sep
    return path[len(prefix) :].replace(os.sep, "/") if path.startswith(prefix) else None


def protected_changes(store: Store, root: Path, snapshot: dict[str, Any]) -> list[Effect]:
    before: dict[str, Any] = snapshot.get("protected") or {}
    files, trees = protected_set.roots(root)
    now: dict[str, list[int] | None] = {p: _sig(p) for p in files}
    lock = str(root / protected_set.LEDGER_LOCK)
    for tree in trees:
        for path, st in protected_set.walk(tree):
            if path != lock and not path.startswith(str(store.dir)):
                now[path] = signature(st)
    found = []
    for path in sorted(set(before) | {p for p, s in now.items() if s is not None}):
        entry = before.get(path)
        current = now.get(path, _sig(path))
        if (entry or {}).get("sig") == current:
            continue
        found.append(Effect(path, _before(entry), _rel(root, path)))
    return found


def policy_of(snapshot: dict[str, Any]) -> protected_set.PolicyPaths:
    """What the repository's policy protected when the snapshot was taken."""
    globs = snapshot.get("agentProtected")
    if not isinstance(globs, list):
        return protected_set.PolicyPaths()
    return protected_set.PolicyPaths([g for g in globs if isinstance(g, str)])


def policy_created(
    root: Path, snapshot: dict[str, Any], policy: protected_set.PolicyPaths
) -> list[Effect]:
    """Files that now stand where the policy protects and did not before the call."""
    before: dict[str, Any] = snapshot.get("protected") or {}
    return [Effect(p, Before(False), rel) for p, rel, _ in policy.walk(root) if p not in before]


def file_changes(
    store: Store, root: Path, snapshot: dict[str, Any], status: GitStatus | None = None
) -> list[Effect]:
    """Changed files git can see (tracked, or untracked and not ignored); ``status`` is
    the workspace's ``git status`` after the call, when already started."""
    info = snapshot.get("git")
    if not isinstance(info, dict):
        return []
    top = Path(info["top"])
    after = (status or GitStatus(top, info["prefix"])).result()
    if after is None:
        return []
    candidates = _candidates(store, top, info, after)
    return _effects(store, root, top, snapshot, info, candidates, after[1])


def _candidates(
    store: Store, top: Path, info: dict[str, Any], after: tuple[Any, dict[str, Any]]
) -> dict[str, dict[str, Any] | None]:
    """{rel: its entry in the snapshot's dirty list, None when it was clean} of every
    path the call may have changed: dirty now or before (and changed since), newly
    flagged hidden, or changed by the commits the call made."""
    head1, dirty1 = after
    dirty0: dict[str, Any] = info["dirty"]
    head0 = info.get("head")
    candidates: dict[str, dict[str, Any] | None] = {}
    for rel in set(dirty0) | set(dirty1):
        entry = dirty0.get(rel)
        if entry is None or entry.get("sig") != _sig(str(top / rel)):
            candidates[rel] = entry
    for rel in hidden.newly_flagged(store, top, info):
        candidates.setdefault(rel, None)
    if head1 != head0 and head0 and head1 and _descends(top, head0, head1):
        out = git(top, "diff", "--name-only", "-z", "--no-renames", head0, head1, "--")
        for rel in os.fsdecode(out or b"").split("\0"):
            if rel and rel.startswith(info["prefix"]) and rel not in dirty0:
                candidates.setdefault(rel, None)
    return candidates


def _effects(
    store: Store,
    root: Path,
    top: Path,
    snapshot: dict[str, Any],
    info: dict[str, Any],
    candidates: dict[str, dict[str, Any] | None],
    dirty1: dict[str, str],
) -> list[Effect]:
    """The candidates as effects, with what stood there before the call; paths no tool
    call may change are left to the protected set."""
    policy = policy_of(snapshot)
    from_head = sorted(r for r, e in candidates.items() if e is None)
    blobs = _head_blobs(store, top, info.get("head"), from_head)
    unseen = _maybe_there(top, [r for r in from_head if r not in blobs], dirty1)
    effects = []
    for rel, entry in sorted(candidates.items()):
        full = str(top / rel)
        ws_rel = _rel(root, full)
        if ws_rel is None or protected_set.is_protected_rel(ws_rel, policy):
            continue
        if entry is not None:
            before = _before(entry)
        elif rel in blobs:
            digest, mode = blobs[rel]
            before = Before(True, blob=digest, mode=mode)
        else:
            before = Before(rel in unseen)
        effects.append(Effect(full, before, ws_rel))
    return effects


def _maybe_there(top: Path, new: list[str], dirty1: dict[str, str]) -> set[str]:
    """Of the paths new to the snapshot that git now tracks (``git add -f``, a commit),
    those its ignore rules match: git's status never listed them, so they may have been
    there before the call, as a human's ignored file, and are not taken for new (which
    would have them removed). Their content before is unknown: held, never removed."""
    tracked = [rel for rel in new if dirty1.get(rel) != "??"]
    return git_ignored(top, tracked) if tracked else set()


def status_after(snapshot: dict[str, Any]) -> GitStatus | None:
    """The ``git status`` :func:`file_changes` compares the snapshot with, started now."""
    info = snapshot.get("git")
    if not isinstance(info, dict):
        return None
    return GitStatus(Path(info["top"]), info["prefix"])


def _descends(top: Path, old: str, new: str) -> bool:
    """Whether ``new`` was made on top of ``old`` (commits, not a switch to other work)."""
    return git(top, "merge-base", "--is-ancestor", old, new) is not None


def _head_blobs(
    store: Store, top: Path, head: str | None, rels: list[str]
) -> dict[str, tuple[str, int]]:
    """{rel: (digest in the store, mode)} of each path as committed at ``head``."""
    if not head or not rels:
        return {}
    listing = git(top, "ls-tree", "-z", head, "--", *rels) or b""
    wanted: dict[str, tuple[str, int]] = {}
    for item in listing.split(b"\0"):
        if not item:
            continue
        meta, _, name = item.partition(b"\t")
        mode, kind, oid = meta.split(b" ")
        if kind == b"blob":
            wanted[os.fsdecode(name)] = (oid.decode(), 0o755 if mode == b"100755" else 0o644)
    if not wanted:
        return {}
    query = b"".join(oid.encode() + b"\n" for oid, _ in wanted.values())
    data = git(top, "cat-file", "--batch", input=query)  # only when the call moved HEAD
    if data is None:
        return {}
    contents: dict[str, bytes] = {}
    pos = 0
    while pos < len(data):
        end = data.index(b"\n", pos)
        oid, _, size = data[pos:end].split(b" ")
        start = end + 1
        contents[oid.decode()] = data[start : start + int(size)]
        pos = start + int(size) + 1
    found = {}
    for rel, (oid, mode) in wanted.items():
        if oid in contents:
            found[rel] = (store.put(contents[oid]), mode)
    return found


def ledger_appended(path: str, before: Before) -> bytes | None:
    """The bytes appended to the ledger after ``before`` when nothing else changed
    (a ledger too large to copy); None when it was rewritten."""
    if before.size is None:
        return None
    try:
        size = os.path.getsize(path)
    except OSError:
        return None
    if size < before.size or tail_digest(path, before.size) != before.tail:
        return None
    with open(path, "rb") as fh:
        fh.seek(before.size)
        return fh.read()


def between(store: Store, settled: dict[str, Any], now: dict[str, Any]) -> list[Change]:
    """What changed from one git view of the workspace (:func:`.snapshot.files`) to a
    later one, both kept: a file dirty in either whose identity differs, with its
    content as each view holds it (a file clean in a view is as that view's ``HEAD``
    has it). Files whose bytes are the same (a commit, a ``touch``) are left out."""
    top = Path(now["top"])
    if settled.get("top") != now["top"]:
        return []
    old_dirty: dict[str, Any] = settled.get("dirty") or {}
    new_dirty: dict[str, Any] = now.get("dirty") or {}
    rels = _differing(old_dirty, new_dirty)
    old_head = _head_blobs(store, top, settled.get("head"), [r for r in rels if r not in old_dirty])
    new_head = _head_blobs(store, top, now.get("head"), [r for r in rels if r not in new_dirty])
    found = []
    for rel in rels:
        before = _side(store, old_dirty.get(rel), old_head.get(rel))
        after = _side(store, new_dirty.get(rel), new_head.get(rel))
        if before is None or after is None or before[1] == after[1]:
            continue
        found.append(Change(str(top / rel), rel, before[0], before[1], after[1]))
    return found


def _differing(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The paths dirty in either view whose identity is not the same in both."""
    return sorted(
        rel
        for rel in set(old) | set(new)
        if (old.get(rel) or {}).get("sig", 0) != (new.get(rel) or {}).get("sig", 0)
    )


class Change(NamedTuple):
    """A file changed between two kept views: its bytes in each (None: absent)."""

    path: str
    #: Relative to the repository's top.
    rel: str
    before: Before
    old: bytes | None
    new: bytes | None


def _side(
    store: Store, entry: dict[str, Any] | None, committed: tuple[str, int] | None
) -> tuple[Before, bytes | None] | None:
    """A file as a view holds it; None when its bytes were not kept (too large, a
    symbolic link, a special file)."""
    if entry is None:
        if committed is None:
            return Before(False), None
        data = store.get(committed[0])
        return None if data is None else (Before(True, blob=committed[0], mode=committed[1]), data)
    if entry.get("sig") is None:
        return Before(False), None
    blob = entry.get("blob")
    data = store.get(blob) if isinstance(blob, str) else None
    return None if data is None or entry.get("link") else (_before(entry), data)
