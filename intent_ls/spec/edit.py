"""Text edits to ``active_intents.yaml`` that keep the human's formatting.

Round-tripping the spec through a YAML dumper would drop comments, reorder keys and
re-quote strings, so scope changes are made as one small text insertion located with the
YAML node marks instead: a new ``- glob`` line under a block list (same indentation and
dash spacing as its last item), ``, glob`` before the ``]`` of a flow list, or ``[glob]``
where the value was empty. The same function serves the editor's "Add to scope" code
action (as a WorkspaceEdit) and any front door that writes the file directly.
"""

from __future__ import annotations

import json
import re

import attrs
import yaml

from intent_ls.spec.globs import check_glob
from intent_ls.spec.model import Position, Span

_GLOB_SPECIAL = re.compile(r"([*?\[\]\\!#])")


class SpecEditError(ValueError):
    """The spec cannot be edited as asked (unparsable text, unknown intent, ...)."""


@attrs.frozen
class TextEdit:
    """Replace ``span`` (0-based lines, code-point columns) with ``new_text``."""

    span: Span
    new_text: str


def glob_for_path(rel: str) -> str:
    """The owned_scope glob matching exactly one workspace-relative file.

    Glob metacharacters are escaped so a file named ``a[1].py`` stays literal, and a
    path without a slash gets a leading ``/``: gitignore would otherwise match that
    name in every directory.
    """
    rel = rel.strip("/")
    if not rel:
        raise SpecEditError("an empty path cannot be added to a scope")
    escaped = _GLOB_SPECIAL.sub(r"\\\1", rel)
    if escaped.startswith("~"):
        escaped = "\\" + escaped  # else it reads as a home-relative path
    if "/" in rel:
        return escaped
    anchored = "/" + escaped
    if check_glob(anchored) is not None:
        # ``/tmp`` looks like an absolute path; ``/[t]mp`` is the same single file.
        anchored = f"/[{escaped[0]}]{escaped[1:]}"
    return anchored


def add_to_scope(text: str, intent_id: str, pattern: str) -> TextEdit | None:
    """The edit adding ``pattern`` to ``intent_id``'s owned_scope; None if already there."""
    scope = _scope_node(_compose(text), intent_id)
    lines = text.splitlines()
    newline = _newline(text)
    if isinstance(scope, yaml.SequenceNode):
        if any(isinstance(i, yaml.ScalarNode) and i.value == pattern for i in scope.value):
            return None
        if scope.flow_style:
            return _flow_insert(scope, pattern)
        return _block_insert(scope, pattern, lines, newline, text.endswith(("\n", "\r")))
    if isinstance(scope, yaml.ScalarNode):
        if scope.tag.endswith(":null"):
            # ``owned_scope:`` with nothing after the colon still needs a space before ``[``.
            lead = " " if _implicit(scope) else ""
            return TextEdit(_span(scope), f"{lead}[{_flow(pattern)}]")
        if scope.value == pattern:
            return None
        original = _source(lines, scope)
        return TextEdit(_span(scope), f"[{original}, {_flow(pattern, scope.style)}]")
    raise SpecEditError(f"the owned_scope of '{intent_id}' is not a list of globs")


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """``text`` with non-overlapping ``edits`` applied (positions refer to ``text``)."""
    for edit in sorted(edits, key=lambda e: e.span.start, reverse=True):
        text = apply_edit(text, edit)
    return text


