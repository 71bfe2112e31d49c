"""The server's settings: one typed, defaulted attrs tree under the ``intentLs`` section.

Settings arrive as untyped JSON from two places (``initializationOptions`` at start-up,
``workspace/configuration`` afterwards). Each key is checked on its own against the tree
(camelCase names, strict types through one cattrs converter, ranges): a typo such as
``extraIgnore`` is reported with the nearest valid key instead of silently doing
nothing, and a bad key keeps its default without costing any other setting, so a bad
setting never stops governance.
"""

from __future__ import annotations

import difflib
import enum
import re
from typing import Any, Literal

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, override

from intent_ls.policy import approvals
from intent_ls.policy.judge import PolicyConfig
from intent_ls.spec.model import Spec

SECTION = "intentLs"


class SeverityOption(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFORMATION = "information"
    HINT = "hint"
    OFF = "off"


@attrs.define
class Contributor:
    """Who is editing, for the Agent Trace records (``contributor.type``).

    ``unknown`` by default: a language server sees text changes, not who produced them
    (keystrokes, an accepted AI completion and an agent editing through the editor all
    arrive as the same didChange); see the README.
    """

    type: Literal["human", "ai", "mixed", "unknown"] = "unknown"
    name: str | None = None
    model_id: str | None = None

    def author(self) -> approvals.Contributor:
        """Who wrote a saved change, as its trace record says."""
        return approvals.Contributor(self.type, self.model_id)

    def approver(self) -> approvals.Contributor:
        """Who approved a verdict: ``unknown`` becomes ``human``, since an approval is a
        click on a quick fix or a dialog, i.e. a person's decision."""
        kind = "human" if self.type == "unknown" else self.type
        return approvals.Contributor(kind, self.model_id)


@attrs.define
class LedgerOptions:
    """Writing ``.orchestration/agent_trace.jsonl``."""

    #: fsync after each append (durable on power loss; off trades that for speed).
    fsync: bool = True
    #: Seconds after the last append before ``intent_map.md`` is regenerated.
    map_delay: float = 1.0


@attrs.define
class CodeLensOptions:
    enabled: bool = True
    #: ``{intents}`` (comma-separated ids, or "no intent"), ``{changes}`` ("3 changes"),
    #: ``{count}`` (3) and ``{last}`` (timestamp of the last change).
    format: str = "{intents} · {changes}"


@attrs.define
class DestructiveOptions:
    """What counts as a destructive edit (besides deleted definitions)."""

    #: More net deleted lines than this in one change is destructive. None: the
    #: repository's ``policy.maxDeletedLines`` (20 unless set); a number can only lower it.
    max_deleted_lines: int | None = None
    #: Gitignore-style globs whose every edit needs approval, on top of the repository's
    #: ``policy.protectedPaths`` (the built-in list unless set; see
    #: intent_ls/scope/protected.py). They add protection, never lift it.
    protected_paths: tuple[str, ...] | None = None


@attrs.define
class Config:
    #: Per-code severity override, e.g. ``{"out-of-scope": "warning", "empty-scope": "off"}``.
    severity: dict[str, SeverityOption] = attrs.field(factory=dict)
    contributor: Contributor = attrs.field(factory=Contributor)
    #: Extra gitignore-style globs never governed, on top of ``.intentignore``.
    extra_ignores: tuple[str, ...] = ()
    #: Seconds between checks of the spec, ``.intentignore``, the ledger and open
    #: documents on disk when the client cannot watch files for the server.
    poll_interval: float = 1.0
    ledger: LedgerOptions = attrs.field(factory=LedgerOptions)
    code_lens: CodeLensOptions = attrs.field(factory=CodeLensOptions)
    destructive: DestructiveOptions = attrs.field(factory=DestructiveOptions)
    #: Seconds of quiet after an edit before the full analysis (destructive edits,
    #: stale files, unresolved verdicts of earlier saves) runs; see docs/server.md.
    analysis_delay: float = 0.15

    def policy(self, spec: Spec) -> PolicyConfig:
        """The repository's policy, made stricter by these settings (never looser)."""
        d = self.destructive
        return PolicyConfig.of(spec).stricter(d.max_deleted_lines, d.protected_paths)


def _camel(name: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)


def _make_converter() -> cattrs.Converter:
    converter = cattrs.Converter(forbid_extra_keys=True)

    def camel_hook(cls: type) -> Any:
        overrides = {a.name: override(rename=_camel(a.name)) for a in attrs.fields(cls)}
        return make_dict_structure_fn(cls, converter, **overrides)

    converter.register_structure_hook_factory(attrs.has, camel_hook)

    def strict_str(value: Any, _: type) -> str:
        if not isinstance(value, str):
            raise TypeError(f"expected a string, got {type(value).__name__} {value!r}")
        return value

    def strict_float(value: Any, _: type) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"expected a number, got {type(value).__name__} {value!r}")
        return float(value)

    def strict_bool(value: Any, _: type) -> bool:
        if not isinstance(value, bool):
            raise TypeError(f"expected true or false, got {type(value).__name__} {value!r}")
        return value

    def strict_int(value: Any, _: type) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"expected an integer, got {type(value).__name__} {value!r}")
        return value

    def strict_strings(value: Any, _: type) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise TypeError(f"expected a list of strings, got {type(value).__name__} {value!r}")
        return tuple(strict_str(v, str) for v in value)

    def severity(value: Any, _: type) -> SeverityOption:
        try:
            return SeverityOption(value)
        except ValueError:
            choices = ", ".join(SeverityOption)
            raise ValueError(f"severity {value!r} is not one of {choices}") from None

    converter.register_structure_hook(SeverityOption, severity)
    converter.register_structure_hook(str, strict_str)
    converter.register_structure_hook(float, strict_float)
    converter.register_structure_hook(bool, strict_bool)
    converter.register_structure_hook(int, strict_int)
    converter.register_structure_hook_func(lambda t: t == tuple[str, ...], strict_strings)
    return converter


