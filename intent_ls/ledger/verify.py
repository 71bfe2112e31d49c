"""``trace verify``: every line parses, is canonical, validates against the bundled Agent
Trace schema, carries its own digest, and is linked into the chain: its ``prev`` names
an earlier line, and a later record names it (see :class:`_Chain`).

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
import marshal
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO

import attrs

from intent_ls.common.hashing import PREFIX, bytes_hash
from intent_ls.common.safe_io import open_sidecar
from intent_ls.ledger.conformance import conforms, date_time_conforms, is_date_time
from intent_ls.ledger.links import NO_LINKS, Links, record_links
from intent_ls.ledger.merge import CONFLICT_MARKERS
from intent_ls.ledger.records import METADATA_KEY
from intent_ls.ledger.store import GENESIS, canonical_bytes, record_digest, snapshot_size

if TYPE_CHECKING:
    import subprocess

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


@attrs.frozen
class Problem:
    line: int  # 1-based
    reason: str


@attrs.frozen
class VerifyResult:
    records: int
    problem: Problem | None
    #: The lines an :class:`Interest` asked for (none without one).
    wanted: tuple[WantedLine, ...] = ()

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


def verify_ledger(
    path: Path,
    progress: Callable[[int, int], None] | None = None,
    *,
    interest: Interest | None = None,
) -> VerifyResult:
    """``progress(bytes read, size)`` is called every few thousand lines. With
    ``interest``, the result also holds the lines it asks for (:attr:`VerifyResult.wanted`).

    A ledger of :data:`PARALLEL_MIN` bytes or more is checked by two processes: the
    per-line checks are independent, so a second process checks the lines after
    :data:`_OWN_SHARE` of the file and hands back each line's hash and links; this one
    checks its own part, then runs the chain over the other's results in line order, so
    the verdict and its line are the serial algorithm's."""
    try:
        fd = open_sidecar(Path(path), os.O_RDONLY)
    except FileNotFoundError:
        return VerifyResult(0, None)
    with os.fdopen(fd, "rb") as f:
        size = snapshot_size(Path(path), fd)
        split = _split_point(f, size) if size >= PARALLEL_MIN else None
        helper = _Helper.start(fd, split, size, interest) if split is not None else None
        try:
            run = _Run(interest, progress, size)
            problem = run.lines(_raw_lines(f, 0, size if split is None else split), 0)
            if problem is None and helper is not None:
                problem = run.replay(helper.batches())
            if problem is None and run.offset < size:  # no helper, or it failed midway
                f.seek(run.offset)
                problem = run.lines(_raw_lines(f, run.offset, size), run.offset)
        finally:
            if helper is not None:
                helper.stop()
    if problem is None:
        problem = run.chain.finish()
    return VerifyResult(run.chain.count, problem, tuple(run.wanted))


def check_line(raw: bytes) -> tuple[str | None, Links]:
    """One line (with its newline) on its own, without the chain: why it is bad (None if
    good) and its links. Lets a caller that already verified a ledger's prefix check
    only the lines appended since (``intent-ls export``)."""
    body = raw[:-1]
    proven = _proven(body) if raw.endswith(b"\n") else None
    if proven is not None:
        return None, Links(proven[1])
    return _check_line(raw)


