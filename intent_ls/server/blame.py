"""Intent blame in the editor: hover on a line or definition, a code lens per definition.

Both read the trace index (built once per folder at start-up with work-done progress,
then extended incrementally from the last indexed offset), never the whole ledger. While
a build runs they answer at once with what is known, marked: hover with the records of
the ledger's tail that this line carries ("history is being indexed: 40 %"), lenses with
that mark alone (a count from part of the ledger would be wrong), and the client is asked
to refresh its lenses when the build ends:

- **hover** lists the records behind the hovered line: those that touched the enclosing
  definition (by qualified name in this file, or by its content hash anywhere — code
  moved from another file keeps its history), those whose ranges the file still carries
  on that line, and those with the line's own content hash when the line is long enough
  to mean something. Each entry: when, which intent, who, and the mutation class.
- **code lens** above each definition: ``codeLens.format`` over the number of recorded
  changes and their intents ("INT-001 · 3 changes"); ``codeLens.enabled`` turns it off.

The tree is brought up to date and queried on the worker thread, the index on the index
thread; the event loop only renders.
"""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types

from intent_ls.common.hashing import content_hash
from intent_ls.ledger.records import intent_meta
from intent_ls.server.documents import TrackedDocument
from intent_ls.server.hub import Hub
from intent_ls.server.trees import Batch, LiveTree
from intent_ls.syntax.model import AstNode

#: Lines shorter than this (stripped) are not looked up by their own hash: a blank line
#: or a lone brace matches everywhere and proves nothing.
MIN_LINE_CHARS = 16
MAX_ENTRIES = 10
#: Files with more definitions get lenses on the first ones only.
MAX_LENSES = 500


def _definitions(tree: LiveTree, batch: Batch, text: str, line: int | None) -> list[AstNode]:
    syntax = tree.apply(batch, text)
    return syntax.definitions_at(line) if line is not None else syntax.definitions()


async def _tree_query(ls: Hub, doc: TrackedDocument, line: int | None) -> list[AstNode]:
    tree = doc.tree
    if tree is None:
        return []
    text = ls.workspace.get_text_document(doc.uri).source
    return await ls.workers.work(_definitions, tree, tree.take(), text, line)


def _governed(doc: TrackedDocument | None) -> bool:
    return doc is not None and doc.governed and doc.rel is not None and doc.folder is not None


async def hover(ls: Hub, params: types.HoverParams) -> types.Hover | None:
    doc = ls.documents.get(params.text_document.uri)
    if doc is None or not _governed(doc) or doc.untracked:
        return None
    folder, rel = doc.folder, doc.rel
    assert folder is not None and rel is not None
    line = params.position.line
    if line >= len(doc.lines):
        return None
    lines = [text.rstrip("\r\n") for text in doc.lines]
    defs = await _tree_query(ls, doc, line + 1)
    definition = defs[-1] if defs else None
    own = lines[line] if len(lines[line].strip()) >= MIN_LINE_CHARS else None
    trace = ls.recorder.follow(folder)
    blamed = await ls.workers.query(
        trace.blame, rel, definition, content_hash([own]) if own is not None else None
    )
    carried = await ls.workers.query(trace.line_history, rel, lines, line + 1)
    indexing = None
    if blamed is None:
        indexing = trace.indexing or "history is being indexed"
    entries = _entries(ls, doc, blamed or [], carried, trace)
    if not entries and indexing is None:
        return None
    table = _table(ls, doc, line, definition, indexing, entries)
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n".join(table)),
        range=types.Range(
            start=types.Position(line=line, character=0),
            end=types.Position(line=line, character=ls.codec.client_num_units(lines[line])),
        ),
    )


def _table(
    ls: Hub,
    doc: TrackedDocument,
    line: int,
    definition: Any,
    indexing: str | None,
    entries: list[dict[str, Any]],
) -> list[str]:
    """The hover's Markdown lines: a title naming the definition (or line), then the
    records, newest first, at most ``MAX_ENTRIES``."""
    title = "**intent-ls history**"
    if definition is not None:
        title += f" · `{definition.name}` ({definition.kind})"
    else:
        title += f" · line {line + 1}"
    table = [title, ""]
    if indexing is not None:
        # What the ledger's tail shows now; the full answer on the next hover.
        table += [f"_{_cell(indexing)}: showing the newest records only_", ""]
    if entries:
        table += [
            "| When | Intent | Who | Change |",
            "|---|---|---|---|",
            *(_row(ls, doc, e) for e in entries[:MAX_ENTRIES]),
        ]
    if len(entries) > MAX_ENTRIES:
        table += ["", f"… and {len(entries) - MAX_ENTRIES} earlier record(s)"]
    return table


