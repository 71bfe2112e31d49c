"""The CI gate's rule: every change since the base revision answers to a ledger record.

A changed file passes in one of two ways (``docs/check.md`` has the full statement):

1. **Its saves are all on the ledger**: qualifying mutation records of the file lead, by
   their ``before_hash`` → ``after_hash``, from the file's content at base to its content
   now. That proves every added, changed and deleted line, including lines an earlier
   save wrote and a later save partly rewrote (whose old range hash matches nothing any
   more).
2. Otherwise, **line by line**: each added or modified line lies in a window of the
   current file whose content hash equals a qualifying record range's ``content_hash``.
   Candidates are the records that touched the path (at any line: code shifts) and, for
   the lines still uncovered, records anywhere whose range hash equals a window of those
   lines (code moved from another file keeps its attribution). Pure deletions have no
   line to hash, so they are only covered by (1).

A record *qualifies* for a line of file P when it is a mutation record, none of its
out-of-scope / destructive-edit / stale-file verdicts is unapproved for that line (the
rule the editor follows too: :func:`~intent_ls.policy.approvals.recorded_approval`), its
intent is in the current spec, is IN_PROGRESS, and owns P (or the record carries an
approved out-of-scope verdict for P itself). Lines covered only by records that fail
this get the failing rule, so the message says what to fix rather than just "uncovered".
"""

from __future__ import annotations

import json
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

import attrs

from intent_ls.check.answers import Answers, ScannedAnswers
from intent_ls.check.append_only import rewritten_since_base
from intent_ls.check.findings import (
    AGENT_EFFECT,
    DONE_WITHOUT_CHANGE,
    INTENT_NOT_IN_PROGRESS,
    INTENT_NOT_OWNER,
    LEDGER_INVALID,
    SPEC_INVALID,
    UNAPPROVED_VERDICT,
    UNCOVERED_CHANGE,
    UNCOVERED_DELETION,
    Finding,
)
from intent_ls.check.git import MAX_CHECK_BYTES, Base, FileChange, Repo
from intent_ls.check.prepare import Diff, index_cached, ledger_interest
from intent_ls.check.spec_change import scope_widened
from intent_ls.check.symlinks import is_link_change, symlink_findings
from intent_ls.check.windows import (
    runs,
    starts_touching,
    substantial,
    window_hash,
    windows,
)
from intent_ls.common.diff import Hunk, split_lines
from intent_ls.common.hashing import content_hash, text_hash
from intent_ls.common.local_state import LOCAL_DIR
from intent_ls.common.safe_io import open_sidecar_reader
from intent_ls.ledger.index import Progress, RecordRef, TraceIndex
from intent_ls.ledger.records import approvals_from_records, intent_meta
from intent_ls.ledger.store import LEDGER_RELPATH
from intent_ls.ledger.verify import CONFLICT_MESSAGE, verify_ledger
from intent_ls.policy.approvals import ApprovalSet, approval_key, recorded_approval
from intent_ls.policy.rules import rule_of
from intent_ls.policy.verdicts import DESTRUCTIVE_EDIT
from intent_ls.spec.load import SPEC_RELPATH
from intent_ls.spec.model import Severity, Status, labels
from intent_ls.workspace.discover import Workspace

#: Candidate windows hashed before the index is asked which of them it knows.
_WINDOW_BATCH = 8192
#: Locating one unrecorded block among the saved ones costs a text rebuild per try.
MAX_UNDO_HUNKS = 200


@attrs.frozen
class CheckResult:
    base: Base
    findings: tuple[Finding, ...]
    files_checked: int
    lines_checked: int
    records: int
    #: The git top level and the workspace's path inside it ("" or ending in "/"):
    #: SARIF locations are relative to the repository, finding paths to the workspace.
    toplevel: Path
    prefix: str

    @property
    def ok(self) -> bool:
        return not self.findings


@attrs.frozen
class _Problem:
    """Why a record does not qualify for a line; ``seq`` orders problems newest-first."""

    rule: str
    message: str
    record_id: str
    seq: int


@attrs.frozen
class _Range:
    seq: int
    path: str  # where the record says the range was saved
    start: int  # where it was saved
    length: int
    digest: str


