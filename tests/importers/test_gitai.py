"""git-ai notes both ways: ``export --git-ai-notes`` writes them, ``import git-ai`` reads
them. Real git in temporary repositories, no network.

The note fixtures follow the structure of the examples in git-ai-project/git-ai
``specs/git_ai_standard_v3.0.0.md`` (55a1d728f: sessions, legacy and mixed formats, a
quoted path) and the cases of its parser's tests in
``src/authorship/authorship_log_serialization.rs`` (file names with spaces, a log with no
attestations); keys, ids and text are ours.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from intent_ls.cli.main import main
from intent_ls.common.gitai_notes import NoteError, parse, parse_ranges
from intent_ls.ledger.attribution import carried_ranges
from intent_ls.ledger.records import build_mutation_record
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.ledger.verify import verify_ledger
from intent_ls.policy.approvals import Contributor
from tests.check.conftest import GitRepo
from tests.support import readme_section, sh_blocks

#: Sessions + known human + legacy key in one note, a quoted path (the spec's §1.2.7).
MIXED_NOTE = """\
src/app.py
  s_0a1b2c3d4e5f60::t_00112233445566 1-3
  h_99887766554433 5
"my dir/util.py"
  abcdefabcdef0123 2-3
---
{
  "schema_version": "authorship/3.0.0",
  "git_ai_version": "1.4.5",
  "base_commit_sha": "0000000000000000000000000000000000000000",
  "prompts": {
    "abcdefabcdef0123": {
      "agent_id": {"tool": "cursor", "id": "conv-legacy", "model": "gpt-4"},
      "human_author": "Dev <dev@example.com>",
      "total_additions": 2, "total_deletions": 0, "accepted_lines": 2, "overriden_lines": 0
    }
  },
  "humans": {"h_99887766554433": {"author": "Dev <dev@example.com>"}},
  "sessions": {
    "s_0a1b2c3d4e5f60": {
      "agent_id": {"tool": "claude", "id": "conv-1", "model": "claude-sonnet-4-5"},
      "human_author": "dev@example.com"
    }
  }
}"""


def git(root: Path, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], input=stdin, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "T")
    git(root, "config", "commit.gpgsign", "false")
    (root / ".orchestration").mkdir()
    (root / ".orchestration/active_intents.yaml").write_text(
        "active_intents:\n  - id: INT-1\n    name: Billing\n    status: IN_PROGRESS\n"
        "    owned_scope:\n      - src/**\n"
    )
    return root


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A", "--", ".", ":!.orchestration/agent_trace.jsonl")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def test_the_parser_reads_every_key_format_as_git_ai_does() -> None:
    log = parse(MIXED_NOTE)
    assert [(f.path, [e.key for e in f.entries]) for f in log.files] == [
        ("src/app.py", ["s_0a1b2c3d4e5f60::t_00112233445566", "h_99887766554433"]),
        ("my dir/util.py", ["abcdefabcdef0123"]),
    ]
    assert log.agent("s_0a1b2c3d4e5f60::t_00112233445566")["agent_id"]["tool"] == "claude"
    assert log.agent("abcdefabcdef0123")["agent_id"]["model"] == "gpt-4"
    assert log.agent("h_99887766554433") is None
    assert parse_ranges("1,2,19-222,,300") == ((1, 1), (2, 2), (19, 222), (300, 300))
    # A log with no attestations is a divider and the metadata.
    assert parse('---\n{"schema_version":"x","base_commit_sha":"","prompts":{}}').files == ()
    # A file line with no entries is dropped, as git-ai's parser drops it.
    assert (
        parse('lonely.py\n---\n{"schema_version":"x","base_commit_sha":"","prompts":{}}').files
        == ()
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('src/a.py\n  s_x 1\n{"prompts":{}}', "missing divider"),
        ("  s_x 1\n---\n{}", "without a file path"),
        ("a.py\n  nospace\n---\n{}", "invalid attestation entry"),
        ("a.py\n  k 1-x\n---\n{}", "invalid line range"),
        ('---\n{"schema_version":"x","prompts":{}}', "lacks base_commit_sha"),
    ],
)
def test_the_parser_refuses_what_git_ai_refuses(text: str, message: str) -> None:
    with pytest.raises(NoteError, match=message):
        parse(text)


#: The grammar of a note as git-ai's parser implements it (attestation lines, divider).
_FILE_LINE = re.compile(r'[^ "\s][^\n]*|"[^"\n]+"')
_ENTRY_LINE = re.compile(r"  (s_[0-9a-f]{14}::t_[0-9a-f]{14}|h_[0-9a-f]{14}|[0-9a-f]{16}) [0-9,-]+")


def test_export_writes_git_ai_notes_with_the_intent_and_is_idempotent(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = "def total():\n    return 0\n"
    (repo / "src").mkdir()
    (repo / "src/billing.py").write_text(old)
    commit_all(repo, "start")
    new = "def total():\n    return 0\n\n\ndef tax(x):\n    return x * 0.2\n"
    (repo / "src/billing.py").write_text(new)
    record = build_mutation_record(
        repo,
        "src/billing.py",
        old,
        new,
        intent_id="INT-1",
        session_id="sess-42",
        contributor=Contributor("ai", "claude-sonnet-4-5"),
    )
    assert record is not None
    Ledger(ledger_path(repo)).append(record)
    (repo / "src/tax rules.py").write_text("RATE = 0.2\n")
    spaced = build_mutation_record(
        repo,
        "src/tax rules.py",
        "",
        "RATE = 0.2\n",
        intent_id=None,
        session_id="sess-42",
        contributor=Contributor("ai", "claude-sonnet-4-5"),
    )
    assert spaced is not None
    Ledger(ledger_path(repo)).append(spaced)
    second = commit_all(repo, "tax")
    status = git(repo, "status", "--porcelain")

    rc, out, err = run(capsys, "export", "--git-ai-notes", "--workspace", str(repo))
    assert rc == 0, err
    assert "1 note(s) written" in out
    note = git(repo, "notes", "--ref=ai", "show", second)
    # The attestation section follows git-ai's grammar line by line.
    head, divider, body = note.partition("\n---\n")
    assert divider
    lines = head.splitlines()
    assert [line for line in lines if not line.startswith("  ")] == [
        "src/billing.py",
        '"src/tax rules.py"',
    ]
    assert all(_FILE_LINE.fullmatch(line) or _ENTRY_LINE.fullmatch(line) for line in lines)
    meta = json.loads(body)
    assert set(meta) >= {"schema_version", "base_commit_sha", "prompts"}
    assert meta["schema_version"] == "authorship/3.0.0" and meta["base_commit_sha"] == second
    log = parse(note)
    assert [f.path for f in log.files] == ["src/billing.py", "src/tax rules.py"]
    (spaced_entry,) = log.files[1].entries
    assert spaced_entry.ranges == ((1, 1),)
    # An AI record without an intent is a session without intent attributes.
    assert "custom_attributes" not in log.agent(spaced_entry.key)
    (entry,) = log.files[0].entries
    assert entry.ranges == ((3, 6),)
    session = log.agent(entry.key)
    assert session is not None
    assert session["agent_id"] == {
        "tool": "intent-ls",
        "id": "sess-42",
        "model": "claude-sonnet-4-5",
    }
    assert session["custom_attributes"] == {
        "intent_ls.intent_id": "INT-1",
        "intent_ls.intent_name": "Billing",
    }
    # Nothing else is touched; a re-run writes nothing.
    assert git(repo, "status", "--porcelain") == status
    rc, out, _ = run(capsys, "export", "--git-ai-notes", "--workspace", str(repo))
    assert rc == 0 and "0 note(s) written, 1 already up to date" in out
    assert git(repo, "notes", "--ref=ai", "show", second) == note
    # The importer leaves notes intent-ls wrote alone: their records are in the ledger.
    rc, _, err = run(capsys, "import", "git-ai", "--workspace", str(repo), "--write")
    assert rc == 0 and "0 new AI-authored record(s)" in err


def test_notes_written_by_git_ai_show_in_blame_as_ai_without_intent(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "src").mkdir()
    text = "import os\n\ndef handler(event):\n    return os.getenv(event)\n"
    (repo / "src/app.py").write_text(text)
    (repo / "my dir").mkdir()
    (repo / "my dir/util.py").write_text("x = 1\ny = 2\nz = 3\n")
    sha = commit_all(repo, "written with git-ai")
    git(repo, "notes", "--ref=ai", "add", "-F", "-", sha, stdin=MIXED_NOTE)
    git(repo, "commit", "-q", "--allow-empty", "-m", "later")

    rc, out, err = run(capsys, "import", "git-ai", "--workspace", str(repo))
    assert rc == 0, err
    assert "2 new AI-authored record(s)" in err and "--write" in err
    assert not ledger_path(repo).exists()
    rc, out, err = run(capsys, "import", "git-ai", "--workspace", str(repo), "--write")
    assert rc == 0, err
    assert f"{sha[:12]} src/app.py 1-3" in out
    assert verify_ledger(ledger_path(repo)).problem is None
    records = list(Ledger(ledger_path(repo)).read_records())
    assert len(records) == 2
    rc, _, err = run(capsys, "import", "git-ai", "--workspace", str(repo), "--write")
    assert rc == 0 and "2 already in the ledger; nothing to import" in err
    assert len(list(Ledger(ledger_path(repo)).read_records())) == 2

    # Blame: the lines git-ai attested are found in today's file, moved down by an edit,
    # as AI work of git-ai's session model with no intent.
    moved = "# header\n" + text
    (found,) = carried_ranges(records, "src/app.py", moved.splitlines())
    assert (found.span.start, found.span.end) == (2, 4)
    assert found.record["tool"]["name"] == "git-ai"
    conv = found.record["files"][0]["conversations"][0]
    assert conv["contributor"] == {"type": "ai", "model_id": "claude-sonnet-4-5"}
    assert found.record["metadata"]["intent_ls"]["intent_id"] is None
    assert found.record["vcs"] == {"type": "git", "revision": sha}
    (legacy,) = carried_ranges(records, "my dir/util.py", ["x = 1", "y = 2", "z = 3"])
    assert (legacy.span.start, legacy.span.end) == (2, 3)


def test_export_keeps_a_note_git_ai_wrote(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "src").mkdir()
    (repo / "src/app.py").write_text("a = 1\n")
    commit_all(repo, "base")
    (repo / "src/app.py").write_text("a = 1\nb = 2\n")
    record = build_mutation_record(
        repo,
        "src/app.py",
        "a = 1\n",
        "a = 1\nb = 2\n",
        intent_id="INT-1",
        session_id="s",
        contributor=Contributor("ai", None),
    )
    assert record is not None
    Ledger(ledger_path(repo)).append(record)
    sha = commit_all(repo, "b")
    git(repo, "notes", "--ref=ai", "add", "-F", "-", sha, stdin=MIXED_NOTE)
    rc, out, err = run(capsys, "export", "--git-ai-notes", "--workspace", str(repo))
    assert rc == 0, err
    assert "0 note(s) written" in out and "1 written by git-ai kept" in out
    assert git(repo, "notes", "--ref=ai", "show", sha) == MIXED_NOTE + "\n"


def test_the_readme_git_ai_commands_work_as_written(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's git-ai block, run in a repository with a git-ai note and a ledger."""
    block = readme_section("<!-- For teams: git-ai (begin) -->", "<!-- For teams: git-ai (end) -->")
    commands = [line for snippet in sh_blocks(block) for line in snippet.splitlines()]
    assert commands == [
        "intent-ls import git-ai --write",
        "intent-ls export --git-ai-notes",
        "git notes --ref=ai show HEAD",
    ]
    (repo / "src").mkdir()
    (repo / "src/app.py").write_text("import os\n\ndef handler(event):\n    return 1\n")
    sha = commit_all(repo, "by git-ai")
    git(repo, "notes", "--ref=ai", "add", "-F", "-", sha, stdin=MIXED_NOTE)
    (repo / "src/app.py").write_text("import os\n\ndef handler(event):\n    return 2\n")
    record = build_mutation_record(
        repo,
        "src/app.py",
        "import os\n\ndef handler(event):\n    return 1\n",
        "import os\n\ndef handler(event):\n    return 2\n",
        intent_id="INT-1",
        session_id="s",
        contributor=Contributor("ai", "m"),
    )
    assert record is not None
    Ledger(ledger_path(repo)).append(record)
    head = commit_all(repo, "by an agent under INT-1")
    monkeypatch.chdir(repo)
    rc, _, err = run(capsys, *shlex.split(commands[0])[1:])
    assert rc == 0 and "1 new AI-authored record(s)" in err
    rc, out, err = run(capsys, *shlex.split(commands[1])[1:])
    assert rc == 0 and "1 note(s) written" in out, err
    shown = subprocess.run(shlex.split(commands[2]), capture_output=True, text=True, check=True)
    assert parse(shown.stdout).files[0].entries[0].ranges == ((4, 4),)
    assert head == git(repo, "rev-parse", "HEAD").strip()


def test_check_sees_imported_git_ai_lines_as_ai_work_without_intent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], git_identity: None
) -> None:
    """Before the import a commit git-ai traced is an uncovered change; after it, the
    lines are covered by git-ai's record, which names no intent."""
    repo = GitRepo(tmp_path / "checked", capsys)
    base = repo.commit("base")
    repo.write("src/app.py", "import os\n\ndef handler(event):\n    return 1\n")
    sha = repo.commit("by git-ai")
    git(repo.root, "notes", "--ref=ai", "add", "-F", "-", sha, stdin=MIXED_NOTE)
    assert [(f["rule"], f["start_line"], f["end_line"]) for f in repo.findings("--base", base)] == [
        ("uncovered-change", 1, 4)
    ]
    rc, _, err = run(capsys, "import", "git-ai", "--workspace", str(repo.root), "--write")
    assert rc == 0, err
    findings = repo.findings("--base", base)
    # Lines 1-3 are git-ai's AI session's, with no intent; line 4 nobody traced.
    assert [(f["rule"], f["start_line"], f["end_line"]) for f in findings] == [
        ("intent-not-owner", 1, 3),
        ("uncovered-change", 4, 4),
    ]
    assert "written with no active intent" in findings[0]["message"]
