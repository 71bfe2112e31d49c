"""Item 2.4 of issue 28: the workspace that governs an agent session is the one found at
its first event — a decoy ``.orchestration/`` the agent makes in its scope, or a spec
linked out of the sidecar, never governs it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agents.conftest import Hook, decision

SELECT = "mcp__intent-ls__select_active_intent"
DECOY = """\
active_intents:
  - id: INT-ALL
    name: Everything
    status: IN_PROGRESS
    owned_scope:
      - "**"
"""


class At(Hook):
    """A hook whose events come from ``cwd`` (the agent ``cd``-ed there)."""

    def __init__(self, root: Path, cwd: Path, session: str = "s1") -> None:
        super().__init__(root, session=session)
        self.cwd = cwd

    def raw(self, data: bytes, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
        payload = json.loads(data)
        payload["cwd"] = str(self.cwd)
        return super().raw(json.dumps(payload).encode(), env)


def _decoy(governed: Path) -> Path:
    decoy = governed / "src" / "sub"
    (decoy / ".orchestration").mkdir(parents=True)
    (decoy / ".orchestration" / "active_intents.yaml").write_text(DECOY)
    return decoy


def test_a_decoy_workspace_made_mid_session_does_not_govern_it(governed: Path) -> None:
    Hook(governed)("SessionStart")
    decoy = _decoy(governed)  # what an agent's in-scope script could write
    hook = At(governed, decoy)
    hook("PreToolUse", SELECT, {"intent_id": "INT-ALL"})
    args = {"file_path": str(governed / "docs" / "x.md"), "content": "x"}
    verdict, reason = decision(hook("PreToolUse", "Write", args))
    assert verdict == "deny" and "INT-ALL" not in reason


def test_a_session_that_starts_in_a_workspace_keeps_it(governed: Path) -> None:
    decoy = _decoy(governed)
    fresh = At(governed, decoy, session="s2")  # a session that starts there is its own
    fresh("PreToolUse", SELECT, {"intent_id": "INT-ALL"})
    args = {"file_path": str(decoy / "x.py"), "content": "x"}
    assert decision(fresh("PreToolUse", "Write", args))[0] != "deny"


def test_a_spec_linked_out_of_the_sidecar_does_not_govern(governed: Path) -> None:
    spec = governed / ".orchestration" / "active_intents.yaml"
    (governed / "src" / "spec.yaml").write_text(DECOY)
    spec.unlink()
    spec.symlink_to(governed / "src" / "spec.yaml")
    hook = Hook(governed)
    hook("PreToolUse", SELECT, {"intent_id": "INT-ALL"})
    args = {"file_path": str(governed / "docs" / "x.md"), "content": "x"}
    verdict, reason = decision(hook("PreToolUse", "Write", args))
    assert verdict == "deny" and "symbolic link" in reason


def test_a_session_that_moves_to_another_repository_is_governed_by_its_spec(
    governed: Path, tmp_path: Path
) -> None:
    """The pin keeps a decoy inside the first workspace from governing; a workspace
    outside it (the session ``cd``-ed into another repository) is governed by its own
    spec, not by the first one's, which does not even contain its files."""
    Hook(governed)("SessionStart")
    other = tmp_path / "other-repo"
    (other / ".orchestration").mkdir(parents=True)
    (other / ".orchestration" / "active_intents.yaml").write_text(
        DECOY.replace("INT-ALL", "INT-SRC").replace('"**"', '"src/**"')
    )
    hook = At(other, other)
    hook("PreToolUse", SELECT, {"intent_id": "INT-SRC"})
    inside = {"file_path": str(other / "src" / "a.py"), "content": "x"}
    assert decision(hook("PreToolUse", "Write", inside))[0] != "deny"
    outside = {"file_path": str(other / "docs" / "x.md"), "content": "x"}
    verdict, reason = decision(hook("PreToolUse", "Write", outside))
    assert verdict == "deny" and "out-of-scope" in reason
