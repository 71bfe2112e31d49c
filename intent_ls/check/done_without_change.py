"""The optional ``done-without-change`` rule: work marked done that the ledger never saw.

Spec-driven tools let an agent tick ``- [x]`` without writing a line. For an intent
imported by ``intent-ls import`` (it has a ``source``), this rule asks the ledger:

- each task ticked done in the source task list that names files must have a recorded
  save (a mutation record) of one of them — a directory it names counts for any file
  below it, a glob for any file it matches;
- the intent, when it is COMPLETED in the spec or every required task is ticked, must
  have a recorded save of some file its ``owned_scope`` owns.

The task list is read as it is now, not as it was at import: the tool keeps ticking boxes
after the import, and those ticks are what must be backed by changes. Saves are looked up
in the ledger index (records without a range, pure deletions in a file without
definitions, are not in it and do not count).
"""

from __future__ import annotations

from pathlib import Path

import pathspec

from intent_ls.check.answers import Answers
from intent_ls.check.findings import DONE_WITHOUT_CHANGE, Finding
from intent_ls.importers.model import SourceError, Task
from intent_ls.importers.plan import tool_of_source
from intent_ls.scope.index import ScopeIndex
from intent_ls.spec.load import SPEC_RELPATH
from intent_ls.spec.model import Intent, Status
from intent_ls.workspace.discover import Workspace


def _named(paths: tuple[str, ...], changed: set[str]) -> bool:
    spec = pathspec.GitIgnoreSpec.from_lines(paths)
    return any(spec.match_file(path) for path in changed)


def done_without_change(ws: Workspace, index: Answers) -> list[Finding]:
    changed = index.mutated_paths()
    findings: list[Finding] = []
    scope = ws.scope()
    for intent in ws.spec().intents:
        if intent.source is not None:
            findings += _of_intent(ws.root, intent, intent.source, changed, scope)
    return findings


def _of_intent(
    root: Path, intent: Intent, source: str, changed: set[str], scope: ScopeIndex
) -> list[Finding]:
    """The intent's ticked tasks and its done state against what recorded saves
    changed."""
    tasks, problem = _tasks(root, intent.id, source)
    findings = [] if problem is None else [problem]
    for task in tasks:
        if task.done and task.paths and not _named(task.paths, changed):
            findings.append(_task_finding(intent, task))
    required = [t for t in tasks if not t.optional]
    done = intent.status is Status.COMPLETED or (required and all(t.done for t in required))
    if done and not any(scope.owns(intent.id, path) for path in changed):
        findings.append(_intent_finding(intent))
    return findings


def _tasks(root: Path, intent_id: str, source: str) -> tuple[list[Task], Finding | None]:
    tool = tool_of_source(intent_id, source)
    if tool is None or not (root / source).is_file():
        return [], None
    try:
        return tool.read_tasks(root, source), None
    except SourceError as exc:
        return [], Finding(
            DONE_WITHOUT_CHANGE,
            exc.path,
            exc.line,
            exc.line,
            f"cannot read the task list ({exc.message}), so its ticks were not checked",
        )


def _task_finding(intent: Intent, task: Task) -> Finding:
    named = ", ".join(task.paths)
    return Finding(
        DONE_WITHOUT_CHANGE,
        intent.source or SPEC_RELPATH,
        task.line,
        task.line,
        f"task {task.id} of {intent.id} is marked done, but no recorded save changed "
        f"{named}: make the change under the intent, or untick the task",
    )


def _intent_finding(intent: Intent) -> Finding:
    line = intent.span.start.line + 1
    return Finding(
        DONE_WITHOUT_CHANGE,
        SPEC_RELPATH,
        line,
        line,
        f"intent {intent.id} ({intent.name}) is done, but no recorded save changed a file "
        f"its owned_scope owns ({', '.join(intent.patterns) or 'none'}): make the change "
        "under the intent, or set it back to IN_PROGRESS",
        owners=(intent.id,),
    )
