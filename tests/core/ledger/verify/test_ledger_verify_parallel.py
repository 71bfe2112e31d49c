"""``trace verify`` in two processes: the same verdict, line, record count and wanted lines
as one process, whichever part the first bad line is in."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from intent_ls.common.hashing import hash_key
from intent_ls.ledger.store import Ledger
from intent_ls.ledger.verify import Interest, Problem, VerifyResult, parallel, run, verify_ledger
from tests.core.ledger.ledger_helpers import mutation

RECORDS = 40
#: The helper's part starts after this many lines of the 40 (_OWN_SHARE of the bytes).
SPLIT = 20


def _lines(tmp_path: Path) -> list[bytes]:
    ledger = Ledger(tmp_path / "made.jsonl", fsync=False)
    for i in range(RECORDS):
        ledger.append(mutation(tmp_path, i, path=f"src/m{i % 7}.py"))
    return ledger.path.read_bytes().splitlines(keepends=True)


def _both(
    monkeypatch: pytest.MonkeyPatch, path: Path, interest: Interest | None = None
) -> VerifyResult:
    with monkeypatch.context() as m:
        m.setattr(run, "PARALLEL_MIN", 1 << 62)
        serial = verify_ledger(path, interest=interest)
    with monkeypatch.context() as m:
        m.setattr(run, "PARALLEL_MIN", 0)
        parallel = verify_ledger(path, interest=interest)
    assert parallel == serial
    return parallel


def test_the_split_falls_inside_the_ledger(tmp_path: Path) -> None:
    lines = _lines(tmp_path)
    with (tmp_path / "made.jsonl").open("rb") as f:
        assert parallel._split_point(f, sum(map(len, lines))) == sum(map(len, lines[:SPLIT]))


def _flip(line: bytes) -> bytes:
    at = line.index(b'"intent_id":"INT-') + 14
    return line[:at] + b"X" + line[at + 1 :]


DAMAGE: dict[str, Callable[[list[bytes]], list[bytes]]] = {
    "intact": lambda ls: ls,
    "bad byte in the helper's part": lambda ls: [*ls[:30], _flip(ls[30]), *ls[31:]],
    "bad byte in this part": lambda ls: [*ls[:5], _flip(ls[5]), *ls[6:]],
    "bad bytes in both parts": lambda ls: [*ls[:5], _flip(ls[5]), *ls[6:30], _flip(ls[30])],
    "bad byte on the first line of the helper's part": lambda ls: [
        *ls[:SPLIT],
        _flip(ls[SPLIT]),
        *ls[SPLIT + 1 :],
    ],
    "duplicate inside the helper's part": lambda ls: [*ls[:31], ls[30], *ls[31:]],
    "duplicate across the parts": lambda ls: [*ls, ls[3]],
    "duplicate before a bad line": lambda ls: [*ls[:31], ls[30], _flip(ls[31]), *ls[32:]],
    "record removed in the helper's part": lambda ls: [*ls[:25], *ls[26:]],
    "records swapped across the split": lambda ls: [
        *ls[: SPLIT - 1],
        ls[SPLIT],
        ls[SPLIT - 1],
        *ls[SPLIT + 1 :],
    ],
    "torn tail": lambda ls: [*ls[:-1], ls[-1][:-1]],
    "torn tail after a bad line": lambda ls: [*ls[:30], _flip(ls[30]), *ls[31:-1], ls[-1][:-1]],
    "empty line in the helper's part": lambda ls: [*ls[:33], b"\n", *ls[33:]],
    "conflict marker in the helper's part": lambda ls: [*ls[:33], b"<<<<<<< ours\n", *ls[33:]],
    "one line": lambda ls: ls[:1],
    "empty": lambda ls: [],
}


def _damaged(tmp_path: Path, damage: str) -> Path:
    """A ledger of :data:`RECORDS` lines with ``damage`` done to it."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(DAMAGE[damage](_lines(tmp_path))))
    return path


