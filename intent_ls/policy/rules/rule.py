"""What a rule is: one object that knows everything about one verdict code.

A :class:`Rule` says what its code is, how severe, whether it keeps a record's lines open
(gates), whether and how a human approves it and from which door, how it judges a path
or a change, and how each door words it (the next step for a model, the editor's quick
fix). Every module that used to branch on a code asks the rule instead
(:func:`rule_of`), so a new rule is one file under :mod:`intent_ls.policy.rules` and
no other module names its code.

This module imports nothing of the policy above it: the rule files build on it, and
the registry (:mod:`intent_ls.policy.rules`) fills :data:`_REGISTERED` when it
discovers them, which :func:`rule_of` makes sure has happened.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from intent_ls.common.equality import compared_without
from intent_ls.spec.model import Severity

if TYPE_CHECKING:
    from intent_ls.policy.change import Change, FileOperation, PolicyConfig
    from intent_ls.policy.session import Session
    from intent_ls.scope.index import ScopeIndex


class Approvable(enum.Enum):
    """How a human's approval of a verdict is keyed (docs in
    :mod:`intent_ls.policy.approvals`)."""

    #: Never: resolved another way (selecting an intent, fixing the spec).
    NEVER = "never"
    #: The content the verdict names (``details.approval.content_hash``); a verdict that
    #: names none cannot be approved.
    NAMED = "named content"
    #: The content the verdict names; when it names none, any approval of the path.
    NAMED_OR_PATH = "named content, else the path"
    #: A range of saved lines (or the whole save); never before the write.
    RANGE = "range"
    #: A shell command's text, filed under the command path (the agents' shell gate).
    COMMAND = "command"
    #: The whole file as it stands (``check`` judges it).
    WHOLE_FILE = "whole file"


class Door(enum.Enum):
    """Where a human gives an approval."""

    EDITOR = "editor"
    TERMINAL = "terminal"


class Anchor(enum.Enum):
    """Where a verdict a save recorded sits in the file, and when it is gone without an
    approval (:func:`intent_ls.ledger.attribution.open_verdicts`)."""

    #: On the lines the save wrote, while they stand.
    LINES = "lines"
    #: On the file, until it holds the content the write overwrote again.
    OVERWRITTEN = "overwritten"
    #: At the finding's range, until the content it names is back.
    FINDING = "finding"


class Fixes(enum.Enum):
    """Which of the editor's quick fixes a diagnostic of the rule offers."""

    #: Select an intent that owns the file.
    SELECT_INTENT = "select an owning intent"
    #: Switch to an owning intent, widen the active one's scope, or approve.
    SWITCH_OR_WIDEN = "switch intent, widen the scope, or approve"
    #: Reload the disk's content, or keep the buffer (an approval).
    RELOAD_OR_KEEP = "reload from disk, or keep my version"
    #: Restore what the change destroyed, or approve it.
    RESTORE_OR_APPROVE = "restore, or approve"
    #: Approve it (titled by ``Rule.quick_fix``), when the rule is approvable.
    APPROVE = "approve"


class Approvals(Protocol):
    """What a rule asks of a set of approvals (:class:`.approvals.ApprovalSet`)."""

    def find(self, code: str, path: str, content_hash: str | None) -> Any: ...


class Verdict(NamedTuple):
    code: str
    message: str
    owners: tuple[str, ...] = ()
    details: Mapping[str, Any] = MappingProxyType({})
    blocking: bool = True
    #: The typed finding behind a change rule's verdict, for front doors that need more
    #: than ``details`` (the anchor to mark, the "Restore" edits).
    finding: Any = None

    __eq__, __ne__, __hash__ = compared_without("finding", unhashed=("details",))

    @property
    def severity(self) -> Severity:
        return rule_of(self.code).severity

    @property
    def rule(self) -> Rule:
        return rule_of(self.code)

    def to_dict(self) -> dict[str, Any]:
        """The machine-readable form agents act on."""
        return {"code": self.code, "message": self.message, "details": dict(self.details)}