def run_check(
    root: Path,
    base_rev: str | None,
    optional_rules: frozenset[str] = frozenset(),
    *,
    verifying: Progress | None = None,
    indexing: Progress | None = None,
) -> CheckResult:
    """Checks the working tree of ``root`` against ``base_rev`` (default: see
    :meth:`Repo.resolve_base`), with the ``optional_rules`` asked for. Raises
    :class:`~intent_ls.check.git.GitError` when git cannot answer; everything else wrong
    becomes a finding. ``verifying`` and ``indexing`` follow the two reads of the ledger
    (bytes done, size)."""
    ws = Workspace(root)
    repo = Repo(ws.root)
    base = repo.resolve_base(base_rev)
    # The ledger is never a governed change, and checked below on its own.
    changes = repo.changes(base, skip=[LEDGER_RELPATH.as_posix()])
    findings = _spec_findings(ws)
    findings.extend(scope_widened(ws, repo, base))
    findings.extend(agent_effect_findings(ws.root))
    ledger = ws.root / LEDGER_RELPATH
    governed = [c for c in changes if _governed(ws, c)]
    diffs = {c: d for c in governed if (d := Diff.of(ws, c)) is not None}
    # A usable index cache (a warm workspace) answers at once; without one, the lines
    # that can answer are handed back by the verifying pass (see .answers). A cache the
    # repository itself ships (committed with ``git add -f``) is one its author wrote:
    # never believed, nor written to.
    own_cache = not repo.tracks(LOCAL_DIR)
    cached = own_cache and index_cached(ws.root)
    interest = None if cached else ledger_interest(governed, diffs)
    # The append-only anchor is mostly hashing, which runs beside verify's own work (the
    # GIL is released while hashing); its answer counts only once verify has passed.
    with ThreadPoolExecutor(1) as pool:
        anchored = pool.submit(rewritten_since_base, repo, base, ledger)
        verified = verify_ledger(ledger, verifying, interest=interest)
    if verified.problem is not None:
        unusable = (
            "coverage was not checked until it is repaired"
            if verified.problem.reason == CONFLICT_MESSAGE
            else "no change can be trusted to a tampered ledger, so coverage was not checked"
        )
        findings.append(
            Finding(
                LEDGER_INVALID,
                LEDGER_RELPATH.as_posix(),
                verified.problem.line,
                verified.problem.line,
                f"trace verify failed: {verified.problem.reason}; {unusable}",
            )
        )
        return CheckResult(
            base, tuple(findings), 0, 0, verified.records, repo.toplevel, repo.prefix
        )
    rewritten = anchored.result()
    if rewritten is not None:
        return CheckResult(
            base, (*findings, rewritten), 0, 0, verified.records, repo.toplevel, repo.prefix
        )
    findings.extend(symlink_findings(ws, changes))
    with ExitStack() as stack:

        def own_index() -> TraceIndex:
            """The workspace's cache; a private one in a temporary folder when there is
            no ledger (keeping the user's tree free of a cache) or the repository ships
            its own."""
            if own_cache and ledger.exists():
                return TraceIndex.for_workspace(ws.root, progress=indexing)
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            return TraceIndex(ledger, tmp / "index.sqlite", progress=indexing)

        index: Answers
        if interest is None or not ledger.exists():
            index = own_index()
        else:
            index = ScannedAnswers(ledger, interest, verified.wanted, own_index)
        stack.callback(index.close)
        checker = _Checker(ws, index, base, stack)
        lines = 0
        for change in governed:
            if is_link_change(change):  # judged by symlink_findings above
                continue
            found, counted = checker.check(change, diffs.get(change))
            findings.extend(found)
            lines += counted
        if DONE_WITHOUT_CHANGE in optional_rules:
            from intent_ls.check.done_without_change import done_without_change

            findings.extend(done_without_change(ws, index))
    findings.sort(key=lambda f: (f.path, f.start_line, f.rule))
    return CheckResult(
        base,
        tuple(findings),
        len(governed),
        lines,
        verified.records,
        repo.toplevel,
        repo.prefix,
    )


