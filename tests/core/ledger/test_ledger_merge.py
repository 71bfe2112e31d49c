"""The merge-safe chain: the merge driver's union, merge records, and what ``trace
verify`` still catches after merges, rebases and cherry-picks."""

from __future__ import annotations

import itertools
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from intent_ls.common.hashing import bytes_hash
from intent_ls.ledger.merge import (
    join_lines,
    join_tips,
    merge_versions,
    resolve_conflicts,
    split_lines,
)
from intent_ls.ledger.store import GENESIS, Ledger, seal
from intent_ls.ledger.verify import CONFLICT_MESSAGE, VerifyResult, verify_ledger
from tests.core.ledger.ledger_helpers import mutation

ROOT = Path("/nonexistent-root")


def verify(data: bytes) -> VerifyResult:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_bytes(data)
        return verify_ledger(path)


def append(lines: list[bytes], i: int, intent: str = "INT-001") -> list[bytes]:
    """``lines`` plus one record appended by the real writer."""
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger(Path(tmp) / "t.jsonl", fsync=False)
        ledger.path.write_bytes(join_lines(lines))
        ledger.append(mutation(ROOT, i, intent=intent))
        return split_lines(ledger.path.read_bytes())


def grow(lines: list[bytes], count: int, start: int, intent: str = "INT-001") -> list[bytes]:
    for i in range(start, start + count):
        lines = append(lines, i, intent)
    return lines


def meta(line: bytes) -> dict:
    return json.loads(line)["metadata"]["intent_ls"]


def test_union_keeps_every_line_once_and_joins_the_tips() -> None:
    base = grow([], 3, 0)
    ours = grow(base, 2, 10, "INT-A")
    theirs = grow(base, 3, 20, "INT-B")
    merged = split_lines(merge_versions(join_lines(base), join_lines(ours), join_lines(theirs)))
    assert merged[: len(ours)] == ours
    assert merged[len(ours) : -1] == theirs[len(base) :]
    record = meta(merged[-1])
    assert record["kind"] == "merge"
    assert record["prev"] == bytes_hash(theirs[-1])
    assert record["parents"] == [bytes_hash(ours[-1])]
    assert "absent" not in record
    assert verify(join_lines(merged)).ok
    # Appending after a merge continues from the merge record.
    after = append(merged, 99)
    assert meta(after[-1])["prev"] == bytes_hash(merged[-1])
    assert verify(join_lines(after)).ok


def test_same_merge_gives_the_same_bytes_and_remerging_is_clean() -> None:
    base = grow([], 2, 0)
    ours = grow(base, 2, 10)
    theirs = grow(base, 2, 20)
    one = merge_versions(join_lines(base), join_lines(ours), join_lines(theirs))
    two = merge_versions(join_lines(base), join_lines(ours), join_lines(theirs))
    assert one == two
    assert merge_versions(join_lines(ours), one, two) == one


def test_one_sided_change_is_taken_as_is() -> None:
    base = grow([], 2, 0)
    ours = grow(base, 2, 10)
    assert merge_versions(join_lines(base), join_lines(ours), join_lines(base)) == join_lines(ours)
    assert merge_versions(join_lines(base), join_lines(base), join_lines(ours)) == join_lines(ours)


def test_cherry_pick_acknowledges_only_lines_of_the_base() -> None:
    main = grow([], 2, 0)
    branch = grow(main, 3, 10)
    picked_parent, picked = branch[:-1], branch
    main = append(main, 50)
    result = split_lines(
        merge_versions(join_lines(picked_parent), join_lines(main), join_lines(picked))
    )
    assert result[-2] == branch[-1]
    assert meta(result[-1])["absent"] == [bytes_hash(branch[-2])]
    assert verify(join_lines(result)).ok
    # A record deleted on one side is not acknowledged by merging it: still caught.
    tampered = branch[:-2] + branch[-1:]  # the side dropped its second-to-last record
    merged = merge_versions(join_lines(main[:2]), join_lines(main), join_lines(tampered))
    problem = verify(merged).problem
    assert problem is not None and "prev names no line" in problem.reason


