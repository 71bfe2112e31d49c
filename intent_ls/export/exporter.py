"""``intent-ls export --out DIR``: the verified ledger's records not yet exported become
one new pair of part files, or nothing is written at all.

Order of a run, under the partition's lock: remove what an interrupted run left; open the
ledger and decide what must be verified (:mod:`~intent_ls.export.source`); stage the new
records as temp files (DuckDB), while the ledger is verified alongside when it must be
verified whole; publish the touches part, then the records part — the records part is the
commit, since "already exported" means "in a records part"; then the checkpoint.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import attrs

from intent_ls.export import ExportError
from intent_ls.export.layout import RepoDirs, exclusive, publish, repo_dirs, sweep, temp_path
from intent_ls.export.parquet import Staged, connect, stage
from intent_ls.export.source import (
    Checkpoint,
    Snapshot,
    open_ledger,
    read_checkpoint,
)

#: A ledger appended to while it is being read is read again; more appends than this in a
#: row mean a writer that does not stop, and the user is told to try later.
_ATTEMPTS = 3


@attrs.frozen
class ExportResult:
    repo: str
    records: int
    touches: int
    part: Path | None
    verified_lines: int | None  # None: the whole ledger was verified


def export_ledger(ledger: Path, out: Path, repo: str) -> ExportResult:
    """Exports what the repository's partition under ``out`` does not hold yet. Raises
    :class:`TamperedLedger` (nothing written) when the ledger does not verify."""
    dirs = repo_dirs(out, repo)
    with exclusive(dirs):
        sweep(dirs)
        _sweep_scratch(dirs)
        previous = read_checkpoint(dirs.checkpoint)
        for _ in range(_ATTEMPTS):
            result = _attempt(ledger, dirs, previous, repo)
            if result is not None:
                return result
    raise ExportError(
        f"{ledger} kept changing while it was read ({_ATTEMPTS} attempts); run the export again"
    )


def _attempt(
    ledger: Path, dirs: RepoDirs, previous: Checkpoint | None, repo: str
) -> ExportResult | None:
    with open_ledger(ledger, previous, dirs.record_parts()) as snap:
        if snap.size == 0:
            return ExportResult(repo, 0, 0, None, 0)
        if snap.tail == b"" and snap.prefix_intact():
            return ExportResult(repo, 0, 0, None, 0)  # nothing appended: DuckDB not needed
        scratch = dirs.records / f".scratch-{os.getpid()}"
        db = connect(scratch)
        try:
            staged, verified_lines = _stage(snap, dirs, db)
        finally:
            db.close()
            shutil.rmtree(scratch, ignore_errors=True)
        if staged is False:
            return None
        part = None
        if staged is not None:
            publish(staged.touches_temp, dirs.touches / staged.name)
            publish(staged.records_temp, dirs.records / staged.name)
            part = dirs.records / staged.name
        _write_checkpoint(dirs, snap.checkpoint(tuple(dirs.record_parts())))
        return ExportResult(
            repo,
            staged.records if staged else 0,
            staged.touches if staged else 0,
            part,
            verified_lines,
        )


def _stage(snap: Snapshot, dirs: RepoDirs, db: Any) -> tuple[Staged | bool | None, int | None]:
    """The staged parts (None: nothing new; False: the ledger changed, start over) and
    how many appended lines were verified (None: the whole ledger)."""
    if snap.tail is not None:
        lines = snap.tail.count(b"\n")
        staged = _stage_tail(snap.tail, dirs, db) if lines else None
        # An appended line already exported is a duplicated line, and a prefix that is
        # not the verified one was rewritten: only the whole-ledger verification can say
        # what is wrong, so that is what runs.
        if snap.prefix_intact() and not (staged is not None and staged.already):
            return staged, lines
        if staged is not None:
            staged.discard()
        db.execute("DROP TABLE IF EXISTS candidates; DROP TABLE IF EXISTS seen")
    return _stage_verified(snap, dirs, db), None


def _stage_tail(tail: bytes, dirs: RepoDirs, db: Any) -> Staged | None:
    source = temp_path(dirs.records, "ledger-tail.jsonl")
    fd = os.open(source, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(tail)
        return stage(source, dirs, db)
    finally:
        source.unlink(missing_ok=True)


def _stage_verified(snap: Snapshot, dirs: RepoDirs, db: Any) -> Staged | bool | None:
    """DuckDB stages the whole ledger in a thread while this one verifies it: the
    verification is pure Python and DuckDB releases the GIL, so on two cores the export
    costs about the longer of the two, not their sum."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["staged"] = stage(snap.path, dirs, db)
        except BaseException as exc:  # handed to the main thread, which raises it
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="intent-ls-export", daemon=True)
    worker.start()
    try:
        snap.verify()
    except BaseException:  # tampered, or interrupted: DuckDB stops, its files go
        db.interrupt()
        worker.join()
        if outcome.get("staged"):
            outcome["staged"].discard()
        raise
    worker.join()
    staged: Staged | None = outcome.get("staged")
    if not snap.unchanged():
        if staged is not None:
            staged.discard()
        return False
    if "error" in outcome:
        first = str(outcome["error"]).strip().splitlines()[:1]
        raise ExportError(f"DuckDB failed exporting {snap.path}: {' '.join(first)}")
    return staged


def _write_checkpoint(dirs: RepoDirs, checkpoint: Checkpoint) -> None:
    temp = temp_path(dirs.records, dirs.checkpoint.name)
    temp.write_text(json.dumps(checkpoint.to_json()), encoding="utf-8")
    publish(temp, dirs.checkpoint)


def _sweep_scratch(dirs: RepoDirs) -> None:
    for scratch in dirs.records.glob(".scratch-*"):
        shutil.rmtree(scratch, ignore_errors=True)
