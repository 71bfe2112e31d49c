"""Protected paths changed in git instead of on disk.

The sandbox keeps ``.orchestration/`` and the agents' settings read-only, but git's
objects, refs and index must stay writable for commit, branch and stash to work. So a
command can commit a spec or a ledger that was never on disk (``git hash-object -w``,
``git update-index --cacheinfo``, ``git commit-tree``, ``git update-ref``) and leave the
working tree untouched: pushed, that commit is what CI's ``intent-ls check`` reads, with
a widened scope and an approval nobody gave. So around a shell call the hook notes the
branch and tag tips and the index, and afterwards every commit the call made reachable
must hold each protected path as it is on disk (the ledger: a prefix of it, since the
hooks append after a commit), and so must the index. A ref that gained a commit which
does not is put back where it was; an index entry that does not is reset to ``HEAD``'s.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from intent_ls.agents.effects import protected_set
from intent_ls.agents.effects.git import git, git_top
from intent_ls.common.safe_git import real_git_dir

#: The refs a push or a checkout takes a commit from; remote-tracking refs move with
#: every fetch, to other people's commits.
REFS = ("refs/heads", "refs/tags")
_NULL = {"0" * 40, "0" * 64}


class Forged(NamedTuple):
    """A ref the call moved to a commit holding a protected path not as on disk."""

    ref: str
    old: str | None
    commit: str
    path: str


def state(root: Path) -> dict[str, Any] | None:
    """The tips and the index's identity before a call; None outside git."""
    top = git_top(root)
    if top is None:
        return None
    tips = _tips(top)
    if tips is None:
        return None
    dirs = real_git_dir(top)
    head_file = read_ref(dirs[0] / "HEAD") if dirs else None
    return {
        "tips": tips,
        "index": _index_signature(top),
        "head": _head(top, tips),
        "head_ref": head_file if head_file and head_file.startswith("ref:") else None,
        "stash": stash_tip(top),
        "marks": move_marks(dirs[0]) if dirs else None,
    }


def move_marks(git_dir: Path) -> list[list[int] | None]:
    """The identity of ``FETCH_HEAD`` and ``ORIG_HEAD``, which a pull writes as it starts
    (:func:`intent_ls.agents.effects.brought_in.stopped_pull`)."""
    marks: list[list[int] | None] = []
    for name in ("FETCH_HEAD", "ORIG_HEAD"):
        try:
            st = os.stat(git_dir / name)
        except OSError:
            marks.append(None)
        else:
            marks.append([st.st_size, st.st_mtime_ns, st.st_ino])
    return marks


def current_head(top: Path) -> str | None:
    """The commit ``HEAD`` names now."""
    return _head(top, _tips(top) or {})


def branch_tip(top: Path, ref: str) -> str | None:
    """The commit one branch names now, read from its file or ``packed-refs`` alone (not
    every ref, as :func:`current_head` does: this runs after every shell call)."""
    dirs = real_git_dir(top)
    if dirs is None:
        return None
    common = dirs[1]
    if os.path.isdir(common / "reftable"):
        return (_listed(top) or {}).get(ref)
    value = read_ref(common / ref) if ref.startswith("refs/") else None
    value = value or _packed(common / "packed-refs").get(ref)
    return value if value is not None and _is_oid(value) else None


def stash_tip(top: Path) -> str | None:
    """The newest stash's commit, from the file git keeps it in (a ``stash pop`` whose
    ledger is not taken puts it back: :mod:`.ledger_copy`)."""
    dirs = real_git_dir(top)
    if dirs is None:
        return None
    common = dirs[1]
    if os.path.isdir(common / "reftable"):
        out = git(top, "rev-parse", "-q", "--verify", "refs/stash")
        value = out.decode().strip() if out else None
    else:
        value = read_ref(common / "refs" / "stash") or _packed(common / "packed-refs").get(
            "refs/stash"
        )
    return value if value is not None and _is_oid(value) else None