def _entries(
    ls: Hub,
    doc: TrackedDocument,
    blamed: list[Any],
    carried: list[dict[str, Any]],
    trace: Any,
) -> list[dict[str, Any]]:
    """One entry per record, newest first: its time, intent, contributor, class, and
    where it matched when that was not this file."""
    out: dict[str, dict[str, Any]] = {}
    for record in carried:
        meta = intent_meta(record)
        if meta.get("kind") != "mutation":
            continue
        conv = ((record.get("files") or [{}])[0].get("conversations") or [{}])[0]
        who = conv.get("contributor") or {}
        out[str(record.get("id"))] = {
            "timestamp": record.get("timestamp") or "",
            "intent": meta.get("intent_id"),
            "contributor": who.get("type"),
            "model": who.get("model_id"),
            "class": meta.get("mutation_class"),
            "elsewhere": None,
        }
    for entry in blamed:
        ref = entry.record
        if ref.kind != "mutation":
            continue
        key = f"seq:{ref.seq}"
        if any(
            e["timestamp"] == ref.timestamp and e["intent"] == ref.intent_id for e in out.values()
        ):
            continue
        out[key] = {
            "timestamp": ref.timestamp or "",
            "intent": ref.intent_id,
            "contributor": ref.contributor,
            "model": ref.model_id,
            "class": ref.mutation_class,
            "elsewhere": entry.path if entry.path != doc.rel else None,
        }
    return sorted(out.values(), key=lambda e: e["timestamp"], reverse=True)


def _row(ls: Hub, doc: TrackedDocument, e: dict[str, Any]) -> str:
    folder = doc.folder
    assert folder is not None
    intent = e["intent"] or "no intent"
    known = folder.spec.get(e["intent"]) if e["intent"] else None
    if known is not None:
        intent = f"{known.id} {known.name}"
    who = " ".join(p for p in (e["contributor"], e["model"]) if p) or "unknown"
    change = _cell(e["class"] or "")
    if e["elsewhere"]:
        change += f" (in {_code(e['elsewhere'])})"
    return f"| {_cell(_when(e['timestamp']))} | {_cell(intent)} | {_cell(who)} | {change} |"


#: Characters that could start a link, an image, HTML, a code span or emphasis, or end
#: the table cell: the ledger is data from anyone with push access, never markup.
_MARKUP = re.compile(r"([\\`*\[\]<>|!~#])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def _cell(text: str) -> str:
    """Ledger text shown literally in one table cell."""
    return _MARKUP.sub(r"\\\1", _CONTROL.sub(" ", text))


def _code(text: str) -> str:
    """A path as a code span that no backtick in it can close, no line break split and
    no pipe end the cell (GFM reads ``\\|`` as a pipe even inside code)."""
    text = _CONTROL.sub(" ", text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    body = text.replace("|", "\\|")
    return f"{fence}{pad}{body}{pad}{fence}"


def _when(timestamp: str) -> str:
    return re.sub(r"\.\d+Z$", "Z", timestamp).replace("T", " ")


async def code_lens(ls: Hub, params: types.CodeLensParams) -> list[types.CodeLens]:
    options = ls.config.code_lens
    doc = ls.documents.get(params.text_document.uri)
    if not options.enabled or doc is None or not _governed(doc) or doc.untracked:
        return []
    folder, rel = doc.folder, doc.rel
    assert folder is not None and rel is not None
    defs = (await _tree_query(ls, doc, None))[:MAX_LENSES]
    if not defs:
        return []
    trace = ls.recorder.follow(folder)
    stats = await ls.workers.query(trace.stats, rel, defs)
    indexing = trace.indexing
    lenses = []
    for node, stat in zip(defs, stats or [None] * len(defs), strict=True):
        if stat is None:  # refreshed (workspace/codeLens/refresh) once the build is done
            title = indexing or "history is being indexed"
        elif stat.changes:
            title = options.format.format(
                intents=", ".join(stat.intents) or "no intent",
                changes=f"{stat.changes} change{'s' if stat.changes != 1 else ''}",
                count=stat.changes,
                last=_when(stat.last_timestamp or ""),
            )
        else:
            title = "no recorded changes"
        position = types.Position(line=node.start_line - 1, character=0)
        lenses.append(
            types.CodeLens(
                range=types.Range(start=position, end=position),
                command=types.Command(title=title, command=""),
                data={"definition": node.name},
            )
        )
    return lenses