@pytest.mark.parametrize("damage", DAMAGE)
def test_two_processes_give_the_serial_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    path = _damaged(tmp_path, damage)
    result = _both(monkeypatch, path)
    assert result.ok == (damage == "intact" or damage == "one line" or damage == "empty")


def test_wanted_lines_are_the_serial_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _lines(tmp_path)
    # one record in another form (not the fast path's): always handed back
    foreign = json.loads(lines[35])
    foreign["files"][0]["path"] = "src/\u00e9.py"
    ledger = Ledger(tmp_path / "t.jsonl", fsync=False)
    for line in lines[:35]:
        ledger.append(json.loads(line))
    ledger.append({**foreign, "extra": "x\\y"})
    ranges = json.loads(lines[37])["files"][0]["conversations"][0]["ranges"]
    key = hash_key(ranges[0]["content_hash"])
    for line in lines[36:]:
        ledger.append(json.loads(line))
    result = _both(monkeypatch, ledger.path, Interest(frozenset({"src/m3.py"}), frozenset({key})))
    assert result.ok
    wanted = [number for number, _, _ in result.wanted]
    assert wanted == sorted({3 + 7 * n + 1 for n in range(6)} | {36, 38})
    data = ledger.path.read_bytes()
    for number, offset, body in result.wanted:
        assert data[offset : offset + len(body) + 1] == body + b"\n"
        assert data.splitlines()[number - 1] == body


def test_a_failed_helper_leaves_the_work_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _damaged(tmp_path, "bad byte in the helper's part")
    expected = _both(monkeypatch, path)
    monkeypatch.setattr(parallel, "_HELPER_CODE", "import sys; sys.exit(3)")
    monkeypatch.setattr(run, "PARALLEL_MIN", 0)
    assert verify_ledger(path) == expected
    assert expected.problem is not None and expected.problem.line == 31


def test_progress_reaches_the_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(_lines(tmp_path)))
    monkeypatch.setattr(run, "PARALLEL_MIN", 0)
    monkeypatch.setattr(parallel, "_BATCH", 4)
    seen: list[tuple[int, int]] = []
    assert verify_ledger(path, lambda done, size: seen.append((done, size))).ok
    size = path.stat().st_size
    assert seen[-1] == (size, size)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def _count_replayed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of lines of each replay of the helper's batches, as they happen."""
    replayed: list[int] = []
    replay = run._Run.replay

    def counted(run: run._Run, batches: Iterable[parallel._Batch]) -> Problem | None:
        items = list(batches)
        replayed.append(sum(len(batch[0]) for batch in items))
        return replay(run, items)

    monkeypatch.setattr(run._Run, "replay", counted)
    return replayed


def test_the_helper_checks_its_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(_lines(tmp_path)))
    replayed = _count_replayed(monkeypatch)
    monkeypatch.setattr(run, "PARALLEL_MIN", 0)
    assert verify_ledger(path) == VerifyResult(RECORDS, None)
    assert replayed == [RECORDS - SPLIT]


#: The real helper, in blocks of 4 lines, dying after writing two of them.
_DYING_HELPER = """
import os
from intent_ls.ledger.verify import parallel
parallel._BATCH = 4
written = []
real_write = os.write
def write(fd, data):
    if len(written) == 2:
        os._exit(7)
    written.append(fd)
    return real_write(fd, data)
os.write = write
parallel._helper_main()
"""


@pytest.mark.parametrize("damage", ["intact", "bad byte in the helper's part"])
def test_a_helper_dying_midway_leaves_the_rest_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    path = _damaged(tmp_path, damage)
    expected = _both(monkeypatch, path)
    replayed = _count_replayed(monkeypatch)
    monkeypatch.setattr(parallel, "_HELPER_CODE", _DYING_HELPER)
    monkeypatch.setattr(run, "PARALLEL_MIN", 0)
    assert verify_ledger(path) == expected
    assert replayed == [8]
