"""An import as a plan: what each tool's files propose, what the spec gains, the diff."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

import attrs

from intent_ls.importers import kiro, openspec, speckit
from intent_ls.importers.common import feature_dirs
from intent_ls.importers.model import ProposedIntent, Task
from intent_ls.importers.spec_merge import append_intents, existing_keys
from intent_ls.spec.edit import SpecEditError
from intent_ls.spec.load import SPEC_RELPATH, load_spec_text
from intent_ls.spec.model import Severity, Status


@attrs.frozen
class Tool:
    name: str
    default_dir: str
    markers: tuple[str, ...]
    read_feature: Callable[[Path, str], ProposedIntent]
    read_tasks: Callable[[Path, str], list[Task]]
    #: Subdirectories of ``default_dir`` that hold no feature (OpenSpec's archive).
    skip: tuple[str, ...] = ()


TOOLS: dict[str, Tool] = {
    "spec-kit": Tool(
        "spec-kit", speckit.DEFAULT_DIR, speckit.MARKERS, speckit.read_feature, speckit.read_tasks
    ),
    "openspec": Tool(
        "openspec",
        openspec.DEFAULT_DIR,
        openspec.MARKERS,
        openspec.read_feature,
        openspec.read_tasks,
        openspec.SKIP,
    ),
    "kiro": Tool("kiro", kiro.DEFAULT_DIR, kiro.MARKERS, kiro.read_feature, kiro.read_tasks),
}


#: The id prefix each importer gives its intents.
_PREFIXES = {"SPECKIT-": "spec-kit", "OPENSPEC-": "openspec", "KIRO-": "kiro"}


def tool_of_source(intent_id: str, source: str) -> Tool | None:
    """The tool whose task list ``source`` is: by the intent's id (an import from another
    PATH keeps its prefix), else by where the file sits (an intent renamed by hand keeps
    its source); None when ``source`` is no task list."""
    if source.rpartition("/")[2] != "tasks.md":
        return None
    for prefix, name in _PREFIXES.items():
        if intent_id.startswith(prefix):
            return TOOLS[name]
    parent = source.rpartition("/")[0]
    for tool in TOOLS.values():
        if parent.rpartition("/")[0] == tool.default_dir:
            return tool
    return None


@attrs.frozen
class ImportPlan:
    proposed: tuple[ProposedIntent, ...]
    #: The proposals the spec does not have yet (by id and by source).
    added: tuple[ProposedIntent, ...]
    old_text: str
    new_text: str
    #: Things the user should know (an intent imported as DRAFT for want of paths).
    notes: tuple[str, ...]

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                self.old_text.splitlines(keepends=True),
                self.new_text.splitlines(keepends=True),
                f"a/{SPEC_RELPATH}",
                f"b/{SPEC_RELPATH}",
            )
        )


def _live_without_scope(intent: ProposedIntent) -> bool:
    return intent.status is Status.IN_PROGRESS and not intent.owned_scope


def plan_import(root: Path, tool: Tool, rel: str | None, spec_text: str) -> ImportPlan:
    """Raises :class:`~intent_ls.importers.model.SourceError` for a malformed source file,
    :class:`~intent_ls.importers.common.NothingToImport` when ``rel`` holds no feature,
    :class:`~intent_ls.spec.edit.SpecEditError` when the spec cannot take the new
    intents."""
    directories = feature_dirs(root, rel or tool.default_dir, tool.markers, tool.skip)
    proposed = [tool.read_feature(root, d) for d in directories]
    notes: list[str] = []
    ready: list[ProposedIntent] = []
    for intent in proposed:
        if _live_without_scope(intent):
            notes.append(
                f"{intent.id}: its tasks and design name no file, so it is imported as "
                "DRAFT (an IN_PROGRESS intent must own paths); add owned_scope globs"
            )
            intent = attrs.evolve(intent, status=Status.DRAFT)
        ready.append(intent)
    ids, sources = existing_keys(spec_text)
    added = [i for i in ready if i.id not in ids and i.source not in sources]
    new_text = append_intents(spec_text, added)
    _check_result(spec_text, new_text, added)
    return ImportPlan(tuple(ready), tuple(added), spec_text, new_text, tuple(notes))


def _check_result(old: str, new: str, added: list[ProposedIntent]) -> None:
    """The merged spec must read back with every new intent and no new error."""
    if not added:
        return
    before = load_spec_text(old) if old.strip() else None
    after = load_spec_text(new)
    errors = [p for p in after.problems if p.severity is Severity.ERROR]
    old_errors = (
        {(p.code, p.message) for p in before.problems if p.severity is Severity.ERROR}
        if before
        else set()
    )
    fresh = [p for p in errors if (p.code, p.message) not in old_errors]
    if fresh:
        first = fresh[0]
        raise SpecEditError(
            f"the imported intents would make the spec invalid (line "
            f"{first.span.start.line + 1}: {first.message}); nothing was written"
        )
    missing = [i.id for i in added if after.spec is None or after.spec.get(i.id) is None]
    if missing:
        raise SpecEditError(f"imported intents did not read back: {', '.join(missing)}")
