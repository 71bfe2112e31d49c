"""A rule that is not part of intent-ls, added the way any rule is: one file in a
rules folder (the registry discovers the rules in its own folder and in those
``INTENT_LS_RULE_PATH`` names). Tests name the toy's folder in the environment of the
processes they start — an editor's server, a hook, ``intent-ls record`` and ``check``
— and no other file of intent-ls knows it."""

from __future__ import annotations

from pathlib import Path

CODE = "toy-secret"
#: The text the toy rule refuses to let into a file.
SECRET = "TOY-SECRET"

SOURCE = '''
"""``toy-secret``: a change that writes the marker TOY-SECRET into a file."""

from __future__ import annotations

from collections.abc import Iterator

from intent_ls.policy.rules.rule import Approvable, Door, Rule, Subject, Verdict
from intent_ls.spec.model import Severity

CODE = "toy-secret"


def judge(subject: Subject) -> Iterator[Verdict]:
    from intent_ls.common.hashing import text_hash
    from intent_ls.policy.approvals import approval_request
    from intent_ls.policy.change import Change

    change = subject.change
    if not isinstance(change, Change) or "TOY-SECRET" not in change.new_text:
        return
    if "TOY-SECRET" in change.old_text:
        return
    lines = max(1, len(change.new_text.splitlines()))
    digest = text_hash(change.new_text)
    yield RULE.verdict(
        f"writes a toy secret into {subject.rel}",
        {"path": subject.rel, "approval": approval_request(CODE, subject.rel, 1, lines, digest)},
    )


RULE = Rule(
    CODE,
    "a change that writes the toy secret",
    Severity.ERROR,
    order=45,
    gates=True,
    approval=Approvable.NAMED,
    approvers=frozenset({Door.EDITOR, Door.TERMINAL}),
    judge=judge,
    noun="toy secret",
    quick_fix="Approve the toy secret",
)
'''


def plugin(tmp_path: Path) -> dict[str, str]:
    """Writes the toy rule's one file under ``tmp_path``; returns the environment that
    adds it to the rules of a process intent-ls runs in."""
    folder = tmp_path / "plugin" / "rules"
    folder.mkdir(parents=True)
    (folder / "toy_secret.py").write_text(SOURCE, encoding="utf-8")
    return {"INTENT_LS_RULE_PATH": str(folder)}
