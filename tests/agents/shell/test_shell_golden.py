"""The shell readers answer as they did before the shell model: the classifier's and the
approval guard's answers on every command string of the shell-facing tests (and a few
spellings of each) against the digests in golden_answers.json (:mod:`.golden`). A string
a test gained since has no recorded answer and is left to its own test."""

from __future__ import annotations

import json

from tests.agents.shell.golden import GOLDEN, answers, digest


def test_answers_are_as_recorded() -> None:
    recorded: dict[str, str] = json.loads(GOLDEN.read_text())
    found = answers()
    compared = [c for c in found if digest(c) in recorded]
    changed = [c for c in compared if recorded[digest(c)] != digest(found[c])]
    assert not changed, [(c, found[c]) for c in changed[:10]]
    assert len(compared) > 0.9 * len(recorded)
