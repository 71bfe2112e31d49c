"""Renders a :class:`~intent_ls.check.engine.CheckResult` for people, tools and code scanning.

Text goes to people in a terminal or a CI log (``path:line:col: error: rule: message``,
the shape ``validate`` prints too, which editors and CI logs turn into links); JSON to
scripts; SARIF 2.1.0 to GitHub code scanning (``github/codeql-action/upload-sarif``);
GitHub workflow-command annotations to a plain Actions step. SARIF and annotations both
show each finding on the pull request's diff.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from intent_ls import __version__
from intent_ls.check.annotations import github_annotation
from intent_ls.check.engine import CheckResult
from intent_ls.check.findings import RULES, RULES_BY_ID

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SRCROOT = "%SRCROOT%"


def render_text(result: CheckResult) -> str:
    """Workspace-relative paths; a finding is about whole lines, so its column is 1."""
    return "".join(
        f"{f.path}:{f.start_line}:1: error: {f.rule}: {f.message}\n" for f in result.findings
    )


def render_github(result: CheckResult) -> str:
    """Paths relative to the repository root, which is what the runner resolves
    annotations against, even when the workspace is a subdirectory."""
    return "".join(
        github_annotation(
            "error",
            result.prefix + f.path,
            f.start_line,
            f.message,
            title=f"intent-ls {f.rule}",
            end_line=f.end_line,
        )
        + "\n"
        for f in result.findings
    )


def summary(result: CheckResult) -> str:
    base = f"base {result.base.rev[:12]} ({result.base.label})"
    scope = (
        f"{result.files_checked} changed governed file(s), {result.lines_checked} changed "
        f"line(s), {result.records} ledger record(s)"
    )
    if result.ok:
        return f"intent-ls check: ok — {scope}; {base}"
    files = len({f.path for f in result.findings})
    return (
        f"intent-ls check: {len(result.findings)} finding(s) in {files} file(s) — {scope}; {base}"
    )


def to_json(result: CheckResult) -> dict[str, Any]:
    return {
        "ok": result.ok,
        "base": {"rev": result.base.rev, "label": result.base.label},
        "files_checked": result.files_checked,
        "lines_checked": result.lines_checked,
        "records": result.records,
        "findings": [f.to_json() for f in result.findings],
    }


def to_sarif(result: CheckResult) -> dict[str, Any]:
    """One run; locations relative to the repository root (``%SRCROOT%``), as code scanning
    resolves them, even when the workspace is a subdirectory."""
    index = {rule.id: n for n, rule in enumerate(RULES)}
    results = []
    for f in result.findings:
        rule = RULES_BY_ID[f.rule]
        entry: dict[str, Any] = {
            "ruleId": rule.id,
            "ruleIndex": index[rule.id],
            "level": "error",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {
                            "uri": quote(result.prefix + f.path, safe="/"),
                            "uriBaseId": _SRCROOT,
                        },
                        "region": {"startLine": f.start_line, "endLine": f.end_line},
                    }
                }
            ],
        }
        properties: dict[str, Any] = {}
        if f.record_id:
            properties["recordId"] = f.record_id
        if f.owners:
            properties["owners"] = list(f.owners)
        if properties:
            entry["properties"] = properties
        results.append(entry)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "intent-ls",
                        "version": __version__,
                        "rules": [
                            {
                                "id": rule.id,
                                "name": rule.name,
                                "shortDescription": {"text": rule.short},
                                "fullDescription": {"text": rule.help},
                                "help": {"text": rule.help},
                                "defaultConfiguration": {"level": "error"},
                            }
                            for rule in RULES
                        ],
                    }
                },
                "originalUriBaseIds": {_SRCROOT: {"uri": result.toplevel.as_uri() + "/"}},
                "invocations": [{"executionSuccessful": True}],
                "results": results,
            }
        ],
    }