def apply_edit(text: str, edit: TextEdit) -> str:
    """``text`` with ``edit`` applied; positions past a line's end clamp to it."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(pos: Position) -> int:
        if pos.line >= len(starts) - 1:
            return len(text)
        line_text = text[starts[pos.line] : starts[pos.line + 1]].rstrip("\r\n")
        return starts[pos.line] + min(pos.column, len(line_text))

    return text[: offset(edit.span.start)] + edit.new_text + text[offset(edit.span.end) :]


def set_status(text: str, intent_id: str, status: str, updated_at: str) -> list[TextEdit]:
    """The edits giving ``intent_id`` ``status`` and ``updated_at``: each value is replaced
    in place (keeping its quotes), and a missing key gets its own line, indented like
    the intent's other keys, after the ``status`` (else ``id``) line."""
    intent = _intent_node(_compose(text), intent_id)
    if intent.flow_style:
        raise SpecEditError(f"intent '{intent_id}' is written as a flow mapping ({{...}})")
    keys = {
        str(k.value): (k, v) for k, v in reversed(intent.value) if isinstance(k, yaml.ScalarNode)
    }
    edits: list[TextEdit] = []
    missing: list[str] = []
    for key, value in (("status", status), ("updated_at", updated_at)):
        if key not in keys:
            missing.append(f"{key}: {json.dumps(value) if key == 'updated_at' else value}")
            continue
        node = keys[key][1]
        if not isinstance(node, yaml.ScalarNode) or _implicit(node):
            raise SpecEditError(f"the '{key}' of '{intent_id}' is not a plain value")
        edits.append(TextEdit(_span(node), _scalar(value, node.style)))
    if missing:
        key_node, value_node = _anchor(keys, intent_id, missing[0])
        edits.append(_lines_after(text, key_node, value_node, missing))
    return sorted(edits, key=lambda e: e.span.start)


def _anchor(
    keys: dict[str, tuple[yaml.Node, yaml.Node]], intent_id: str, first_missing: str
) -> tuple[yaml.Node, yaml.Node]:
    """The key and value of the line new keys go after: ``status``, else the id."""
    anchor_key = (
        "status" if "status" in keys else next((k for k in ("id", "intent_id") if k in keys), None)
    )
    if anchor_key is None:
        raise SpecEditError(f"intent '{intent_id}' has no 'id' line to add '{first_missing}' after")
    return keys[anchor_key]


def _lines_after(
    text: str, key_node: yaml.Node, value_node: yaml.Node, new_lines: list[str]
) -> TextEdit:
    """The edit inserting ``new_lines`` after the entry of ``key_node``, indented like it."""
    lines = text.splitlines()
    newline = _newline(text)
    indent = " " * key_node.start_mark.column
    end_line = value_node.end_mark.line
    if value_node.end_mark.column == 0 and end_line > key_node.start_mark.line:
        end_line -= 1
    block = "".join(indent + m + newline for m in new_lines)
    if end_line + 1 < len(lines) or text.endswith(("\n", "\r")):
        at = Position(end_line + 1, 0)
        return TextEdit(Span(at, at), block)
    at = Position(end_line, len(lines[end_line]))
    return TextEdit(Span(at, at), newline + block[: -len(newline)])


def _compose(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise SpecEditError(f"the spec is not valid YAML: {exc}") from None


def _newline(text: str) -> str:
    """The line ending ``text`` uses (CRLF if any line has it)."""
    return "\r\n" if "\r\n" in text else "\n"


def _scalar(value: str, quote: str | None) -> str:
    if quote == "'" and not _NOT_PRINTABLE.search(value):
        return "'" + value.replace("'", "''") + "'"
    if quote is not None:
        return _double(value)
    return value


#: What YAML may not hold raw in a document (outside its printable set: C1 controls,
#: DEL, U+FFFE, U+FFFF, lone surrogates) or reads as a line break inside quotes (NEL,
#: U+2028, U+2029); a double-quoted scalar holds each escaped.
_NOT_PRINTABLE = re.compile(
    "[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


def _double(value: str) -> str:
    """``value`` double-quoted: JSON's form, which YAML reads the same, with what YAML
    may not hold raw escaped (a file named with U+FFFE would otherwise break the spec)."""
    return _NOT_PRINTABLE.sub(
        lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False)
    )


def _intent_node(root: yaml.Node | None, intent_id: str) -> yaml.MappingNode:
    if not isinstance(root, yaml.MappingNode):
        raise SpecEditError("the spec has no 'active_intents:' mapping")
    top = _entries(root)
    intents = top.get("active_intents") or top.get("intents")
    if not isinstance(intents, yaml.SequenceNode):
        raise SpecEditError("the spec has no 'active_intents:' list")
    for item in intents.value:
        if not isinstance(item, yaml.MappingNode):
            continue
        fields = _entries(item)
        ident = fields.get("id") or fields.get("intent_id")
        if isinstance(ident, yaml.ScalarNode) and ident.value == intent_id:
            return item
    raise SpecEditError(f"no intent '{intent_id}' in the spec")


def _scope_node(root: yaml.Node | None, intent_id: str) -> yaml.Node:
    fields = _entries(_intent_node(root, intent_id))
    if "owned_scope" in fields:
        return fields["owned_scope"]
    legacy = fields.get("scope")
    if isinstance(legacy, yaml.MappingNode) and "paths" in _entries(legacy):
        return _entries(legacy)["paths"]
    raise SpecEditError(f"intent '{intent_id}' has no owned_scope list to extend")


def _entries(node: yaml.MappingNode) -> dict[str, yaml.Node]:
    """Key → value; the first occurrence wins, like the validator reports it."""
    out: dict[str, yaml.Node] = {}
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode):
            out.setdefault(str(key.value), value)
    return out


