"""What the three readers share: finding feature directories, naming intents, tasks."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

from intent_ls.importers.markdown import (
    Line,
    checkboxes,
    headings,
    paths_in,
    prose,
    read_lines,
    scope_glob,
)
from intent_ls.importers.model import ProposedIntent, SourceError, Task, status_of

#: Characters an intent id keeps from a directory name (letters of any script).
_ID_CHARS = re.compile(r"[^\w.-]+")


class NothingToImport(Exception):
    """No feature or change where the tool keeps them."""


def feature_dirs(
    root: Path, rel: str, markers: tuple[str, ...], skip: tuple[str, ...] = ()
) -> list[str]:
    """``rel`` itself when it holds one of the tool's files, else its subdirectories that
    do (sorted; symlinked directories are not followed out of the workspace)."""
    base = root / rel
    if not base.is_dir() or base.is_symlink():
        raise NothingToImport(f"{rel}: no such directory")
    if any((base / m).is_file() for m in markers):
        return [rel]
    found = [
        f"{rel.rstrip('/')}/{child.name}"
        for child in sorted(base.iterdir())
        if child.is_dir()
        and not child.is_symlink()
        and child.name not in skip
        and any((child / m).is_file() for m in markers)
    ]
    if not found:
        raise NothingToImport(
            f"{rel}: no directory holding {', '.join(markers)} (is this the right tool?)"
        )
    return found


def intent_id(prefix: str, directory: str) -> str:
    """``SPECKIT-001-user-auth``; a name with nothing to keep gets a short hash of itself,
    so two such directories never share an id."""
    name = directory.rsplit("/", 1)[-1]
    kept = _ID_CHARS.sub("-", name).strip("-.")
    if not kept:
        kept = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{prefix}-{kept}"


def humanize(directory: str) -> str:
    """``001-user-auth`` → ``User auth``: a name when the files give none."""
    words = re.sub(r"^\d+[-_]", "", directory.rsplit("/", 1)[-1]).replace("-", " ")
    words = words.replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else directory


def own_documents(root: Path, directory: str) -> frozenset[str]:
    """The feature's own file names (``plan.md``, ``research.md``): a task that names
    them points at the plan, not at code."""
    base = root / directory
    return frozenset(p.name for p in base.iterdir() if p.is_file())


def read_tasks(root: Path, rel: str, task_id: re.Pattern[str], id_rule: str | None) -> list[Task]:
    """The tasks of the task list ``rel`` (see :func:`tasks_from`)."""
    ignore = own_documents(root, rel.rsplit("/", 1)[0])
    return tasks_from(rel, prose(rel, read_lines(root, rel)), ignore, task_id, id_rule)


def tasks_from(
    rel: str,
    lines: list[Line],
    ignore: frozenset[str],
    task_id: re.Pattern[str],
    id_rule: str | None,
) -> list[Task]:
    """Every task checkbox as a task. ``task_id`` matches the tool's id at the start of
    its text (group 1; a match without group 1 is a placeholder id such as spec-kit's
    ``TXXX``, and the task is named by its line); when it does not match and ``id_rule``
    is given, the file is malformed (the message is the rule)."""
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for box in checkboxes(rel, lines, task_id):
        match = task_id.match(box.text)
        if match is None and id_rule is not None:
            raise SourceError(rel, box.line.number, id_rule)
        found = (match.group(1) if match else None) or f"line {box.line.number}"
        if found in seen:
            raise SourceError(
                rel,
                box.line.number,
                f"task {found} is listed twice (first on line {seen[found]})",
            )
        seen[found] = box.line.number
        tasks.append(
            Task(
                id=found,
                text=box.text,
                done=box.done,
                started=box.started,
                optional=box.optional,
                line=box.line.number,
                paths=tuple(paths_in(box.block, ignore)),
            )
        )
    return tasks


def scope_of(path_lists: Iterable[Iterable[str]]) -> tuple[str, ...]:
    globs: list[str] = []
    for paths in path_lists:
        for path in paths:
            glob = scope_glob(path)
            if glob is not None and glob not in globs:
                globs.append(glob)
    return tuple(globs)


def design_paths(root: Path, rel: str, ignore: frozenset[str]) -> list[str]:
    """The paths a design document names, outside its code blocks (a directory tree
    drawn there is the layout, not a claim on every file)."""
    return [p for line in prose(rel, read_lines(root, rel)) for p in paths_in(line.text, ignore)]


def titled(lines: list[Line]) -> str | None:
    """The name in a ``# Feature: Name`` style first-level heading, if one has it."""
    return next((t.partition(":")[2].strip() for _, t in headings(lines, 1) if ":" in t), None)


def proposed(
    prefix: str,
    directory: str,
    name: str | None,
    tasks: list[Task],
    design: list[str],
    criteria: list[str],
    source: str,
) -> ProposedIntent:
    """One feature or change as an intent: scope from the paths its tasks and design name,
    criteria from its requirements (else its tasks; once each: spec-kit's template repeats
    ``FR-001`` under every user story), status from its checkboxes."""
    return ProposedIntent(
        id=intent_id(prefix, directory),
        name=name or humanize(directory),
        status=status_of(tuple(tasks)),
        owned_scope=scope_of([*(t.paths for t in tasks), design]),
        acceptance_criteria=tuple(dict.fromkeys(criteria or (f"{t.id} {t.text}" for t in tasks))),
        source=source,
        tasks=tuple(tasks),
    )
