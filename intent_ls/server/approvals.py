"""Human approvals of out-of-scope edits, kept for the session.

An approval is a human decision that the Agent Trace ledger must record; until the ledger
is wired in, :meth:`ApprovalStore.approve` is the single place that decision is made, so
the ledger append goes there and nowhere else.
"""

from __future__ import annotations

import datetime as dt

import attrs

from intent_ls.server.config import Contributor


@attrs.frozen
class Approval:
    intent_id: str
    path: str
    code: str
    #: 1-based inclusive lines of the approved edit, in the buffer as it was approved.
    start_line: int
    end_line: int
    session_id: str
    contributor: Contributor
    at: str

    def to_dict(self) -> dict[str, object]:
        return {
            "intent": self.intent_id,
            "path": self.path,
            "code": self.code,
            "lines": [self.start_line, self.end_line],
            "session": self.session_id,
            "contributor": attrs.asdict(self.contributor),
            "at": self.at,
        }


@attrs.define
class ApprovalStore:
    approvals: list[Approval] = attrs.field(factory=list)

    def approve(
        self,
        *,
        intent_id: str,
        path: str,
        code: str,
        lines: tuple[int, int],
        session_id: str,
        contributor: Contributor,
    ) -> Approval:
        approval = Approval(
            intent_id=intent_id,
            path=path,
            code=code,
            start_line=lines[0],
            end_line=lines[1],
            session_id=session_id,
            contributor=contributor,
            at=dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        )
        # The ledger (issue 4) appends an approval record for ``approval`` here.
        self.approvals.append(approval)
        return approval

    def __len__(self) -> int:
        return len(self.approvals)