def _head(top: Path, tips: dict[str, str]) -> str | None:
    """The commit ``HEAD`` names (None on an unborn branch), from ``tips``."""
    dirs = real_git_dir(top)
    value = read_ref(dirs[0] / "HEAD") if dirs else None
    if value is None or not value.startswith("ref:"):
        return value if value is not None and _is_oid(value) else None
    return tips.get(value[4:].strip())


def _tips(top: Path) -> dict[str, str] | None:
    """Each branch and tag's object id (a symbolic one's target's), and a detached
    ``HEAD``'s. Read from the files git keeps them in (a hook pays for no git process
    around every shell call); with another ref storage (reftable), from ``git
    for-each-ref``."""
    dirs = real_git_dir(top)
    if dirs is None:
        return None
    git_dir, common = dirs
    tips = _listed(top) if os.path.isdir(common / "reftable") else _from_files(common)
    head = read_ref(git_dir / "HEAD")
    if tips is not None and head is not None and not head.startswith("ref:"):
        tips["HEAD"] = head
    return tips


def _listed(top: Path) -> dict[str, str] | None:
    out = git(top, "for-each-ref", "--format=%(objectname) %(refname)", *REFS)
    if out is None:
        return None
    return {ref: oid for oid, _, ref in (line.partition(" ") for line in _lines(out))}


def _from_files(common: Path) -> dict[str, str]:
    packed = _packed(common / "packed-refs")
    found = {ref: oid for ref, oid in packed.items() if ref.startswith(_UNDER)}
    for name in REFS:
        for folder, _, files in os.walk(common / name):
            for file in files:
                path = Path(folder) / file
                value = read_ref(path)
                if value is not None:
                    found[path.relative_to(common).as_posix()] = value
    tips = {}
    for ref, value in found.items():
        oid = _resolve(common, packed, found, value)
        if oid is not None:
            tips[ref] = oid
    return tips


def _resolve(common: Path, packed: dict[str, str], found: dict[str, str], value: str) -> str | None:
    """A ref file's object id, following ``ref:`` links a few times as git does."""
    for _ in range(5):
        if not value.startswith("ref:"):
            return value if _is_oid(value) else None
        target = value[4:].strip()
        loose = read_ref(common / target) if target.startswith("refs/") else None
        value = found.get(target) or loose or packed.get(target) or ""
    return None


def _packed(path: Path) -> dict[str, str]:
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    packed = {}
    for line in _lines(data):
        oid, _, ref = line.partition(" ")
        if ref.startswith("refs/") and _is_oid(oid):
            packed[ref] = oid
    return packed


def read_ref(path: Path) -> str | None:
    try:
        return path.read_bytes()[:300].decode("utf-8", "replace").strip()
    except OSError:
        return None


def _is_oid(text: str) -> bool:
    return len(text) in (40, 64) and all(c in _HEX for c in text)


_HEX = frozenset("0123456789abcdef")
_UNDER = tuple(f"{name}/" for name in REFS)


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogateescape").splitlines()


def _index_signature(top: Path) -> list[int] | None:
    dirs = real_git_dir(top)
    try:
        st = os.stat(dirs[0] / "index") if dirs else None
    except OSError:
        return None
    return None if st is None else [st.st_size, st.st_mtime_ns, st.st_ino]


class Disk:
    """Each protected path's content on disk as git would name it, asked once each."""

    def __init__(self, root: Path, top: Path) -> None:
        self.root, self.top = root, top
        self.prefix = os.path.relpath(root, top).replace(os.sep, "/")
        self._oids: dict[str, str | None] = {}

    def rel(self, top_rel: str) -> str | None:
        """The workspace-relative path of a top-relative one; None outside the workspace."""
        if self.prefix == ".":
            return top_rel
        head = self.prefix + "/"
        return top_rel[len(head) :] if top_rel.startswith(head) else None

    def oid(self, rel: str, width: int) -> str | None:
        if rel not in self._oids:
            try:
                data = (self.root / rel).read_bytes()
            except OSError:
                self._oids[rel] = None
            else:
                algorithm = hashlib.sha256 if width == 64 else hashlib.sha1
                self._oids[rel] = algorithm(b"blob %d\0" % len(data) + data).hexdigest()
        return self._oids[rel]

    def holds(self, rel: str, oid: str) -> bool:
        """Whether blob ``oid`` (null: the path deleted) is the path as it is on disk."""
        if oid in _NULL:
            return self.oid(rel, len(oid)) is None
        if oid == self.oid(rel, len(oid)):
            return True
        return rel == protected_set.LEDGER and self._ledger_prefix(oid)

    def _ledger_prefix(self, oid: str) -> bool:
        committed = git(self.top, "cat-file", "blob", oid)
        if committed is None:
            return False
        try:
            with open(self.root / protected_set.LEDGER, "rb") as fh:
                return fh.read(len(committed)) == committed
        except OSError:
            return False

    def pathspecs(self, policy: protected_set.PolicyPaths) -> list[str]:
        base = "" if self.prefix == "." else self.prefix + "/"
        names = sorted({*protected_set.workspace_names(), *policy.bases})
        return [f":(top,literal){base}{name}" for name in names]