@attrs.frozen
class Interest:
    """The lines a caller wants handed back by the verifying pass: ``intent-ls check``
    answers its few questions of the trace index from them instead of building it.

    A superset of the lines whose index rows (:func:`~intent_ls.ledger.index.json_rows`)
    name one of ``paths`` or have a content hash key (:func:`hash_key`) among ``keys``;
    the caller parses the lines it gets. A line the fast path proved has no escape, so a
    path there is spelled exactly ``"path":"<path>"``, and a content hash the index
    keys from its first 16 hex digits starts ``sha256:`` and those digits (any other
    form sends the line back). Every line the fast path does not prove is handed back.
    """

    paths: frozenset[str] = frozenset()
    keys: frozenset[int] = frozenset()
    _path_needles: tuple[bytes, ...] = attrs.field(init=False, eq=False, repr=False)
    _key_forms: frozenset[bytes] = attrs.field(init=False, eq=False, repr=False)

    @_path_needles.default
    def _needles_default(self) -> tuple[bytes, ...]:
        return tuple(
            b'"path":"' + p.encode("utf-8", "surrogatepass") + b'"' for p in sorted(self.paths)
        )

    @_key_forms.default
    def _key_forms_default(self) -> frozenset[bytes]:
        return frozenset(b"sha256:%016x" % (key % (1 << 64)) for key in self.keys)

    def wants(self, body: bytes) -> bool:
        """Whether a line the fast path proved may be one the caller asks for."""
        if len(self._path_needles) > _NEEDLES:
            if not self.paths.isdisjoint(p.decode() for p in _PATHS(body)):
                return True
        elif any(needle in body for needle in self._path_needles):
            return True
        if self._key_forms:
            for form in _CONTENT_HASHES(body):
                if not form or form in self._key_forms:
                    return True
        return False


#: Above this many paths, a line's paths are found and looked up rather than searched for.
_NEEDLES = 4
_PATHS = re.compile(rb'"path":"([^"]*)"').findall
_CONTENT_HASHES = re.compile(rb'"content_hash":"(sha256:[0-9a-f]{16})?').findall
#: Below this a second process costs more to start than it saves.
PARALLEL_MIN = 32 * 1024 * 1024
#: The share of a parallel verify this process checks line by line (it also runs the
#: chain over every line and replays the other's results): both then take about as long.
_OWN_SHARE = 0.48
_BATCH = 8192
_BLOCK = 4 * 1024 * 1024
WantedLine = tuple[int, int, bytes]  # line number, byte offset, line without newline


class _Run:
    """One pass of the chain over every line in order, its own lines checked here or
    the helper's replayed, collecting the lines the interest wants."""

    def __init__(
        self, interest: Interest | None, progress: Callable[[int, int], None] | None, size: int
    ) -> None:
        self.chain = _Chain()
        self.interest = interest
        self.progress = progress
        self.size = size
        self.number = 0
        self.offset = 0  # where the lines checked so far end
        self.wanted: list[WantedLine] = []

    def lines(self, raws: Iterable[bytes], offset: int) -> Problem | None:
        chain, interest, progress = self.chain, self.interest, self.progress
        number = self.number
        for raw in raws:
            number += 1
            reason, item, proven = _examine(raw)
            if reason is not None:
                return Problem(number, reason)
            reason = chain.add(number, *item)
            if reason is not None:
                return Problem(number, reason)
            if interest is not None and not (proven and not interest.wants(raw[:-1])):
                self.wanted.append((number, offset, raw[:-1]))
            offset += len(raw)
            if progress is not None and not number % _BATCH:
                progress(offset, self.size)
        self.number, self.offset = number, offset
        return None

    def replay(self, batches: Iterable[_Batch]) -> Problem | None:
        chain, base = self.chain, self.number
        for items, wanted, failure, done in batches:
            for item in items:
                self.number += 1
                reason = chain.add(self.number, *item)
                if reason is not None:
                    return Problem(self.number, reason)
            self.wanted.extend((base + n, offset, body) for n, offset, body in wanted)
            if failure is not None:
                return Problem(base + failure[0], failure[1])
            self.offset = done
            if self.progress is not None:
                self.progress(done, self.size)
        return None


def _examine(raw: bytes) -> tuple[str | None, tuple[Any, ...], bool]:
    """One line (with its newline; a torn one without): why it is bad, or its hash and
    links as :meth:`_Chain.add` takes them, and whether the fast path proved it."""
    if raw.endswith(b"\n"):
        proven = _proven(raw[:-1])
        if proven is not None:
            return None, proven, True
    reason, links = _check_line(raw)
    if reason is not None:
        return reason, (), False
    return None, (bytes_hash(raw[:-1]), links.prev, links.parents, links.absent), False


