"""``trace verify``: every line parses, is canonical, validates against the bundled Agent
Trace schema, carries its own digest, and chains to the line before it.

The checks together catch a one-byte change anywhere: a change that still parses alters
either the canonical bytes (whitespace, key order), the record's own ``digest`` (any
value), or — for a change inside ``prev``/``digest`` themselves — the chain.

A line in exactly the shape our writer produces is proven good by one regular
expression and two hashes (``_proven``); any other line takes the full check (json.loads,
plain-Python schema checks with jsonschema consulted for the invalid, re-serialization),
which gives the verdict and the reason. Both give the same verdicts: tests compare them
with the plain algorithm on generated, damaged and resealed lines.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from intent_ls.hashing import bytes_hash
from intent_ls.ledger.conformance import conforms, date_time_conforms, is_date_time
from intent_ls.ledger.records import METADATA_KEY
from intent_ls.ledger.store import GENESIS, canonical_bytes, open_snapshot, record_digest

_DIGEST_KEY = b'"digest":'

# The fast path. Our writer's lines have one known shape; a line that is exactly that
# shape spelled exactly as ``canonical_bytes`` spells it is proven parsable, canonical
# and schema-valid by the match itself, and its digest is the hash of the line without
# its digest member: no json.loads and no re-serialization, the two costs that remain
# per line once the schema check is fast. The grammar admits only canonical spellings:
# keys in sorted order, no whitespace, integers without leading zeros, strings as
# "[^"]*" — sound because the line is first checked to be UTF-8 and to hold no backslash
# and no control byte, so no string has an escape and every " delimits one. What it
# does not know (verdict details, several files, foreign records) and any line that
# fails here takes the full check, which decides and explains.
_S = '"[^"]*"'
_NS = '(?:"[^"]*"|null)'
_POSITIVE = "[1-9][0-9]{0,15}"
_INT = "(?:0|-?[1-9][0-9]{0,15})"


def _list(item: str) -> str:
    return rf"\[(?:{item}(?:,{item})*)?\]"


_RANGE = rf'\{{"content_hash":{_S},"end_line":{_POSITIVE},"start_line":{_POSITIVE}\}}'
_NODE = (
    rf'\{{"content_hash":{_S},"end_line":{_INT},"kind":{_S},"name":{_S},"path":{_S},'
    rf'"start_line":{_INT}\}}'
)
_APPROVAL = (
    rf'\{{"approver":\{{(?:"model_id":{_S},)?"type":{_S}\}},"content_hash":{_S},'
    rf'"end_line":{_INT},"path":{_S},(?:"reason":{_S},)?"start_line":{_INT},'
    rf'"verdict_code":{_S}\}}'
)
_VERDICT = rf'\{{"code":{_S},"details":\{{\}},"message":{_S}\}}'
_LINE = re.compile(
    (
        r'\{"files":\[\{"conversations":\[\{"contributor":\{(?:"model_id":"([^"]*)",)?'
        rf'"type":"(?:human|ai|mixed|unknown)"\}},"ranges":{_list(_RANGE)}'
        rf'(?:,"related":\[\{{"type":{_S},"url":{_S}\}}\])?\}}\],"path":{_S}\}}\],'
        r'"id":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",'
        rf'"metadata":\{{"intent_ls":\{{(?:"after_hash":{_S},)?"approvals":{_list(_APPROVAL)},'
        rf'"ast_nodes":{_list(_NODE)},(?:"before_hash":{_S},)?"deleted_lines":{_INT}'
        rf'(,"digest":"([^"]*)"),"intent_id":{_NS},"kind":{_NS},"mutation_class":{_NS},'
        rf'"prev":"([^"]*)","session_id":{_NS},"verdicts":{_list(_VERDICT)}\}}\}},'
        rf'"timestamp":"([^"]*Z)","tool":\{{"name":{_S},"version":{_S}\}}'
        rf'(?:,"vcs":\{{"revision":{_S},"type":"(?:git|jj|hg|svn)"\}})?,'
        r'"version":"[0-9]+\.[0-9]+\.[0-9]+"\}'
    ).encode()
).fullmatch
#: Bytes canonical JSON never holds raw: escapes and control characters.
_UNSAFE = bytes(range(0x20)) + b"\\"


@attrs.frozen
class Problem:
    line: int  # 1-based
    reason: str


@attrs.frozen
class VerifyResult:
    records: int
    problem: Problem | None

    @property
    def ok(self) -> bool:
        return self.problem is None


@cache
def validator() -> Any:
    """Draft 2020-12 validator checking exactly the ``uuid`` and ``date-time`` formats:
    jsonschema skips date-time unless an optional package is installed (so it is
    registered here), and would start checking ``uri`` if one were, which would change
    verdicts, and :mod:`~intent_ls.ledger.conformance`'s answers, with the environment."""
    from jsonschema import Draft202012Validator, FormatChecker

    schema = json.loads(
        resources.files("intent_ls.ledger").joinpath("trace-record.schema.json").read_text("utf-8")
    )
    checker = FormatChecker(formats=("uuid",))
    checker.checks("date-time", raises=ValueError)(is_date_time)
    return Draft202012Validator(schema, format_checker=checker)


