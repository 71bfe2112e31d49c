"""The checks of one line on its own: it parses, is canonical, validates against the
bundled Agent Trace schema, and carries its own digest. The chain
(:mod:`~intent_ls.ledger.verify.chain`) links the lines.

The checks together catch a one-byte change anywhere: a change that still parses alters
either the canonical bytes (whitespace, key order), the record's own ``digest`` (any
value), or — for a change inside ``prev``/``digest`` themselves, or a record resealed
after a change — the chain, since the record that named the old line finds no such line.

A line in exactly the shape our writer produces is proven good by one regular
expression and two hashes (``_proven``); any other line takes the full check (json.loads,
plain-Python schema checks with jsonschema consulted for the invalid, re-serialization),
which gives the verdict and the reason. Both give the same verdicts: tests compare them
with the plain algorithm on generated, damaged and resealed lines.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from intent_ls.common.hashing import PREFIX, bytes_hash
from intent_ls.ledger.conformance import conforms, date_time_conforms, is_date_time
from intent_ls.ledger.links import NO_LINKS, Links, record_links
from intent_ls.ledger.merge import CONFLICT_MARKERS
from intent_ls.ledger.records import METADATA_KEY
from intent_ls.ledger.store import canonical_bytes, record_digest

_DIGEST_KEY = b'"digest":'
#: The reason for a line git wrote around a conflict: no tampering, a missing set-up.
CONFLICT_MESSAGE = (
    "unresolved merge conflict markers: the ledger was merged without its merge driver; "
    "run `intent-ls init` (once per clone), then `intent-ls trace repair` to keep the "
    "records of both sides"
)

# The fast path. Our writer's lines have one known shape; a line that is exactly that
# shape spelled exactly as ``canonical_bytes`` spells it is proven parsable, canonical
# and schema-valid by the match itself, and its digest is the hash of the line without
# its digest member: no json.loads and no re-serialization, the two costs that remain
# per line once the schema check is fast. The grammar admits only canonical spellings:
# keys in sorted order, no whitespace, integers without leading zeros, strings as
# "[^"]*" — sound because the line is first checked to be UTF-8 and to hold no backslash
# and no control byte, so no string has an escape and every " delimits one (folding that
# check into the strings' character class makes the match twice as slow). Timestamps
# are the writer's form with hours, minutes and seconds in range, so only the date is
# left to check (one look-up per distinct date).
# What it does not know (verdict details, several files, foreign records) and any line
# that fails here takes the full check, which decides and explains.
_C = '[^"]*'
_S = f'"{_C}"'
_NS = f'(?:"{_C}"|null)'
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
#: Bytes canonical JSON never holds raw: escapes and control characters.
_UNSAFE = bytes(range(0x20)) + b"\\"
_LINE = re.compile(
    (
        rf'\{{"files":\[\{{"conversations":\[\{{"contributor":\{{(?:"model_id":"({_C})",)?'
        rf'"type":"(?:human|ai|mixed|unknown)"\}},"ranges":{_list(_RANGE)}'
        rf'(?:,"related":\[\{{"type":{_S},"url":{_S}\}}\])?\}}\],"path":{_S}\}}\],'
        r'"id":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",'
        rf'"metadata":\{{"intent_ls":\{{(?:"after_hash":{_S},)?"approvals":{_list(_APPROVAL)},'
        rf'"ast_nodes":{_list(_NODE)},(?:"before_hash":{_S},)?"deleted_lines":{_INT}'
        rf'(,"digest":"({_C})"),"intent_id":{_NS},"kind":{_NS},"mutation_class":{_NS},'
        rf'"prev":"({_C})","session_id":{_NS},"verdicts":{_list(_VERDICT)}\}}\}},'
        r'"timestamp":"([0-9]{4}-[0-9]{2}-[0-9]{2})T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]'
        rf'(?:\.[0-9]{{6}})?Z","tool":\{{"name":{_S},"version":{_S}\}}'
        rf'(?:,"vcs":\{{"revision":{_S},"type":"(?:git|jj|hg|svn)"\}})?,'
        r'"version":"[0-9]+\.[0-9]+\.[0-9]+"\}'
    ).encode()
).fullmatch


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


def check_line(raw: bytes) -> tuple[str | None, Links]:
    """One line (with its newline) on its own, without the chain: why it is bad (None if
    good) and its links. Lets a caller that already verified a ledger's prefix check
    only the lines appended since (``intent-ls export``)."""
    body = raw[:-1]
    proven = _proven(body) if raw.endswith(b"\n") else None
    if proven is not None:
        return None, Links(proven[1])
    return _check_line(raw)


def _examine(raw: bytes) -> tuple[str | None, tuple[Any, ...], bool]:
    """One line (with its newline; a torn one without): why it is bad, or its hash and
    links as :meth:`~intent_ls.ledger.verify.chain.Chain.add` takes them, and whether the
    fast path proved it."""
    if raw.endswith(b"\n"):
        proven = _proven(raw[:-1])
        if proven is not None:
            return None, proven, True
    reason, links = _check_line(raw)
    if reason is not None:
        return reason, (), False
    return None, (bytes_hash(raw[:-1]), links.prev, links.parents, links.absent), False


def _proven(body: bytes) -> tuple[str, str] | None:
    """The hash of ``body`` and its ``prev`` if the fast path proves it good (see
    ``_LINE``; such a line has no other links); None means "ask the full check", not
    "bad". The two hashes share the bytes before the digest member: hashed once."""
    if len(body.translate(None, _UNSAFE)) != len(body):
        return None
    try:
        body.decode()
    except UnicodeDecodeError:
        return None
    match = _LINE(body)
    if match is None:
        return None
    model, _, digest, line_prev, timestamp = match.groups()
    if model is not None and len(model.decode()) > 250:  # the schema's maxLength
        return None
    if not _valid_date(timestamp):
        return None
    cut, end = match.span(2)
    view = memoryview(body)
    head = hashlib.sha256(view[:cut])
    whole = head.copy()
    head.update(view[end:])
    if PREFIX + head.hexdigest() != digest.decode():
        return None
    whole.update(view[cut:])
    return PREFIX + whole.hexdigest(), line_prev.decode()


@lru_cache(maxsize=4096)
def _valid_date(date: bytes) -> bool:
    """Whether ``date`` (``YYYY-MM-DD``) makes a valid date-time with a valid time."""
    return date_time_conforms(date.decode() + "T00:00:00Z")


def _check_line(raw: bytes) -> tuple[str | None, Links]:
    """Why the line is bad (None if good) and its links, by the plain algorithm."""
    if not raw.endswith(b"\n"):
        return "torn line: no terminating newline (an interrupted append?)", NO_LINKS
    body = raw[:-1]
    if body.startswith(CONFLICT_MARKERS):
        return CONFLICT_MESSAGE, NO_LINKS
    try:
        record = json.loads(body)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep
        return f"not valid JSON: {exc}", NO_LINKS
    reason = check_record(record)
    if reason is not None:
        return reason, NO_LINKS
    if not _is_canonical(record, body):
        return "not in canonical form (edited by hand?)", NO_LINKS
    meta = record.get("metadata", {}).get(METADATA_KEY)
    if not isinstance(meta, dict):
        return f"metadata.{METADATA_KEY} missing", NO_LINKS
    if meta.get("digest") != _digest(record, meta, body):
        return "record digest mismatch: the record was altered", NO_LINKS
    reason = _merge_fields_problem(meta)
    if reason is not None:
        return reason, NO_LINKS
    if not isinstance(meta.get("prev"), str):
        return "chain broken: prev missing", NO_LINKS
    return None, record_links(record)


def _merge_fields_problem(meta: dict[str, Any]) -> str | None:
    for key in ("parents", "absent"):
        value = meta.get(key)
        if value is not None and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            return f"metadata.{METADATA_KEY}.{key} must be a list of line hashes"
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