def _raw_lines(f: BinaryIO, offset: int, end: int) -> Iterator[bytes]:
    """The lines (with their newlines) of ``f`` from ``offset`` up to byte ``end``, where
    ``f`` stands; a line running past ``end`` is cut there, as a snapshot of the ledger
    at that size has it (:func:`~intent_ls.ledger.store.open_snapshot`)."""
    if offset >= end:
        return
    for raw in f:
        offset += len(raw)
        if offset >= end:
            yield raw[: len(raw) - (offset - end)]
            return
        yield raw


def _split_point(f: BinaryIO, size: int) -> int | None:
    """The start of the first line after :data:`_OWN_SHARE` of the ledger, if any."""
    f.seek(int(size * _OWN_SHARE))
    f.readline()
    split = f.tell()
    f.seek(0)
    return split if split < size else None


#: What the helper writes per block of lines: the (hash, links) of each good line, the
#: lines wanted (numbered from 1 in its part), the first bad line's (number, reason) if
#: any, and the byte offset reached.
_Batch = tuple[list[tuple[Any, ...]], list[WantedLine], tuple[int, str] | None, int]


class _Helper:
    """The second process of a parallel verify (:func:`_helper_main`). It reads the file
    this process opened (the descriptor is passed on, and read by position), not
    whatever the path names by then. It writes each block's results, marshalled and
    length-prefixed, to an unnamed temporary file, and one byte to its stdout when a block
    is complete: this process replays blocks as they come, while the helper goes on."""

    def __init__(self, proc: subprocess.Popen[bytes], out: IO[bytes]) -> None:
        self.proc = proc
        self.out = out

    @classmethod
    def start(cls, fd: int, start: int, end: int, interest: Interest | None) -> _Helper | None:
        import subprocess
        import tempfile

        package_root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        wanted = None if interest is None else (sorted(interest.paths), sorted(interest.keys))
        with tempfile.TemporaryFile() as given:
            marshal.dump(wanted, given)
            given.seek(0)
            out = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
            args = (fd, out.fileno(), start, end)
            try:
                proc = subprocess.Popen(
                    [sys.executable, "-c", _HELPER_CODE, *map(str, args)],
                    stdin=given,
                    stdout=subprocess.PIPE,
                    pass_fds=(fd, out.fileno()),
                    env=env,
                )
            except OSError:
                out.close()
                return None
        return cls(proc, out)

    def batches(self) -> Iterator[_Batch]:
        """The helper's blocks as each is complete; fewer if it fails (then its part is
        checked here from where they end)."""
        assert self.proc.stdout is not None
        at = 0
        while self.proc.stdout.read(1):
            size = int.from_bytes(_pread_all(self.out.fileno(), 8, at))
            yield marshal.loads(_pread_all(self.out.fileno(), size, at + 8))
            at += 8 + size

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        self.out.close()


def _pread_all(fd: int, size: int, at: int) -> bytes:
    parts = []
    while size:
        part = os.pread(fd, size, at)
        if not part:
            raise EOFError("the helper's block is cut short")
        parts.append(part)
        size -= len(part)
        at += len(part)
    return b"".join(parts)


_HELPER_CODE = "from intent_ls.ledger.verify import _helper_main; _helper_main()"