def check_record(record: Any) -> str | None:
    """Why ``record`` is not a valid Agent Trace record, or None. The fast checks decide
    for valid records; jsonschema has the last word, and the message, for the others."""
    if not isinstance(record, dict):
        return "not a JSON object"
    if not conforms(record):
        errors = validator().iter_errors(record)
        error = next(iter(sorted(errors, key=lambda e: list(e.path))), None)
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "(root)"
            return f"schema: {where}: {error.message}"
    if not str(record["timestamp"]).endswith("Z"):
        return "timestamp is not UTC (must end in Z)"
    return None


def verify_ledger(path: Path) -> VerifyResult:
    prev = GENESIS
    count = 0
    try:
        f = open_snapshot(Path(path))
    except FileNotFoundError:
        return VerifyResult(0, None)
    with f:
        for number, raw in enumerate(f, start=1):
            body = raw[:-1]
            if not (raw.endswith(b"\n") and _proven(body, prev)):
                reason = _check_line(raw, prev)
                if reason is not None:
                    return VerifyResult(count, Problem(number, reason))
            prev = bytes_hash(body)
            count += 1
    return VerifyResult(count, None)


def _proven(body: bytes, prev: str) -> bool:
    """Whether the fast path proves ``body`` good (see ``_LINE``); False means "ask the
    full check", not "bad"."""
    if len(body.translate(None, _UNSAFE)) != len(body):
        return False
    try:
        body.decode()
    except UnicodeDecodeError:
        return False
    match = _LINE(body)
    if match is None:
        return False
    model, _, digest, line_prev, timestamp = match.groups()
    if model is not None and len(model.decode()) > 250:  # the schema's maxLength
        return False
    if not date_time_conforms(timestamp.decode()):
        return False
    if line_prev.decode() != prev:
        return False
    cut, end = match.span(2)
    return bytes_hash(body[:cut] + body[end:]) == digest.decode()


def _check_line(raw: bytes, prev: str) -> str | None:
    if not raw.endswith(b"\n"):
        return "torn line: no terminating newline (an interrupted append?)"
    body = raw[:-1]
    try:
        record = json.loads(body)
    except ValueError as exc:
        return f"not valid JSON: {exc}"
    reason = check_record(record)
    if reason is not None:
        return reason
    if not _is_canonical(record, body):
        return "not in canonical form (edited by hand?)"
    meta = record.get("metadata", {}).get(METADATA_KEY)
    if not isinstance(meta, dict):
        return f"metadata.{METADATA_KEY} missing"
    if meta.get("digest") != _digest(record, meta, body):
        return "record digest mismatch: the record was altered"
    if meta.get("prev") != prev:
        return "chain broken: prev does not match the previous line's hash"
    return None


def _is_canonical(record: dict[str, Any], body: bytes) -> bool:
    try:
        return canonical_bytes(record) == body
    except UnicodeEncodeError:
        # A lone surrogate (a "\ud800" escape) has no UTF-8 form: the writer never
        # produces one.
        return False


def _digest(record: dict[str, Any], meta: dict[str, Any], body: bytes) -> str:
    """``record_digest(record)``, given that ``body`` is the record's canonical bytes.

    Re-serializing the record without its digest costs as much as parsing it. In
    canonical JSON every ``"`` inside a string is escaped, so ``"digest":`` occurs only
    where an object has a ``digest`` key; when it occurs once, it is this record's, and
    removing that member (with one adjacent comma) from ``body`` gives the bytes that
    serialization would produce. A string value without ``"`` ends at the next ``"``.
    """
    digest = meta.get("digest")
    at = body.find(_DIGEST_KEY)
    if not isinstance(digest, str) or '"' in digest or body.find(_DIGEST_KEY, at + 1) >= 0:
        return record_digest(record)
    end = body.index(b'"', at + len(_DIGEST_KEY) + 1) + 1
    if body[at - 1] == ord(","):
        at -= 1
    elif body[end] == ord(","):
        end += 1
    return bytes_hash(body[:at] + body[end:])