def forged(root: Path, before: dict[str, Any], policy: protected_set.PolicyPaths) -> list[Forged]:
    """Every ref the call moved to a commit it made reachable that holds a protected path
    not as it is on disk (the first such path of the newest such commit, per ref)."""
    top = git_top(root)
    tips_before = before.get("tips")
    if top is None or not isinstance(tips_before, dict):
        return []
    after = _tips(top) or {}
    moved = {ref: oid for ref, oid in after.items() if tips_before.get(ref) != oid}
    if not moved:
        return []
    disk = Disk(root, top)
    specs = disk.pathspecs(policy)
    found = []
    for ref, tip in sorted(moved.items()):
        revs = "".join(f"^{oid}\n" for oid in sorted(set(tips_before.values())))
        out = git(top, "log", "--stdin", "-m", "--raw", "--no-abbrev", "--no-renames", "-z",
                  "--format=%x01%H", "--", *specs, input=f"{tip}\n{revs}".encode())  # fmt: skip
        for commit, path, oid in _entries(out or b""):
            rel = disk.rel(path)
            if _forged(disk, rel, oid, policy):
                found.append(Forged(ref, _was(before, ref), commit, str(rel)))
                break
    return found


def _was(before: dict[str, Any], ref: str) -> str | None:
    """Where ``ref`` was before the call: a detached ``HEAD`` that was on a branch was
    ``ref: refs/heads/…`` (deleting it would leave no repository)."""
    tips = before.get("tips") or {}
    if ref == "HEAD" and ref not in tips and isinstance(before.get("head_ref"), str):
        return str(before["head_ref"])
    return tips.get(ref)


def _forged(disk: Disk, rel: str | None, oid: str, policy: protected_set.PolicyPaths) -> bool:
    """Whether a protected path (``rel``; None: outside the workspace) is held as it is
    not on disk."""
    if rel is None or not protected_set.is_protected_rel(rel, policy):
        return False
    return not disk.holds(rel, oid)


def _entries(out: bytes) -> Iterator[tuple[str, str, str]]:
    """(commit, top-relative path, new blob) of each ``--raw -z`` entry."""
    tokens = out.decode("utf-8", "surrogateescape").split("\0")
    commit = ""
    meta: str | None = None
    for token in tokens:
        token = token.lstrip("\n")
        if token.startswith("\x01"):
            commit = token[1:]
        elif token.startswith(":"):
            meta = token
        elif meta is not None:
            yield commit, token, meta.split(" ")[3]
            meta = None


def put_back(root: Path, found: Forged) -> bool:
    """Moves the ref back where it was (deletes one the call created)."""
    top = git_top(root)
    if top is None:
        return False
    if found.old is None:
        args = ["update-ref", "-d", found.ref]
    elif found.old.startswith("ref:"):
        args = ["symbolic-ref", found.ref, found.old[4:].strip()]
    else:
        args = ["update-ref", "--no-deref", found.ref, found.old]
    return git(top, *args) is not None


