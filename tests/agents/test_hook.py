"""``intent-ls hook`` as a real subprocess, fed the payloads the agents send."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from intent_ls.common.hashing import text_hash
from tests.agents.conftest import APP, Hook, decision, let_through
from tests.support import intent_ls, records

SELECT = "mcp__intent-ls__select_active_intent"


def write(root: Path, rel: str, content: str) -> dict[str, object]:
    return {"file_path": str(root / rel), "content": content}


def test_write_before_the_handshake_is_denied_with_the_next_step(governed: Path) -> None:
    hook = Hook(governed)
    verdict, reason = decision(hook("PreToolUse", "Write", write(governed, "src/new.py", "x\n")))
    assert verdict == "deny"
    assert "no-active-intent" in reason and "INT-APP (Application, IN_PROGRESS)" in reason
    assert (
        'select_active_intent tool of the MCP server intent-ls with intent_id "INT-APP"' in reason
    )


def test_select_then_in_scope_write_is_recorded_as_ai_with_the_model(governed: Path) -> None:
    hook = Hook(governed)
    allowed = hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    assert decision(allowed)[0] == "allow"  # our own MCP tool needs no manual grant
    args = write(governed, "src/new.py", "x = 1\n")
    assert hook("PreToolUse", "Write", args) == {}  # no opinion: the agent's rules apply
    (governed / "src" / "new.py").write_text("x = 1\n")
    assert hook("PostToolUse", "Write", args, env={"ANTHROPIC_MODEL": "claude-test-1"}) == {}
    [record] = records(governed)
    meta = record["metadata"]["intent_ls"]
    assert meta["intent_id"] == "INT-APP" and meta["session_id"] == "s1"
    assert meta["kind"] == "mutation" and meta["verdicts"] == []
    assert meta["after_hash"] == text_hash("x = 1\n")
    conv = record["files"][0]["conversations"][0]
    assert conv["contributor"] == {"type": "ai", "model_id": "claude-test-1"}
    assert conv["ranges"][0]["start_line"] == 1
    verify = subprocess.run(
        [sys.executable, "-m", "intent_ls", "trace", "verify", "--workspace", str(governed)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert verify.returncode == 0, verify.stderr


def test_model_id_from_the_claude_transcript(governed: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        json.dumps({"type": "assistant", "message": {"model": "claude-from-transcript"}}) + "\n"
    )
    hook = Hook(governed)
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    args = write(governed, "src/t.py", "t\n")
    hook("PreToolUse", "Write", args)
    (governed / "src" / "t.py").write_text("t\n")
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_MODEL"}
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "hook", "claude-code"],
        input=json.dumps(
            {
                "session_id": "s1",
                "cwd": str(governed),
                "hook_event_name": "PostToolUse",
                "transcript_path": str(transcript),
                "tool_name": "Write",
                "tool_input": args,
            }
        ).encode(),
        capture_output=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0
    conv = records(governed)[0]["files"][0]["conversations"][0]
    assert conv["contributor"]["model_id"] == "claude-from-transcript"


def test_out_of_scope_and_spec_writes_are_denied(governed: Path) -> None:
    hook = Hook(governed)
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    verdict, reason = decision(hook("PreToolUse", "Write", write(governed, "docs/guide.md", "x")))
    assert verdict == "deny" and "out-of-scope" in reason
    assert "INT-DOCS (Documentation, IN_PROGRESS)" in reason and '"INT-DOCS"' in reason
    spec = write(governed, ".orchestration/active_intents.yaml", "active_intents: []\n")
    verdict, reason = decision(hook("PreToolUse", "Write", spec))
    assert verdict == "deny" and "protected-path" in reason and ".orchestration/" in reason
    ledger = write(governed, ".orchestration/agent_trace.jsonl", "{}\n")
    assert decision(hook("PreToolUse", "Write", ledger))[0] == "deny"


def test_sessions_keep_their_own_selection(governed: Path) -> None:
    first, second = Hook(governed, session="one"), Hook(governed, session="two")
    first("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    args = write(governed, "src/x.py", "x\n")
    assert first("PreToolUse", "Write", args) == {}
    assert decision(second("PreToolUse", "Write", args))[0] == "deny"


def test_unknown_or_finished_intent_is_not_selected(governed: Path) -> None:
    hook = Hook(governed)
    assert decision(hook("PreToolUse", SELECT, {"intent_id": "INT-OLD"}))[0] == "allow"
    verdict, reason = decision(hook("PreToolUse", "Write", write(governed, "legacy/a.py", "x")))
    assert verdict == "deny" and "no-active-intent" in reason
    assert "no IN_PROGRESS intent owns this path" in reason


def test_destructive_shell_is_held_and_redirects_are_scoped(governed: Path) -> None:
    hook = Hook(governed)
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    verdict, reason = decision(hook("PreToolUse", "Bash", {"command": "rm -rf src"}))
    assert verdict == "ask" and "destructive-command" in reason
    verdict, reason = decision(hook("PreToolUse", "Bash", {"command": "echo x > docs/guide.md"}))
    assert verdict == "deny" and "out-of-scope" in reason
    verdict, _ = decision(hook("PreToolUse", "Bash", {"command": "cat .x > .orchestration/a"}))
    assert verdict == "deny"
    assert let_through(hook("PreToolUse", "Bash", {"command": "git status && pytest -q"}))
    # a program nobody can predict runs, and is judged by its effects afterwards
    assert let_through(hook("PreToolUse", "Bash", {"command": "python run.py"}))


def test_shell_write_in_scope_is_recorded(governed: Path) -> None:
    hook = Hook(governed)
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    command = {"command": "echo generated > src/gen.txt"}
    assert let_through(hook("PreToolUse", "Bash", command))
    (governed / "src" / "gen.txt").write_text("generated\n")
    hook("PostToolUse", "Bash", command)
    [record] = records(governed)
    assert record["files"][0]["path"] == "src/gen.txt"


def test_codex_denies_what_needs_a_human_and_names_the_approval(governed: Path) -> None:
    hook = Hook(governed, agent="codex")
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"}, model="gpt-5.5")
    verdict, reason = decision(
        hook("PreToolUse", "Bash", {"command": "rm -rf src"}, model="gpt-5.5")
    )
    assert verdict == "deny"
    assert "intent-ls approve" in reason and "--command 'rm -rf src'" in reason
    approve = intent_ls(
        "approve", "--workspace", str(governed), "destructive-command", "--command", "rm -rf src"
    )
    assert approve.returncode == 0, approve.stderr
    assert let_through(hook("PreToolUse", "Bash", {"command": "rm -rf src"}, model="gpt-5.5"))
    # used once: the next run of the same command needs a new approval
    again = hook("PreToolUse", "Bash", {"command": "rm -rf src"}, model="gpt-5.5")
    assert decision(again)[0] == "deny"


def test_codex_patch_judges_every_file(governed: Path) -> None:
    hook = Hook(governed, agent="codex")
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    patch = (
        "*** Begin Patch\n*** Update File: src/app.py\n@@\n-    return 1\n+    return 3\n"
        "*** Add File: docs/new.md\n+x\n*** End Patch\n"
    )
    verdict, reason = decision(hook("PreToolUse", "apply_patch", {"command": patch}))
    assert verdict == "deny" and "docs/new.md" in reason and "out-of-scope" in reason
    in_scope = "*** Begin Patch\n*** Delete File: src/app.py\n*** End Patch\n"
    verdict, reason = decision(hook("PreToolUse", "apply_patch", {"command": in_scope}))
    assert verdict == "deny" and "destructive-edit" in reason and "intent-ls approve" in reason
    edit = (
        "*** Begin Patch\n*** Update File: src/app.py\n@@\n-    return 1\n+    return 3\n"
        "*** End Patch\n"
    )
    assert hook("PreToolUse", "apply_patch", {"command": edit}, model="gpt-5.5") == {}
    (governed / "src" / "app.py").write_text(APP_EDITED)
    hook("PostToolUse", "apply_patch", {"command": edit}, model="gpt-5.5")
    [record] = records(governed)
    conv = record["files"][0]["conversations"][0]
    assert conv["contributor"] == {"type": "ai", "model_id": "gpt-5.5"}
    assert [n["name"] for n in record["metadata"]["intent_ls"]["ast_nodes"]] == ["main"]


APP_EDITED = "def main():\n    return 3\n\n\ndef helper():\n    return 2\n"


def test_stale_file_names_the_writer(governed: Path) -> None:
    reader = Hook(governed, session="reader")
    writer = Hook(governed, session="writer")
    for hook in (reader, writer):
        hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
        hook("PostToolUse", "Read", {"file_path": str(governed / "src/app.py")})
    args = write(governed, "src/app.py", APP_EDITED)
    assert writer("PreToolUse", "Write", args) == {}
    (governed / "src" / "app.py").write_text(APP_EDITED)
    writer("PostToolUse", "Write", args, env={"ANTHROPIC_MODEL": "m-writer"})
    mine = write(governed, "src/app.py", APP.replace("2", "5"))
    verdict, reason = decision(reader("PreToolUse", "Write", mine))
    assert verdict == "deny" and "stale-file" in reason
    assert "by ai m-writer for INT-APP" in reason and "read src/app.py again" in reason


def test_destructive_edit_asks_claude(governed: Path) -> None:
    hook = Hook(governed)
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    hook("PostToolUse", "Read", {"file_path": str(governed / "src/app.py")})
    edit = {
        "file_path": str(governed / "src/app.py"),
        "old_string": "\n\ndef helper():\n    return 2\n",
        "new_string": "",
    }
    verdict, reason = decision(hook("PreToolUse", "Edit", edit))
    assert verdict == "ask" and "deletes function `helper`" in reason
    # The command the reason names is the approval that lets exactly this edit through.
    command = re.search(r"`(intent-ls approve [^`]+)`", reason)
    assert command is not None
    approve = subprocess.run(
        [sys.executable, "-m", "intent_ls", *shlex.split(command.group(1))[1:]],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert approve.returncode == 0, approve.stderr
    assert hook("PreToolUse", "Edit", edit) == {}


def test_gemini_format_and_model_from_before_model(governed: Path) -> None:
    hook = Hook(governed, agent="gemini")
    assert hook("BeforeModel", llm_request={"model": "gemini-test"}) == {}
    verdict, reason = decision(
        hook("BeforeTool", "write_file", {"file_path": "src/g.py", "content": "g\n"})
    )
    assert verdict == "deny" and "no-active-intent" in reason
    own = hook(
        "BeforeTool",
        "mcp_intent-ls_select_active_intent",
        {"intent_id": "INT-APP"},
        mcp_context={"server_name": "intent-ls", "tool_name": "select_active_intent"},
    )
    assert own == {"decision": "allow"}
    args = {"file_path": "src/g.py", "content": "g\n"}
    assert hook("BeforeTool", "write_file", args) == {}
    (governed / "src" / "g.py").write_text("g\n")
    hook("AfterTool", "write_file", args, tool_response={})
    conv = records(governed)[0]["files"][0]["conversations"][0]
    assert conv["contributor"] == {"type": "ai", "model_id": "gemini-test"}


def test_session_context(governed: Path) -> None:
    hook = Hook(governed)
    start = hook("SessionStart", source="startup")
    context = start["hookSpecificOutput"]["additionalContext"]
    assert "select_active_intent" in context and "INT-APP: Application" in context
    assert "INT-OLD" not in context
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    prompt = hook("UserPromptSubmit", prompt="go")
    assert '<intent_context id="INT-APP">' in prompt["hookSpecificOutput"]["additionalContext"]


def test_session_start_warns_when_the_clone_lacks_the_merge_driver(governed: Path) -> None:
    subprocess.run(["git", "init", "-q", str(governed)], check=True)
    (governed / ".orchestration" / "agent_trace.jsonl").write_text("")
    hook = Hook(governed)
    context = hook("SessionStart", source="startup")["hookSpecificOutput"]["additionalContext"]
    assert "setup warning" in context and "intent-ls init" in context
    prompt = hook("UserPromptSubmit", prompt="go")["hookSpecificOutput"]["additionalContext"]
    assert "setup warning" not in prompt  # once per session, not on every prompt
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "init", "--workspace", str(governed)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    context = hook("SessionStart", source="startup")["hookSpecificOutput"]["additionalContext"]
    assert "setup warning" not in context


def test_fail_closed(governed: Path) -> None:
    hook = Hook(governed)
    garbage = hook.raw(b"not json")
    assert garbage.returncode == 2
    assert decision(json.loads(garbage.stdout))[0] == "deny"
    assert b"governance-error" in garbage.stderr
    # A corrupted spec still denies, naming the problem.
    spec = governed / ".orchestration" / "active_intents.yaml"
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    good = spec.read_text()
    spec.write_text("active_intents: [\n")
    verdict, reason = decision(hook("PreToolUse", "Write", write(governed, "src/a.py", "x")))
    assert verdict == "deny" and "governance-error" in reason and "cannot be used" in reason
    spec.write_text(good)
    # An internal failure (the session store cannot be written) denies, naming the error.
    agents = governed / ".orchestration" / ".local" / "agents"
    for child in agents.iterdir():
        child.unlink()
    agents.rmdir()
    agents.write_text("not a directory")
    verdict, reason = decision(hook("PreToolUse", SELECT, {"intent_id": "INT-APP"}))
    assert verdict == "deny" and "governance-error" in reason and "Error" in reason


def _probe(governed: Path, payload: dict[str, Any], report: str) -> tuple[str, str]:
    """Runs one hook call as ``intent-ls hook claude-code`` would, in a fresh interpreter,
    then prints ``report`` (an expression over ``sys``) as the last line of stderr."""
    probe = (
        "import sys, io, json\n"
        f"sys.stdin = io.TextIOWrapper(io.BytesIO({json.dumps(payload).encode()!r}))\n"
        "from intent_ls.cli.main import main\n"
        "main(['hook', 'claude-code'])\n"
        f"print({report}, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False, timeout=60
    )
    return done.stdout, done.stderr.strip().splitlines()[-1]


def _pre_tool(governed: Path, session: str, tool: str, tool_input: object) -> dict[str, Any]:
    return {
        "session_id": session,
        "cwd": str(governed),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }


def test_hook_path_never_imports_pygls(governed: Path) -> None:
    """Nor the YAML parser once the spec is compiled (the first call compiles it), nor
    attrs: its import and class building were about 70 ms of every hook process."""
    Hook(governed)("PreToolUse", "Bash", {"command": "ls"})
    _, last = _probe(
        governed,
        _pre_tool(governed, "s", "Bash", {"command": "ls"}),
        "[m for m in sys.modules if m.split('.')[0] in "
        "('pygls', 'lsprotocol', 'yaml', 'attr', 'attrs')]",
    )
    assert last == "[]"


def test_a_warm_hook_imports_no_pathspec_and_no_ledger_decoder(governed: Path) -> None:
    """The biggest import costs a hook had: pathspec (its translations are cached per
    workspace), msgspec for the trace index's fast path (only worth it for a long catch-up),
    argparse and attrs, here on the path that consults the index: a destructive edit."""
    hook = Hook(governed)
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    (governed / ".intentignore").write_text("*.log\n!keep.log\n")
    destroy = write(governed, "src/app.py", "def main():\n    return 1\n")
    assert decision(hook("PreToolUse", "Write", destroy))[0] == "ask"  # warms the cache
    out, last = _probe(
        governed,
        _pre_tool(governed, "s1", "Write", destroy),
        "sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pathspec', 'argparse', 'attr', 'attrs')), 'msgspec' in sys.modules",
    )
    assert '"permissionDecision": "ask"' in out, last
    assert last == "[] False"


def test_the_events_that_record_and_start_a_session_import_no_attrs(governed: Path) -> None:
    """The after-tool event that records a write, and the session start, build the most
    records of any event; none of them is an attrs class (its import alone was about
    50 ms of a hook process)."""
    hook = Hook(governed)
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    args = write(governed, "src/new.py", "x = 1\n")
    assert hook("PreToolUse", "Write", args) == {}
    (governed / "src" / "new.py").write_text("x = 1\n")
    shown = "sorted(m for m in sys.modules if m.split('.')[0] in ('attr', 'attrs'))"
    after = {**_pre_tool(governed, "s1", "Write", args), "hook_event_name": "PostToolUse"}
    out, loaded = _probe(governed, after, shown)
    assert json.loads(out) == {} and len(records(governed)) == 1, out
    assert loaded == "[]"
    start = {"session_id": "s2", "cwd": str(governed), "hook_event_name": "SessionStart"}
    out, loaded = _probe(governed, start, shown)
    assert "INT-APP" in out
    assert loaded == "[]"


def _new_file_write(governed: Path) -> bytes:
    """A PreToolUse Write of a new in-scope file, before any intent is selected."""
    return json.dumps(
        {
            "session_id": "s1",
            "cwd": str(governed),
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": write(governed, "src/new.py", "x\n"),
        }
    ).encode()


def test_an_overrun_refuses_instead_of_timing_out(governed: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "intent_ls", "hook", "claude-code", "--budget", "0.001"],
        input=_new_file_write(governed), capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    verdict, reason = decision(json.loads(done.stdout))
    assert verdict == "deny" and "governance-error" in reason


def test_an_overrun_inside_a_librarys_broad_except_still_refuses(
    governed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The alarm fires wherever the hook is: inside the glob check's ``except Exception``
    (pathspec raises several types) it must still end the judgement, not become one
    malformed glob that the verdict is then made without."""
    import pathspec

    from intent_ls.agents.hook import HookTimeout, run

    compile_glob = pathspec.GitIgnoreSpec.from_lines
    fired: list[bool] = []

    def overrun_once(*args: Any, **kwargs: Any) -> Any:  # the alarm fires once
        if not fired:
            fired.append(True)
            raise HookTimeout
        return compile_glob(*args, **kwargs)

    monkeypatch.setattr(pathspec.GitIgnoreSpec, "from_lines", overrun_once)
    answer, _ = run("claude-code", _new_file_write(governed))
    verdict, reason = decision(answer)
    assert verdict == "deny" and "took too long" in reason, reason


