"""Where a report's figures come from, and where the page goes."""

from __future__ import annotations

from pathlib import Path

from intent_ls.common.safe_io import write_atomic
from intent_ls.report.ledger_source import collect_workspace
from intent_ls.report.model import RepoTally
from intent_ls.report.page import render_page

#: Where ``intent-ls report`` (and ``check --report`` without a path) write by default:
#: the never-committed local directory, so a report never turns up in a diff.
DEFAULT_RELPATH = Path(".orchestration") / ".local" / "report.html"


def collect(root: Path | None, export_dir: Path | None) -> list[RepoTally]:
    if export_dir is not None:
        from intent_ls.report.export_source import collect_export

        return collect_export(export_dir)
    assert root is not None
    return [collect_workspace(root)]


def write_report(repos: list[RepoTally], out: Path) -> Path:
    title = (
        f"Intent report: {repos[0].name}"
        if len(repos) == 1
        else f"Intent report: {len(repos)} repositories"
    )
    if ".orchestration" not in out.parts:
        # A CI artefact directory may not exist yet; the sidecar is created safely below.
        out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, render_page(repos, title).encode("utf-8"))
    return out
