"""``intent-ls check`` on real git repositories: what passes, what fails and why."""

from __future__ import annotations

import shutil
from pathlib import Path

from pytest import CaptureFixture

from intent_ls.common.hashing import content_hash
from intent_ls.ledger.index import CACHE_RELPATH
from intent_ls.ledger.records import RecordedVerdict
from intent_ls.ledger.store import ledger_path
from intent_ls.policy.approvals import Approval
from intent_ls.policy.destructive import classify_change
from intent_ls.policy.rules.destructive_edit import destructive_verdict
from intent_ls.policy.verdicts import DESTRUCTIVE_EDIT, OUT_OF_SCOPE
from tests.check.conftest import GitRepo

APP = "def handler(request):\n    return respond(request)\n"
FEATURE = '\n\ndef feature(x):\n    """Doubles x."""\n    return x * 2\n'


def rules(findings: list[dict]) -> list[tuple[str, str, int, int]]:
    return [(f["rule"], f["path"], f["start_line"], f["end_line"]) for f in findings]


def test_recorded_changes_pass(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.save("src/app.py", APP + FEATURE)
    # a later save rewrites one line of the first save's range: its hash matches nothing
    # now, but the saves chain from the base content to the current one
    repo.save("src/app.py", (APP + FEATURE).replace("x * 2", "x + x"))
    repo.save("src/new.py", "VALUE = 1\n")
    rc, out, err = repo.check()
    assert (rc, out) == (0, "")
    assert "ok" in err and "2 changed governed file(s)" in err


def test_unrecorded_line_is_reported_alone(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.save("src/app.py", APP + FEATURE)
    repo.write("src/app.py", repo.read("src/app.py") + "print('debug')\n")
    findings = repo.findings()
    assert rules(findings) == [("uncovered-change", "src/app.py", 8, 8)]
    assert "INT-APP" in findings[0]["message"]  # who would own it
    assert findings[0]["owners"] == ["INT-APP"]


def test_unrecorded_line_after_rewritten_saves(repo: GitRepo) -> None:
    """The second save rewrites a line of the first save's range, so that range's hash
    matches nothing; the chain of saves still vouches for it once the unrecorded line is
    set aside."""
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.save("src/app.py", APP + FEATURE)
    repo.save("src/app.py", (APP + FEATURE).replace("x * 2", "x + x"))
    repo.write("src/app.py", repo.read("src/app.py") + "print('debug')\n")
    assert rules(repo.findings()) == [("uncovered-change", "src/app.py", 8, 8)]
    # with a second unrecorded edit no single block explains the rest: both are still
    # reported, and so (documented limit) is the rewritten save's stale range
    repo.write("src/app.py", repo.read("src/app.py").replace("Doubles x.", "Twice x."))
    assert rules(repo.findings()) == [
        ("uncovered-change", "src/app.py", 3, 6),
        ("uncovered-change", "src/app.py", 8, 8),
    ]


def test_unrecorded_new_file_and_commit_are_both_changes(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    base = repo.commit("base")
    repo.write("src/committed.py", "A = 1\n")
    repo.commit("unrecorded commit")
    repo.write("src/untracked.py", "B = 2\nC = 3\n")
    findings = repo.findings("--base", base)
    assert rules(findings) == [
        ("uncovered-change", "src/committed.py", 1, 1),
        ("uncovered-change", "src/untracked.py", 1, 2),
    ]


def test_record_of_an_intent_that_does_not_own_the_file(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    record = repo.save("src/app.py", APP + FEATURE, intent="INT-DOCS")
    findings = repo.findings()
    assert rules(findings) == [("intent-not-owner", "src/app.py", 3, 7)]
    assert findings[0]["record_id"] == record["id"]
    assert "INT-DOCS" in findings[0]["message"] and "INT-APP" in findings[0]["message"]


def test_record_without_intent(repo: GitRepo) -> None:
    repo.commit("base")
    repo.save("src/app.py", APP, intent=None)
    assert rules(repo.findings()) == [("intent-not-owner", "src/app.py", 1, 2)]


def test_intent_not_in_progress(repo: GitRepo) -> None:
    repo.commit("base")
    repo.save("legacy/old.py", "OLD = True\n", intent="INT-OLD")
    findings = repo.findings()
    assert rules(findings) == [("intent-not-in-progress", "legacy/old.py", 1, 1)]
    assert "COMPLETED" in findings[0]["message"]


def test_unapproved_out_of_scope_verdict_then_approval(repo: GitRepo) -> None:
    repo.write("docs/guide.md", "# Guide\n")
    repo.commit("base")
    verdict = RecordedVerdict(OUT_OF_SCOPE, "docs/guide.md is outside INT-APP")
    record = repo.save("docs/guide.md", "# Guide\n\nUse the app.\n", verdicts=[verdict])
    findings = repo.findings()
    assert rules(findings) == [("unapproved-verdict", "docs/guide.md", 2, 3)]
    assert findings[0]["record_id"] == record["id"]
    assert OUT_OF_SCOPE in findings[0]["message"]
    # an approval of a different verdict, or of other content, does not clear it
    repo.approve("docs/guide.md", DESTRUCTIVE_EDIT, 2, 3)
    repo.approve("docs/guide.md", OUT_OF_SCOPE, 1, 1)
    assert rules(repo.findings()) == [("unapproved-verdict", "docs/guide.md", 2, 3)]
    repo.approve("docs/guide.md", OUT_OF_SCOPE, 2, 3)
    assert repo.findings() == []


def test_approval_listed_in_the_record_clears_its_verdict_by_its_key(repo: GitRepo) -> None:
    """An approval the record lists counts like any other: by what it names. One of the
    same code for other content does not approve this save (policy/approvals.py)."""
    repo.commit("base")
    verdicts = [RecordedVerdict(OUT_OF_SCOPE, "outside INT-APP")]
    foreign = Approval(OUT_OF_SCOPE, "docs/guide.md", 1, 1, "sha256:" + "1" * 64)
    repo.save("docs/guide.md", "# Guide\n", verdicts=verdicts, approvals=[foreign])
    assert rules(repo.findings()) == [("unapproved-verdict", "docs/guide.md", 1, 1)]
    named = Approval(OUT_OF_SCOPE, "docs/guide.md", 2, 2, content_hash(["Use it."]))
    repo.save("docs/guide.md", "# Guide\nUse it.\n", verdicts=verdicts, approvals=[named])
    assert rules(repo.findings()) == [("unapproved-verdict", "docs/guide.md", 1, 1)]
    repo.approve("docs/guide.md", OUT_OF_SCOPE, 1, 1)
    assert repo.findings() == []


def test_recorded_verdicts_take_only_the_approval_that_names_them(repo: GitRepo) -> None:
    """The recorded-verdict rule of policy/approvals.py, as ``check`` applies it (the
    attribution tests apply the same cases to the editor)."""
    repo.write("docs/guide.md", "".join(f"line {i}\n" for i in range(1, 11)))
    repo.commit("base")
    new = repo.read("docs/guide.md").replace("line 3\n", "changed 3\n")
    verdict = RecordedVerdict(OUT_OF_SCOPE, "docs/guide.md is outside INT-APP")
    repo.save("docs/guide.md", new.replace("line 8\n", "changed 8\n"), verdicts=[verdict])
    # one range's approval approves those lines only
    repo.approve("docs/guide.md", OUT_OF_SCOPE, 3, 3)
    assert rules(repo.findings()) == [("unapproved-verdict", "docs/guide.md", 8, 8)]
    # the whole-file key (`intent-ls approve CODE PATH`) approves all the save did
    repo.approve("docs/guide.md", OUT_OF_SCOPE, 1, 10)
    assert repo.findings() == []

    repo.write("src/app.py", APP + FEATURE)
    repo.commit("more")
    gone = APP + "\n\nX = 1\n"
    [finding] = classify_change("src/app.py", APP + FEATURE, gone, "python")
    destructive = destructive_verdict(finding)
    recorded = RecordedVerdict(DESTRUCTIVE_EDIT, destructive.message, destructive.details)
    repo.save("src/app.py", gone, verdicts=[recorded])
    # the lines the save wrote say nothing about what it destroyed
    repo.approve("src/app.py", DESTRUCTIVE_EDIT, 5, 5)
    assert [f["rule"] for f in repo.findings()] == ["unapproved-verdict"]
    repo.approve("src/app.py", DESTRUCTIVE_EDIT, 1, 5)  # the whole file as saved
    assert repo.findings() == []


def test_approved_destructive_verdict_still_needs_an_owner(repo: GitRepo) -> None:
    repo.write("src/app.py", APP + FEATURE)
    repo.commit("base")
    verdict = RecordedVerdict(DESTRUCTIVE_EDIT, "deletes function feature")
    repo.save("src/app.py", APP + "\n\nX = 1\n", intent="INT-DOCS", verdicts=[verdict])
    assert [f["rule"] for f in repo.findings()] == ["unapproved-verdict"]
    # a verdict naming no content: any destructive-edit approval of the path
    repo.approve("src/app.py", DESTRUCTIVE_EDIT, 5, 5)
    assert rules(repo.findings()) == [("intent-not-owner", "src/app.py", 5, 5)]


def test_tampered_ledger_fails_whatever_it_covers(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.save("src/app.py", APP + FEATURE)
    repo.save("src/new.py", "VALUE = 1\n")
    assert repo.findings() == []
    path = ledger_path(repo.root)
    data = bytearray(path.read_bytes())
    first_line_end = data.index(b"\n")
    at = data.index(b'"intent_id":"INT-APP"', first_line_end) + len('"intent_id":"INT-A')
    data[at] ^= 0x01  # INT-APP -> INT-AQP on line 2: still valid JSON and schema
    path.write_bytes(bytes(data))
    rc, out, err = repo.check()
    assert rc == 1
    assert "1 finding(s)" in err
    assert out.startswith(".orchestration/agent_trace.jsonl:2:1: error: ledger-invalid:")
    assert "digest" in out and len(out.splitlines()) == 1


def test_records_removed_since_base_fail(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.save("src/app.py", APP + FEATURE)
    repo.save("src/app.py", APP + FEATURE + "Y = 2\n")
    base = repo.commit("with ledger")
    path = ledger_path(repo.root)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0])  # still a valid one-record chain
    assert repo.check("--base", base)[0] == 1
    findings = repo.findings("--base", base)
    assert rules(findings) == [("ledger-invalid", ".orchestration/agent_trace.jsonl", 2, 2)]
    assert "rewritten" in findings[0]["message"]


def test_code_moved_to_another_file_stays_attributed(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.save("src/app.py", APP + FEATURE)
    # moved by hand (no save recorded for either file): the hash still matches
    repo.write("src/app.py", APP)
    repo.write("src/helpers.py", "import math\n" + FEATURE.lstrip("\n"))
    assert rules(repo.findings()) == [("uncovered-change", "src/helpers.py", 1, 1)]
    # the same code moved where its intent has no say is not covered by that record
    repo.write("src/helpers.py", "")
    repo.write("docs/snippet.py", FEATURE.lstrip("\n"))
    findings = repo.findings()
    assert rules(findings) == [("intent-not-owner", "docs/snippet.py", 1, 3)]
    assert "INT-DOCS" in findings[0]["message"]


def test_shifted_lines_stay_covered(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.save("src/app.py", APP + FEATURE)
    # a non-owner's save prepends lines: the chain of qualifying saves breaks, the
    # feature's lines moved down by two and are still found by their hash
    repo.save("src/app.py", "# header\n# more\n" + repo.read("src/app.py"), intent="INT-DOCS")
    assert rules(repo.findings()) == [("intent-not-owner", "src/app.py", 1, 2)]


def test_deletions(repo: GitRepo) -> None:
    body = "".join(f"line{i} = {i}\n" for i in range(1, 8))
    repo.write("src/data.py", body)
    repo.write("src/gone.py", "A = 1\nB = 2\n")
    repo.commit("base")
    repo.save("src/data.py", body.replace("line3 = 3\n", ""))
    assert repo.findings() == []
    repo.write("src/data.py", repo.read("src/data.py").replace("line6 = 6\n", ""))
    (repo.root / "src/gone.py").unlink()
    findings = repo.findings()
    # the recorded deletion of line 3 stays covered: undoing the unrecorded hunk alone
    # gives a content the saves reached
    assert rules(findings) == [
        ("uncovered-deletion", "src/data.py", 5, 5),
        ("uncovered-deletion", "src/gone.py", 1, 2),
    ]
    assert "line 6 of the base" in findings[0]["message"]
    # approving the destruction of the file's content clears the file deletion
    repo.write("src/gone.py", "A = 1\nB = 2\n")
    repo.approve("src/gone.py", DESTRUCTIVE_EDIT, 1, 2)
    (repo.root / "src/gone.py").unlink()
    assert [f["path"] for f in repo.findings()] == ["src/data.py"]


def test_rename_needs_approval_but_not_recoverage(repo: GitRepo) -> None:
    content = "".join(f"value_{i} = {i}\n" for i in range(20))
    repo.write("src/a.py", content)
    repo.commit("base")
    repo.git("mv", "src/a.py", "src/b.py")
    findings = repo.findings()
    assert rules(findings) == [("uncovered-deletion", "src/a.py", 1, 20)]
    assert "renamed to src/b.py" in findings[0]["message"]
    repo.write("src/a.py", content)
    repo.approve("src/a.py", DESTRUCTIVE_EDIT, 1, 20)
    (repo.root / "src/a.py").unlink()
    assert repo.findings() == []


def test_ungoverned_files_are_skipped(repo: GitRepo) -> None:
    repo.write(".intentignore", "generated/\n")
    repo.write(".gitignore", "*.log\n")
    repo.commit("base")
    repo.write("generated/out.py", "X = 1\n")
    repo.write("debug.log", "noise\n")
    repo.write(".orchestration/notes.md", "sidecar\n")
    rc, out, err = repo.check()
    assert (rc, out) == (0, "")
    assert "0 changed governed file(s)" in err


def test_unusual_paths(repo: GitRepo) -> None:
    repo.commit("base")
    weird = 'src/sp ace/ünï côdé "q".py'
    repo.save(weird, "X = 1\n")
    repo.write("src/tab\there.py", "Y = 2\n")
    assert rules(repo.findings()) == [("uncovered-change", "src/tab\there.py", 1, 1)]


def test_binary_change_is_reported(repo: GitRepo) -> None:
    repo.commit("base")
    (repo.root / "src").mkdir()
    (repo.root / "src/logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    findings = repo.findings()
    assert rules(findings) == [("uncovered-change", "src/logo.png", 1, 1)]
    assert "binary" in findings[0]["message"]


def test_default_base_is_the_merge_base_with_origin_main(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    base = repo.commit("base")
    repo.git("update-ref", "refs/remotes/origin/main", base)
    repo.write("src/app.py", APP + "Z = 1\n")
    repo.commit("feature branch commit, unrecorded")
    assert rules(repo.findings()) == [("uncovered-change", "src/app.py", 3, 3)]
    assert repo.findings("--base", "HEAD") == []


def test_repository_without_commits(repo: GitRepo) -> None:
    repo.save("src/app.py", APP)
    repo.write("src/loose.py", "L = 1\n")
    findings = repo.findings()
    assert rules(findings) == [("uncovered-change", "src/loose.py", 1, 1)]


def test_spec_errors_are_findings(repo: GitRepo) -> None:
    repo.commit("base")
    repo.write(".orchestration/active_intents.yaml", "active_intents: [\n")
    findings = repo.findings()
    assert findings and all(f["rule"] == "spec-invalid" for f in findings)


def test_workspace_in_a_subdirectory(tmp_path: Path, capsys: CaptureFixture[str]) -> None:
    repo = GitRepo(tmp_path / "mono", capsys, workspace="services/api")
    repo.commit("base")
    repo.save("src/app.py", APP)
    repo.write("src/extra.py", "E = 1\n")
    (tmp_path / "mono" / "elsewhere.py").write_text("outside the workspace\n")
    assert rules(repo.findings()) == [("uncovered-change", "src/extra.py", 1, 1)]


def test_a_fresh_clone_builds_no_index(repo: GitRepo) -> None:
    """The verifying pass hands back what the rule asks (tests/check/test_fresh_clone.py
    compares its answers with the index's)."""
    repo.write("src/app.py", APP)
    repo.save("src/app.py", APP + FEATURE)
    base = repo.commit("base")
    cache = repo.root / CACHE_RELPATH
    shutil.rmtree(cache.parent, ignore_errors=True)  # as in a fresh clone
    rc, out, err = repo.check("--base", base)
    assert (rc, out) == (0, "") and "0 changed governed file(s)" in err
    assert not cache.exists()
    repo.write("src/app.py", repo.read("src/app.py") + "print('debug')\n")
    assert rules(repo.findings("--base", base)) == [("uncovered-change", "src/app.py", 8, 8)]
    assert not cache.exists()
