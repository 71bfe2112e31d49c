"""The README's policy example is a spec section users copy: it loads as written."""

from __future__ import annotations

import re
from pathlib import Path

from intent_ls.spec.load import load_spec_text
from intent_ls.spec.model import RepoPolicy

README = Path(__file__).resolve().parents[3] / "README.md"
INTENT = (
    "active_intents:\n  - id: INT-1\n    name: x\n    status: IN_PROGRESS\n"
    "    owned_scope: [src/]\n"
)


def test_the_readmes_policy_block_loads_without_a_problem() -> None:
    blocks = re.findall(r"```yaml\n(policy:\n.*?)```", README.read_text(), re.S)
    assert len(blocks) == 1
    result = load_spec_text(INTENT + blocks[0])
    assert result.problems == ()
    policy = result.spec.policy
    assert policy == RepoPolicy(
        max_deleted_lines=5,
        protected_paths=("**/migrations/**", "deploy/**"),
        agent_protected_paths=("deploy/prod/**", "/Makefile"),
        agent_writable_paths=("~/.rustup",),
        agent_max_tasks=8192,
    )