def agent_effect_findings(root: Path) -> list[Finding]:
    """What agents' tool calls changed and the hooks could not put back (their log)."""
    from intent_ls.workspace import effects_log as log

    return [
        Finding(
            AGENT_EFFECT,
            str(item.get("path", "")),
            1,
            1,
            f"{item.get('agent')} session {item.get('session')} ({item.get('tool')}) changed "
            f"it at {item.get('time')} ({item.get('code')}) and it could not be put back: "
            f"{item.get('detail', 'its former content was not kept')}",
        )
        for item in log.read(root)
        if item.get("action") == log.UNRESTORABLE
    ]


def _governed(ws: Workspace, change: FileChange) -> bool:
    paths = [change.path] if change.old_path is None else [change.path, change.old_path]
    return any(ws.classify_rel(p).governed for p in paths)


def _spec_findings(ws: Workspace) -> list[Finding]:
    return [
        Finding(
            SPEC_INVALID,
            SPEC_RELPATH,
            p.span.start.line + 1,
            p.span.end.line + 1,
            f"{p.code}: {p.message}",
        )
        for p in ws.spec_result().problems
        if p.severity is Severity.ERROR
    ]


class _Coverage:
    """Which changed lines qualifying records cover, and for the others the newest
    record that covers them but cannot vouch (its problem); each record's verdict on a
    path and hash is asked once."""

    def __init__(self, checker: _Checker, path: str) -> None:
        self.checker = checker
        self.path = path
        self.ok: set[int] = set()
        self.problems: dict[int, _Problem] = {}
        self.verdicts: dict[tuple[int, str, str | None], _Problem | None] = {}

    def mark(self, rng: _Range, start: int, digest: str) -> None:
        key = (rng.seq, rng.path, digest)
        if key not in self.verdicts:
            self.verdicts[key] = self.checker._problem(rng.seq, rng.path, self.path, digest)
        problem = self.verdicts[key]
        for line in range(start, start + rng.length):
            if problem is None:
                self.ok.add(line)
            elif line not in self.ok and (
                line not in self.problems or self.problems[line].seq < rng.seq
            ):
                self.problems[line] = problem