def test_verify_catches_what_it_should_on_a_merged_ledger() -> None:
    base = grow([], 2, 0)
    ours = grow(base, 2, 10)
    theirs = grow(base, 2, 20)
    merged = split_lines(merge_versions(join_lines(base), join_lines(ours), join_lines(theirs)))
    assert verify(join_lines(merged)).ok

    def problem(lines: list[bytes]) -> str:
        found = verify(join_lines(lines)).problem
        assert found is not None
        return found.reason

    assert problem([*merged, merged[3]]).startswith("duplicated line")
    swapped = [*merged[:2], merged[3], merged[2], *merged[4:]]
    assert "reordered" in problem(swapped)
    for victim in range(len(merged) - 1):  # any removed record a later record names
        assert "chain broken" in problem(merged[:victim] + merged[victim + 1 :])
    # A record inserted in the middle, validly sealed onto an earlier line: nothing
    # names it.
    inserted = seal(mutation(ROOT, 77), bytes_hash(merged[1]))
    assert "no later record names" in problem([*merged[:3], inserted, *merged[3:]])
    # The merge record resealed without one parent: that tip is unnamed.
    record = json.loads(merged[-1])
    record["metadata"]["intent_ls"]["parents"] = []
    resealed = seal(record, record["metadata"]["intent_ls"]["prev"])
    assert "no later record names" in problem([*merged[:-1], resealed])


def test_conflict_markers_get_the_setup_message_and_resolve_keeps_both_sides() -> None:
    base = grow([], 2, 0)
    ours = grow(base, 2, 10)
    theirs = grow(base, 3, 20)
    conflicted = [
        *base,
        b"<<<<<<< HEAD",
        *ours[2:],
        b"||||||| base",
        b"=======",
        *theirs[2:],
        b">>>>>>> theirs",
    ]
    found = verify(join_lines(conflicted)).problem
    assert found is not None and found.reason == CONFLICT_MESSAGE and found.line == 3
    kept = resolve_conflicts(conflicted)
    assert kept == [*ours, *theirs[2:]]
    assert verify(join_lines(join_tips(kept))).ok


def test_legacy_single_chain_ledger_still_verifies() -> None:
    lines = grow([], 4, 0)
    assert meta(lines[0])["prev"] == GENESIS
    assert all(meta(b)["prev"] == bytes_hash(a) for a, b in itertools.pairwise(lines))
    assert verify(join_lines(lines)).records == 4


# Branches as lists of lines; operations as a user's git would do them.
ops = st.lists(
    st.tuples(st.sampled_from(["append", "merge", "rebase", "pick"]), st.integers(0, 2)),
    min_size=1,
    max_size=10,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops, st.data())
def test_any_history_of_merges_verifies_and_keeps_every_record(
    history: list[tuple[str, int]], data: st.DataObject
) -> None:
    branches = [grow([], 1, 0), grow([], 1, 0), grow([], 1, 0)]
    branches[1] = branches[2] = branches[0]
    written: list[set[bytes]] = [set(b) for b in branches]
    counter = 100
    for step, (op, other) in enumerate(history):
        me = step % 3
        if op == "append" or other == me:
            counter += 1
            branches[me] = append(branches[me], counter)
            written[me] |= set(branches[me])
            continue
        mine, theirs = branches[me], branches[other]
        common = [line for line in mine if line in set(theirs)]
        if op == "merge":
            branches[me] = split_lines(
                merge_versions(join_lines(common), join_lines(mine), join_lines(theirs))
            )
            written[me] |= written[other]
        elif op == "rebase":  # my lines replayed onto theirs, one record at a time
            result = theirs
            for at in (at for at, line in enumerate(mine) if line not in set(theirs)):
                result = split_lines(
                    merge_versions(
                        join_lines(mine[:at]), join_lines(result), join_lines(mine[: at + 1])
                    )
                )
            branches[me] = result
            written[me] |= written[other]
        elif len(theirs) > 1:  # cherry-pick their last line
            branches[me] = split_lines(
                merge_versions(join_lines(theirs[:-1]), join_lines(mine), join_lines(theirs))
            )
            written[me].add(theirs[-1])
    for lines, expected in zip(branches, written, strict=True):
        result = verify(join_lines(lines))
        assert result.ok, result.problem
        assert len(lines) == len(set(lines))
        records = {line for line in lines if meta(line).get("kind") != "merge"}
        assert {line for line in expected if meta(line).get("kind") != "merge"} <= records
    lines = branches[data.draw(st.integers(0, 2))]
    at = data.draw(st.integers(0, len(lines) - 1))
    tampered = lines[at].replace(b'"timestamp":"2', b'"timestamp":"1', 1)
    if tampered != lines[at]:
        assert not verify(join_lines([*lines[:at], tampered, *lines[at + 1 :]])).ok