class Subject(NamedTuple):
    """What is judged: who acts (``session``), what governs (``scope``), the path, and
    how it changes (None: the path alone)."""

    session: Session
    scope: ScopeIndex
    rel: str
    change: Change | FileOperation | None = None
    given_config: PolicyConfig | None = None
    #: Whether the path rules apply (a front door that judged the path already passes
    #: False when it judges the change).
    path_rules: bool = True

    @property
    def config(self) -> PolicyConfig:
        from intent_ls.policy.change import PolicyConfig

        return self.given_config or PolicyConfig.of(self.scope.spec)

    @property
    def paths(self) -> tuple[str, ...]:
        """The governed paths a path rule judges: the path, and a rename's target."""
        from intent_ls.policy.change import FileOperation

        change = self.change
        target = change.new_rel if isinstance(change, FileOperation) else None
        if target is not None and not self.scope.is_ignored(target):
            return (self.rel, target)
        return (self.rel,)


class Words(NamedTuple):
    """What a door knows to word a verdict for a model (an agent's hook answer, a file
    put back after a tool call)."""

    #: The workspace-relative path written.
    rel: str
    #: The owners of the path, labelled ("INT-001 (Auth)"); "" when no intent owns it.
    owners: str
    #: The step that selects an owning intent (or says none can be selected).
    select: str
    #: The spec's workspace-relative path.
    spec: str
    #: The session's active intent, if any.
    intent: str | None
    #: The ``intent-ls approve`` command for a verdict.
    approve: Callable[[Verdict], str]


def refusal(code: str, message: str, step: str) -> str:
    """A refusal as every hook answer words it: the code, what, and the next step."""
    return f"[intent-ls] {code}: {message} Next step: {step}"


def _tell(rule: Rule, verdicts: Sequence[Verdict], words: Words) -> str:
    """The default answer to a model: what the verdicts say, and who resolves them."""
    what = "; ".join(v.message for v in verdicts)
    if Door.TERMINAL in rule.approvers:
        approve = "; ".join(words.approve(v) for v in verdicts)
        step = f"a human must approve this before it is written: {approve} — then retry."
    else:
        step = "leave it alone, or ask the human."
    return refusal(rule.code, what, step)


def _put_back(rule: Rule, verdicts: Sequence[Verdict], words: Words) -> str:
    """The default reason a file was put back: what the verdicts say, and the step."""
    what = "; ".join(v.message for v in verdicts)
    if Door.TERMINAL in rule.approvers:
        approve = "; ".join(words.approve(v) for v in verdicts)
        return f"{what}: a human must approve it first ({approve}), then run the command again"
    return f"{what}; next step: leave it alone, or ask the human"


