"""``intent-ls export --otlp`` after real git rebases and merges through the ledger's merge
driver: records that land in the middle of the file reach the collector exactly once."""

from __future__ import annotations

import json
from pathlib import Path

from git_clones import Clone

from tests.export.otlp_receiver import Receiver, receiver


def digests(lines: list[bytes]) -> list[str]:
    return [json.loads(line)["metadata"]["intent_ls"]["digest"] for line in lines]


def received(rx: Receiver) -> list[str]:
    return [log.attributes["intent_ls.digest"] for log in rx.logs]


def send(repo: Clone, rx: Receiver) -> str:
    done = repo.cli("export", "--otlp", rx.url, "--repo", "acme/app")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_records_rebased_into_the_middle_are_sent_exactly_once(origin: Clone) -> None:
    origin.git("checkout", "-q", "-b", "a", "main")
    a = [origin.save("src/a.py", f"a = {i}\n") for i in range(2)]
    origin.commit("a")
    origin.git("checkout", "-q", "-b", "b", "main")
    for i in range(3):
        origin.save("src/b.py", f"b = {i}\n")
        origin.commit(f"b {i}")
    with receiver() as rx:
        send(origin, rx)
        before = set(received(rx))
        rebased = origin.git("rebase", "a", check=False)
        assert rebased.returncode == 0, rebased.stdout + rebased.stderr
        lines = origin.ledger_lines()
        assert max(lines.index(line) for line in a) < max(
            i for i, d in enumerate(digests(lines)) if d in before
        )
        said = send(origin, rx)
        # a's two saves, and the merge records the driver wrote while b was replayed.
        assert f"sent {len(lines) - len(before)} record(s)" in said
        assert "the whole ledger verified" in said
        assert sorted(received(rx)) == sorted(digests(lines))
        assert "nothing new" in send(origin, rx)


def test_a_pull_with_a_merge_record_sends_it_without_a_file(origin: Clone, tmp_path: Path) -> None:
    clone = Clone(tmp_path / "clone")
    origin.git("clone", "-q", str(origin.root), str(clone.root))
    assert clone.cli("init").returncode == 0
    clone.save("src/c.py", "c = 1\n")
    clone.commit("clone work")
    origin.save("src/o.py", "o = 1\n")
    origin.commit("origin work")
    with receiver() as rx:
        send(clone, rx)
        pulled = clone.git("pull", "--no-rebase", "--no-edit", "origin", "main", check=False)
        assert pulled.returncode == 0, pulled.stdout + pulled.stderr
        lines = clone.ledger_lines()
        assert json.loads(lines[-1])["metadata"]["intent_ls"]["kind"] == "merge"
        assert "sent 2 record(s)" in send(clone, rx)  # origin's save and the merge record
        assert sorted(received(rx)) == sorted(digests(lines))
    (merge,) = [log for log in rx.logs if log.attributes["intent_ls.kind"] == "merge"]
    assert "code.file.path" not in merge.attributes
    assert merge.body.encode() == lines[-1]
