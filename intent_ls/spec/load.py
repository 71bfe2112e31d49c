"""Loads ``.orchestration/active_intents.yaml`` into a :class:`~intent_ls.spec.model.Spec`.

Validation works on the YAML node graph rather than on constructed Python objects, so
every problem keeps the exact line and column of the node that caused it, and nothing
the file says is ever executed or expanded: tags are ignored, aliases are never
materialised, and depth/alias budgets are enforced on the event stream before the
composer (which is recursive) sees the document.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import yaml

from intent_ls.common.safe_io import FileTooLargeError, UnsafePathError, read_sidecar
from intent_ls.spec import globs, shape
from intent_ls.spec.location import SPEC_RELPATH
from intent_ls.spec.model import (
    Glob,
    Intent,
    Position,
    Problem,
    RepoPolicy,
    Severity,
    Span,
    Spec,
    Status,
)

MAX_SPEC_BYTES = 1024 * 1024
MAX_DEPTH = 32
MAX_ALIASES = 100
MAX_EVENTS = 200_000

# Stable problem codes: editors, agents and CI key on these strings.
YAML_SYNTAX = "yaml-syntax"
NOT_TEXT = "not-text"
FILE_TOO_LARGE = "file-too-large"
TOO_COMPLEX = "too-complex"
WRONG_TYPE = "wrong-type"
MISSING_FIELD = "missing-field"
DUPLICATE_ID = "duplicate-id"
DUPLICATE_KEY = "duplicate-key"
UNKNOWN_STATUS = "unknown-status"
UNKNOWN_KEY = "unknown-key"
INVALID_GLOB = globs.INVALID_GLOB
GLOB_ESCAPES = globs.GLOB_ESCAPES
EMPTY_SCOPE = "empty-scope"
SCOPE_CONFLICT = "scope-conflict"
EMPTY_SPEC = "empty-spec"
UNKNOWN_ACTIVE_INTENT = "unknown-active-intent"
SPEC_NOT_FOUND = "spec-not-found"
UNSAFE_PATH = "unsafe-path"

ALL_CODES = (
    YAML_SYNTAX,
    NOT_TEXT,
    FILE_TOO_LARGE,
    TOO_COMPLEX,
    WRONG_TYPE,
    MISSING_FIELD,
    DUPLICATE_ID,
    DUPLICATE_KEY,
    UNKNOWN_STATUS,
    UNKNOWN_KEY,
    INVALID_GLOB,
    GLOB_ESCAPES,
    EMPTY_SCOPE,
    SCOPE_CONFLICT,
    EMPTY_SPEC,
    UNKNOWN_ACTIVE_INTENT,
    SPEC_NOT_FOUND,
    UNSAFE_PATH,
)

_TOP_KEYS = shape.names(shape.TOP_FIELDS)
_INTENT_KEYS = shape.names(shape.INTENT_FIELDS)
_LEGACY_KEYS = shape.names(shape.LEGACY_INTENT_FIELDS)
_LIST_KEYS = shape.of_kind(shape.INTENT_FIELDS, shape.Kind.TEXT_LIST)
_POLICY_KEYS = shape.names(shape.POLICY_FIELDS)
_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
#: libyaml when available: same nodes and marks, several times faster on big specs.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class SpecResult(NamedTuple):
    spec: Spec | None
    problems: tuple[Problem, ...]

    @property
    def has_errors(self) -> bool:
        return any(p.severity is Severity.ERROR for p in self.problems)


def load_spec_file(path: Path) -> SpecResult:
    """Reads and validates a spec file; a missing or unreadable file is a problem too."""
    try:
        data = read_sidecar(path, MAX_SPEC_BYTES)
    except FileNotFoundError:
        return _fatal(SPEC_NOT_FOUND, f"no intent spec at {path}; create {SPEC_RELPATH}")
    except FileTooLargeError:
        return _too_large()
    except UnsafePathError as exc:  # a planted symlink or special file: never read
        return _fatal(UNSAFE_PATH, str(exc))
    except OSError as exc:
        return _fatal(SPEC_NOT_FOUND, f"cannot read {path}: {exc.strerror or exc}")
    return load_spec_bytes(data)


def _too_large() -> SpecResult:
    return _fatal(
        FILE_TOO_LARGE,
        f"spec is larger than {MAX_SPEC_BYTES // 1024} KiB; an intent spec is a short "
        "human-written file",
    )


def load_spec_bytes(data: bytes) -> SpecResult:
    if len(data) > MAX_SPEC_BYTES:
        return _too_large()
    if b"\0" in data:
        return _fatal(NOT_TEXT, "spec is a binary file (contains NUL bytes), not YAML")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n")
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1)
        return _fatal(
            NOT_TEXT,
            f"spec is not valid UTF-8 (byte 0x{data[exc.start]:02x})",
            Span.point(line, col),
        )
    return load_spec_text(text)


def load_spec_text(text: str) -> SpecResult:
    """Validates spec text (e.g. a live editor buffer). Never raises for bad input."""
    if len(text) > MAX_SPEC_BYTES:
        return _fatal(FILE_TOO_LARGE, f"spec is larger than {MAX_SPEC_BYTES // 1024} KiB")
    budget_problem = _check_budgets(text)
    if budget_problem:
        return SpecResult(None, (budget_problem,))
    try:
        root = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        return SpecResult(None, (_yaml_problem(exc, text),))
    except (yaml.YAMLError, RecursionError) as exc:
        return _fatal(YAML_SYNTAX, f"invalid YAML: {exc}")
    return _Validator().run(root)


def _check_budgets(text: str) -> Problem | None:
    """Bounds depth and aliases on the event stream (iterative, unlike the composer).

    libyaml (bundled with PyYAML wheels since 6.0.2/6.0.4) refuses deep nesting itself, at
    a limit of its own and before any event reaches us, so a syntax error from it is
    re-read with the pure-Python parser, which has no such limit: a spec nested too deep is
    ``too-complex`` at the same position whichever layer noticed first. The re-read is
    slow (pure Python), so it is paid only when the text before libyaml's error could
    nest past our budget at all.
    """
    problem = _first_budget_problem(text, _LOADER)
    if (
        problem is None
        or problem.code != YAML_SYNTAX
        or _LOADER is yaml.SafeLoader
        or not _may_nest_past_budget(text, problem.span.start)
    ):
        return problem
    return _first_budget_problem(text, yaml.SafeLoader) or problem


_FLOW_BRACKET = re.compile(r"[\[\]{}]")


def _may_nest_past_budget(text: str, until: Position) -> bool:
    """Counts flow brackets before ``until`` (libyaml only runs ahead in flow context)."""
    lines = text.split("\n", until.line + 1)
    end = sum(len(line) + 1 for line in lines[: until.line]) + until.column + 1
    depth = 0
    for match in _FLOW_BRACKET.finditer(text, 0, end):
        depth += 1 if match.group() in "[{" else -1
        if depth > MAX_DEPTH:
            return True
    return False


def _first_budget_problem(text: str, loader: type) -> Problem | None:
    depth = aliases = events = 0
    try:
        for event in yaml.parse(text, Loader=loader):
            events += 1
            over = None
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    over = f"document nests deeper than {MAX_DEPTH} levels"
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_ALIASES:
                    over = f"more than {MAX_ALIASES} aliases (possible alias bomb)"
            if over is None and events > MAX_EVENTS:
                over = f"document has more than {MAX_EVENTS} YAML nodes"
            if over is not None:
                return _problem(TOO_COMPLEX, over, _mark_span(event.start_mark, event.end_mark))
    except yaml.MarkedYAMLError as exc:
        return _yaml_problem(exc, text)
    except yaml.YAMLError as exc:
        return _problem(YAML_SYNTAX, f"invalid YAML: {exc}", Span.point())
    return None


def _yaml_problem(exc: yaml.MarkedYAMLError, text: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    span = Span.point(mark.line, mark.column) if mark else Span.point()
    parts = [p for p in (exc.context, exc.problem) if p]
    message = "; ".join(parts) or "invalid YAML"
    lines = text.splitlines()
    line = lines[span.start.line] if span.start.line < len(lines) else ""
    if "\t" in line[: span.start.column + 1]:
        message += " (YAML indentation must use spaces, not tabs)"
    return _problem(YAML_SYNTAX, f"YAML syntax error: {message}", span)


def _mark_span(start: yaml.Mark, end: yaml.Mark) -> Span:
    return Span(Position(start.line, start.column), Position(end.line, end.column))


def _node_span(node: yaml.Node) -> Span:
    return _mark_span(node.start_mark, node.end_mark)


def _problem(
    code: str,
    message: str,
    span: Span,
    severity: Severity = Severity.ERROR,
    related: tuple[tuple[str, Span], ...] = (),
) -> Problem:
    return Problem(code, severity, message, span, related)


def _fatal(code: str, message: str, span: Span | None = None) -> SpecResult:
    return SpecResult(None, (_problem(code, message, span or Span.point()),))


def _unwritable(text: str) -> str:
    """Why ``text`` cannot be a writable tree of ``policy.agentWritablePaths`` ("" when
    it can)."""
    if not (text.startswith("/") or text.startswith("~/")):
        return "must be an absolute path or start with '~/' (the home folder)"
    if any(ord(c) < 32 or c == "\x7f" for c in text):
        return "must not hold control characters"
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if ".." in parts:
        return "must not hold '..'"
    if parts in ([], ["~"]):
        return "would make the whole file system or home folder writable to agents"
    return ""


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null")


def _kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    tag = node.tag.rsplit(":", 1)[-1]
    return {
        "str": "a string",
        "null": "null",
        "bool": "a boolean",
        "int": "a number",
        "float": "a number",
        "timestamp": "a date",
    }.get(tag, f"a {tag}")


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    matches = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return matches[0] if matches else None


def nearest_status(value: str) -> Status | None:
    normal = value.strip().upper().replace("-", "_").replace(" ", "_")
    if normal in Status.__members__:
        return Status(normal)
    match = did_you_mean(normal, Status.__members__)
    return Status(match) if match else None


class _Validator:
    """One pass over the composed node graph, collecting problems and building intents."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(
        self,
        code: str,
        message: str,
        node_or_span: yaml.Node | Span,
        severity: Severity = Severity.ERROR,
        related: tuple[tuple[str, Span], ...] = (),
    ) -> None:
        span = node_or_span if isinstance(node_or_span, Span) else _node_span(node_or_span)
        self.problems.append(_problem(code, message, span, severity, related))

    def run(self, root: yaml.Node | None) -> SpecResult:
        if root is None or (isinstance(root, yaml.ScalarNode) and root.tag.endswith(":null")):
            self.add(
                EMPTY_SPEC,
                "spec is empty; declare intents under 'active_intents:'",
                Span.point(),
                Severity.WARNING,
            )
            return SpecResult(Spec(), tuple(self.problems))
        if not isinstance(root, yaml.MappingNode):
            self.add(
                WRONG_TYPE,
                f"spec must be a mapping with 'active_intents:', not {_kind(root)}",
                root,
            )
            return SpecResult(None, tuple(self.problems))
        top = self.mapping(root, _TOP_KEYS, "top-level key")
        legacy = "active_intents" not in top and "intents" in top
        list_key = "intents" if legacy else "active_intents"
        if "active_intents" in top and "intents" in top:
            self.add(
                UNKNOWN_KEY,
                "both 'active_intents' and legacy 'intents' present; 'intents' is ignored",
                top["intents"][0],
                Severity.WARNING,
            )
        if list_key not in top:
            self.add(MISSING_FIELD, "missing 'active_intents:' list", root)
            return SpecResult(None, tuple(self.problems))
        intents = self.dedupe(self.intent_list(list_key, top[list_key][1], legacy))
        active_id = None
        if "active_intent_id" in top:
            active_id = self.active_intent_id(top["active_intent_id"][1], intents)
        policy = self.policy(top["policy"][1]) if "policy" in top else RepoPolicy()
        spec = Spec(
            intents=tuple(intents), legacy=legacy, active_intent_id=active_id, policy=policy
        )
        return SpecResult(spec, tuple(self.problems))

    def intent_list(self, list_key: str, list_node: yaml.Node, legacy: bool) -> list[Intent]:
        """The intents of the ``active_intents`` (or legacy ``intents``) list that are
        whole; the others are problems."""
        if isinstance(list_node, yaml.ScalarNode) and list_node.tag.endswith(":null"):
            self.add(EMPTY_SPEC, f"'{list_key}' is empty", list_node, Severity.WARNING)
            return []
        if not isinstance(list_node, yaml.SequenceNode):
            self.add(WRONG_TYPE, f"'{list_key}' must be a list, not {_kind(list_node)}", list_node)
            return []
        if not list_node.value:
            self.add(EMPTY_SPEC, f"'{list_key}' is empty", list_node, Severity.WARNING)
        intents = [self.intent(item, legacy) for item in list_node.value]
        return [intent for intent in intents if intent is not None]

    def mapping(
        self, node: yaml.MappingNode, known: Iterable[str], what: str
    ) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        known = tuple(known)
        seen: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                self.add(
                    WRONG_TYPE, f"{what} must be a plain string, not {_kind(key_node)}", key_node
                )
                continue
            key = str(key_node.value)
            if key in seen:
                first = _node_span(seen[key][0])
                self.add(
                    DUPLICATE_KEY,
                    f"duplicate key '{key}' (first defined on line "
                    f"{first.start.line + 1}); the last one would silently win",
                    key_node,
                    related=(("first definition", first),),
                )
                continue
            if key not in known:
                hint = did_you_mean(key, known)
                suffix = (
                    f"; did you mean '{hint}'?" if hint else f"; known keys: {', '.join(known)}"
                )
                self.add(UNKNOWN_KEY, f"unknown {what} '{key}'{suffix}", key_node, Severity.WARNING)
                continue
            seen[key] = (key_node, value_node)
        return seen

    def string(
        self,
        field: str,
        entry: tuple[yaml.Node, yaml.Node] | None,
        required: bool,
        owner: yaml.Node,
    ) -> str | None:
        if entry is None:
            if required:
                self.add(MISSING_FIELD, f"intent is missing required field '{field}'", owner)
            return None
        node = entry[1]
        if isinstance(node, yaml.ScalarNode) and node.tag in (_STR, _TIMESTAMP):
            value = str(node.value)
            if required and not value.strip():
                self.add(MISSING_FIELD, f"'{field}' is empty", node)
                return None
            return value
        hint = (
            " (quote it: YAML reads it as a number)"
            if node.tag.endswith((":int", ":float"))
            else ""
        )
        self.add(WRONG_TYPE, f"'{field}' must be a string, not {_kind(node)}{hint}", node)
        return None

    def string_list(self, field: str, node: yaml.Node) -> list[tuple[str, yaml.Node]]:
        if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
            return []
        if isinstance(node, yaml.ScalarNode) and node.tag == _STR:
            self.add(
                WRONG_TYPE, f"'{field}' must be a list of strings; write '- {node.value}'", node
            )
            return [(str(node.value), node)]
        if not isinstance(node, yaml.SequenceNode):
            self.add(WRONG_TYPE, f"'{field}' must be a list of strings, not {_kind(node)}", node)
            return []
        items: list[tuple[str, yaml.Node]] = []
        for item in node.value:
            if isinstance(item, yaml.ScalarNode) and item.tag in (_STR, _TIMESTAMP):
                items.append((str(item.value), item))
            elif isinstance(item, yaml.ScalarNode) and not item.tag.endswith(":null"):
                self.add(
                    WRONG_TYPE,
                    f"'{field}' entries must be strings, not {_kind(item)} (quote it)",
                    item,
                )
                items.append((str(item.value), item))
            else:
                self.add(WRONG_TYPE, f"'{field}' entries must be strings, not {_kind(item)}", item)
        return items

    def intent(self, node: yaml.Node, legacy: bool) -> Intent | None:
        if not isinstance(node, yaml.MappingNode):
            self.add(WRONG_TYPE, f"each intent must be a mapping, not {_kind(node)}", node)
            return None
        fields = self.mapping(node, _INTENT_KEYS + _LEGACY_KEYS, "intent key")
        id_entry = fields.get("id") or fields.get("intent_id")
        name_entry = fields.get("name") or fields.get("title")
        intent_id = self.string("id", id_entry, True, node)
        name = self.string("name", name_entry, True, node)
        status = self.status(fields.get("status"), legacy, node)
        scope_node, scope_items = self.scope(fields, node)
        patterns = self.patterns(scope_items, status)
        if scope_node is not None and not scope_items and status is not None:
            self.empty_scope(intent_id, scope_node, status)
        lists = self.lists(fields)
        created = self.string("created_at", fields.get("created_at"), False, node)
        updated = self.string("updated_at", fields.get("updated_at"), False, node)
        source = self.string("source", fields.get("source"), False, node)
        if intent_id is None or name is None or status is None or scope_node is None:
            return None
        return Intent(
            id=intent_id,
            name=name,
            status=status,
            owned_scope=tuple(patterns),
            constraints=lists["constraints"],
            acceptance_criteria=lists["acceptance_criteria"],
            related_files=lists["related_files"],
            recent_history=lists["recent_history"],
            created_at=created,
            updated_at=updated,
            source=source,
            span=_node_span(node),
            scope_span=_node_span(scope_node),
        )

    def empty_scope(self, intent_id: str | None, scope_node: yaml.Node, status: Status) -> None:
        """An intent that owns no paths: an error while it is in progress."""
        severity = Severity.ERROR if status is Status.IN_PROGRESS else Severity.WARNING
        self.add(
            EMPTY_SCOPE,
            f"intent '{intent_id or '?'}' owns no paths; add globs to 'owned_scope'",
            scope_node,
            severity,
        )

    def lists(self, fields: dict[str, tuple[yaml.Node, yaml.Node]]) -> dict[str, tuple[str, ...]]:
        """The intent's lists of strings (constraints, acceptance criteria, ...); absent
        ones are empty."""
        return {
            key: tuple(v for v, _ in self.string_list(key, fields[key][1])) if key in fields else ()
            for key in _LIST_KEYS
        }

    def status(
        self, entry: tuple[yaml.Node, yaml.Node] | None, legacy: bool, owner: yaml.Node
    ) -> Status | None:
        if entry is None:
            if not legacy:
                self.add(
                    MISSING_FIELD,
                    f"intent has no 'status'; treated as IN_PROGRESS (one of {', '.join(Status)})",
                    owner,
                    Severity.WARNING,
                )
            return Status.IN_PROGRESS
        raw = self.string("status", entry, True, owner)
        if raw is None:
            return None
        if raw in Status.__members__:
            return Status(raw)
        guess = nearest_status(raw)
        hint = f"; did you mean '{guess.value}'?" if guess else ""
        self.add(
            UNKNOWN_STATUS, f"unknown status '{raw}'{hint} (one of {', '.join(Status)})", entry[1]
        )
        return None

    def scope(
        self, fields: dict[str, tuple[yaml.Node, yaml.Node]], owner: yaml.Node
    ) -> tuple[yaml.Node | None, list[tuple[str, yaml.Node]]]:
        if "owned_scope" in fields:
            node = fields["owned_scope"][1]
            return node, self.string_list("owned_scope", node)
        if "scope" in fields:
            node = fields["scope"][1]
            if not isinstance(node, yaml.MappingNode):
                self.add(
                    WRONG_TYPE,
                    f"legacy 'scope' must be a mapping with 'paths:', not {_kind(node)}",
                    node,
                )
                return None, []
            sub = self.mapping(node, ("paths",), "scope key")
            if "paths" not in sub:
                self.add(MISSING_FIELD, "legacy 'scope' has no 'paths' list", node)
                return None, []
            paths = sub["paths"][1]
            return paths, self.string_list("scope.paths", paths)
        self.add(MISSING_FIELD, "intent is missing required field 'owned_scope'", owner)
        return None, []

    def patterns(self, items: list[tuple[str, yaml.Node]], status: Status | None) -> list[Glob]:
        out: list[Glob] = []
        for value, node in items:
            issue = globs.check_glob(value)
            if issue:
                self.add(issue.code, f"glob '{value}': {issue.message}", node)
                continue
            out.append(Glob(value, _node_span(node)))
        return out

    def dedupe(self, intents: list[Intent]) -> list[Intent]:
        first: dict[str, Intent] = {}
        for intent in intents:
            if intent.id in first:
                prior = first[intent.id]
                self.add(
                    DUPLICATE_ID,
                    f"duplicate intent id '{intent.id}' (first declared on "
                    f"line {prior.span.start.line + 1})",
                    intent.span,
                    related=((f"first '{intent.id}'", prior.span),),
                )
            else:
                first[intent.id] = intent
        return list(first.values())

    def policy(self, node: yaml.Node) -> RepoPolicy:
        """The ``policy:`` section; a bad value is an error and leaves that setting unset
        (the default applies), never half-read."""
        if _is_null(node):
            return RepoPolicy()
        if not isinstance(node, yaml.MappingNode):
            self.add(WRONG_TYPE, f"'policy' must be a mapping, not {_kind(node)}", node)
            return RepoPolicy()
        fields = self.mapping(node, _POLICY_KEYS, "policy key")
        max_deleted = None
        if "maxDeletedLines" in fields:
            max_deleted = self.count("policy.maxDeletedLines", fields["maxDeletedLines"][1])
        protected = None
        if "protectedPaths" in fields:
            value = fields["protectedPaths"][1]
            before = len(self.problems)
            items = self.string_list("policy.protectedPaths", value)
            checked = self.patterns(items, None)
            if not _is_null(value) and len(self.problems) == before:
                protected = tuple(g.pattern for g in checked)
        agent_protected: tuple[str, ...] = ()
        if "agentProtectedPaths" in fields:
            agent_protected = self.agent_protected(fields["agentProtectedPaths"][1])
        writable: tuple[str, ...] = ()
        if "agentWritablePaths" in fields:
            writable = self.writable_paths(fields["agentWritablePaths"][1])
        max_tasks = None
        if "agentMaxTasks" in fields:
            max_tasks = self.max_tasks(fields["agentMaxTasks"][1])
        return RepoPolicy(
            max_deleted_lines=max_deleted,
            protected_paths=protected,
            agent_protected_paths=agent_protected,
            agent_writable_paths=writable,
            agent_max_tasks=max_tasks,
        )

    def writable_paths(self, value: yaml.Node) -> tuple[str, ...]:
        """``policy.agentWritablePaths``: every entry usable, or none is used (a path
        read half-way could open more than the repository asked)."""
        field = "policy.agentWritablePaths"
        before = len(self.problems)
        items = self.string_list(field, value)
        for text, node in items:
            why = _unwritable(text)
            if why:
                self.add(UNSAFE_PATH, f"'{field}' entry '{text}' {why}", node)
        if len(self.problems) != before:
            return ()
        return tuple(text for text, _ in items)

    def max_tasks(self, node: yaml.Node) -> int | None:
        found = self.count("policy.agentMaxTasks", node)
        if found is not None and found < shape.MIN_TASKS:
            self.add(
                WRONG_TYPE,
                f"'policy.agentMaxTasks' must be at least {shape.MIN_TASKS}: fewer, and ordinary "
                "commands cannot start their pipelines",
                node,
            )
            return None
        return found

    def agent_protected(self, value: yaml.Node) -> tuple[str, ...]:
        """``policy.agentProtectedPaths``: every glob valid and bounded, or none is used
        (a half-read list would protect less than the repository asked)."""
        field = "policy.agentProtectedPaths"
        before = len(self.problems)
        items = self.string_list(field, value)
        checked = self.patterns(items, None)
        for glob in checked:
            if not glob.pattern.startswith("!") and globs.literal_base(glob.pattern) is None:
                self.add(
                    INVALID_GLOB,
                    f"'{field}' glob '{glob.pattern}' must start with a literal directory or "
                    "file, anchored at the workspace root (e.g. 'deploy/**', '/Makefile'): "
                    "agents' tool calls are checked there",
                    glob.span,
                )
        if _is_null(value) or len(self.problems) != before:
            return ()
        return tuple(g.pattern for g in checked)

    def count(self, field: str, node: yaml.Node) -> int | None:
        if _is_null(node):
            return None
        if isinstance(node, yaml.ScalarNode) and node.tag == _INT:
            value = yaml.safe_load(node.value)
            if isinstance(value, int) and value >= 0:
                return value
        self.add(WRONG_TYPE, f"'{field}' must be a whole number, 0 or more", node)
        return None

    def active_intent_id(self, node: yaml.Node, intents: list[Intent]) -> str | None:
        if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
            return None
        if not (isinstance(node, yaml.ScalarNode) and node.tag == _STR):
            self.add(WRONG_TYPE, f"'active_intent_id' must be a string, not {_kind(node)}", node)
            return None
        value = str(node.value)
        ids = [i.id for i in intents]
        if value not in ids:
            hint = did_you_mean(value, ids)
            self.add(
                UNKNOWN_ACTIVE_INTENT,
                f"active_intent_id '{value}' names no intent"
                + (f"; did you mean '{hint}'?" if hint else ""),
                node,
            )
            return None
        return value
