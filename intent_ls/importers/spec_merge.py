"""New intents appended to ``active_intents.yaml`` as text: every existing byte stays.

Like :mod:`intent_ls.spec.edit`, the file is never round-tripped through a YAML dumper
(that would drop comments and re-quote strings): the new intents are one block of lines
inserted after the last intent, indented like it, located with the YAML node marks.
An intent whose id, or whose ``source``, is already in the spec is left alone, so a
re-run adds nothing.
"""

from __future__ import annotations

import json
import re

import yaml

from intent_ls.importers.model import ProposedIntent
from intent_ls.spec.edit import SpecEditError

_PLAIN = re.compile(r"[A-Za-z0-9_/][\w ./@+=-]*")
#: Plain scalars YAML 1.1 reads as numbers or dates.
_NUMBER_LIKE = re.compile(r"[-+.\d_]+(?:[eE][-+]?\d+)?|0[xob][\da-fA-F_]+|\d{4}-\d\d?-\d\d?\b.*")
_RESERVED = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"})
#: Characters a YAML reader refuses raw (or that would hide text): escaped in quotes.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")


def scalar(value: str) -> str:
    """``value`` plain when YAML reads it back as the same string, else double-quoted."""
    if (
        _PLAIN.fullmatch(value)
        and value == value.strip()
        and value.lower() not in _RESERVED
        and not _NUMBER_LIKE.fullmatch(value)
    ):
        return value
    quoted = json.dumps(value, ensure_ascii=False)
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def render_intent(intent: ProposedIntent, dash: int, newline: str) -> list[str]:
    pad = " " * (dash + 2)
    lines = [
        f"{' ' * dash}- id: {scalar(intent.id)}",
        f"{pad}name: {scalar(intent.name)}",
        f"{pad}status: {intent.status.value}",
    ]
    if intent.owned_scope:
        lines.append(f"{pad}owned_scope:")
        lines += [f"{pad}  - {scalar(g)}" for g in intent.owned_scope]
    else:
        lines.append(f"{pad}owned_scope: []")
    if intent.acceptance_criteria:
        lines.append(f"{pad}acceptance_criteria:")
        lines += [f"{pad}  - {scalar(c)}" for c in intent.acceptance_criteria]
    lines.append(f"{pad}source: {scalar(intent.source)}")
    return [line + newline for line in lines]


def _entries(node: yaml.MappingNode) -> dict[str, yaml.Node]:
    return {str(k.value): v for k, v in node.value if isinstance(k, yaml.ScalarNode)}


def existing_keys(text: str) -> tuple[set[str], set[str]]:
    """Ids and sources of the intents already in the spec (both spellings of the list)."""
    ids: set[str] = set()
    sources: set[str] = set()
    _, seq = _intents_node(text)
    if isinstance(seq, yaml.SequenceNode):
        for item in seq.value:
            if not isinstance(item, yaml.MappingNode):
                continue
            fields = _entries(item)
            for key, bucket in (("id", ids), ("intent_id", ids), ("source", sources)):
                node = fields.get(key)
                if isinstance(node, yaml.ScalarNode):
                    bucket.add(str(node.value))
    return ids, sources


def _intents_node(text: str) -> tuple[yaml.Node | None, yaml.Node | None]:
    """The key and value of ``active_intents`` (else the legacy ``intents``)."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise SpecEditError(f"the spec is not valid YAML: {exc}") from None
    if root is None:
        return None, None
    if not isinstance(root, yaml.MappingNode):
        raise SpecEditError("the spec is not a mapping with an 'active_intents' list")
    for name in ("active_intents", "intents"):
        for key, value in root.value:
            if isinstance(key, yaml.ScalarNode) and key.value == name:
                return key, value
    return None, None


def append_intents(text: str, intents: list[ProposedIntent]) -> str:
    """``text`` with ``intents`` added at the end of its intent list."""
    if not intents:
        return text
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    key, seq = _intents_node(text)
    if key is None:
        lines.append(f"active_intents:{newline}")
        dash, insert_at = 2, len(lines)
    else:
        assert seq is not None
        dash, insert_at = _insertion_point(lines, key, seq)
    block: list[str] = []
    for intent in intents:
        block += render_intent(intent, dash, newline)
    return "".join(lines[:insert_at] + block + lines[insert_at:])


def _insertion_point(lines: list[str], key: yaml.Node, seq: yaml.Node) -> tuple[int, int]:
    """The dash column and the line index at which new intents go into the list ``seq``
    (an empty one is emptied of its ``[]`` in ``lines``)."""
    if _is_empty(seq):
        at = key.start_mark.line
        if seq.start_mark.line == at and seq.end_mark.column > seq.start_mark.column:
            line = lines[at]
            body = line.rstrip("\r\n")
            kept = body[: seq.start_mark.column].rstrip() + body[seq.end_mark.column :]
            lines[at] = kept + line[len(body) :]
        return key.start_mark.column + 2, at + 1
    if isinstance(seq, yaml.SequenceNode) and not seq.flow_style and seq.value:
        last = seq.value[-1]
        dash = _dash_column(lines, last)
        return dash, _end_of_item(lines, last, dash)
    raise SpecEditError(
        f"'{key.value}' is not a block list ('- id: …' items): write it as one to import"
    )


def _is_empty(seq: yaml.Node) -> bool:
    """``active_intents:`` with nothing, or ``active_intents: []``."""
    return (isinstance(seq, yaml.ScalarNode) and seq.tag.endswith(":null")) or (
        isinstance(seq, yaml.SequenceNode) and bool(seq.flow_style) and not seq.value
    )


def _dash_column(lines: list[str], item: yaml.Node) -> int:
    line = lines[item.start_mark.line]
    dash = line.rfind("-", 0, item.start_mark.column)
    if dash < 0:
        raise SpecEditError("cannot find the '-' of the last intent")
    return dash


def _end_of_item(lines: list[str], item: yaml.Node, dash: int) -> int:
    """The line after the item's last line of content, or of a comment indented under
    it; a comment at the list's own indentation introduces what follows, so it stays
    after the inserted intents."""
    end = item.end_mark.line if item.end_mark.column == 0 else item.end_mark.line + 1
    end = min(end, len(lines))
    last = item.start_mark.line
    for n in range(item.start_mark.line, end):
        stripped = lines[n].strip()
        if not stripped:
            continue
        indent = len(lines[n]) - len(lines[n].lstrip())
        if stripped.startswith("#") and indent <= dash:
            continue
        last = n
    return last + 1