class _Checker:
    """Checks changed files against one ledger; caches records and verdicts across files."""

    def __init__(self, ws: Workspace, index: Answers, base: Base, stack: ExitStack) -> None:
        self.ws = ws
        self.spec = ws.spec()
        self.scope = ws.scope()
        self.index = index
        self.base = base
        self._stack = stack
        self._ledger: IO[bytes] | None = None
        self._records: dict[int, dict[str, Any]] = {}
        self._path_refs: dict[str, list[RecordRef]] = {}
        self._approvals: dict[str, ApprovalSet] = {}

    # -- ledger access ----------------------------------------------------------------

    def _record(self, ref: RecordRef) -> dict[str, Any]:
        record = self._records.get(ref.seq)
        if record is None:
            if self._ledger is None:
                self._ledger = self._stack.enter_context(open_sidecar_reader(self.index.ledger))
            self._ledger.seek(ref.offset)
            record = self._records[ref.seq] = json.loads(self._ledger.readline())
        return record

    def _refs_for_path(self, path: str) -> list[RecordRef]:
        refs = self._path_refs.get(path)
        if refs is None:
            refs = self._path_refs[path] = self.index.records_for_path(path)
        return refs

    def _approvals_for(self, path: str) -> ApprovalSet:
        """Approvals of ``path`` on the ledger: approval records and the approvals that
        mutation records list as applied."""
        found = self._approvals.get(path)
        if found is None:
            records = (self._record(ref) for ref in self._refs_for_path(path))
            found = self._approvals[path] = ApprovalSet(approvals_from_records(records))
        return found

    # -- qualification ----------------------------------------------------------------

    def _owners_hint(self, path: str) -> tuple[str, tuple[str, ...]]:
        owners = self.scope.owners(path)
        if not owners:
            return f"no intent owns {path}: add it to an intent's owned_scope", ()
        described = labels(owners)
        return f"{path} is owned by {described}", tuple(i.id for i in owners)

    def _approved(
        self, record: dict[str, Any], rec_path: str, verdict: dict[str, Any], window: str | None
    ) -> bool:
        """Whether ``verdict`` of ``record`` (which saved ``rec_path``) is approved for the
        lines whose window hashes to ``window`` (None: for the whole save), by the rule of
        :func:`~intent_ls.policy.approvals.recorded_approval` that the editor follows too."""
        meta = intent_meta(record)
        saved = meta.get("after_hash")
        return (
            recorded_approval(
                str(verdict.get("code")),
                rec_path,
                self._approvals_for(rec_path).plus(approvals_from_records([record])),
                saved=saved if isinstance(saved, str) else None,
                named=approval_key(verdict.get("details")),
                lines=window,
                ranges=[r["content_hash"] for r in _ranges_of(record, rec_path)],
            )
            is not None
        )

    def _problem(self, seq: int, rec_path: str, path: str, window: str | None) -> _Problem | None:
        """Why record ``seq`` (which saved ``rec_path``) cannot vouch for lines of ``path``
        whose window hashes to ``window``; None when it can."""
        record = self._records[seq]
        meta = intent_meta(record)
        rid = str(record.get("id"))
        hint, _ = self._owners_hint(path)
        for verdict in meta.get("verdicts") or ():
            code = verdict.get("code")
            if rule_of(str(code)).approvable and not self._approved(
                record, rec_path, verdict, window
            ):
                return _Problem(
                    UNAPPROVED_VERDICT,
                    f"saved by record {rid} despite an unapproved {code} verdict "
                    f"({verdict.get('message') or 'no message'}); approve it with "
                    f"`intent-ls approve {code} {rec_path}` (or the editor's intent.approve "
                    "action) or revert these lines",
                    rid,
                    seq,
                )
        intent_id = meta.get("intent_id")
        if not intent_id:
            return _Problem(
                INTENT_NOT_OWNER, f"written with no active intent (record {rid}); {hint}", rid, seq
            )
        intent = self.spec.get(intent_id)
        if intent is None:
            return _Problem(
                INTENT_NOT_OWNER,
                f"written under {intent_id}, which is not in the spec (record {rid}); {hint}",
                rid,
                seq,
            )
        # Gated verdicts are all approved by now: an approved out-of-scope save of this
        # very file stands although its intent does not own it.
        approved_out_of_scope = rec_path == path and any(
            rule_of(str(v.get("code"))).approves_ownership for v in meta.get("verdicts") or ()
        )
        if not (self.scope.owns(intent_id, path) or approved_out_of_scope):
            return _Problem(
                INTENT_NOT_OWNER,
                f"written under {intent_id} ({intent.name}), which does not own {path} "
                f"(record {rid}); {hint}",
                rid,
                seq,
            )
        if intent.status is not Status.IN_PROGRESS:
            return _Problem(
                INTENT_NOT_IN_PROGRESS,
                f"written under {intent_id} ({intent.name}), which is {intent.status.value}, "
                f"not IN_PROGRESS (record {rid}); reopen it or redo the change under an "
                "IN_PROGRESS intent",
                rid,
                seq,
            )
        return None

    # -- the rule ---------------------------------------------------------------------

    def check(self, change: FileChange, diff: Diff | None) -> tuple[list[Finding], int]:
        """Findings for one changed file (``diff`` its :meth:`Diff.of`), and how many
        changed lines it has."""
        findings = self._removed(change)
        if change.status == "D" or not self.ws.classify_rel(change.path).governed:
            return findings, 0
        if change.binary:
            return [*findings, self._binary(change)], 1
        assert diff is not None
        old_lines, new_lines, hunks, changed = diff.old, diff.new, diff.hunks, diff.changed
        if not hunks:
            return findings, 0
        saved = self._saved_states(change.path, content_hash(old_lines))
        if content_hash(new_lines) in saved:
            return findings, len(changed)
        ok, problems = self._cover_lines(change.path, new_lines, changed)
        bad = [line for line in changed if line not in ok]
        lines, deletions = _localise(old_lines, new_lines, hunks, saved, bad)
        findings.extend(self._line_findings(change.path, [n for n in bad if n in lines], problems))
        findings.extend(self._deletions(change.path, new_lines, [hunks[n] for n in deletions]))
        return findings, len(changed)

    def _removed(self, change: FileChange) -> list[Finding]:
        """Findings for the file a delete or rename took away, when it was governed."""
        if change.status not in ("D", "R"):
            return []
        gone = change.old_path if change.status == "R" else change.path
        assert gone is not None
        return self._check_removed(gone, change) if self.ws.classify_rel(gone).governed else []

    def _binary(self, change: FileChange) -> Finding:
        """A changed file the ledger cannot vouch for line by line."""
        hint, owners = self._owners_hint(change.path)
        what = (
            f"file above {MAX_CHECK_BYTES // (1024 * 1024)} MiB changed (not read)"
            if change.too_large
            else "binary file changed"
        )
        return Finding(
            UNCOVERED_CHANGE,
            change.path,
            1,
            1,
            f"{what}: the ledger records text saves only; list it in "
            f".intentignore if it needs no governance ({hint})",
            owners=owners,
        )

    def _saved_states(self, path: str, start: str) -> set[str]:
        """Hashes of the contents ``path`` reached from ``start`` through qualifying saves
        (records without ranges included: the index has a file row for them); the file's
        changes are all proven when its current hash is among them."""
        return _reachable(self._edges(path, self._refs_for_path(path)), start)

    def _edges(self, path: str, refs: Iterable[RecordRef]) -> dict[str, set[str]]:
        """before_hash -> after_hash of the qualifying saves of ``path``."""
        edges: dict[str, set[str]] = defaultdict(set)
        for ref in refs:
            record = self._record(ref)
            meta = intent_meta(record)
            before, after = meta.get("before_hash"), meta.get("after_hash")
            if meta.get("kind") != "mutation" or not before or not after:
                continue
            if not any(f.get("path") == path for f in record.get("files") or ()):
                continue
            if self._problem(ref.seq, path, path, None) is None:
                edges[before].add(after)
        return edges

    def _check_removed(self, path: str, change: FileChange) -> list[Finding]:
        """A deleted (or renamed-away) file: destructive, so it needs a human approval of
        a destructive-edit for its content, or recorded saves that emptied it."""
        old_text = change.old_text
        if old_text is not None:
            emptied = text_hash("")
            if emptied in self._saved_states(path, text_hash(old_text)):
                return []
        old_lines = split_lines(old_text or "")
        candidates = [path] if change.status == "D" else [path, change.path]
        for where in candidates:
            for approval in self._approvals_for(where).of_path(DESTRUCTIVE_EDIT, where):
                if old_text is None:  # binary: no line hash to compare
                    return []
                start, end = approval.start_line, approval.end_line
                wanted = {text_hash(old_text)}
                if 1 <= start <= end:
                    wanted.add(content_hash(old_lines[start - 1 : end]))
                if approval.content_hash in wanted:
                    return []
        hint, owners = self._owners_hint(path)
        what = "deleted" if change.status == "D" else f"renamed to {change.path}"
        key = f" --hash {text_hash(old_text)}" if old_text is not None else ""
        return [
            Finding(
                UNCOVERED_DELETION,
                path,
                1,
                max(1, len(old_lines)),
                f"{path} was {what} since {self.base.label} without an approved "
                f"destructive-edit; approve it with `intent-ls approve destructive-edit {path}"
                f"{key}` (or in an editor running intent-ls) or restore the file ({hint})",
                owners=owners,
            )
        ]

    def _cover_lines(
        self, path: str, lines: list[str], changed: list[int]
    ) -> tuple[set[int], dict[int, _Problem]]:
        """Changed lines covered by a qualifying record, and for the others the newest
        non-qualifying record that covers them."""
        encoded = [line.encode("utf-8") for line in lines]
        cover = _Coverage(self, path)
        # Most ranges are where they were saved; shifted ones are searched for per length.
        shifted: dict[int, list[_Range]] = defaultdict(list)
        for rng in self._saved_ranges(path):
            if window_hash(encoded, rng.start, rng.length) == rng.digest:
                cover.mark(rng, rng.start, rng.digest)
            else:
                shifted[rng.length].append(rng)
        for length, group in shifted.items():
            by_digest = defaultdict(list)
            for rng in group:
                by_digest[rng.digest].append(rng)
            pending = [line for line in changed if line not in cover.ok]
            for start in starts_touching(pending, length, len(lines)):
                digest = window_hash(encoded, start, length)
                for rng in by_digest.get(digest, ()):
                    cover.mark(rng, start, digest)
        pending = [line for line in changed if line not in cover.ok]
        if pending:
            self._cover_moved(cover, encoded, lines, pending)
        return cover.ok, cover.problems

    def _saved_ranges(self, path: str) -> list[_Range]:
        """The ranges the mutation records of ``path`` saved, where they saved them."""
        return [
            _Range(
                ref.seq,
                path,
                r["start_line"],
                r["end_line"] - r["start_line"] + 1,
                r["content_hash"],
            )
            for ref in self._refs_for_path(path)
            if intent_meta(self._record(ref)).get("kind") == "mutation"
            for r in _ranges_of(self._record(ref), path)
        ]

    def _cover_moved(
        self, cover: _Coverage, encoded: list[bytes], lines: list[str], pending: list[int]
    ) -> None:
        """Lines still uncovered, looked up by content among every record's ranges (code
        moved here from another place or file)."""
        for start, length, digest in self._moved_windows(encoded, lines, pending):
            for ref in self.index.records_for_hash(digest):
                record = self._record(ref)
                if intent_meta(record).get("kind") != "mutation":
                    continue
                for rec_path in _paths_with_hash(record, digest):
                    cover.mark(_Range(ref.seq, rec_path, start, length, digest), start, digest)

    def _moved_windows(
        self, encoded: list[bytes], lines: list[str], pending: list[int]
    ) -> Iterator[tuple[int, int, str]]:
        """(start, length, digest) of windows inside uncovered blocks whose hash some
        ledger range or node has (by 64-bit key; callers confirm the full digest). The
        windows are asked about in batches of :data:`_WINDOW_BATCH`: a block of millions
        of lines has tens of millions of windows, never held at once."""
        if not self.index.has_content_keys():
            return
        batch: list[tuple[int, int, bytes]] = []
        for candidate in windows(encoded, pending):
            batch.append(candidate)
            if len(batch) >= _WINDOW_BATCH:
                yield from self._known_windows(batch, lines)
                batch = []
        yield from self._known_windows(batch, lines)

    def _known_windows(
        self, batch: list[tuple[int, int, bytes]], lines: list[str]
    ) -> Iterator[tuple[int, int, str]]:
        # Only substantial windows are asked about (``prepare.ledger_interest`` prepares no
        # other).
        wanted = [
            (start, end, raw, int.from_bytes(raw[:8], "big", signed=True))
            for start, end, raw in batch
            if substantial(lines[start - 1 : end])
        ]
        known = self.index.known_keys({key for *_, key in wanted})  # hashing.hash_key's
        for start, end, raw, key in wanted:
            if key in known:
                yield start, end - start + 1, "sha256:" + raw.hex()

    def _line_findings(
        self, path: str, bad: list[int], problems: dict[int, _Problem]
    ) -> list[Finding]:
        hint, owners = self._owners_hint(path)
        out: list[Finding] = []
        groups: list[tuple[_Problem | None, int, int]] = []
        for line in bad:
            problem = problems.get(line)
            if groups and groups[-1][0] == problem and groups[-1][2] == line - 1:
                groups[-1] = (problem, groups[-1][1], line)
            else:
                groups.append((problem, line, line))
        for problem, start, end in groups:
            if problem is None:
                span = f"line {start}" if start == end else f"lines {start}-{end}"
                out.append(
                    Finding(
                        UNCOVERED_CHANGE,
                        path,
                        start,
                        end,
                        f"{span} changed since {self.base.label} but no ledger record "
                        f"covers {'it' if start == end else 'them'}; make the change through "
                        "intent-ls under an intent that owns the file, or record it with "
                        f"`intent-ls record {path} --intent ID` ({hint})",
                        owners=owners,
                    )
                )
            else:
                out.append(
                    Finding(
                        problem.rule, path, start, end, problem.message, problem.record_id, owners
                    )
                )
        return out

    def _deletions(self, path: str, new: list[str], hunks: list[Hunk]) -> list[Finding]:
        """Pure deletions have no line to hash: reported at the line after the gap."""
        hint, owners = self._owners_hint(path)
        out = []
        for h in hunks:
            anchor = max(1, min(h.new_start + 1, len(new)))
            span = (
                f"line {h.old_start + 1}"
                if h.deleted == 1
                else f"lines {h.old_start + 1}-{h.old_end}"
            )
            out.append(
                Finding(
                    UNCOVERED_DELETION,
                    path,
                    anchor,
                    anchor,
                    f"{span} of the base version deleted here, but no recorded save of "
                    f"{path} under an owning IN_PROGRESS intent did it; redo the deletion "
                    f"through intent-ls ({hint})",
                    owners=owners,
                )
            )
        return out


