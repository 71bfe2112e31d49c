"""``scope-widened``, and the terminal verbs ``record``/``approve`` that ``check`` names."""

from __future__ import annotations

import re

from intent_ls.cli.main import main
from tests.check.conftest import GitRepo
from tests.support import SPEC

WIDER = SPEC.replace("      - docs/\n", "      - docs/\n      - tools/\n").replace(
    "    status: COMPLETED", "    status: IN_PROGRESS"
)
NEW_INTENT = (
    SPEC
    + "  - id: INT-NEW\n    name: New\n    status: IN_PROGRESS\n    owned_scope:\n      - new/\n"
)


def widened(repo: GitRepo) -> list[dict]:
    return [f for f in repo.findings() if f["rule"] == "scope-widened"]


def test_widening_and_new_intents_are_reported_until_approved(repo: GitRepo) -> None:
    repo.commit("spec")
    repo.write(".orchestration/active_intents.yaml", WIDER)
    found = widened(repo)
    messages = sorted(f["message"] for f in found)
    assert len(found) == 2
    assert "INT-DOCS adds tools/ to its owned_scope" in messages[0]
    assert "INT-OLD moves from COMPLETED to IN_PROGRESS" in messages[1]
    assert all("intent-ls approve scope-widened" in m for m in messages)
    repo.capsys.readouterr()
    rc = main(["approve", "--workspace", str(repo.root), "scope-widened",
               str(repo.root / ".orchestration/active_intents.yaml")])  # fmt: skip
    assert rc == 0
    assert widened(repo) == []
    repo.write(".orchestration/active_intents.yaml", NEW_INTENT)  # new content: new decision
    [added] = widened(repo)
    assert "adds IN_PROGRESS intent INT-NEW owning new/" in added["message"]


def test_narrowing_is_not_widening(repo: GitRepo) -> None:
    repo.commit("spec")
    repo.write(
        ".orchestration/active_intents.yaml", SPEC.replace("      - docs/\n", "      - docs/a/\n")
    )
    assert widened(repo) == []


def test_a_new_spec_starts_governance(repo: GitRepo) -> None:
    assert widened(repo) == []  # nothing committed yet: the spec arrives with this change


def test_record_from_the_terminal_covers_a_formatter_run(repo: GitRepo) -> None:
    repo.save("src/app.py", "x = 1\n")
    repo.commit("app")
    repo.write("src/app.py", "x = 1\ny = 2\n")  # a generator appended a line
    assert [f["rule"] for f in repo.findings()] == ["uncovered-change"]
    repo.capsys.readouterr()
    rc = main(["record", "--workspace", str(repo.root), "--intent", "INT-APP",
               str(repo.root / "src/app.py")])  # fmt: skip
    out = repo.capsys.readouterr().out
    assert rc == 0 and "src/app.py: recorded" in out
    assert repo.findings() == []
    rc = main(["record", "--workspace", str(repo.root), str(repo.root / "src/app.py")])
    assert "unchanged" in repo.capsys.readouterr().out


def test_record_out_of_scope_then_approve(repo: GitRepo) -> None:
    repo.write("docs/guide.md", "# Guide\n")
    repo.capsys.readouterr()
    rc = main(["record", "--workspace", str(repo.root), "--intent", "INT-APP",
               str(repo.root / "docs/guide.md")])  # fmt: skip
    _, err = repo.capsys.readouterr()
    assert rc == 1 and "out-of-scope" in err and "intent-ls approve" in err
    [finding] = repo.findings()
    assert finding["rule"] == "unapproved-verdict"
    assert "intent-ls approve out-of-scope docs/guide.md" in finding["message"]
    rc = main(["approve", "--workspace", str(repo.root), "out-of-scope",
               str(repo.root / "docs/guide.md")])  # fmt: skip
    assert rc == 0
    assert repo.findings() == []


def test_bad_terminal_input_is_a_clear_error(repo: GitRepo) -> None:
    repo.capsys.readouterr()
    assert main(["approve", "--workspace", str(repo.root), "no-active-intent", "x"]) == 2
    assert "cannot be approved" in repo.capsys.readouterr().err
    assert main(["record", "--workspace", str(repo.root), "--intent", "INT-OLD", "src/x"]) == 2
    assert "COMPLETED" in repo.capsys.readouterr().err
    assert main(["record", "--workspace", str(repo.root), "/etc/hostname"]) == 2
    assert "outside the workspace" in repo.capsys.readouterr().err
    assert main(["approve", "--workspace", str(repo.root), "destructive-command"]) == 2
    assert "--command" in repo.capsys.readouterr().err


def test_deleted_file_names_the_approve_command_that_covers_it(repo: GitRepo) -> None:
    repo.save("src/old.py", "OLD = 1\n")
    repo.commit("old")
    (repo.root / "src" / "old.py").unlink()
    [finding] = repo.findings()
    assert finding["rule"] == "uncovered-deletion"
    command = re.search(r"`(intent-ls approve [^`]+)`", finding["message"])
    assert command is not None and "--hash sha256:" in command.group(1)
    args = command.group(1).split()[2:]
    assert main(["approve", "--workspace", str(repo.root), *args]) == 0
    assert repo.findings() == []