def _helper_main() -> None:
    """``fd out start end``: checks the lines of the ledger open on ``fd`` from byte
    ``start`` (a line start) to ``end`` one by one and appends :data:`_Batch` records to
    ``out`` (see :class:`_Helper`), stopping after the first bad line."""
    fd, out, start, end = (int(arg) for arg in sys.argv[1:5])
    given = marshal.load(sys.stdin.buffer)
    interest = None if given is None else Interest(frozenset(given[0]), frozenset(given[1]))

    def emit(batch: _Batch) -> None:
        data = marshal.dumps(batch)
        view = memoryview(len(data).to_bytes(8) + data)
        while view:
            view = view[os.write(out, view) :]
        sys.stdout.buffer.write(b".")
        sys.stdout.buffer.flush()

    items: list[tuple[Any, ...]] = []
    wanted: list[WantedLine] = []
    offset = start
    for number, raw in enumerate(_pread_lines(fd, start, end), start=1):
        reason, item, proven = _examine(raw)
        if reason is not None:
            emit((items, wanted, (number, reason), offset))
            return
        items.append(item)
        if interest is not None and not (proven and not interest.wants(raw[:-1])):
            wanted.append((number, offset, raw[:-1]))
        offset += len(raw)
        if len(items) >= _BATCH:
            emit((items, wanted, None, offset))
            items, wanted = [], []
    emit((items, wanted, None, offset))


def _pread_lines(fd: int, offset: int, end: int) -> Iterator[bytes]:
    """:func:`_raw_lines` by position (the descriptor's offset is the parent's)."""
    pending = b""
    while offset < end:
        block = os.pread(fd, min(_BLOCK, end - offset), offset)
        if not block:
            break
        offset += len(block)
        *lines, pending = (pending + block).split(b"\n")
        for line in lines:
            yield line + b"\n"
    if pending:
        yield pending


class _Chain:
    """The links between lines (``docs/ledger.md``, "The chain"): each ``prev`` and each
    merge record's ``parents`` name an earlier line (``prev`` may be the genesis value),
    or a line a merge record declared ``absent``; no line occurs twice; and every
    line but the last is named by some record, so removing a record is seen by the one
    that named it, and inserting one leaves it unnamed. A single writer's ledger is the
    special case where each ``prev`` names the line just before."""

    def __init__(self) -> None:
        self.count = 0
        self._last = GENESIS
        self._last_named = True
        self._lines: dict[str, int] = {}
        # Lines not named so far, but for the last one, tracked by ``_last_named``: in
        # a single writer's ledger the next line names it and this stays empty.
        self._unnamed: dict[str, int] = {}
        self._forward: list[tuple[int, str]] = []
        self._absent: set[str] = set()

    def add(
        self,
        number: int,
        digest: str,
        prev: str | None,
        parents: tuple[str, ...] = (),
        absent: tuple[str, ...] = (),
    ) -> str | None:
        first = self._lines.setdefault(digest, number)
        if first != number:
            return f"duplicated line: the same bytes as line {first}"
        if prev != GENESIS:
            self._name(number, str(prev))
        for parent in parents:
            self._name(number, parent)
        if absent:
            self._absent.update(absent)
        if not self._last_named:
            self._unnamed[self._last] = self._lines[self._last]
        self._last = digest
        self._last_named = False
        self.count += 1
        return None

    def _name(self, number: int, name: str) -> None:
        if name == self._last:
            self._last_named = True
        elif name in self._lines:
            self._unnamed.pop(name, None)
        else:
            self._forward.append((number, name))

    def finish(self) -> Problem | None:
        """The checks that need the whole file: references to lines not before them, and
        lines nothing names. A dangling reference is reported before an unnamed line, as
        it points at where the record is missing; among each kind, the first line."""
        problems: list[Problem] = []
        for number, prev in self._forward:  # a prev or a parent
            if prev in self._absent:
                self._unnamed.pop(prev, None)
            elif prev in self._lines:
                problems.append(
                    Problem(
                        number,
                        f"chain broken: prev names line {self._lines[prev]}, which comes "
                        "after it (records reordered)",
                    )
                )
            else:
                problems.append(
                    Problem(
                        number,
                        "chain broken: prev names no line of the ledger (a record was "
                        "removed or altered)",
                    )
                )
        if problems:
            return min(problems, key=lambda p: p.line)
        for number in self._unnamed.values():
            problems.append(
                Problem(
                    number,
                    "chain broken: no later record names this line (the record after it "
                    "was removed, or this one was inserted)",
                )
            )
        return min(problems, key=lambda p: p.line, default=None)


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