def test_a_shell_call_loads_only_what_its_events_use(governed: Path) -> None:
    """What each event of a shell call leaves unloaded (each is milliseconds on every
    tool call): before it, a write the classifier sees is judged on its path, so no change
    rules and no record builder; after it, nothing changed, so no policy at all; neither
    loads subprocess (git is spawned directly), ctypes (the barrier's own process does),
    shutil or datetime."""
    from tests.agents.effects_helpers import git_workspace

    git_workspace(governed)
    hook = Hook(governed)
    hook("PreToolUse", SELECT, {"intent_id": "INT-APP"})
    command = {"command": "sed -i 's/1/3/' src/app.py"}
    # The session's first call tries the barrier and lists git's index flags, once.
    for event in ("PreToolUse", "PostToolUse"):
        hook(event, "Bash", command, tool_use_id="t0")
    shown = (
        "sorted(m for m in sys.modules if m in ('subprocess', 'ctypes', 'shutil', 'datetime',"
        " 'intent_ls.policy.destructive', 'intent_ls.policy.stale', 'intent_ls.ledger.records',"
        " 'intent_ls.workflow', 'intent_ls.policy.judge'))"
    )
    before = {**_pre_tool(governed, "s1", "Bash", command), "tool_use_id": "t1"}
    out, loaded = _probe(governed, before, shown)
    assert let_through(json.loads(out)), out
    assert loaded == "['intent_ls.policy.judge', 'intent_ls.workflow']", loaded
    after = {**before, "hook_event_name": "PostToolUse"}
    out, loaded = _probe(governed, after, shown)
    assert json.loads(out) == {}, out
    assert loaded == "[]", loaded


@pytest.mark.parametrize(
    ("agent", "tool", "args"),
    [
        ("claude-code", "Write", {"file_path": "{root}/docs/guide.md", "content": "x"}),
        ("claude-code", "Bash", {"command": "echo x > {root}/docs/guide.md"}),
        ("codex", "Bash", {"command": "echo x > {root}/docs/guide.md"}),
        ("gemini", "write_file", {"file_path": "{root}/docs/guide.md", "content": "x"}),
    ],
)
def test_a_cwd_outside_the_workspace_does_not_ungovern_the_call(
    governed: Path, agent: str, tool: str, args: dict[str, str]
) -> None:
    """``cwd: "/"``: the workspace is the agent's project folder (Claude Code, Gemini), or
    the one holding the file the call names (Codex names none): never no workspace."""
    from intent_ls.agents import registry

    env = dict.fromkeys(registry.get(agent).project_vars, str(governed))
    event = "BeforeTool" if agent == "gemini" else "PreToolUse"
    filled = {k: v.replace("{root}", str(governed)) for k, v in args.items()}
    verdict, reason = decision(Hook(governed, agent)(event, tool, filled, env=env, cwd="/"))
    assert verdict == "deny" and "no-active-intent" in reason
