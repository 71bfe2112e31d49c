"""The fast path: a ledger line in our writer's own shape read without json.loads.

Our own lines are canonical JSON of one known shape, so one anchored regex reads the
fields the index needs without building the record, several times faster than
json.loads plus :func:`~intent_ls.ledger.index.rows.extract_rows`. A line with a
backslash takes the slow path, so every `"` is a string delimiter and strings can be
matched as `"[^"]*"` (the one form sre scans at memchr-like speed; a character class is
three times slower). The grammar pins every key the index reads and accepts only JSON
around them; it does not check what it skips (hash digits, control characters inside
strings), which only a damaged line has and which `trace verify` reports. It runs on the
decoded line, which checks the UTF-8 once and yields the captured fields as str without
further decoding.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

_S = r'"[^"]*"'
_C = r'"([^"]*)"'
_OPT = r'(?:"([^"]*)"|null)'
_INT = r"-?(?:0|[1-9][0-9]*)"
_NUM = _INT + r"(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
_SCALAR = rf"(?:{_S}|{_NUM}|true|false|null)"
_ARRAY = rf"\[(?:{_SCALAR}(?:,{_SCALAR})*)?\]"
_VALUE1 = rf"(?:{_SCALAR}|{_ARRAY})"
_OBJECT1 = rf"\{{(?:{_S}:{_VALUE1}(?:,{_S}:{_VALUE1})*)?\}}"
_VALUE2 = rf"(?:{_VALUE1}|{_OBJECT1})"
_OBJECT2 = rf"\{{(?:{_S}:{_VALUE2}(?:,{_S}:{_VALUE2})*)?\}}"
#: verdicts and approvals: objects nested at most twice (verdict details are flat).
_OBJECTS = rf"\[(?:{_OBJECT2}(?:,{_OBJECT2})*)?\]"


def _range(prefix: str) -> str:
    return rf'\{{"content_hash":"sha256:{prefix}[^"]*","end_line":{_INT},"start_line":{_INT}\}}'


def _node(prefix: str, string: str) -> str:
    return (
        rf'\{{"content_hash":"sha256:{prefix}[^"]*","end_line":{_INT},"kind":{string},'
        rf'"name":{string},"path":{string},"start_line":{_INT}\}}'
    )


def _list(item: str) -> str:
    return rf"((?:{item}(?:,{item})*)?)"


_HEX16 = "[0-9a-f]{16}"
#: Below this many bytes to index, json.loads costs less than compiling the fast path's
#: grammar (about 12 ms, which the fast path wins back after some 3,000 lines): an agent
#: hook catching up with the few records written since its last call never compiles it.
FAST_MIN = 4 * 1024 * 1024


_FindAll = Callable[[str], list[Any]]


@cache
def _grammar() -> tuple[Callable[[str], re.Match[str] | None], _FindAll, _FindAll]:
    """The fast path's matchers (line, ranges, nodes), compiled on first use."""
    line = re.compile(
        rf'\{{"files":\[\{{"conversations":\[\{{"contributor":\{{(?:"model_id":{_C},)?'
        rf'"type":{_C}\}},"ranges":\[{_list(_range(_HEX16))}\]'
        r'(?:,"related":\[\{"type":"specification","url":"urn:intent:([^"]*)"\}\])?\}\],'
        rf'"path":{_C}\}}\],"id":{_S},"metadata":\{{"intent_ls":\{{'
        rf'(?:"after_hash":{_S},)?"approvals":{_OBJECTS},'
        rf'"ast_nodes":\[{_list(_node(_HEX16, _S))}\],'
        rf'(?:"before_hash":{_S},)?"deleted_lines":{_INT},"digest":"sha256:({_HEX16})[^"]*",'
        rf'"intent_id":{_OPT},"kind":{_OPT},"mutation_class":{_OPT},"prev":{_S},'
        rf'"session_id":(?:{_S}|null),"verdicts":{_OBJECTS}\}}\}},"timestamp":{_C},'
        rf'"tool":\{{"name":{_S},"version":{_S}\}},'
        rf'(?:"vcs":\{{"revision":{_S},"type":{_S}\}},)?"version":{_S}\}}'
    ).fullmatch
    ranges = re.compile(_range(f"({_HEX16})")).findall
    nodes = re.compile(_node(f"({_HEX16})", _C)).findall
    return line, ranges, nodes


_TOP = 1 << 63
_WRAP = 1 << 64


def fast_rows(
    seq: int, offset: int, line: bytes
) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]] | None:
    """What ``extract_rows(seq, offset, json.loads(line))`` returns, read without building
    the record; None when the line is not in the shape the fast path knows (including
    bytes that are not strict UTF-8: json.loads decides about those)."""
    try:
        text = line.decode()
    except UnicodeDecodeError:
        return None
    if "\\" in text:
        return None
    full_line, ranges_of, nodes_of = _grammar()
    match = full_line(text)
    if match is None:
        return None
    model, ctype, ranges, urn_intent, path, nodes, lkey, intent, kind, mclass, ts = match.groups()
    touches: list[tuple[Any, ...]] = []
    for prefix in ranges_of(ranges):
        key = int(prefix, 16)
        touches.append((seq, path, None, None, key - _WRAP if key >= _TOP else key))
    for prefix, nkind, name, npath in nodes_of(nodes):
        key = int(prefix, 16)
        touches.append((seq, npath, name, nkind, key - _WRAP if key >= _TOP else key))
    key = int(lkey, 16)
    row = (
        seq,
        offset,
        ts,
        urn_intent if intent is None else intent,
        ctype,
        model,
        mclass,
        kind,
        key - _WRAP if key >= _TOP else key,
    )
    return row, touches
