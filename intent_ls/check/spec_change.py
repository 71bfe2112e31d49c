"""``scope-widened``: spec changes since the base that give an agent more to write.

The spec is the human's contract, and an agent must never widen its own scope (the
hooks refuse writes to ``.orchestration/``), but a spec edit can still arrive by any
other road. So the gate reports every IN_PROGRESS intent that is new since the base,
became IN_PROGRESS, gained an ``owned_scope`` glob or lost a ``!`` exclusion — unless a
human approved this very spec content (``intent-ls approve scope-widened
.orchestration/active_intents.yaml``, keyed on the spec's content hash). A spec that
did not exist at the base is the start of governance, not a widening.
"""

from __future__ import annotations

import re
from pathlib import Path

from intent_ls.check.findings import SCOPE_WIDENED_RULE, Finding
from intent_ls.check.git import Base, Repo
from intent_ls.common.hashing import text_hash
from intent_ls.ledger.records import approvals_from_records
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.policy.approvals import ApprovalSet
from intent_ls.policy.verdicts import SCOPE_WIDENED
from intent_ls.scope.index import ScopeIndex
from intent_ls.spec.load import SPEC_RELPATH, load_spec_bytes
from intent_ls.spec.model import Intent, Spec, Status
from intent_ls.workspace.discover import Workspace


def _sample(pattern: str) -> str:
    """A path the glob matches (wildcards filled in), to ask whether the old scope
    already owned what the new glob adds."""
    body = re.sub(r"\[[^\]]*\]", "x", pattern.lstrip("/"))
    body = body.replace("**", "x").replace("*", "x").replace("?", "x")
    return body + "x" if body.endswith("/") else body


def widenings(old: Spec, new: Spec) -> list[tuple[str, int, str]]:
    """(intent id, 1-based line of the intent in the new spec, what widened). A glob
    counts as added unless the old scope already owned a path it matches (``docs/`` →
    ``docs/a/`` narrows)."""
    old_scope = ScopeIndex(old)
    out = []
    for intent in new.intents:
        if intent.status is not Status.IN_PROGRESS:
            continue
        line = intent.span.start.line + 1
        before = old.get(intent.id)
        if before is None:
            scope = ", ".join(intent.patterns) or "nothing"
            out.append((intent.id, line, f"adds IN_PROGRESS intent {intent.id} owning {scope}"))
            continue
        what = _widened(old_scope, before, intent)
        if what:
            out.append((intent.id, line, f"{intent.id} " + " and ".join(what)))
    return out


def _widened(old_scope: ScopeIndex, before: Intent, intent: Intent) -> list[str]:
    """How ``intent`` (IN_PROGRESS now) widened since ``before``: its status, globs
    owning paths the old scope did not give it, exclusions dropped."""
    what = []
    if before.status is not Status.IN_PROGRESS:
        what.append(f"moves from {before.status.value} to IN_PROGRESS")
    added = [
        p
        for p in intent.patterns
        if not p.startswith("!")
        and p not in before.patterns
        and not old_scope.owns(intent.id, _sample(p))
    ]
    dropped = [p for p in before.patterns if p.startswith("!") and p not in intent.patterns]
    if added:
        what.append(f"adds {', '.join(added)} to its owned_scope")
    if dropped:
        what.append(f"drops the exclusion {', '.join(dropped)}")
    return what


def _approved(root: Path, digest: str) -> bool:
    path = ledger_path(root)
    if not path.exists():
        return False
    approvals = ApprovalSet(approvals_from_records(Ledger(path).read_records()))
    return approvals.find(SCOPE_WIDENED, SPEC_RELPATH, digest) is not None


def scope_widened(ws: Workspace, repo: Repo, base: Base) -> list[Finding]:
    result = ws.spec_result()
    if result.spec is None or result.has_errors:
        return []  # spec-invalid already says why nothing can be judged
    old_bytes = repo.blob_at(base, SPEC_RELPATH)
    if old_bytes is None:
        return []  # the spec arrives with this change: governance starts here
    old = load_spec_bytes(old_bytes).spec or Spec()
    found = widenings(old, result.spec)
    if not found:
        return []
    try:
        text = ws.spec_path.read_bytes().decode("utf-8-sig", "replace")
    except OSError:
        return []
    digest = text_hash(text)
    if _approved(ws.root, digest):
        return []
    approve = f"intent-ls approve {SCOPE_WIDENED} {SPEC_RELPATH}"
    return [
        Finding(
            SCOPE_WIDENED_RULE,
            SPEC_RELPATH,
            line,
            line,
            f"{what} since {base.label}; a human must approve the widened spec "
            f"(`{approve}`) or revert it",
            owners=(intent_id,),
        )
        for intent_id, line, what in found
    ]