class Rule(NamedTuple):
    """One verdict code and everything every door needs to know about it."""

    code: str
    #: What the rule catches, in a line (``intent-ls approve --help``, the docs).
    summary: str
    severity: Severity
    #: Where the rule's verdicts come in ``evaluate``'s answer (lowest first).
    order: int
    #: Whether a record carrying this verdict keeps its lines open until it is resolved
    #: (editor diagnostics of saved lines, ``intent-ls check``).
    gates: bool = False
    approval: Approvable = Approvable.NEVER
    #: Where a human may approve it.
    approvers: frozenset[Door] = frozenset()
    #: Resolved by selecting an intent that owns the path (the scope rules).
    selects_intent: bool = False
    #: Whether it refuses an editor's write; an editor asks after the save instead.
    blocks_editor: bool = True
    #: Whether an agent host that can ask puts it to a human at its permission prompt
    #: (else the agent is refused).
    asks_agent: bool = False
    #: Judges the path alone (left out when a door judged the path already).
    path_rule: bool = False
    #: Its judgement reads the disk as the door last saw it, so a door judges it again
    #: just before writing rather than reuse an earlier analysis (``stale-file``).
    reads_disk: bool = False
    #: The judgement: the verdicts for a subject (None: judged by a door of its own,
    #: e.g. the agents' shell gate, or ``check``).
    judge: Callable[[Subject], Iterable[Verdict]] | None = None
    anchor: Anchor = Anchor.FINDING
    #: What a verdict of it is called in a sentence ("destructive edit").
    noun: str = ""
    fixes: Fixes = Fixes.APPROVE
    #: The title of the editor's quick fix that approves it.
    quick_fix: str = "Approve"
    #: The hook's answer to a model for this rule's blocking verdicts.
    tell_model: Callable[[Rule, Sequence[Verdict], Words], str] = _tell
    #: Why a file a tool call changed was put back, for this rule's verdicts.
    tell_put_back: Callable[[Rule, Sequence[Verdict], Words], str] = _put_back

    __eq__, __ne__, __hash__ = compared_without("judge", "tell_model", "tell_put_back")

    @property
    def called(self) -> str:
        return self.noun or self.code

    @property
    def approvable(self) -> bool:
        """Whether a human approves it in the editor (and so from the terminal too)."""
        return Door.EDITOR in self.approvers

    @property
    def approved_live(self) -> bool:
        """Whether a recorded approval can let a verdict of it through before the write
        (the content it names is known then); scope verdicts never are."""
        return self.approval in (Approvable.NAMED, Approvable.NAMED_OR_PATH)

    @property
    def terminal_approvable(self) -> bool:
        return bool(self.approvers)

    @property
    def approves_ownership(self) -> bool:
        """An approved verdict of this rule stands in for the intent's ownership of the
        file (an approved out-of-scope save)."""
        return self.selects_intent and self.approval is Approvable.RANGE

    def verdict(
        self,
        message: str,
        details: Mapping[str, Any],
        *,
        owners: tuple[str, ...] = (),
        finding: Any = None,
    ) -> Verdict:
        return Verdict(self.code, message, owners, dict(details), True, finding)

    def live_approval(self, path: str, key: str | None, approvals: Approvals) -> Any:
        """The approval that lets a live verdict about ``path`` naming ``key`` through."""
        if self.approval is Approvable.NAMED_OR_PATH or (
            self.approval in _KEYED and key is not None
        ):
            return approvals.find(self.code, path, key)
        return None

    def recorded_approval(
        self,
        path: str,
        approvals: Approvals,
        *,
        saved: str | None,
        named: str | None,
        lines: str | None,
        ranges: Iterable[str],
    ) -> Any:
        """The approval that closes this rule's verdict that a save of ``path``
        recorded (the rule is in :mod:`intent_ls.policy.approvals`)."""
        if self.approval not in _RECORDED:
            return None
        whole = approvals.find(self.code, path, saved) if saved is not None else None
        if whole is not None:
            return whole
        if self.approval is Approvable.RANGE:
            if lines is not None:
                return approvals.find(self.code, path, lines)
            found = [approvals.find(self.code, path, digest) for digest in ranges]
            return found[-1] if found and all(found) else None
        return self.live_approval(path, named, approvals)


_KEYED = frozenset({Approvable.NAMED, Approvable.RANGE})
_RECORDED = frozenset({Approvable.NAMED, Approvable.NAMED_OR_PATH, Approvable.RANGE})

#: Every rule the registry discovered, by code.
_REGISTERED: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    """Files ``rule`` under its code (the registry calls this for each rule it finds)."""
    known = _REGISTERED.get(rule.code)
    if known is not None and known is not rule:
        raise ValueError(f"two rules have the code {rule.code!r}")
    _REGISTERED[rule.code] = rule
    return rule


def rule_of(code: str) -> Rule:
    """The rule of ``code``; a code no rule has (a record from a newer version, a typo)
    is an error that gates nothing and that nobody can approve."""
    if not _REGISTERED:
        importlib.import_module("intent_ls.policy.rules")
    found = _REGISTERED.get(code)
    return found if found is not None else Rule(code, "unknown verdict", Severity.ERROR, 1000)