def _ranges_of(record: dict[str, Any], path: str | None) -> Iterator[dict[str, Any]]:
    for file in record.get("files") or ():
        if file.get("path") != path:
            continue
        for conv in file.get("conversations") or ():
            for rng in conv.get("ranges") or ():
                if (
                    isinstance(rng.get("start_line"), int)
                    and isinstance(rng.get("end_line"), int)
                    and rng["end_line"] >= rng["start_line"]
                    and isinstance(rng.get("content_hash"), str)
                ):
                    yield rng


def _paths_with_hash(record: dict[str, Any], digest: str) -> set[str]:
    """Where ``record`` saw content hashing to ``digest``: its ranges, and the definitions
    it touched (a moved function is found whole even if the save wrote one line of it)."""
    found = {
        f.get("path")
        for f in record.get("files") or ()
        if any(r["content_hash"] == digest for r in _ranges_of(record, f.get("path")))
    }
    found.update(
        node.get("path")
        for node in intent_meta(record).get("ast_nodes") or ()
        if isinstance(node, dict) and node.get("content_hash") == digest
    )
    return {p for p in found if isinstance(p, str)}


def _reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _localise(
    old: list[str], new: list[str], hunks: list[Hunk], saved: set[str], bad: list[int]
) -> tuple[set[int], list[int]]:
    """Which uncovered lines and which deletion hunks (indices) the saves do not explain.

    Hashes cannot show what a later save rewrote of an earlier one's range, but the chain
    of saves can: if the current text without some lines — or with one hunk undone — is
    a content the qualifying saves reached, everything outside those lines (that hunk)
    was saved, and only they remain to report. Unrecorded additions are found by
    removing a block of uncovered lines, unrecorded rewrites and deletions by undoing
    a hunk."""
    bad_lines = set(bad)
    deletions = [n for n, h in enumerate(hunks) if not h.inserted]
    if len(saved) <= 1:  # nothing saved beyond the base: nothing to explain with
        return bad_lines, deletions

    def without(removed: set[int]) -> str:
        return content_hash([line for n, line in enumerate(new, 1) if n not in removed])

    blocks = list(runs(bad))
    if len(blocks) <= MAX_UNDO_HUNKS:
        for first, last in blocks:
            block = set(range(first, last + 1))
            if without(block) in saved:
                return block, []
    if bad and without(bad_lines) in saved:
        return bad_lines, []
    if len(hunks) <= MAX_UNDO_HUNKS:
        for n, h in enumerate(hunks):
            if _mixed_hash(old, new, hunks, {n}) in saved:
                inside = set(range(h.new_start + 1, h.new_end + 1))
                return bad_lines & inside, [n] if not h.inserted else []
    return bad_lines, deletions


def _mixed_hash(old: list[str], new: list[str], hunks: list[Hunk], reverted: set[int]) -> str:
    """Hash of the current text with the hunks numbered in ``reverted`` undone."""
    out: list[str] = []
    pos = 0
    for n, h in enumerate(hunks):
        out.extend(new[pos : h.new_start])
        out.extend(old[h.old_start : h.old_end] if n in reverted else new[h.new_start : h.new_end])
        pos = h.new_end
    out.extend(new[pos:])
    return content_hash(out)
