"""Renders core verdicts and spec problems as LSP diagnostics (``source: "intent-ls"``).

The core speaks 0-based lines and code-point columns; the conversion to the client's
negotiated units (UTF-16 for VS Code, UTF-8 for Neovim) happens here, on the edited
lines only, with pygls' position codec.
"""

from __future__ import annotations

from collections.abc import Sequence

import pathspec
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from intent_ls.policy.judge import Verdict
from intent_ls.server.config import Config, SeverityOption
from intent_ls.server.documents import Region, TrackedDocument
from intent_ls.server.folders import Folder
from intent_ls.spec.model import Intent, Problem, Severity, Span

SOURCE = "intent-ls"
#: More separate edited regions than this in one file are reported as one more line.
MAX_REGIONS = 100

_FROM_CORE = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}
_FROM_CONFIG = {
    SeverityOption.ERROR: types.DiagnosticSeverity.Error,
    SeverityOption.WARNING: types.DiagnosticSeverity.Warning,
    SeverityOption.INFORMATION: types.DiagnosticSeverity.Information,
    SeverityOption.HINT: types.DiagnosticSeverity.Hint,
}


def severity(code: str, default: Severity, config: Config) -> types.DiagnosticSeverity | None:
    """The configured severity for ``code``; None when the user turned it off."""
    chosen = config.severity.get(code)
    if chosen is None:
        return _FROM_CORE[default]
    return _FROM_CONFIG.get(chosen)


def to_range(lines: Sequence[str], span: Span, codec: PositionCodec) -> types.Range:
    return types.Range(
        start=_position(lines, span.start.line, span.start.column, codec),
        end=_position(lines, span.end.line, span.end.column, codec),
    )


def _position(lines: Sequence[str], line: int, column: int, codec: PositionCodec) -> types.Position:
    if line >= len(lines):
        return types.Position(line=line, character=0)
    return types.Position(line=line, character=codec.client_num_units(lines[line][:column]))


def region_range(doc: TrackedDocument, region: Region, codec: PositionCodec) -> types.Range:
    lines = doc.lines
    if not lines:
        return types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
    end_line = min(region.end, len(lines) - 1)
    text = lines[end_line].rstrip("\r\n")
    return types.Range(
        start=types.Position(line=region.start, character=0),
        end=types.Position(line=end_line, character=codec.client_num_units(text)),
    )


def governance(
    doc: TrackedDocument,
    verdicts: Sequence[Verdict],
    folder: Folder,
    codec: PositionCodec,
    config: Config,
) -> list[types.Diagnostic]:
    """One diagnostic per verdict per edited region of ``doc``."""
    if not verdicts:
        return []
    regions = doc.regions()
    if not regions:
        return []
    if len(regions) > MAX_REGIONS:
        last = regions[MAX_REGIONS - 1]
        regions = [*regions[: MAX_REGIONS - 1], Region(last.start, regions[-1].end)]
    out: list[types.Diagnostic] = []
    for verdict in verdicts:
        level = severity(verdict.code, verdict.severity, config)
        if level is None:
            continue
        related = owner_locations(folder, doc.rel or "", verdict, codec)
        for region in regions:
            message = verdict.message
            if doc.untracked:
                message += f" (line changes are not tracked because {doc.untracked})"
            elif not region.inserted:
                message += f" ({region.deleted} line(s) deleted here)"
            out.append(
                types.Diagnostic(
                    range=region_range(doc, region, codec),
                    message=message,
                    severity=level,
                    code=verdict.code,
                    source=SOURCE,
                    related_information=related or None,
                    data={"path": doc.rel, "owners": list(verdict.owners)},
                )
            )
    return out


def owner_locations(
    folder: Folder, rel: str, verdict: Verdict, codec: PositionCodec
) -> list[types.DiagnosticRelatedInformation]:
    """Where in active_intents.yaml each owning intent claims ``rel`` (cached per spec)."""
    key = ("related", rel, verdict.code)
    cached = folder.cache.get(key)
    if cached is None:
        cached = []
        for owner in folder.scope.owners(rel):
            span, via = _claim(owner, rel)
            what = f"{owner.label} owns {rel}"
            if via:
                what += f" via '{via}'"
            cached.append(
                types.DiagnosticRelatedInformation(
                    location=types.Location(
                        uri=folder.spec_uri, range=to_range(folder.spec_lines, span, codec)
                    ),
                    message=what,
                )
            )
        # a verdict about the active intent's scope points at it too
        active_scope = verdict.details.get("active_intent") is not None
        if active_scope and folder.active is not None and folder.active.scope_span:
            active = folder.active
            cached.append(
                types.DiagnosticRelatedInformation(
                    location=types.Location(
                        uri=folder.spec_uri,
                        range=to_range(folder.spec_lines, active.scope_span, codec),
                    ),
                    message=f"owned_scope of the active intent {active.id}",
                )
            )
        folder.cache[key] = cached
    return cached  # type: ignore[return-value]


def _claim(intent: Intent, rel: str) -> tuple[Span, str | None]:
    for glob in intent.owned_scope:
        if not glob.pattern.startswith("!") and pathspec.GitIgnoreSpec.from_lines(
            [glob.pattern]
        ).match_file(rel):
            return glob.span, glob.pattern
    return intent.scope_span or intent.span, None


def spec_problems(
    problems: Sequence[Problem],
    lines: Sequence[str],
    spec_uri: str,
    codec: PositionCodec,
    config: Config,
) -> list[types.Diagnostic]:
    out = []
    for problem in problems:
        level = severity(problem.code, problem.severity, config)
        if level is None:
            continue
        related = [
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=spec_uri, range=to_range(lines, span, codec)),
                message=label,
            )
            for label, span in problem.related
        ]
        out.append(
            types.Diagnostic(
                range=to_range(lines, problem.span, codec),
                message=problem.message,
                severity=level,
                code=problem.code,
                source=SOURCE,
                related_information=related or None,
            )
        )
    return out