def staged(root: Path, before: dict[str, Any], policy: protected_set.PolicyPaths) -> list[str]:
    """Protected paths whose index entry the call set to what is neither on disk nor in
    ``HEAD``; each reset to ``HEAD``'s (a later human ``git commit`` would take it)."""
    top = git_top(root)
    if top is None or _index_signature(top) == before.get("index"):
        return []
    disk = Disk(root, top)
    specs = disk.pathspecs(policy)
    in_head = dict(_listing(git(top, "ls-tree", "-r", "-z", "HEAD", "--", *specs), 2))
    reset = [
        path
        for path, oid in _listing(git(top, "ls-files", "-s", "-z", "--", *specs), 1)
        if oid != in_head.get(path) and _forged(disk, disk.rel(path), oid, policy)
    ]
    if reset:
        git(top, "reset", "-q", "--", *(f":(top,literal){p}" for p in reset))
    return [rel for rel in map(disk.rel, reset) if rel is not None]


def _listing(out: bytes | None, field: int) -> Iterator[tuple[str, str]]:
    """(path, object id) of each ``-z`` entry of ``ls-files -s`` (the id is field 1) or
    ``ls-tree`` (field 2)."""
    for entry in (out or b"").decode("utf-8", "surrogateescape").split("\0"):
        info, tab, path = entry.partition("\t")
        if tab:
            yield path, info.split(" ")[field]


def checked_out(root: Path, before: dict[str, Any]) -> bool:
    """Whether the ledger was written as a checkout left it in the index.

    ``git switch`` (``checkout``) to a branch whose ledger differs updates the index,
    cannot replace the read-only file in the sandbox, and still succeeds: the working
    tree would keep the old branch's ledger, which the next commit would put on this
    branch. So when the call moved ``HEAD`` to a commit that was a branch or tag tip
    before it (never to one the call made, which :func:`forged` judges), a ledger that
    differs between the two commits, whose index entry git set to the new commit's and
    which is on disk exactly as the old commit holds it (no uncommitted record lost), is
    written from the new commit. Only the ledger: the spec and the agents' settings of
    another commit (an old tag's wider scope, settings without the hooks) would change
    what governs the session, which a checkout by the agent may not."""
    top = git_top(root)
    old, tips_before = before.get("head"), before.get("tips")
    if top is None or not isinstance(old, str) or not isinstance(tips_before, dict):
        return False
    new = _head(top, _tips(top) or {})
    if new is None or new == old or new not in tips_before.values():
        return False
    disk = Disk(root, top)
    base = "" if disk.prefix == "." else disk.prefix + "/"
    spec = [f":(top,literal){base}{protected_set.LEDGER}"]
    out = git(top, "diff", "--raw", "--no-abbrev", "--no-renames", "-z", old, new, "--", *spec)
    index = dict(_listing(git(top, "ls-files", "-s", "-z", "--", *spec), 1))
    for path, was, now in _changed(out or b""):
        on_disk = disk.oid(protected_set.LEDGER, len(was)) == (None if was in _NULL else was)
        if on_disk and index.get(path, _NULL_OID) == now:
            return write_blob(top, root / protected_set.LEDGER, now)
    return False


_NULL_OID = "0" * 40


def _changed(out: bytes) -> Iterator[tuple[str, str, str]]:
    """(top-relative path, old blob, new blob) of each ``diff --raw -z`` entry."""
    tokens = out.decode("utf-8", "surrogateescape").split("\0")
    for meta, path in zip(tokens[::2], tokens[1::2], strict=False):
        fields = meta.split(" ")
        if meta.startswith(":") and len(fields) >= 4:
            yield path, fields[2], fields[3]


def write_blob(top: Path, path: Path, oid: str, executable: bool | None = None) -> bool:
    """``path`` as blob ``oid`` has it (removed for a null id), replaced all at once;
    with ``executable``, its mode set as git's file mode says."""
    from intent_ls.common.safe_io import write_atomic

    try:
        if oid in _NULL:
            path.unlink()
            return True
        data = git(top, "cat-file", "blob", oid)
        if data is None:
            return False
        write_atomic(path, data, anchor=top)
        if executable is not None:
            os.chmod(path, 0o755 if executable else 0o644)
    except OSError:
        return False
    return True