_CONVERTER = _make_converter()
for _cls in (Config, Contributor, LedgerOptions, CodeLensOptions, DestructiveOptions):
    attrs.resolve_types(_cls)


def section_of(raw: Any) -> Any:
    """The ``intentLs`` object, whether given bare or wrapped as ``{"intentLs": {...}}``."""
    if isinstance(raw, dict) and SECTION in raw:
        return raw[SECTION]
    return raw


def merged(base: Any, override: Any) -> Any:
    """``override``'s keys win over ``base``'s (workspace settings over start-up options)."""
    base, override = section_of(base), section_of(override)
    if isinstance(base, dict) and isinstance(override, dict):
        return {**base, **override}
    return base if override is None else override


def parse_config(raw: Any) -> tuple[Config, str | None]:
    """Settings from client JSON, and a user-facing message about what was rejected.

    ``raw`` may be the ``intentLs`` object itself or a mapping holding it under
    ``intentLs`` (what editors put in ``initializationOptions``); ``None`` means defaults.
    A key that is unknown or invalid costs only itself (it keeps its default, and the
    message names it, with the nearest valid key for a typo); every valid key is kept.
    """
    config, problems = parse_settings(raw)
    if not problems:
        return config, None
    if config == Config() and not isinstance(section_of(raw), dict):
        return config, problems[0]
    return config, f"invalid {SECTION} settings: {'; '.join(problems)}; those keep their defaults"


def parse_settings(raw: Any) -> tuple[Config, list[str]]:
    raw = section_of(raw)
    if raw is None:
        return Config(), []
    if not isinstance(raw, dict):
        return Config(), [f"{SECTION} settings must be an object, got {type(raw).__name__}"]
    problems: list[str] = []
    config = _structure(Config, raw, SECTION, problems)
    _reset_out_of_range(config, problems)
    return config, problems


#: Keys accepted besides the camelCase name: Agent Trace spells the model ``model_id``.
_ALIASES: dict[type, dict[str, str]] = {Contributor: {"model_id": "modelId"}}


def _structure(cls: type, raw: dict[str, Any], path: str, problems: list[str]) -> Any:
    fields = {_camel(a.name): a for a in attrs.fields(cls)}
    aliases = _ALIASES.get(cls, {})
    values: dict[str, Any] = {}
    for key, value in raw.items():
        where = f"{path}.{key}"
        field = fields.get(aliases.get(key, key)) if isinstance(key, str) else None
        if field is None:
            near = difflib.get_close_matches(str(key), [*fields, *aliases], n=1, cutoff=0.6)
            hint = f" (did you mean {path}.{near[0]}?)" if near else ""
            problems.append(f"unknown setting {where}{hint}")
            continue
        kind = field.type
        if isinstance(kind, type) and attrs.has(kind):
            if not isinstance(value, dict):
                problems.append(f"expected an object, got {type(value).__name__} @ {where}")
                continue
            values[field.name] = _structure(kind, value, where, problems)
        elif field.name == "severity" and isinstance(value, dict):
            levels = {}
            for code, level in value.items():
                parsed = _leaf(level, SeverityOption, f"{where}.{code}", problems)
                if parsed is not _INVALID:
                    levels[code] = parsed
            values[field.name] = levels
        elif (leaf := _leaf(value, kind, where, problems)) is not _INVALID:
            values[field.name] = leaf
    return cls(**values)


_INVALID = object()


def _leaf(value: Any, kind: Any, where: str, problems: list[str]) -> Any:
    try:
        return _CONVERTER.structure(value, kind)
    except Exception as exc:
        problems.extend(cattrs.transform_error(exc, path=where, format_exception=_why))
        return _INVALID


def _reset_out_of_range(config: Config, problems: list[str]) -> None:
    """Puts back the default of each setting whose value is out of range."""
    defaults = Config()
    if config.poll_interval <= 0:
        problems.append("pollInterval must be > 0")
        config.poll_interval = defaults.poll_interval
    if config.analysis_delay < 0:
        problems.append("analysisDelay must be >= 0")
        config.analysis_delay = defaults.analysis_delay
    if config.ledger.map_delay < 0:
        problems.append("ledger.mapDelay must be >= 0")
        config.ledger.map_delay = defaults.ledger.map_delay
    limit = config.destructive.max_deleted_lines
    if limit is not None and limit < 0:
        problems.append("destructive.maxDeletedLines must be >= 0")
        config.destructive.max_deleted_lines = defaults.destructive.max_deleted_lines
    try:
        config.code_lens.format.format(intents="", changes="", count=0, last="")
    except (KeyError, IndexError, ValueError) as exc:
        problems.append(
            f"codeLens.format is not a valid format ({exc!r}); "
            "use {intents}, {changes}, {count}, {last}"
        )
        config.code_lens.format = defaults.code_lens.format


def _why(exc: BaseException, _: type | None) -> str:
    if isinstance(exc, KeyError):
        return "required field missing"
    return str(exc) or type(exc).__name__