def _span(node: yaml.Node) -> Span:
    return Span(
        Position(node.start_mark.line, node.start_mark.column),
        Position(node.end_mark.line, node.end_mark.column),
    )


def _implicit(node: yaml.Node) -> bool:
    return node.start_mark.index == node.end_mark.index


def _source(lines: list[str], node: yaml.Node) -> str:
    start, end = node.start_mark, node.end_mark
    if start.line == end.line:
        return lines[start.line][start.column : end.column]
    return _flow(str(node.value))


def _flow_insert(seq: yaml.SequenceNode, pattern: str) -> TextEdit:
    if seq.value:
        last_item = seq.value[-1]
        quote = last_item.style if isinstance(last_item, yaml.ScalarNode) else None
        last = last_item.end_mark
        at = Position(last.line, last.column)
        return TextEdit(Span(at, at), f", {_flow(pattern, quote)}")
    # ``[]``: the closing bracket sits just before the node's end mark.
    end = seq.end_mark
    at = Position(end.line, end.column - 1)
    return TextEdit(Span(at, at), _flow(pattern))


def _block_insert(
    seq: yaml.SequenceNode, pattern: str, lines: list[str], newline: str, terminated: bool
) -> TextEdit:
    last = seq.value[-1]
    line_no = last.start_mark.line
    item_col = last.start_mark.column
    head = lines[line_no][:item_col]
    dash = head.rstrip()
    if not dash.endswith("-"):
        raise SpecEditError("cannot find the '-' of the last owned_scope entry")
    dash_col = len(dash) - 1
    prefix = " " * dash_col + "-" + " " * max(1, item_col - dash_col - 1)
    quote = last.style if isinstance(last, yaml.ScalarNode) else None
    item = prefix + _block(pattern, quote)
    end_line = last.end_mark.line
    if last.end_mark.column == 0 and end_line > line_no:
        end_line -= 1  # block scalars end at the start of the following line
    if end_line + 1 < len(lines) or terminated:
        at = Position(end_line + 1, 0)
        return TextEdit(Span(at, at), item + newline)
    at = Position(end_line, len(lines[end_line]))
    return TextEdit(Span(at, at), newline + item)


def _plain_ok(value: str, wrap: str) -> bool:
    try:
        return yaml.safe_load(wrap.format(value)) == [value]
    except yaml.YAMLError:
        return False


def _block(pattern: str, quote: str | None) -> str:
    return _styled(pattern, quote, "- {}")


def _flow(pattern: str, quote: str | None = None) -> str:
    return _styled(pattern, quote, "[{}]")


def _styled(pattern: str, quote: str | None, wrap: str) -> str:
    """``pattern`` quoted the way its neighbour is, plain only where YAML reads it back."""
    if quote == "'" and not _NOT_PRINTABLE.search(pattern):
        return "'" + pattern.replace("'", "''") + "'"
    if quote is not None or not _plain_ok(pattern, wrap):
        return _double(pattern)
    return pattern
